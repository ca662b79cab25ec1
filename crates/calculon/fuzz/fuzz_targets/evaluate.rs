//! Any bytes, read as lines, evaluated in one calculator: no panic, every
//! error's span inside its line, and every exact decimal answer reads back
//! as itself.
//!
//!     cargo +nightly fuzz run evaluate    (in crates/calculon)

#![no_main]

use std::time::Duration;

use calculon::{AnswerKind, Calculator, Settings};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut calc = Calculator::new(Settings {
        max_bits: 1 << 16,
        time_limit: Some(Duration::from_millis(200)),
        ..Settings::default()
    });
    for line in text.lines().take(8) {
        match calc.evaluate(line) {
            Err(e) => assert!(e.span.start <= e.span.end && e.span.end <= line.len()),
            Ok(answer) => {
                let plain = answer
                    .value
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '-' || c == '.');
                if answer.kind == AnswerKind::Value && !answer.approximate && plain {
                    // What is printed reads back as the same print.
                    let mut fresh = Calculator::default();
                    if let Ok(again) = fresh.evaluate(&answer.value) {
                        assert_eq!(again.value, answer.value, "{line:?}");
                    }
                }
            }
        }
    }
});
