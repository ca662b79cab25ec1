//! Every built-in function on zero, negative, tiny and huge arguments: the
//! bytes pick a function and one to three arguments from edge values and
//! small expressions of them. No panic (a caught one is an `Internal`
//! error, which fails here too), every error's span inside its line.
//!
//!     cargo +nightly fuzz run functions    (in crates/calculon)

#![no_main]

use std::time::Duration;

use calculon::{Calculator, ErrorKind, Settings};
use libfuzzer_sys::fuzz_target;

const EDGES: &[&str] = &[
    "0", "1-1", "-0", "1", "-1", "-7", "0.5", "-0.5", "1/3", "2", "pi", "i", "2+3i", "10^400",
    "-10^400", "10^-400", "1e-5000", "2^64", "0.1+0.2", "e", "-pi/2", "1e300!", "sqrt(-1)",
];

fuzz_target!(|data: &[u8]| {
    let functions: Vec<(&str, usize, usize)> = calculon::builtin_functions().collect();
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (name, lo, hi) = functions[pick as usize % functions.len()];
    let n = lo.max(1) + rest.first().map_or(0, |b| *b as usize) % (hi.min(3) - lo.max(1) + 1);
    let args: Vec<String> = rest
        .iter()
        .skip(1)
        .take(n)
        .map(|&b| {
            let a = EDGES[b as usize % EDGES.len()];
            // The top bit wraps the edge value in a negation.
            if b & 0x80 != 0 {
                format!("-({a})")
            } else {
                a.to_owned()
            }
        })
        .collect();
    if args.len() < n {
        return;
    }
    let line = format!("{name}({})", args.join(", "));
    let mut calc = Calculator::new(Settings {
        max_bits: 1 << 16,
        time_limit: Some(Duration::from_millis(300)),
        ..Settings::default()
    });
    if let Err(e) = calc.evaluate(&line) {
        assert!(!matches!(e.kind, ErrorKind::Internal(_)), "{line}: {e}");
        assert!(e.span.start <= e.span.end && e.span.end <= line.len());
    }
});
