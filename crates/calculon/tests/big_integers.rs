//! Exact big integers against GMP (gmpy2, run by
//! `tests/reference/bigint_check.py`): random powers, products, quotients
//! and remainders whose results have 10³ to 10⁶ digits (10⁷ with
//! `CALCULON_BIG_DIGITS=10000000`), printed in decimal, hex, octal, binary
//! and random bases, must be the value's digits exactly (issue 45 item 3:
//! the radix conversion once padded its top piece with zeros). More
//! cases: `CALCULON_BIG_CASES=200`.

use calculon::{Calculator, Settings};
use common::Rng;

mod common;

/// `a^k` with about `digits` decimal digits, in calculon's syntax and
/// Python's.
fn power(rng: &mut Rng, digits: f64) -> (String, String) {
    let a = 2 + rng.below(99_998);
    let k = ((digits / (a as f64).log10()) as u64).max(1);
    (format!("{a}^{k}"), format!("mpz({a})**{k}"))
}

#[test]
fn big_integers_print_every_digit_right_in_every_base() {
    let cases: usize = std::env::var("CALCULON_BIG_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let most: f64 = std::env::var("CALCULON_BIG_DIGITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1e6);
    let mut calc = Calculator::new(Settings {
        // 10⁷ digits are 33 million bits.
        max_bits: 1 << 26,
        time_limit: None,
        ..Settings::default()
    });
    let mut rng = Rng(0x5851_F42D_4C95_7F2D);
    let mut lines = String::new();
    // The cases the issue found, then random ones.
    let mut fixed = vec![
        ("12345^100000".to_owned(), "mpz(12345)**100000".to_owned()),
        ("7^(10^6)".to_owned(), "mpz(7)**(10**6)".to_owned()),
        ("2^(3*10^6)".to_owned(), "mpz(2)**(3*10**6)".to_owned()),
    ]
    .into_iter();
    for i in 0..cases {
        let digits = rng.log_uniform(1e3, most);
        let found = fixed.next();
        let in_decimal = found.is_some();
        let (ours, python) = found.unwrap_or_else(|| match rng.below(5) {
            0 | 1 => power(&mut rng, digits),
            2 => {
                let (a, pa) = power(&mut rng, digits / 2.0);
                let (b, pb) = power(&mut rng, digits / 2.0);
                (format!("{a} * {b}"), format!("{pa} * {pb}"))
            }
            3 => {
                let (a, pa) = power(&mut rng, digits * 1.5);
                let (b, pb) = power(&mut rng, digits / 2.0);
                (format!("floor({a} / {b})"), format!("({pa}) // ({pb})"))
            }
            _ => {
                // Over twice the divisor's size: divided in pieces.
                let (a, pa) = power(&mut rng, digits * 3.0);
                let (b, pb) = power(&mut rng, digits);
                (
                    format!("({a}) mod ({b} + 1)"),
                    format!("({pa}) % ({pb} + 1)"),
                )
            }
        });
        let (ours, python) = if !in_decimal && rng.below(4) == 0 {
            (format!("0 - {ours}"), format!("-({python})"))
        } else {
            (ours, python)
        };
        // `to base N` prints no prefix, whatever N is.
        let (suffix, base, prefix) = match if in_decimal { 9 } else { rng.below(7) } {
            0 => (" to hex".to_owned(), 16, "0x"),
            1 => (" to octal".to_owned(), 8, "0o"),
            2 => (" to binary".to_owned(), 2, "0b"),
            3 => {
                let b = 2 + rng.below(35);
                (format!(" to base {b}"), b, "")
            }
            _ => (String::new(), 10, ""),
        };
        let line = format!("{ours}{suffix}");
        let answer = calc
            .evaluate(&line)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(!answer.approximate, "{line} is exact");
        lines.push_str(&format!(
            "{i}\t{base}\t{prefix}\t{python}\t{}\n",
            answer.value
        ));
    }
    if let Some(answer) = common::reference(
        "bigint_check.py",
        "the big-integer comparison with GMP",
        &lines,
    ) {
        common::no_mismatches(&answer, cases);
    }
}
