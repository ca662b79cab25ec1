//! The tag cloud: tags drawn from each photo's caption (its EXIF/XMP
//! keywords and descriptions), camera model, file name and folder, counted
//! over the current result.
//!
//! A caption is the metadata's parts joined by `" | "`; a short part (at
//! most three words: a keyword such as "Golden Gate") is one tag, a longer
//! one (a description) gives its words. File names and folders give their
//! words, less the ones cameras write on every file (`IMG`, `DSC`, …) and
//! numbers. Which tags a result shows is decided by how telling they are:
//! the count in the result times the inverse of how common the tag is in
//! the whole library, so `jpg` loses to `kitten`; a tag every photo of the
//! library carries is left out (it cannot narrow anything).
//!
//! Each tag carries the query term that finds it (`caption:golden_gate`,
//! `camera:x100v`, `name:kitten`, `dir:holiday`): clicking a tag adds the
//! term to the query, which narrows the result. A term can find more than
//! the tag counted (`dir:day` is in `Birthday` too), so the catalogue
//! thread counts each tag's term against the result and the cloud shows
//! those counts.
//!
//! Tags show as first written (`Café`, `X100V`), found whatever the case
//! or accents. The words the user or the photo's keywords gave weigh most
//! in choosing a cloud's tags, folder names next, camera models and
//! file-name fragments least.

use std::collections::HashMap;

use crate::library::Photo;

/// Where a tag comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TagKind {
    /// A keyword, or a word of a description.
    Caption,
    /// The camera model.
    Camera,
    /// A word of the file's name.
    Name,
    /// A word of the folder's name.
    Folder,
}

impl TagKind {
    /// How much a tag of this kind counts in choosing a cloud's tags: the
    /// words the user (or the photo's keywords) gave weigh most, folder
    /// names next, camera models and file-name fragments least.
    pub fn weight(self) -> f64 {
        match self {
            TagKind::Caption => 4.0,
            TagKind::Folder => 2.0,
            TagKind::Camera | TagKind::Name => 1.0,
        }
    }
}

/// One tag of the dictionary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagDef {
    /// As first seen (case kept).
    pub text: String,
    /// The query term that finds it.
    pub term: String,
    /// Where it comes from.
    pub kind: TagKind,
}

/// A tag of a result's cloud.
#[derive(Clone, Debug, PartialEq)]
pub struct CloudTag {
    /// The tag.
    pub text: String,
    /// The query term that finds it.
    pub term: String,
    /// Photos of the result carrying it; once `exact`, what clicking it
    /// shows (the query with its term added, as the catalogue answers).
    pub count: u32,
    /// Whether `count` is the catalogue's answer (it comes a moment after
    /// the cloud).
    pub exact: bool,
    /// 0 for the rarest shown, 1 for the most frequent (log scale): the
    /// font size.
    pub weight: f32,
    /// Where the photos have it: the same word from a caption and a folder
    /// is one tag (issue 48: "Berlin" twice), its term their OR.
    pub sources: Vec<TagKind>,
}

impl TagKind {
    /// In words, for a tag's hover text.
    pub fn source_text(self) -> &'static str {
        match self {
            TagKind::Caption => "a caption or keyword",
            TagKind::Camera => "the camera",
            TagKind::Name => "a file name",
            TagKind::Folder => "a folder",
        }
    }
}

/// Results smaller than this show name words of a single photo too.
const FEW: usize = 20;

/// Words cameras and phones put in every file name: no tag.
const GENERIC_NAME_WORDS: &[&str] = &[
    "img", "dsc", "dscn", "dscf", "pxl", "mvimg", "dji", "gopr", "sam", "wp", "pict", "photo",
    "image", "imag", "jpg", "jpeg", "png", "heic", "raw", "edit", "edited", "copy", "burst",
    "cover", "portrait", "mg", "p", "pano",
];

