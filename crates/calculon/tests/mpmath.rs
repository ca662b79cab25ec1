//! Approximate results against an independent high-precision computation:
//! random expressions of elementary functions are evaluated here and by
//! mpmath (PyPI, run by `tests/reference/mpmath_check.py`), and every
//! printed digit must be mpmath's correctly rounded digit.
//!
//! Python comes from `CALCULON_PYTHON` or the venv `./scripts/test.sh`
//! makes (`target/py-venv`, with mpmath). Without it the test prints why
//! it skipped, and fails when `REQUIRE_PY_REFERENCE=1` (CI). More cases:
//! `CALCULON_CASES=5000`.

use calculon::{Calculator, Settings};

mod common;
use common::Rng;

/// An expression in calculon's syntax and in Python's (mpmath).
struct Case {
    ours: String,
    python: String,
}

fn rational(rng: &mut Rng, positive: bool, below_one: bool) -> Case {
    let q = rng.int(1, 97);
    let p = if below_one {
        rng.int(-(q - 1), q - 1)
    } else if positive {
        rng.int(1, 999)
    } else {
        rng.int(-999, 999)
    };
    Case {
        ours: format!("({p}/{q})"),
        python: format!("(mpf({p})/{q})"),
    }
}

fn expression(rng: &mut Rng, depth: u32) -> Case {
    let leaf = depth == 0 || rng.below(3) == 0;
    if leaf {
        return rational(rng, false, false);
    }
    let wrap = |f: &str, py: &str, a: Case| Case {
        ours: format!("{f}({})", a.ours),
        python: format!("{py}({})", a.python),
    };
    match rng.below(19) {
        0 => wrap("sqrt", "sqrt", rational(rng, true, false)),
        // Arguments up to ±999: the large ones take exp's range reduction.
        1 => {
            let small = rng.below(2) == 0;
            wrap("exp", "exp", rational(rng, false, small))
        }
        2 => wrap("ln", "log", rational(rng, true, false)),
        3 => wrap("sin", "sin", expression(rng, depth - 1)),
        4 => wrap("cos", "cos", expression(rng, depth - 1)),
        5 => wrap("atan", "atan", expression(rng, depth - 1)),
        6 => wrap("asin", "asin", rational(rng, false, true)),
        7 => wrap("tanh", "tanh", expression(rng, depth - 1)),
        8 => wrap("cbrt", "cbrt", rational(rng, true, false)),
        9 => wrap("log10", "log10", rational(rng, true, false)),
        10 => {
            let (a, b) = (rational(rng, true, false), rational(rng, false, true));
            Case {
                ours: format!("{}^{}", a.ours, b.ours),
                python: format!("{}**{}", a.python, b.python),
            }
        }
        11 => {
            let a = rational(rng, false, false);
            Case {
                ours: format!("pi*{}", a.ours),
                python: format!("pi*{}", a.python),
            }
        }
        12 => {
            let small = rng.below(2) == 0;
            wrap("sinh", "sinh", rational(rng, false, small))
        }
        13 => wrap("cosh", "cosh", rational(rng, false, true)),
        14 => wrap("atanh", "atanh", rational(rng, false, true)),
        15 => {
            let a = rational(rng, true, false);
            Case {
                ours: format!("acosh(1 + {})", a.ours),
                python: format!("acosh(1 + {})", a.python),
            }
        }
        16 => wrap("tan", "tan", expression(rng, depth - 1)),
        17 => wrap("acos", "acos", rational(rng, false, true)),
        _ => {
            let (a, b) = (expression(rng, depth - 1), expression(rng, depth - 1));
            let op = ["+", "-", "*"][rng.below(3) as usize];
            Case {
                ours: format!("({} {op} {})", a.ours, b.ours),
                python: format!("({} {op} {})", a.python, b.python),
            }
        }
    }
}

#[test]
fn every_printed_digit_matches_mpmath() {
    let cases: usize = std::env::var("CALCULON_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    compare(cases, &[15, 30, 50, 120], 2, 0x9E37_79B9_7F4A_7C15);
}

/// Above about 5,000 digits the calculator's own series kernels take over
/// from dashu's (`src/series.rs`): the same check there. More cases:
/// `CALCULON_HIGH_CASES=200`.
#[test]
fn every_printed_digit_matches_mpmath_at_five_thousand_digits() {
    let cases: usize = std::env::var("CALCULON_HIGH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    compare(cases, &[5000, 5200], 2, 0x2545_F491_4F6C_DD1D);
}

fn compare(cases: usize, digit_choices: &[usize], depth: u32, seed: u64) {
    let mut rng = Rng(seed);
    let mut lines = String::new();
    for i in 0..cases {
        let digits = digit_choices[rng.below(digit_choices.len() as u64) as usize];
        let case = expression(&mut rng, depth);
        let mut calc = Calculator::new(Settings {
            digits,
            ..Settings::default()
        });
        let answer = match calc.evaluate(&case.ours) {
            Ok(a) => a.display(),
            // Domain errors of random compositions (ln of a negative sum)
            // are not what this test is about.
            Err(_) => continue,
        };
        lines.push_str(&format!("{i}\t{digits}\t{}\t{answer}\n", case.python));
    }
    if let Some(answer) = common::reference("mpmath_check.py", "the mpmath comparison", &lines) {
        common::no_mismatches(&answer, cases / 2);
    }
}
