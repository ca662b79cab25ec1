//! Any bytes as a query: parsed or refused with a position inside it,
//! and a parsed one matched against names; never a panic or an abort
//! (nesting is bounded, so the stack is too).
//!
//!     cargo +nightly fuzz run query    (in crates/catalog)

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match catalog::parse(text) {
        Ok(query) => {
            let _ = query.matches(&["IMG_1234 Holiday Rome.jpg", "a caption, with words"]);
        }
        Err(e) => assert!(e.position <= text.chars().count()),
    }
});
