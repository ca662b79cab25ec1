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

/// Zero (as written and as computed), negative, tiny and huge numbers,
/// fractions, π, i: the arguments that found gcd(0, 0)'s panic.
const EDGES: &[&str] = &[
    "0",
    "1-1",
    "-0",
    "1",
    "-1",
    "-7",
    "0.5",
    "-0.5",
    "1/3",
    "2",
    "pi",
    "i",
    "2+3i",
    "10^400",
    "-10^400",
    "10^-400",
    "1e-5000",
    "99999999999999999999",
    "2^64",
];

/// Every built-in function, with one to three arguments from the edge
/// values, answers or gives an error: never a panic, never past the time
/// limit (a kernel that ignored it would keep this test running).
#[test]
fn every_function_on_edge_arguments_answers() {
    let mut calc = Calculator::new(Settings {
        max_bits: 1 << 16,
        time_limit: Some(Duration::from_millis(300)),
        ..Settings::default()
    });
    let mut lines = 0;
    for (name, lo, hi) in calculon::builtin_functions() {
        for n in lo.max(1)..=hi.min(3) {
            // Each argument position walks the edges; the others take a
            // neighbour, so every value meets every position.
            for (k, first) in EDGES.iter().enumerate() {
                let args: Vec<&str> = (0..n)
                    .map(|j| {
                        if j == 0 {
                            *first
                        } else {
                            EDGES[(k * 7 + j * 5) % EDGES.len()]
                        }
                    })
                    .collect();
                let line = format!("{name}({})", args.join(", "));
                if let Err(e) = calc.evaluate(&line) {
                    assert!(
                        !matches!(e.kind, calculon::ErrorKind::Internal(_)),
                        "{line}: {e}"
                    );
                }
                lines += 1;
            }
        }
    }
    assert!(lines > 500, "{lines}");
}