/// Common words of descriptions and names: no tag.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "this", "that", "are", "was", "were", "has", "have",
    "not", "but", "its", "into", "onto", "over", "our", "your", "his", "her", "their", "there",
    "here", "who", "what", "when", "where", "which", "you", "all", "any", "one", "two", "picture",
    "photo", "image", "des", "der", "die", "das", "und", "les", "une", "est",
];

/// Every photo's tags, and how many photos carry each.
#[derive(Clone, Debug, Default)]
pub struct TagIndex {
    defs: Vec<TagDef>,
    /// (kind, folded key) → tag.
    lookup: HashMap<(TagKind, String), u32>,
    /// Each photo's tags, each once.
    per_photo: Vec<Box<[u32]>>,
    /// How many photos carry each tag.
    photos_with: Vec<u32>,
}

impl TagIndex {
    /// The tags of `photos` (indexed as the slice is).
    pub fn new(photos: &[Photo]) -> TagIndex {
        let mut ix = TagIndex::default();
        for p in photos {
            let tags = ix.tags_of(p);
            for &t in tags.iter() {
                ix.photos_with[t as usize] += 1;
            }
            ix.per_photo.push(tags);
        }
        ix
    }

    /// Replaces photo `i`'s tags (its caption changed).
    pub fn retag(&mut self, i: usize, photo: &Photo) {
        if i >= self.per_photo.len() {
            return;
        }
        for &t in self.per_photo[i].iter() {
            self.photos_with[t as usize] -= 1;
        }
        let tags = self.tags_of(photo);
        for &t in tags.iter() {
            self.photos_with[t as usize] += 1;
        }
        self.per_photo[i] = tags;
    }

    /// Photo `i`'s tags.
    pub fn of(&self, i: usize) -> impl Iterator<Item = &TagDef> {
        self.per_photo
            .get(i)
            .into_iter()
            .flat_map(|t| t.iter().map(|&t| &self.defs[t as usize]))
    }

