//! The lexer: input text to tokens with byte spans.
//!
//! Number literals become exact rationals here (`1.5` is 3/2, `1e-3` is
//! 1/1000), so nothing is ever rounded on input. Digit groups: `_` and a
//! thin space always; `,` (or `.` with the decimal comma) only between
//! groups of exactly three digits and never directly inside a function's
//! argument list, where it separates arguments.

use dashu_int::UBig;
use dashu_ratio::RBig;

use crate::error::{CalcError, ErrorKind, Span};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Number(RBig),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    Comma,
    Equals,
    Bang,
    Percent,
    Arrow,
    Sqrt,
    /// A superscript power (`²`, `³`).
    Super(i32),
    /// `<`, `<=`, `>`, `>=`, `==`, `!=` (and `≤`, `≥`, `≠`).
    Compare(Comparison),
    /// `<<` (true) or `>>`: a bit shift.
    Shift(bool),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comparison {
    Less,
    LessEq,
    Greater,
    GreaterEq,
    Equal,
    NotEqual,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) span: Span,
}

/// How digits and marks are read.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LexOptions {
    /// `,` is the decimal mark and `.` groups digits; `;` separates
    /// arguments.
    pub(crate) decimal_comma: bool,
}

pub(crate) fn lex(input: &str, options: LexOptions) -> Result<Vec<Token>, CalcError> {
    let mut tokens = Vec::new();
    // For each open parenthesis: does it open an argument list?
    let mut parens: Vec<bool> = Vec::new();
    let mut chars = input.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        let single = |tok: Tok, len: usize| Token {
            tok,
            span: start..start + len,
        };
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '0'..='9' | '.' | ',' if starts_number(input, start, options) => {
                let in_args = parens.last().copied().unwrap_or(false);
                let (value, end) = number(input, start, options, in_args)?;
                tokens.push(Token {
                    tok: Tok::Number(value),
                    span: start..end,
                });
                while chars.peek().is_some_and(|&(i, _)| i < end) {
                    chars.next();
                }
            }
            c if is_currency_sign(c) => {
                // A sign is a name of its own: `€12.50`, `12.50 €`.
                chars.next();
                let end = start + c.len_utf8();
                tokens.push(Token {
                    tok: Tok::Ident(input[start..end].to_string()),
                    span: start..end,
                });
            }
            c if is_ident_start(c) => {
                let mut end = start;
                while let Some(&(i, c)) = chars.peek() {
                    if is_ident_continue(c) || (i == start && is_ident_start(c)) {
                        end = i + c.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                tokens.push(Token {
                    tok: Tok::Ident(input[start..end].to_string()),
                    span: start..end,
                });
            }
            _ => {
                chars.next();
                let next = chars.peek().map(|&(_, c)| c);
                let len = c.len_utf8();
                let token = match c {
                    '+' => single(Tok::Plus, len),
                    '-' | '−' if next == Some('>') => {
                        chars.next();
                        single(Tok::Arrow, len + 1)
                    }
                    '-' | '−' | '–' => single(Tok::Minus, len),
                    '*' if next == Some('*') => {
                        chars.next();
                        single(Tok::Caret, 2)
                    }
                    '*' | '×' | '·' | '⋅' => single(Tok::Star, len),
                    '/' | '÷' => single(Tok::Slash, len),
                    '^' => single(Tok::Caret, len),
                    '(' => {
                        let call = matches!(
                            tokens.last(),
                            Some(Token {
                                tok: Tok::Ident(_),
                                ..
                            })
                        );
                        parens.push(call);
                        single(Tok::LParen, len)
                    }
                    ')' => {
                        parens.pop();
                        single(Tok::RParen, len)
                    }
                    ',' | ';' => single(Tok::Comma, len),
                    // fend's and C's bitwise operators, as the words.
                    '&' => single(Tok::Ident("and".into()), len),
                    '|' => single(Tok::Ident("or".into()), len),
                    '=' if next == Some('=') => {
                        chars.next();
                        single(Tok::Compare(Comparison::Equal), 2)
                    }
                    '=' => single(Tok::Equals, len),
                    '!' if next == Some('=') => {
                        chars.next();
                        single(Tok::Compare(Comparison::NotEqual), 2)
                    }
                    '!' => single(Tok::Bang, len),
                    '<' if next == Some('<') => {
                        chars.next();
                        single(Tok::Shift(true), 2)
                    }
                    '>' if next == Some('>') => {
                        chars.next();
                        single(Tok::Shift(false), 2)
                    }
                    '<' if next == Some('=') => {
                        chars.next();
                        single(Tok::Compare(Comparison::LessEq), 2)
                    }
                    '<' => single(Tok::Compare(Comparison::Less), len),
                    '>' if next == Some('=') => {
                        chars.next();
                        single(Tok::Compare(Comparison::GreaterEq), 2)
                    }
                    '>' => single(Tok::Compare(Comparison::Greater), len),
                    '≤' => single(Tok::Compare(Comparison::LessEq), len),
                    '≥' => single(Tok::Compare(Comparison::GreaterEq), len),
                    '≠' => single(Tok::Compare(Comparison::NotEqual), len),
                    // Feet and inch marks: `5'10"`, `2.54 cm to "`.
                    '\'' | '′' | '’' if next == Some('\'') => {
                        chars.next();
                        single(Tok::Ident("inch".into()), 2)
                    }
                    '\'' | '′' | '’' => single(Tok::Ident("ft".into()), len),
                    '"' | '″' | '”' => single(Tok::Ident("inch".into()), len),
                    '%' => single(Tok::Percent, len),
                    '→' => single(Tok::Arrow, len),
                    '√' => single(Tok::Sqrt, len),
                    // Superscript powers: `m²`, `13¹³`, `s⁻¹`.
                    c if c == '⁻' || superscript_digit(c).is_some() => {
                        let mut text = String::from(c);
                        let mut total = len;
                        while let Some(&(_, d)) = chars.peek() {
                            if superscript_digit(d).is_none() {
                                break;
                            }
                            text.push(d);
                            total += d.len_utf8();
                            chars.next();
                        }
                        let Some(power) = superscript_value(&text) else {
                            let why = if text == "⁻" {
                                "a superscript minus needs superscript digits after it"
                            } else {
                                "a superscript power this large is not one"
                            };
                            return Err(CalcError::new(
                                ErrorKind::Needs(why.into()),
                                start..start + total,
                            ));
                        };
                        single(Tok::Super(power), total)
                    }
                    other => {
                        return Err(CalcError::new(
                            ErrorKind::UnexpectedChar(other),
                            start..start + len,
                        ));
                    }
                };
                tokens.push(token);
            }
        }
    }
    move_currency_signs(&mut tokens);
    Ok(tokens)
}

