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

/// Calls `emit(word, separated)` for each folded word of `text`, in order;
/// `separated` says whether a separator stood between it and the word
/// before (rather than a case change or a letter/digit boundary).
fn for_each_word(text: &str, mut emit: impl FnMut(&str, bool)) {
    let mut separated = false;
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
        let bytes = text.as_bytes();
        let mut start = 0;
        let mut prev = Class::Separator;
        let mut flush = |from: usize, to: usize, separated: &mut bool| {
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
                // ASCII in, ASCII out.
                if let Ok(w) = std::str::from_utf8(folded) {
                    emit(w, *separated);
                }
                *separated = false;
            }
        };
        for (i, &b) in bytes.iter().enumerate() {
            let k = ascii_class(b);
            if boundary(prev, k) {
                flush(start, i, &mut separated);
                start = i;
            }
            if k == Class::Separator {
                separated = true;
                start = i + 1;
            }
            prev = k;
        }
        flush(start, bytes.len(), &mut separated);
        return;
    }
    for_each_piece(text, |piece, separated| {
        let word = fold(piece);
        if !word.is_empty() {
            emit(&word, separated);
            true
        } else {
            false
        }
    });
}

/// Calls `emit(piece, separated)` for each word of `text` as written (NFC,
/// case kept), by the same rules as [`for_each_word`]; `emit` says whether
/// the piece counted as a word (a piece that folds to nothing does not,
/// and the separator before it carries on to the next).
fn for_each_piece(text: &str, mut emit: impl FnMut(&str, bool) -> bool) {
    let mut separated = false;
    let mut current = String::new();
    let mut prev = Class::Separator;
    let mut flush = |current: &mut String, separated: &mut bool| {
        if !current.is_empty() {
            if emit(current, *separated) {
                *separated = false;
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
            flush(&mut current, &mut separated);
        }
        if k == Class::Separator {
            separated = true;
        } else {
            current.push(c);
        }
        prev = k;
    }
    flush(&mut current, &mut separated);
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

/// Between two words of a marked string that a separator split.
pub(crate) const SPACE: u8 = b' ';
/// Between two words of a marked string that a case change or a
/// letter/digit boundary split (`Cute|Kitten`, `img|1234`).
pub(crate) const JOIN: u8 = 0x01;

/// Appends the marked form of `text` to `out`: its folded words, joined by
/// [`SPACE`] where a separator split them and by [`JOIN`] where the word
/// changed case or kind. The words are exactly [`tokenize`]'s; with the
/// `JOIN` bytes taken out, each run of letters and digits is exactly what
/// [`fold`] makes of it. So one string answers both the token questions
/// (a term within one word) and the substring ones (`tek` in `CuteKitten`).
/// Returns the number of words.
pub(crate) fn marked_into(text: &str, out: &mut Vec<u8>) -> usize {
    let mut n = 0;
    for_each_word(text, |word, separated| {
        if n > 0 {
            out.push(if separated { SPACE } else { JOIN });
        }
        out.extend_from_slice(word.as_bytes());
        n += 1;
    });
    n
}