    /// The `max` most telling tags of the photos `rows`, alphabetically.
    /// Tags that read the same, case and accents aside, are one tag of the
    /// cloud whatever their sources (`Berlin` from a caption and from a
    /// folder, `CANON` and `canon`): counted once per photo, shown as the
    /// weightiest source writes it, found by the OR of their terms.
    pub fn cloud(&self, rows: &[u32], max: usize) -> Vec<CloudTag> {
        // Groups of tags, met as the rows are counted.
        let mut group_of: HashMap<u32, usize> = HashMap::new();
        let mut by_text: HashMap<String, usize> = HashMap::new();
        let mut members: Vec<Vec<u32>> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        let mut seen: Vec<usize> = Vec::new();
        for &r in rows {
            let Some(tags) = self.per_photo.get(r as usize) else {
                continue;
            };
            seen.clear();
            for &t in tags.iter() {
                let g = match group_of.get(&t) {
                    Some(&g) => g,
                    None => {
                        let key = catalog::fold(&self.defs[t as usize].text);
                        let g = *by_text.entry(key).or_insert_with(|| {
                            members.push(Vec::new());
                            counts.push(0);
                            members.len() - 1
                        });
                        members[g].push(t);
                        group_of.insert(t, g);
                        g
                    }
                };
                if !seen.contains(&g) {
                    seen.push(g);
                    counts[g] += 1;
                }
            }
        }
        // The weightiest source first (a caption's spelling over a folder's).
        for m in &mut members {
            m.sort_by(|&a, &b| {
                let (a, b) = (&self.defs[a as usize], &self.defs[b as usize]);
                b.kind
                    .weight()
                    .total_cmp(&a.kind.weight())
                    .then(a.kind.cmp(&b.kind))
            });
        }
        let total = self.per_photo.len().max(1) as f64;
        let everywhere = self.per_photo.len() as u32;
        let common_of = |g: usize| {
            members[g]
                .iter()
                .map(|&t| self.photos_with[t as usize])
                .max()
                .unwrap_or(0)
        };
        let mut scored: Vec<(f64, usize, u32)> = counts
            .iter()
            .enumerate()
            .map(|(g, &n)| (g, n))
            // A tag every photo carries narrows nothing (the folder all of
            // them are in).
            .filter(|&(g, _)| everywhere <= 1 || common_of(g) < everywhere)
            // A word of one file's name is no way to browse a large result
            // ("very", "long", "name" of one long name).
            .filter(|&(g, n)| {
                n > 1
                    || rows.len() < FEW
                    || members[g]
                        .iter()
                        .any(|&t| self.defs[t as usize].kind != TagKind::Name)
            })
            .map(|(g, n)| {
                let common = common_of(g).max(1) as f64;
                let kind = members[g]
                    .first()
                    .map_or(1.0, |&t| self.defs[t as usize].kind.weight());
                (kind * n as f64 * (1.0 + total / common).ln(), g, n)
            })
            .collect();
        let text_of = |g: usize| {
            members[g]
                .first()
                .map_or("", |&t| self.defs[t as usize].text.as_str())
        };
        // Most telling first; ties by text, so the cloud is stable.
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| text_of(a.1).cmp(text_of(b.1)))
        });
        scored.truncate(max);
        let (lo, hi) = scored
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), s| (lo.min(s.2), hi.max(s.2)));
        let span = ((hi as f32).ln() - (lo as f32).ln()).max(f32::EPSILON);
        let mut cloud: Vec<CloudTag> = scored
            .into_iter()
            .map(|(_, g, n)| {
                let defs: Vec<&TagDef> =
                    members[g].iter().map(|&t| &self.defs[t as usize]).collect();
                let mut sources: Vec<TagKind> = defs.iter().map(|d| d.kind).collect();
                sources.dedup();
                let term = match defs.as_slice() {
                    [one] => one.term.clone(),
                    many => format!(
                        "({})",
                        many.iter()
                            .map(|d| d.term.as_str())
                            .collect::<Vec<_>>()
                            .join(" OR ")
                    ),
                };
                CloudTag {
                    text: text_of(g).to_owned(),
                    term,
                    count: n,
                    exact: false,
                    weight: if hi == lo {
                        0.5
                    } else {
                        ((n as f32).ln() - (lo as f32).ln()) / span
                    },
                    sources,
                }
            })
            .collect();
        cloud.sort_by(|a, b| {
            catalog::fold(&a.text)
                .cmp(&catalog::fold(&b.text))
                .then_with(|| a.term.cmp(&b.term))
        });
        cloud
    }

    /// The tag ids of one photo, each once, adding new tags to the
    /// dictionary.
    fn tags_of(&mut self, p: &Photo) -> Box<[u32]> {
        let mut out: Vec<u32> = Vec::new();
        for part in p.caption.split('|').map(str::trim) {
            if part.is_empty() || part == p.camera.trim() {
                continue;
            }
            let words = catalog::tokenize(part);
            if words.len() <= 3 && part.chars().count() <= 30 {
                if words.iter().any(|w| telling(&w.word)) {
                    out.push(self.intern(TagKind::Caption, part, &words));
                }
            } else {
                self.word_tags(TagKind::Caption, part, &words, &mut out);
            }
        }
        let camera = p.camera.trim();
        if !camera.is_empty() {
            let words = catalog::tokenize(camera);
            if !words.is_empty() {
                out.push(self.intern(TagKind::Camera, camera, &words));
            }
        }
        let stem = p.name.rsplit_once('.').map_or(p.name.as_str(), |(s, _)| s);
        let (dir, _) = catalog::split_path(&p.text_path);
        let (_, folder) = catalog::split_path(dir);
        for (kind, text) in [(TagKind::Name, stem), (TagKind::Folder, folder)] {
            let words = catalog::tokenize(text);
            self.word_tags(kind, text, &words, &mut out);
        }
        out.sort_unstable();
        out.dedup();
        out.into_boxed_slice()
    }

    /// One tag per telling word of `text` (`words` is its tokens). The
    /// words as written are worked out only when a word is new to the
    /// dictionary (most photos' words are not).
    fn word_tags(
        &mut self,
        kind: TagKind,
        text: &str,
        words: &[catalog::Token],
        out: &mut Vec<u32>,
    ) {
        let mut written: Option<Vec<String>> = None;
        for (k, w) in words.iter().enumerate() {
            let word = w.word.as_str();
            if !telling(word)
                || STOP_WORDS.contains(&word)
                || (kind != TagKind::Caption && GENERIC_NAME_WORDS.contains(&word))
            {
                continue;
            }
            if let Some(&t) = self.lookup.get(&(kind, word.to_owned())) {
                out.push(t);
                continue;
            }
            let as_written = written.get_or_insert_with(|| catalog::words_as_written(text));
            let shown = as_written.get(k).map_or(word, String::as_str).to_owned();
            out.push(self.intern(kind, &shown, std::slice::from_ref(w)));
        }
    }

    fn intern(&mut self, kind: TagKind, text: &str, words: &[catalog::Token]) -> u32 {
        let key: Vec<&str> = words.iter().map(|w| w.word.as_str()).collect();
        let key = key.join("_");
        if let Some(&t) = self.lookup.get(&(kind, key.clone())) {
            return t;
        }
        let scope = match kind {
            TagKind::Caption => "caption",
            TagKind::Camera => "camera",
            TagKind::Name => "name",
            TagKind::Folder => "dir",
        };
        let t = self.defs.len() as u32;
        self.defs.push(TagDef {
            text: text.to_owned(),
            // A single word reads better as it was written (`X100V`
            // rather than `"x 100 v"`); both find the same. Several words
            // are a quoted phrase (joined by punctuation they would be
            // taken literally).
            term: if text.chars().all(char::is_alphanumeric) {
                format!("{scope}:{}", catalog::fold(text))
            } else {
                format!("{scope}:\"{}\"", key.replace('_', " "))
            },
            kind,
        });
        self.photos_with.push(0);
        self.lookup.insert((kind, key), t);
        t
    }
}

