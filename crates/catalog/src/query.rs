//! The query language and its meaning.
//!
//! ```text
//! query  := or
//! or     := and ("OR" and)*          AND binds tighter than OR
//! and    := item+                    items side by side are ANDed
//! item   := "-" atom | atom          "-" excludes
//! atom   := word ["~"] | '"' words '"' | "(" or ")"
//! ```
//!
//! A word is folded and split like a file name, so `CuteKitten` or
//! `IMG1234` in a query is a phrase of its parts. `~` after a word makes it
//! fuzzy. A query of exclusions only means "everything except".

use thiserror::Error;

use crate::token::{Token, tokenize};

/// A query that does not parse, with the character (0-based, in chars) where
/// the problem is.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message} at character {position}")]
pub struct QueryError {
    /// Index of the offending character, counted in chars.
    pub position: usize,
    /// What is wrong.
    pub message: std::borrow::Cow<'static, str>,
}

impl QueryError {
    fn at(position: usize, message: impl Into<std::borrow::Cow<'static, str>>) -> QueryError {
        QueryError {
            position,
            message: message.into(),
        }
    }
}

/// A search term: one folded word, or several that must stand in order
/// (a phrase).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// The folded words; more than one is a phrase.
    pub words: Vec<String>,
    /// Tolerate typos (edit distance 1 for words up to 5 characters, 2 for
    /// longer ones).
    pub fuzzy: bool,
    /// Where it must match (`name:`, `dir:`, `caption:`, `ext:`), or
    /// anywhere.
    pub scope: Option<Scope>,
    /// For a word typed with inner punctuation (`ssl.h`, `2019-06`), its
    /// [`crate::token::literal`] form: in the default mode the term
    /// matches where that stands in the part's literal form, as file
    /// finders match what is typed. `words` still rank it (and are the
    /// seed mode's phrase).
    pub literal: Option<String>,
}

/// A field filter's part of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The file name (the path after its last `/` or `\\`).
    Name,
    /// The folders (the path before its name).
    Dir,
    /// The caption.
    Caption,
    /// The camera model.
    Camera,
    /// The date taken, as a range of prefixes: `date:2019-06..2019-08`
    /// (inclusive) or `date:2019-07` (that month).
    Date,
    /// The name's extension, compared whole (`ext:jpg` is not `ext:jp`).
    Ext,
}

/// One part of a query.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Clause {
    /// A term.
    Term(Term),
    /// Everything the inner query does not match.
    Not(Box<Query>),
    /// A parenthesised query.
    Group(Box<Query>),
}

/// A parsed query: alternatives (OR) of clause lists (AND). A clause
/// repeated in one alternative is kept once (`b b b` is `b`), and so is a
/// repeated alternative.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    /// Each alternative's clauses; an empty list matches everything.
    pub alternatives: Vec<Vec<Clause>>,
}

#[derive(Clone, Debug, PartialEq)]
enum Lexeme {
    /// `quoted`: a field filter's value was written in quotes
    /// (`camera:"canon eos"`), a phrase rather than a literal.
    Word {
        text: String,
        fuzzy: bool,
        quoted: bool,
    },
    Phrase(String),
    Open,
    Close,
    Minus,
    Or,
}

