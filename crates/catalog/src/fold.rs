//! Case and accent folding.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The text as the search compares it: decomposed (NFD), combining marks
/// (accents) dropped, lower-cased, with `ß` as `ss`. So `Café`, `CAFE` and
/// `cafe\u{301}` all fold to `cafe`.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfd() {
        if is_combining_mark(c) {
            continue;
        }
        if c == 'ß' || c == 'ẞ' {
            out.push_str("ss");
            continue;
        }
        out.extend(c.to_lowercase());
    }
    out
}
