//! Any input gets an answer or an error, never a panic: random lines built
//! from the language's pieces (the cargo-fuzz target in `fuzz/` does the
//! same with arbitrary bytes, for longer).

use std::time::Duration;

use calculon::{Calculator, Settings};
use proptest::prelude::*;

const PIECES: &[&str] = &[
    "1",
    "0",
    "2",
    "10",
    "0.5",
    "1e9",
    "1e-9",
    "0xff",
    "0b1",
    "1,000",
    "pi",
    "e",
    "i",
    "x",
    "f",
    "ans",
    "m",
    "ft",
    "in",
    "°C",
    "°F",
    "kg",
    "s",
    "min",
    "h",
    "deg",
    "GiB",
    "%",
    "!",
    "^",
    "**",
    "*",
    "/",
    "+",
    "-",
    "(",
    ")",
    ",",
    "=",
    "==",
    "<",
    "to",
    "as",
    "->",
    "of",
    "mod",
    "sqrt",
    "√",
    "sin",
    "ln",
    "log",
    "exp",
    "tan",
    "asin",
    "atanh",
    "factorial",
    "gcd",
    "max",
    "if",
    "root",
    "hex",
    "fraction",
    "sci",
    "²",
    " ",
    "plot",
    "from",
    "f(x)",
    "x =",
    "f(x) =",
    "10^",
    "!!",
    "..",
    "99999999",
    "-1",
    "1/0",
    "0^0",
    "°",
];

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(0..PIECES.len(), 1..14).prop_map(|picks| {
        picks
            .into_iter()
            .map(|i| PIECES[i])
            .collect::<Vec<_>>()
            .join("")
    })
}

proptest! {
    #[test]
    fn lines_of_pieces_never_panic(lines in prop::collection::vec(line(), 1..6)) {
        let mut calc = Calculator::new(Settings {
            max_bits: 1 << 18,
            time_limit: Some(Duration::from_millis(500)),
            ..Settings::default()
        });
        for l in &lines {
            if let Err(e) = calc.evaluate(l) {
                // Every error points inside the line (or at its end).
                prop_assert!(e.span.start <= e.span.end && e.span.end <= l.len(), "{l:?}: {e:?}");
                let _ = e.render(l);
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,40}") {
        let mut calc = Calculator::default();
        let _ = calc.evaluate(&text);
    }
}
