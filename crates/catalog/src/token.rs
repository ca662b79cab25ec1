//! The seed's tokenizer.

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

/// Splits `text` into folded words: at every character that is neither a
/// letter nor a digit, where a lower-case letter is followed by an upper-case
/// one, and where letters meet digits. `MyCat_2019-07.JPG` gives my, cat,
/// 2019, 07, jpg.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev = Class::Separator;
    let flush = |current: &mut String, out: &mut Vec<Token>| {
        if !current.is_empty() {
            let word = fold(current);
            if !word.is_empty() {
                let position = out.len() as u32;
                out.push(Token { word, position });
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
        let is_letter = |k: Class| matches!(k, Class::Lower | Class::Upper | Class::Letter);
        let boundary = match (prev, k) {
            (_, Class::Separator) => true,
            (Class::Lower, Class::Upper) => true,
            (Class::Digit, k) if is_letter(k) => true,
            (p, Class::Digit) if is_letter(p) => true,
            _ => false,
        };
        if boundary {
            flush(&mut current, &mut out);
        }
        if k != Class::Separator {
            current.push(c);
        }
        prev = k;
    }
    flush(&mut current, &mut out);
    out
}
