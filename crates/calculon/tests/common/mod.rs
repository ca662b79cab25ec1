//! What the calculator's line-by-line tests share.

use calculon::Calculator;

/// Evaluates each line in `calc`, in order, and compares the display (or
/// the error message, prefixed with `error: `); fails listing every line
/// that differs.
pub fn check_in(calc: &mut Calculator, cases: &[(&str, &str)]) {
    let mut failures = Vec::new();
    for (input, want) in cases {
        let got = match calc.evaluate(input) {
            Ok(a) => a.display(),
            Err(e) => format!("error: {e}"),
        };
        if got != *want {
            failures.push(format!("{input:?}\n   got  {got}\n   want {want}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