/// `$ € £ ¥`: each the name of a currency (USD, EUR, GBP, JPY), alone.
fn is_currency_sign(c: char) -> bool {
    matches!(c, '$' | '€' | '£' | '¥')
}

/// A currency sign before a number (`€12.50`, `-$5`, `$1,200.50`) goes
/// after it, where a unit stands: `12.50 €`.
fn move_currency_signs(tokens: &mut [Token]) {
    for k in 0..tokens.len().saturating_sub(1) {
        let sign = matches!(&tokens[k].tok, Tok::Ident(n) if n.chars().count() == 1
            && n.chars().all(is_currency_sign));
        if sign && matches!(tokens[k + 1].tok, Tok::Number(_)) {
            tokens.swap(k, k + 1);
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic()
        || matches!(
            c,
            '_' | '°' | 'µ' | 'Ω' | 'Å' | '′' | '″' | '℃' | '℉' | '‰' | '‱'
        )
}

fn is_ident_continue(c: char) -> bool {
    (c.is_alphanumeric() && superscript_digit(c).is_none()) || matches!(c, '_' | '°' | 'µ' | 'Ω')
}

/// The digit a superscript character stands for.
pub(crate) fn superscript_digit(c: char) -> Option<u32> {
    Some(match c {
        '⁰' => 0,
        '¹' => 1,
        '²' => 2,
        '³' => 3,
        '⁴' => 4,
        '⁵' => 5,
        '⁶' => 6,
        '⁷' => 7,
        '⁸' => 8,
        '⁹' => 9,
        _ => return None,
    })
}

/// A run of superscripts (`⁻¹²`) as its number; `None` for a lone minus or
/// a power too large to be one.
fn superscript_value(text: &str) -> Option<i32> {
    let (negative, digits) = match text.strip_prefix('⁻') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: i32 = 0;
    for d in digits.chars() {
        value = value
            .checked_mul(10)?
            .checked_add(superscript_digit(d)? as i32)?;
    }
    Some(if negative { -value } else { value })
}

/// `n` in superscripts: the inverse of the lexer's reading.
pub(crate) fn superscript(n: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut out = String::new();
    if n < 0 {
        out.push('⁻');
    }
    for d in n.unsigned_abs().to_string().bytes() {
        out.push(DIGITS[usize::from(d - b'0')]);
    }
    out
}

fn starts_number(input: &str, at: usize, options: LexOptions) -> bool {
    let rest = &input[at..];
    let mut it = rest.chars();
    match it.next() {
        Some('0'..='9') => true,
        // `.5` (or `,5` with the decimal comma).
        Some(c) if c == decimal_mark(options) => it.next().is_some_and(|d| d.is_ascii_digit()),
        _ => false,
    }
}

fn decimal_mark(options: LexOptions) -> char {
    if options.decimal_comma { ',' } else { '.' }
}

fn group_mark(options: LexOptions) -> char {
    if options.decimal_comma { '.' } else { ',' }
}

/// Reads a number literal at `start`: decimal with optional point, digit
/// groups and exponent, or `0x`/`0o`/`0b` integers.
fn number(
    input: &str,
    start: usize,
    options: LexOptions,
    in_args: bool,
) -> Result<(RBig, usize), CalcError> {
    let bytes = input.as_bytes();
    let bad = |end: usize, why: &'static str| {
        CalcError::new(
            ErrorKind::BadNumber {
                text: input[start..end].to_string(),
                why,
            },
            start..end,
        )
    };
    // Radix prefixes.
    if bytes[start] == b'0' && start + 1 < bytes.len() {
        let radix = match bytes[start + 1] {
            b'x' | b'X' => 16,
            b'o' | b'O' => 8,
            b'b' | b'B' => 2,
            _ => 0,
        };
        if radix != 0 {
            let mut end = start + 2;
            let mut digits = String::new();
            while end < bytes.len() {
                let c = bytes[end] as char;
                if c == '_' {
                    end += 1;
                    continue;
                }
                if c.is_digit(radix) {
                    digits.push(c);
                    end += 1;
                } else if c.is_ascii_alphanumeric() {
                    return Err(bad(end + 1, "digit out of range for the base"));
                } else {
                    break;
                }
            }
            if digits.is_empty() {
                // `0b` alone could be 0 times a unit `b`: leave it to the
                // parser by reading just the 0.
                return Ok((RBig::ZERO, start + 1));
            }
            let n = UBig::from_str_radix(&digits, radix).map_err(|_| bad(end, "not a number"))?;
            return Ok((RBig::from(n), end));
        }
    }
    let mark = decimal_mark(options) as u8;
    let group = group_mark(options) as u8;
    let mut digits = String::new();
    let mut frac_digits = 0usize;
    let mut seen_point = false;
    let mut end = start;
    while end < bytes.len() {
        let c = bytes[end];
        // A group mark may follow digits before the point, and a comma
        // never groups inside an argument list.
        let groups_here = !seen_point && !digits.is_empty() && (group != b',' || !in_args);
        if c.is_ascii_digit() {
            digits.push(c as char);
            if seen_point {
                frac_digits += 1;
            }
            end += 1;
        } else if c == b'_' && end + 1 < bytes.len() && bytes[end + 1].is_ascii_digit() {
            end += 1;
        } else if c == mark && !seen_point {
            // A point must be followed by a digit to belong to the number
            // (`3.` alone is 3, and `x.` is not ours).
            seen_point = true;
            end += 1;
        } else if c == group && groups_here && three_digits_then_end(bytes, end + 1) {
            end += 1;
        } else if c == b' '
            && !seen_point
            && !digits.is_empty()
            && (end - start <= 3 || bytes[end - 4] == b' ')
            && three_digits_then_end(bytes, end + 1)
        {
            // A space between groups of three, as many locales print and
            // spreadsheets paste (`12 345`): two numbers side by side mean
            // nothing else here.
            end += 1;
        } else if input[end..].starts_with('\u{2009}')
            && input[end + 3..].starts_with(|c: char| c.is_ascii_digit())
        {
            end += 3;
        } else {
            break;
        }
    }
    let mut value =
        RBig::from(UBig::from_str_radix(&digits, 10).map_err(|_| bad(end, "no digits"))?)
            / RBig::from(UBig::from(10u8).pow(frac_digits));
    // fend's `base#digits`: `6#100` is 36.
    if !seen_point && bytes.get(end) == Some(&b'#') {
        let run = bytes[end + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if let Ok(base) = digits.parse::<u32>()
            && (2..=36).contains(&base)
            && run > 0
        {
            let text = &input[end + 1..end + 1 + run];
            let n = UBig::from_str_radix(text, base)
                .map_err(|_| bad(end + 1 + run, "digit out of range for the base"))?;
            return Ok((RBig::from(n), end + 1 + run));
        }
    }
    // Recurring digits after the point, in parentheses: `0.(3)` is 1/3,
    // `0.0(15)` is 1/66.
    if seen_point && bytes.get(end) == Some(&b'(') {
        let run = bytes[end + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if run > 0 && run <= 1000 && bytes.get(end + 1 + run) == Some(&b')') {
            let repeat = UBig::from_str_radix(&input[end + 1..end + 1 + run], 10)
                .map_err(|_| bad(end, "no digits"))?;
            let nines = UBig::from(10u8).pow(run) - UBig::ONE;
            let scale = UBig::from(10u8).pow(frac_digits);
            value += RBig::from(repeat) / RBig::from(nines * scale);
            end += run + 2;
        }
    }
    // An exponent: `e`/`E`, optional sign, digits. `2e` alone is 2·e.
    if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
        let mut k = end + 1;
        let negative = k < bytes.len() && bytes[k] == b'-';
        if k < bytes.len() && (bytes[k] == b'+' || bytes[k] == b'-') {
            k += 1;
        }
        let digits_start = k;
        while k < bytes.len() && bytes[k].is_ascii_digit() {
            k += 1;
        }
        if k > digits_start {
            let exp: usize = input[digits_start..k]
                .parse()
                .map_err(|_| bad(k, "exponent too large"))?;
            if exp > 1_000_000 {
                return Err(bad(k, "exponent beyond ±1000000"));
            }
            let p = RBig::from(UBig::from(10u8).pow(exp));
            value = if negative { value / p } else { value * p };
            end = k;
        }
    }
    Ok((value, end))
}

/// Whether `bytes[at..]` starts with exactly three digits followed by no
/// further digit (a digit group).
fn three_digits_then_end(bytes: &[u8], at: usize) -> bool {
    at + 3 <= bytes.len()
        && bytes[at..at + 3].iter().all(u8::is_ascii_digit)
        && bytes.get(at + 3).is_none_or(|b| !b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dashu_int::IBig;

    fn int(n: i64) -> RBig {
        RBig::from(IBig::from(n))
    }

    fn numbers(input: &str, options: LexOptions) -> Vec<RBig> {
        lex(input, options)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|t| match t.tok {
                Tok::Number(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn literals_are_exact() {
        let o = LexOptions::default();
        assert_eq!(
            numbers("1.5", o),
            vec![RBig::from_parts(3.into(), 2u8.into())]
        );
        assert_eq!(
            numbers("1e-3", o),
            vec![RBig::from_parts(1.into(), 1000u16.into())]
        );
        assert_eq!(
            numbers("0xff 0b101 0o17", o),
            vec![int(255), int(5), int(15)]
        );
        assert_eq!(
            numbers("1,234,567.5", o),
            vec![RBig::from_parts(2469135.into(), 2u8.into())]
        );
        assert_eq!(numbers("1_000", o), vec![int(1000)]);
        // Inside an argument list the comma separates.
        assert_eq!(numbers("max(1,234)", o), vec![int(1), int(234)]);
        // `1,23` is not a group of three.
        assert_eq!(numbers("1,23", o), vec![int(1), int(23)]);
        let c = LexOptions {
            decimal_comma: true,
        };
        assert_eq!(
            numbers("1.234,5", c),
            vec![RBig::from_parts(2469.into(), 2u8.into())]
        );
    }

    #[test]
    fn two_e_alone_is_not_an_exponent() {
        let t = lex("2e", LexOptions::default()).unwrap_or_default();
        assert_eq!(t.len(), 2);
    }
}
