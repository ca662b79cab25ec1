//! The seed's tokenizer, and the marked form of a string the search index
//! keeps.

use unicode_normalization::UnicodeNormalization;

use crate::fold::fold;

/// One word of a string, folded, with its index among the string's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The folded word.
    pub word: String,
    /// 0 for the string's first word, 1 for the next, ...
    pub position: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    /// A letter with no case (most scripts).
    Letter,
    Digit,
    Separator,
}

fn class(c: char) -> Class {
    if c.is_numeric() {
        Class::Digit
    } else if c.is_lowercase() {
        Class::Lower
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_alphabetic() {
        Class::Letter
    } else {
        Class::Separator
    }
}

fn is_letter(k: Class) -> bool {
    matches!(k, Class::Lower | Class::Upper | Class::Letter)
}

/// Whether a word ends before a character of class `k` that follows one of
/// class `prev`.
fn boundary(prev: Class, k: Class) -> bool {
    match (prev, k) {
        (_, Class::Separator) => true,
        (Class::Lower, Class::Upper) => true,
        (Class::Digit, k) if is_letter(k) => true,
        (p, Class::Digit) if is_letter(p) => true,
        _ => false,
    }
}

/// The character a separator between two words is kept as in marked text
/// and literals: printable ASCII punctuation as it is, the typographic
/// apostrophes and dashes as the ASCII ones people type, anything else
/// (other scripts' punctuation, control characters) as a space.
fn separator_char(c: char) -> u8 {
    match c {
        '!'..='~' | ' ' => c as u8,
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' => b'\'',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => b'-',
        _ => b' ',
    }
}

/// Whether byte `b` of marked text separates two words (see
/// [`marked_into`]): folded words hold letters, digits and non-ASCII bytes
/// only.
pub(crate) fn is_separator(b: u8) -> bool {
    b < 0x80 && b != JOIN && !b.is_ascii_alphanumeric()
}

/// Calls `emit(word, separator)` for each folded word of `text`, in order;
/// `separator` is what stood between it and the word before, each
/// character as [`separator_char`] keeps it, empty where a case change or
/// a letter/digit boundary split them (and before the first word).
fn for_each_word(text: &str, mut emit: impl FnMut(&str, &[u8])) {
    if text.is_ascii() {
        // The same rules, byte by byte: in ASCII the classes are the
        // obvious ones and folding is lower-casing.
        let ascii_class = |b: u8| match b {
            b'0'..=b'9' => Class::Digit,
            b'a'..=b'z' => Class::Lower,
            b'A'..=b'Z' => Class::Upper,
            _ => Class::Separator,
        };
        let mut word = [0u8; 64];
        let mut long = Vec::new();
        let mut gap = Vec::new();
        let bytes = text.as_bytes();
        let mut start = 0;
        // Where the last word ended: the separators since are its gap.
        let mut last_end: Option<usize> = None;
        let mut prev = Class::Separator;
        let mut flush = |from: usize, to: usize, last_end: &mut Option<usize>| {
            if from < to {
                let piece = &bytes[from..to];
                let folded: &[u8] = if piece.len() <= word.len() {
                    let w = &mut word[..piece.len()];
                    w.copy_from_slice(piece);
                    w.make_ascii_lowercase();
                    w
                } else {
                    long.clear();
                    long.extend(piece.iter().map(u8::to_ascii_lowercase));
                    &long
                };
                gap.clear();
                if let Some(end) = *last_end {
                    gap.extend(
                        bytes[end..from]
                            .iter()
                            .map(|&b| separator_char(char::from(b))),
                    );
                }
                // ASCII in, ASCII out.
                if let Ok(w) = std::str::from_utf8(folded) {
                    emit(w, &gap);
                }
                *last_end = Some(to);
            }
        };
        for (i, &b) in bytes.iter().enumerate() {
            let k = ascii_class(b);
            if boundary(prev, k) {
                flush(start, i, &mut last_end);
                start = i;
            }
            if k == Class::Separator {
                start = i + 1;
            }
            prev = k;
        }
        flush(start, bytes.len(), &mut last_end);
        return;
    }
    for_each_piece(text, |piece, separator| {
        let word = fold(piece);
        if !word.is_empty() {
            emit(&word, separator);
            true
        } else {
            false
        }
    });
}

/// Calls `emit(piece, separator)` for each word of `text` as written (NFC,
/// case kept), by the same rules as [`for_each_word`]; `emit` says whether
/// the piece counted as a word (a piece that folds to nothing does not,
/// and the separators before it carry on to the next).
fn for_each_piece(text: &str, mut emit: impl FnMut(&str, &[u8]) -> bool) {
    let mut gap: Vec<u8> = Vec::new();
    let mut any = false;
    let mut current = String::new();
    let mut prev = Class::Separator;
    let mut flush = |current: &mut String, gap: &mut Vec<u8>, any: &mut bool| {
        if !current.is_empty() {
            if !*any {
                gap.clear();
            }
            if emit(current, gap) {
                *any = true;
                gap.clear();
            }
            current.clear();
        }
    };
    // Composed first (NFC), so a name in NFD splits exactly as in NFC; a
    // combining mark left over stays with its letter.
    for c in text.nfc() {
        if unicode_normalization::char::is_combining_mark(c) {
            current.push(c);
            continue;
        }
        let k = class(c);
        if boundary(prev, k) {
            flush(&mut current, &mut gap, &mut any);
        }
        if k == Class::Separator {
            gap.push(separator_char(c));
        } else {
            current.push(c);
        }
        prev = k;
    }
    flush(&mut current, &mut gap, &mut any);
}

/// The words of `text` as written (NFC, case and accents kept), one for
/// each of [`tokenize`]'s: `Café_Noël-2019` gives Café, Noël, 2019. For
/// showing a word the way its owner spelt it.
pub fn words_as_written(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_piece(text, |piece, _| {
        let counts = !fold(piece).is_empty();
        if counts {
            out.push(piece.to_owned());
        }
        counts
    });
    out
}

/// Splits `text` into folded words: at every character that is neither a
/// letter nor a digit, where a lower-case letter is followed by an upper-case
/// one, and where letters meet digits. `MyCat_2019-07.JPG` gives my, cat,
/// 2019, 07, jpg.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for_each_word(text, |word, _| {
        let position = out.len() as u32;
        out.push(Token {
            word: word.to_owned(),
            position,
        });
    });
    out
}