/// A word worth a tag: three characters or more, not only digits.
fn telling(word: &str) -> bool {
    word.chars().count() >= 3 && !word.chars().all(|c| c.is_numeric())
}

/// The query with `term` added (ANDed with all of it), or taken out if it
/// is there: what clicking a tag does to the search box's text.
pub fn toggle_term(query: &str, term: &str) -> String {
    let words: Vec<&str> = terms(query);
    if words.contains(&term) {
        let kept: Vec<&str> = words.into_iter().filter(|w| *w != term).collect();
        let mut text = kept.join(" ");
        // Undo the parentheses adding put around an OR.
        if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')'))
            && balanced(inner)
        {
            text = inner.to_owned();
        }
        return text;
    }
    let query = query.trim();
    if query.is_empty() {
        term.to_owned()
    } else if words.contains(&"OR") {
        // AND binds tighter than OR: the term must apply to every
        // alternative.
        format!("({query}) {term}")
    } else {
        format!("{query} {term}")
    }
}

/// Whether the query holds `term` as one of its items (a tag's term is
/// in it).
pub fn has_term(query: &str, term: &str) -> bool {
    terms(query).contains(&term)
}

/// The query's items: split at white space outside quotes, so
/// `caption:"golden gate"` is one.
pub(crate) fn items(query: &str) -> Vec<&str> {
    split_query(query, false)
}

/// The query's terms as a tag sees them: items, but a parenthesised group
/// whole, so a merged tag's `(caption:berlin OR dir:berlin)` is one.
fn terms(query: &str) -> Vec<&str> {
    split_query(query, true)
}

fn split_query(query: &str, groups: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut quoted = false;
    let mut depth = 0i32;
    for (i, c) in query.char_indices() {
        if c == '"' {
            quoted = !quoted;
        }
        if !quoted && groups {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
        }
        if c.is_whitespace() && !quoted && depth <= 0 {
            if let Some(s) = start.take() {
                out.push(&query[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&query[s..]);
    }
    out
}

/// Whether every parenthesis of `text` closes, never below zero.
fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}
