//! The time limit and the cancel flag stop every long computation, inside
//! the numeric kernels (series, argument reduction, Newton steps, big
//! products) and while printing a million digits, not only between
//! operations. Each case below ran for minutes past its limit before.
//! How soon they stop is measured, not asserted (`docs/notes.md`).

use std::time::Duration;

use calculon::{Calculator, CancelFlag, ErrorKind, Settings};

fn limited(digits: usize, ms: u64) -> Calculator {
    Calculator::new(Settings {
        digits,
        time_limit: Some(Duration::from_millis(ms)),
        ..Settings::default()
    })
}

/// Each would take far longer than its limit: each stops with the limit's
/// error.
#[test]
fn time_limits_hold_inside_the_kernels() {
    let cases = [
        (300_000, "exp(1)"),
        (300_000, "exp(0.3)"),
        (300_000, "ln(3)"),
        (300_000, "ln(2.5)"),
        (300_000, "sin(1)"),
        (300_000, "cos(0.7)"),
        (300_000, "atan(0.4)"),
        (300_000, "pi"),
        (300_000, "e^pi"),
        (300_000, "sinh(0.3)"),
        (300_000, "3^(1/7)"),
        (30, "sin(10^300000)"),
        (1_000_000, "10^-300000 + 1/3"),
        // Products, quotients and roots in pieces (above a million bits).
        (1_000_000, "pi"),
        (1_000_000, "sqrt(2) + 1/7"),
        (1_000_000, "sin(10^300000)"),
    ];
    for (digits, line) in cases {
        let mut calc = limited(digits, 200);
        let got = calc.evaluate(line).map(|a| a.value.len());
        assert!(
            matches!(&got, Err(e) if matches!(e.kind, ErrorKind::TimedOut(200))),
            "{line} at {digits} digits: {:?}",
            got.map_err(|e| e.to_string())
        );
    }
}

/// A flag raised from another thread stops a long evaluation.
#[test]
fn cancelling_from_another_thread_stops_a_series() {
    let flag = CancelFlag::new();
    let running = flag.clone();
    let worker = std::thread::spawn(move || {
        let mut calc = Calculator::new(Settings {
            digits: 500_000,
            time_limit: None,
            ..Settings::default()
        });
        calc.evaluate_with("exp(1) + ln(3)", &running)
            .map_err(|e| e.kind)
            .map(|a| a.value.len())
    });
    std::thread::sleep(Duration::from_millis(150));
    flag.cancel();
    assert_eq!(worker.join().ok(), Some(Err(ErrorKind::Cancelled)));
}