/// Between two words of a marked string that a case change or a
/// letter/digit boundary split (`Cute|Kitten`, `img|1234`).
pub(crate) const JOIN: u8 = 0x01;

/// Appends the marked form of `text` to `out`: its folded words, joined by
/// the separators that split them (each as [`separator_char`] keeps it)
/// and by [`JOIN`] where the word changed case or kind. The words are
/// exactly [`tokenize`]'s; with the `JOIN` bytes taken out it is the
/// string's [`literal`] form. So one string answers the token questions (a
/// term within one word), the substring ones (`tek` in `CuteKitten`) and
/// the literal ones (`ssl.h`). Returns the number of words.
pub(crate) fn marked_into(text: &str, out: &mut Vec<u8>) -> usize {
    let mut n = 0;
    for_each_word(text, |word, separator| {
        if n > 0 {
            if separator.is_empty() {
                out.push(JOIN);
            } else {
                out.extend_from_slice(separator);
            }
        }
        out.extend_from_slice(word.as_bytes());
        n += 1;
    });
    n
}

/// The literal form of `text`: its folded words with what stood between
/// them (ASCII punctuation as typed, typographic apostrophes and dashes as
/// ASCII ones, other separators as spaces), nothing before the first word
/// or after the last. A word typed with inner punctuation matches where
/// its literal form stands in a file's: `SSL.h` is `ssl.h`, found in
/// `openssl.h` but not in `opensslv.h`.
pub fn literal(text: &str) -> String {
    let mut marked = Vec::new();
    marked_into(text, &mut marked);
    marked.retain(|&b| b != JOIN);
    // Folded words and ASCII separators: still UTF-8.
    String::from_utf8(marked).unwrap_or_default()
}