/// Splits the query into lexemes with their character positions.
fn lex(query: &str) -> Result<Vec<(usize, Lexeme)>, QueryError> {
    let chars: Vec<char> = query.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                out.push((i, Lexeme::Open));
                i += 1;
            }
            ')' => {
                out.push((i, Lexeme::Close));
                i += 1;
            }
            '"' => {
                let start = i;
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '"')
                    .map(|k| i + 1 + k);
                let Some(end) = end else {
                    return Err(QueryError::at(start, "this quote is never closed"));
                };
                out.push((start, Lexeme::Phrase(chars[i + 1..end].iter().collect())));
                i = end + 1;
            }
            // At the start of an item "-" excludes (inside a word, as in
            // 2019-07, it is part of the word).
            '-' => {
                if chars
                    .get(i + 1)
                    .is_none_or(|c| c.is_whitespace() || *c == ')')
                {
                    return Err(QueryError::at(i, "'-' needs a term right after it"));
                }
                out.push((i, Lexeme::Minus));
                i += 1;
            }
            _ => {
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '(' | ')' | '"')
                {
                    i += 1;
                }
                let mut text: String = chars[start..i].iter().collect();
                // A field filter's value in quotes: `camera:"canon eos"`.
                if chars.get(i) == Some(&'"')
                    && text.ends_with(':')
                    && scoped(&format!("{text}x")).is_some()
                {
                    let Some(end) = chars[i + 1..].iter().position(|&c| c == '"') else {
                        return Err(QueryError::at(i, "this quote is never closed"));
                    };
                    text.extend(&chars[i + 1..i + 1 + end]);
                    i += end + 2;
                    out.push((
                        start,
                        Lexeme::Word {
                            text,
                            fuzzy: false,
                            quoted: true,
                        },
                    ));
                    continue;
                }
                let fuzzy = text.ends_with('~');
                if fuzzy {
                    text.pop();
                }
                if text == "OR" && !fuzzy {
                    out.push((start, Lexeme::Or));
                } else {
                    out.push((
                        start,
                        Lexeme::Word {
                            text,
                            fuzzy,
                            quoted: false,
                        },
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// The deepest nesting of parentheses a query may have: far more than
/// anyone writes, and every walk over a query (parsing, matching,
/// ranking) recurses once a level, so this bounds their stack.
pub const MAX_DEPTH: usize = 256;

struct Parser {
    lexemes: Vec<(usize, Lexeme)>,
    at: usize,
    end: usize,
    /// Parentheses open around the current position.
    depth: usize,
    /// A word of no letter or digit passed over in the current list of
    /// terms: the error, if nothing else is in it.
    skipped: Option<(usize, String)>,
}

impl Parser {
    fn peek(&self) -> Option<&(usize, Lexeme)> {
        self.lexemes.get(self.at)
    }

    fn position(&self) -> usize {
        self.peek().map_or(self.end, |(p, _)| *p)
    }

    fn or(&mut self) -> Result<Query, QueryError> {
        let mut alternatives: Vec<Vec<Clause>> = Vec::new();
        // Hashed, so a query of many alternatives stays linear.
        let mut seen_alternatives = std::collections::HashSet::new();
        let mut after_or = false;
        loop {
            let here = self.position();
            self.skipped = None;
            let mut and = self.and()?;
            if and.is_empty() {
                return Err(match self.skipped.take() {
                    Some((at, text)) => QueryError::at(
                        at,
                        format!(
                            "{text:?} has no letter or digit, and search looks at letters and \
                             digits only (names and captions are split into words at \
                             everything else)"
                        ),
                    ),
                    None => match self.peek() {
                        _ if after_or => QueryError::at(here, "OR needs a term on each side"),
                        Some((_, Lexeme::Or)) => {
                            QueryError::at(here, "OR needs a term on each side")
                        }
                        Some((p, Lexeme::Close)) if self.depth == 0 => {
                            QueryError::at(*p, "this parenthesis was never opened")
                        }
                        _ => QueryError::at(here, "a term is missing"),
                    },
                });
            }
            // A repeated clause asks nothing more.
            let mut seen = std::collections::HashSet::new();
            and.retain(|c| seen.insert(c.clone()));
            if seen_alternatives.insert(and.clone()) {
                alternatives.push(and);
            }
            match self.peek() {
                Some((_, Lexeme::Or)) => {
                    self.at += 1;
                    after_or = true;
                }
                _ => return Ok(Query { alternatives }),
            }
        }
    }

    fn and(&mut self) -> Result<Vec<Clause>, QueryError> {
        let mut clauses = Vec::new();
        while let Some((p, lexeme)) = self.peek().cloned() {
            match lexeme {
                Lexeme::Or | Lexeme::Close => break,
                Lexeme::Minus => {
                    self.at += 1;
                    match self.peek() {
                        Some((_, Lexeme::Word { .. } | Lexeme::Phrase(_) | Lexeme::Open)) => {}
                        _ => {
                            return Err(QueryError::at(p, "'-' needs a term right after it"));
                        }
                    }
                    if let Some(atom) = self.atom()? {
                        clauses.push(Clause::Not(Box::new(Query {
                            alternatives: vec![vec![atom]],
                        })));
                    }
                }
                _ => {
                    if let Some(atom) = self.atom()? {
                        clauses.push(atom);
                    }
                }
            }
        }
        Ok(clauses)
    }

    /// A word, phrase or group; `None` for a word that folds to nothing
    /// (punctuation only), which constrains nothing.
    fn atom(&mut self) -> Result<Option<Clause>, QueryError> {
        let Some((p, lexeme)) = self.peek().cloned() else {
            return Err(QueryError::at(self.end, "a term is missing"));
        };
        self.at += 1;
        match lexeme {
            Lexeme::Word {
                text,
                fuzzy,
                quoted,
            } => match scoped(&text) {
                Some((_, "")) => Err(QueryError::at(p, "this field filter has no value")),
                Some((Scope::Date, rest)) => match date_range(rest) {
                    Ok((lo, hi)) => Ok(Some(Clause::Term(Term {
                        words: vec![lo, hi],
                        fuzzy: false,
                        scope: Some(Scope::Date),
                        literal: None,
                    }))),
                    Err(why) => Err(QueryError::at(p, why)),
                },
                Some((scope, rest)) => Ok(term(rest, fuzzy, !quoted).map(|mut t| {
                    if scope == Scope::Ext {
                        t.words = vec![crate::fold::fold(rest)];
                        t.literal = None;
                    }
                    t.scope = Some(scope);
                    Clause::Term(t)
                })),
                None => match term(&text, fuzzy, true) {
                    Some(t) => Ok(Some(Clause::Term(t))),
                    None => self.no_word(p, &text, fuzzy),
                },
            },
            Lexeme::Phrase(text) => match term(&text, false, false) {
                Some(t) => Ok(Some(Clause::Term(t))),
                None => Err(QueryError::at(p, "this phrase has no words")),
            },
            Lexeme::Open => {
                if self.depth == MAX_DEPTH {
                    return Err(QueryError::at(
                        p,
                        format!("parentheses nested deeper than {MAX_DEPTH}"),
                    ));
                }
                match self.peek() {
                    Some((_, Lexeme::Close)) => {
                        return Err(QueryError::at(p, "empty parentheses"));
                    }
                    None => return Err(QueryError::at(p, "this parenthesis is never closed")),
                    _ => {}
                }
                self.depth += 1;
                let inner = self.or();
                self.depth -= 1;
                let inner = inner?;
                match self.peek() {
                    Some((_, Lexeme::Close)) => {
                        self.at += 1;
                        Ok(Some(Clause::Group(Box::new(inner))))
                    }
                    _ => Err(QueryError::at(p, "this parenthesis is never closed")),
                }
            }
            _ => Err(QueryError::at(p, "a term is missing")),
        }
    }
}

impl Parser {
    /// A word with no letter or digit: an error where it reads as syntax
    /// from elsewhere (a wildcard, a lone `~`, a field with no name), else
    /// passed over (noted, in case nothing else is there).
    fn no_word(&mut self, p: usize, text: &str, fuzzy: bool) -> Result<Option<Clause>, QueryError> {
        if text.contains(['*', '?']) {
            return Err(QueryError::at(
                p,
                "there are no wildcards: a word already finds every name or caption that \
                 holds it (kit finds kitten), and ~ after a word allows a typo",
            ));
        }
        if text.is_empty() && fuzzy {
            return Err(QueryError::at(
                p,
                "'~' allows a typo in the word it follows: write it right after the word, \
                 as in kiten~",
            ));
        }
        if text.contains(':') {
            return Err(QueryError::at(
                p,
                "':' makes a field filter: a field before it (name, dir, caption, camera, \
                 ext, date) and a value after it, as in name:rome",
            ));
        }
        let shown = if fuzzy {
            format!("{text}~")
        } else {
            text.to_owned()
        };
        self.skipped.get_or_insert((p, shown));
        Ok(None)
    }
}

/// A word or phrase as a term: its folded words, split like a file name;
/// a word (`as_typed`) with inner punctuation also keeps its literal form.
fn term(text: &str, fuzzy: bool, as_typed: bool) -> Option<Term> {
    let words: Vec<String> = tokenize(text).into_iter().map(|t| t.word).collect();
    // Punctuation inside the word (not before or after it, which the
    // literal form drops) makes it literal.
    let literal = (as_typed && !fuzzy)
        .then(|| crate::token::literal(text))
        .filter(|l| l.bytes().any(crate::token::is_separator));
    (!words.is_empty()).then_some(Term {
        words,
        fuzzy,
        scope: None,
        literal,
    })
}

/// A date filter's bounds: `A..B` or one `A` (both ends the same), each
/// a year, a month of it or a day (`2019`, `2019-06`, `2019-06-30`) that
/// exists, the range not ending before it starts.
fn date_range(text: &str) -> Result<(String, String), String> {
    let (lo, hi) = text.split_once("..").unwrap_or((text, text));
    let a = calendar_date(lo)?;
    let b = calendar_date(hi)?;
    // Compared at the shorter one's precision: 2019-06..2019 is fine.
    let n = a.len().min(b.len());
    if a[..n] > b[..n] {
        return Err(format!("{lo}..{hi}: the range ends before it starts"));
    }
    Ok((lo.to_owned(), hi.to_owned()))
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, checked against the calendar;
/// returns its numbers.
fn calendar_date(d: &str) -> Result<Vec<u32>, String> {
    let shape = "a date looks like 2019, 2019-06 or 2019-06-30, and a range like \
                 2019-06..2019-08";
    let parts: Vec<&str> = d.split('-').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let ok_shape = match parts.as_slice() {
        [y] => digits(y, 4),
        [y, m] => digits(y, 4) && digits(m, 2),
        [y, m, day] => digits(y, 4) && digits(m, 2) && digits(day, 2),
        _ => false,
    };
    if !ok_shape {
        return Err(format!("{d:?}: {shape}"));
    }
    let n: Vec<u32> = parts.iter().map(|p| p.parse().unwrap_or(0)).collect();
    if let Some(&m) = n.get(1)
        && !(1..=12).contains(&m)
    {
        return Err(format!("{d}: there is no month {m}"));
    }
    if let (Some(&m), Some(&day)) = (n.get(1), n.get(2)) {
        let y = n[0];
        let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
        let days = match m {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if !(1..=days).contains(&day) {
            const MONTHS: [&str; 12] = [
                "January",
                "February",
                "March",
                "April",
                "May",
                "June",
                "July",
                "August",
                "September",
                "October",
                "November",
                "December",
            ];
            return Err(format!(
                "{d}: {} {} has {days} days",
                MONTHS[(m - 1) as usize],
                n[0]
            ));
        }
    }
    Ok(n)
}

/// A `field:value` word's field and value, for the known fields.
fn scoped(text: &str) -> Option<(Scope, &str)> {
    let (field, rest) = text.split_once(':')?;
    let scope = match field.to_ascii_lowercase().as_str() {
        "name" => Scope::Name,
        "dir" => Scope::Dir,
        "caption" => Scope::Caption,
        "ext" => Scope::Ext,
        "camera" => Scope::Camera,
        "date" => Scope::Date,
        _ => return None,
    };
    Some((scope, rest))
}

/// Parses a query. An empty query (or one of punctuation only) matches
/// everything.
pub fn parse(query: &str) -> Result<Query, QueryError> {
    let lexemes = lex(query)?;
    let end = query.chars().count();
    if lexemes.is_empty() {
        return Ok(Query {
            alternatives: vec![Vec::new()],
        });
    }
    let mut parser = Parser {
        lexemes,
        at: 0,
        end,
        depth: 0,
        skipped: None,
    };
    let q = parser.or()?;
    if let Some((p, _)) = parser.peek() {
        // Only a ')' can stop the top level early.
        return Err(QueryError::at(*p, "this parenthesis was never opened"));
    }
    Ok(q)
}

/// Levenshtein distance, stopping early once it exceeds `limit`.
fn within(a: &[char], b: &[char], limit: usize) -> bool {
    if a.len().abs_diff(b.len()) > limit {
        return false;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut best = cur[0];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            best = best.min(cur[j + 1]);
        }
        if best > limit {
            return false;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] <= limit
}

/// [`within`] for a `b` shorter than 64 items, on the stack.
fn within_short(a: &[u8], b: &[u8], limit: usize) -> bool {
    if a.len().abs_diff(b.len()) > limit {
        return false;
    }
    let n = b.len();
    let mut prev = [0u8; 65];
    let mut cur = [0u8; 65];
    for (j, p) in prev.iter_mut().enumerate().take(n + 1) {
        *p = j as u8;
    }
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = (i + 1).min(255) as u8;
        let mut best = cur[0];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + u8::from(ca != cb))
                .min(prev[j + 1].saturating_add(1))
                .min(cur[j].saturating_add(1));
            best = best.min(cur[j + 1]);
        }
        if usize::from(best) > limit {
            return false;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    usize::from(prev[n]) <= limit
}

impl Term {
    /// The typos a fuzzy word tolerates.
    pub fn tolerance(word: &str) -> usize {
        if word.chars().count() <= 5 { 1 } else { 2 }
    }

    /// Whether one of the term's words matches one token (see
    /// [`Term::matches_tokens`]).
    pub fn word_matches(&self, word: &str, token: &str) -> bool {
        if token.contains(word) {
            return true;
        }
        if !self.fuzzy {
            return false;
        }
        let limit = Term::tolerance(word);
        if word.is_ascii() && token.is_ascii() && token.len() < 64 {
            // The common case, without allocating: bytes are characters.
            return within_short(word.as_bytes(), token.as_bytes(), limit);
        }
        let (w, t): (Vec<char>, Vec<char>) = (word.chars().collect(), token.chars().collect());
        within(&w, &t, limit)
    }

    /// Whether the term matches a string's tokens: a word matches a token
    /// that contains it (the seed's `LIKE '%word%'`), or, when fuzzy, one
    /// within its tolerance; a phrase's words must match consecutive tokens.
    pub fn matches_tokens(&self, tokens: &[Token]) -> bool {
        let n = self.words.len();
        tokens.windows(n).any(|w| {
            w.iter()
                .zip(&self.words)
                .all(|(t, word)| self.word_matches(word, &t.word))
        })
    }
}

/// How terms match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// The seed's: every word matches a token that contains it.
    Seed,
    /// Beyond the seed: a plain word of 3 or more characters matches
    /// anywhere in the folded string, across token boundaries (`tek` finds
    /// `CuteKitten`); shorter words, phrases and fuzzy words match as in
    /// the seed mode.
    #[default]
    Default,
}

impl Term {
    /// Whether this term is matched by substring in the default mode.
    pub fn is_substring(&self) -> bool {
        !self.fuzzy && self.words.len() == 1 && self.words[0].chars().count() >= 3
    }
}

/// A string as the search sees it: folded whole, as tokens, and in
/// literal form.
#[derive(Clone, Debug)]
pub struct Prepared {
    folded: String,
    tokens: Vec<Token>,
    literal: String,
}

impl Prepared {
    /// Folds and tokenizes a string.
    pub fn new(text: &str) -> Prepared {
        Prepared {
            folded: crate::fold::fold(text),
            tokens: tokenize(text),
            literal: crate::token::literal(text),
        }
    }
}

/// A file as the search sees it: its path (with where the name's tokens
/// start) and its caption.
#[derive(Clone, Debug)]
pub struct Document {
    path: Prepared,
    caption: Prepared,
    /// Position of the name's first token in the path's tokens.
    name_start: u32,
    dir_folded: String,
    name_folded: String,
    /// The literal forms of the folders, the name, and both joined by `/`.
    dir_literal: String,
    name_literal: String,
    path_literal: String,
    ext: String,
    camera: Prepared,
    /// When the photo was taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    date: String,
}

/// Splits a path into folders and name at its last `/` or `\`.
pub fn split_path(path: &str) -> (&str, &str) {
    match path.rfind(['/', '\\']) {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

/// The folded extension of a name: after its last `.`, if any.
pub fn extension(name: &str) -> String {
    match name.rfind('.') {
        Some(i) => crate::fold::fold(&name[i + 1..]),
        None => String::new(),
    }
}

impl Document {
    /// A file's path and caption, prepared.
    pub fn new(path: &str, caption: &str) -> Document {
        Document::with_meta(path, caption, "", "")
    }

    /// A file with its camera model and date taken (`YYYY-MM-DD HH:MM:SS`,
    /// or empty).
    pub fn with_meta(path: &str, caption: &str, camera: &str, date: &str) -> Document {
        let (dir, name) = split_path(path);
        let (dir_literal, name_literal) = (crate::token::literal(dir), crate::token::literal(name));
        let path_literal = if dir_literal.is_empty() {
            name_literal.clone()
        } else {
            format!("{dir_literal}/{name_literal}")
        };
        Document {
            path: Prepared::new(path),
            caption: Prepared::new(caption),
            name_start: tokenize(dir).len() as u32,
            dir_folded: crate::fold::fold(dir),
            name_folded: crate::fold::fold(name),
            dir_literal,
            name_literal,
            path_literal,
            ext: extension(name),
            camera: Prepared::new(camera),
            date: date.to_owned(),
        }
    }
}

/// A part of a file a term can be matched against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The whole path.
    Path,
    /// The path's name (its words from the name's first on).
    Name,
    /// The path's folders (its words before the name's).
    Dir,
    /// The caption.
    Caption,
    /// The camera model.
    Camera,
}

/// A file as the matcher asks about it. [`Document`] answers plainly (the
/// reference meaning); the search index answers from its marked strings.
pub(crate) trait View {
    /// The folded words of a part, in order.
    fn words(&self, part: Part) -> Vec<&str>;
    /// Whether the part's folded text contains `word` (across word
    /// boundaries: `tek` in `CuteKitten`).
    fn folded_contains(&self, part: Part, word: &str) -> bool;
    /// Whether one word of the part contains `word`.
    fn word_contains(&self, part: Part, word: &str) -> bool {
        self.words(part).iter().any(|w| w.contains(word))
    }
    /// Whether the part's [`crate::token::literal`] form contains
    /// `literal` (the path's is its folders' and its name's, joined by
    /// `/`).
    fn literal_contains(&self, part: Part, literal: &str) -> bool;
    /// The name's folded extension.
    fn ext(&self) -> &[u8];
    /// The date taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    fn date(&self) -> &[u8];
}

impl View for Document {
    fn words(&self, part: Part) -> Vec<&str> {
        let split = (self.name_start as usize).min(self.path.tokens.len());
        let tokens: &[Token] = match part {
            Part::Path => &self.path.tokens,
            Part::Name => &self.path.tokens[split..],
            Part::Dir => &self.path.tokens[..split],
            Part::Caption => &self.caption.tokens,
            Part::Camera => &self.camera.tokens,
        };
        tokens.iter().map(|t| t.word.as_str()).collect()
    }

    fn folded_contains(&self, part: Part, word: &str) -> bool {
        match part {
            Part::Path => self.path.folded.contains(word),
            Part::Name => self.name_folded.contains(word),
            Part::Dir => self.dir_folded.contains(word),
            Part::Caption => self.caption.folded.contains(word),
            Part::Camera => self.camera.folded.contains(word),
        }
    }

    fn literal_contains(&self, part: Part, literal: &str) -> bool {
        match part {
            Part::Path => self.path_literal.contains(literal),
            Part::Name => self.name_literal.contains(literal),
            Part::Dir => self.dir_literal.contains(literal),
            Part::Caption => self.caption.literal.contains(literal),
            Part::Camera => self.camera.literal.contains(literal),
        }
    }

    fn ext(&self) -> &[u8] {
        self.ext.as_bytes()
    }

    fn date(&self) -> &[u8] {
        self.date.as_bytes()
    }
}

impl Term {
    /// Whether the term matches the document in `mode`.
    pub fn matches_document(&self, mode: Mode, d: &Document) -> bool {
        self.matches_view(mode, d)
    }

    pub(crate) fn matches_view(&self, mode: Mode, v: &impl View) -> bool {
        let word = self.words.first().map(String::as_str).unwrap_or("");
        let parts: &[Part] = match self.scope {
            Some(Scope::Ext) => return v.ext() == word.as_bytes(),
            Some(Scope::Date) => {
                let (lo, hi) = (word, self.words.get(1).map_or("", String::as_str));
                let date = v.date();
                // Bytes, so a stored date with stray non-ASCII cannot split
                // a character.
                return !date.is_empty()
                    && date >= lo.as_bytes()
                    && date[..hi.len().min(date.len())] <= *hi.as_bytes();
            }
            None => &[Part::Path, Part::Caption],
            Some(Scope::Name) => &[Part::Name],
            Some(Scope::Dir) => &[Part::Dir],
            Some(Scope::Caption) => &[Part::Caption],
            Some(Scope::Camera) => &[Part::Camera],
        };
        if mode == Mode::Default
            && let Some(literal) = &self.literal
        {
            parts.iter().any(|&p| v.literal_contains(p, literal))
        } else if mode == Mode::Default && self.is_substring() {
            parts.iter().any(|&p| v.folded_contains(p, word))
        } else if !self.fuzzy && self.words.len() == 1 {
            parts.iter().any(|&p| v.word_contains(p, word))
        } else {
            parts.iter().any(|&p| self.matches_words(&v.words(p)))
        }
    }

    /// Whether the term matches a string's words (see
    /// [`Term::matches_tokens`]).
    fn matches_words(&self, words: &[&str]) -> bool {
        words.windows(self.words.len()).any(|w| {
            w.iter()
                .zip(&self.words)
                .all(|(t, word)| self.word_matches(word, t))
        })
    }
}

impl Query {
    /// Whether the query matches a file given as `[path, caption]` (a
    /// missing caption is empty) in the given mode.
    pub fn matches_in(&self, mode: Mode, strings: &[&str]) -> bool {
        let d = Document::new(
            strings.first().copied().unwrap_or(""),
            strings.get(1).copied().unwrap_or(""),
        );
        self.matches_document(mode, &d)
    }

    /// [`Query::matches_in`] in the seed mode.
    pub fn matches(&self, strings: &[&str]) -> bool {
        self.matches_in(Mode::Seed, strings)
    }

    /// Whether the query matches a prepared document.
    pub fn matches_document(&self, mode: Mode, d: &Document) -> bool {
        self.matches_view(mode, d)
    }

    pub(crate) fn matches_view(&self, mode: Mode, v: &impl View) -> bool {
        self.alternatives
            .iter()
            .any(|clauses| alternative_matches(clauses, mode, v))
    }

    /// Which alternatives the view matches: bit `i` for alternative `i`,
    /// of the first 64.
    pub(crate) fn matching_alternatives(&self, mode: Mode, v: &impl View) -> u64 {
        self.alternatives
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, clauses)| alternative_matches(clauses, mode, v))
            .fold(0, |m, (i, _)| m | 1 << i)
    }
}

/// Whether an alternative excludes what it asks for (`anna -anna`,
/// `anna -ann`): one of its terms implies a term it excludes, so no file
/// can match it.
pub(crate) fn contradicts_itself(clauses: &[Clause], mode: Mode) -> bool {
    let excluded = clauses.iter().filter_map(|c| match c {
        Clause::Not(q) => match q.alternatives.as_slice() {
            [alternative] => match alternative.as_slice() {
                [Clause::Term(t)] => Some(t),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    });
    let wanted: Vec<&Term> = clauses
        .iter()
        .filter_map(|c| match c {
            Clause::Term(t) => Some(t),
            _ => None,
        })
        .collect();
    excluded
        .into_iter()
        .any(|n| wanted.iter().any(|p| p.implies(n, mode)))
}

impl Term {
    /// Whether every file this term matches also matches `other`
    /// (answering false where unsure): exact single words in the same
    /// part, `other`'s inside this one's, and matched the same way (both
    /// within a word, or both as substrings).
    fn implies(&self, other: &Term, mode: Mode) -> bool {
        let ([word], [inner]) = (self.words.as_slice(), other.words.as_slice()) else {
            return false;
        };
        let same_way = mode == Mode::Seed || self.is_substring() == other.is_substring();
        !self.fuzzy
            && !other.fuzzy
            && self.scope == other.scope
            && !matches!(self.scope, Some(Scope::Ext | Scope::Date))
            && same_way
            && word.contains(inner.as_str())
    }
}

/// Whether every clause of one alternative holds.
fn alternative_matches(clauses: &[Clause], mode: Mode, v: &impl View) -> bool {
    clauses.iter().all(|c| match c {
        Clause::Term(t) => t.matches_view(mode, v),
        Clause::Not(q) => !q.matches_view(mode, v),
        Clause::Group(q) => q.matches_view(mode, v),
    })
}

impl Query {
    /// The query with every word made fuzzy (`--fuzzy`): plain words,
    /// phrases and `name:`, `dir:`, `caption:`, `camera:` terms; `ext:` and
    /// `date:` stay exact.
    pub fn fuzzy(mut self) -> Query {
        for clauses in &mut self.alternatives {
            for c in clauses {
                match c {
                    Clause::Term(t) => {
                        if !matches!(t.scope, Some(Scope::Ext | Scope::Date)) {
                            t.fuzzy = true;
                            t.literal = None;
                        }
                    }
                    Clause::Not(q) | Clause::Group(q) => {
                        let inner = std::mem::replace(
                            q.as_mut(),
                            Query {
                                alternatives: Vec::new(),
                            },
                        );
                        **q = inner.fuzzy();
                    }
                }
            }
        }
        self
    }

    /// The terms that must appear (not under a `-`), in query order.
    fn wanted(&self) -> Vec<&Term> {
        self.wanted_by_alternative().into_iter().flatten().collect()
    }

    /// The wanted terms of each alternative (a group's all count), each
    /// once: a repeated term asks nothing more (`b b b` is `b`).
    pub(crate) fn wanted_by_alternative(&self) -> Vec<Vec<&Term>> {
        self.alternatives
            .iter()
            .map(|clauses| {
                let mut out = Vec::new();
                for c in clauses {
                    match c {
                        Clause::Term(t) => out.push(t),
                        Clause::Group(g) => out.extend(g.wanted()),
                        Clause::Not(_) => {}
                    }
                }
                let mut seen = std::collections::HashSet::with_capacity(out.len());
                out.retain(|t| seen.insert(*t));
                out
            })
            .collect()
    }

    /// How well a matching document fits, lower is better (the seed's
    /// "Further ideas": words close together and in the query's order rank
    /// higher). Within each string, for the wanted terms that occur there,
    /// the best choice of one position per term is scored as
    /// `extra distance + 3 × words out of order`; terms missing from the
    /// string add 8 each; the document scores its best string. Each
    /// alternative of an OR that the document matches is scored on its own
    /// terms, and the best counts (`cat cute OR dog` does not punish a dog
    /// for having no cat). A fuzzy
    /// term found only with a typo adds 4, so exact matches come first. A
    /// single plain term scores 0 wherever it is.
    ///
    /// A repeated term counts once. The best arrangement is found by a
    /// pruned search of at most 32,768 steps
    /// (exact in all but contrived cases) for up to six distinct terms;
    /// with more, it is the in-order choice (each term at its first place
    /// after the previous one's), so a query of any length ranks in time
    /// linear in its length.
    pub fn rank(&self, mode: Mode, d: &Document) -> u32 {
        self.rank_view(mode, d)
    }

    pub(crate) fn rank_view(&self, mode: Mode, v: &impl View) -> u32 {
        self.rank_counted(mode, v, &mut 0)
    }

    /// [`Query::rank`], adding the arrangement steps taken to `work`.
    pub(crate) fn rank_counted(&self, mode: Mode, v: &impl View, work: &mut u64) -> u32 {
        self.alternatives
            .iter()
            .zip(self.wanted_by_alternative())
            .filter(|(clauses, _)| alternative_matches(clauses, mode, v))
            .map(|(_, wanted)| rank_terms(&wanted, v, work))
            .min()
            .unwrap_or(0)
    }
}

/// A document's score for one alternative's wanted terms (see
/// [`Query::rank`]).
fn rank_terms(wanted: &[&Term], v: &impl View, work: &mut u64) -> u32 {
    if wanted.len() < 2 && !wanted.iter().any(|t| t.fuzzy) {
        return 0;
    }
    let mut best = u32::MAX;
    for part in [Part::Path, Part::Caption] {
        let words = v.words(part);
        // Where each term starts in this string (its first word's
        // positions), at most eight each.
        let at: Vec<Vec<u32>> = wanted
            .iter()
            .map(|t| {
                let n = t.words.len();
                words
                    .windows(n)
                    .enumerate()
                    .filter(|(_, w)| {
                        w.iter()
                            .zip(&t.words)
                            .all(|(tok, word)| t.word_matches(word, tok))
                    })
                    .map(|(i, _)| i as u32)
                    .take(8)
                    .collect()
            })
            .collect();
        let present: Vec<&[u32]> = at
            .iter()
            .filter(|p| !p.is_empty())
            .map(Vec::as_slice)
            .collect();
        let missing = (wanted.len() - present.len()) as u32;
        // Fuzzy terms found here only with a typo rank below exact ones.
        let typos = wanted
            .iter()
            .zip(&at)
            .filter(|(t, p)| t.fuzzy && !p.is_empty())
            .filter(|(t, _)| {
                !words.windows(t.words.len()).any(|w| {
                    w.iter()
                        .zip(&t.words)
                        .all(|(tok, word)| tok.contains(word.as_str()))
                })
            })
            .count() as u32;
        let score = 8 * missing + 4 * typos + crate::rank::best_arrangement_counted(&present, work);
        best = best.min(score);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The stack-only distance agrees with the general one.
        #[test]
        fn short_distance_agrees(a in "[abc]{0,12}", b in "[abc]{0,12}", limit in 0usize..4) {
            let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            prop_assert_eq!(within_short(a.as_bytes(), b.as_bytes(), limit), within(&ca, &cb, limit));
        }
    }
}
