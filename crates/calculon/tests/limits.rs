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
        // Remainders of big integers, a divisor's width at a time.
        (30, "(7^(2*10^6)) mod (3^(10^6)+2)"),
        (30, "(7^(2*10^6)) mod (3^(3*10^5)+2)"),
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

/// A step that cannot stop part-way (the gcd that reduces a fraction of
/// huge numbers) is refused before it starts when it could not finish in
/// time, saying so, rather than running for seconds past the limit.
#[test]
fn a_gcd_that_cannot_finish_in_time_is_refused_before_it_starts() {
    let mut calc = Calculator::new(Settings {
        max_bits: 1 << 30,
        time_limit: Some(Duration::from_millis(10_000)),
        ..Settings::default()
    });
    // 56 by 16 million bits: about a minute's gcd here.
    let got = calc.evaluate("(7^(2*10^7)) / (3^(10^7)+2) > 1");
    let e = got.expect_err("refused");
    assert!(
        matches!(e.kind, ErrorKind::WouldTakeTooLong { limit_ms: 10_000, estimate_ms } if estimate_ms > 5000),
        "{e}"
    );
    assert!(
        e.to_string().contains("more than the 10000 ms allowed"),
        "{e}"
    );
    // Small fractions are never refused.
    let mut calc = limited(30, 1000);
    assert_eq!(
        calc.evaluate("(7^100) / (3^50 + 2) > 1").unwrap().value,
        "1"
    );
}

/// Issue 45 item 6: a plot spends one time limit, as one line does (each
/// point had its own before, so a plot ran for many limits), and a plot
/// that cannot finish draws what it has and says so.
#[test]
fn a_plot_spends_one_time_limit_and_keeps_what_it_drew() {
    use calculon::PlotRequest;
    let calc = limited(30, 300);
    let slow = PlotRequest::new("sin(10^300000 * x)", "x", "1", "2");
    let graph = calc
        .plot(&slow, 400, &CancelFlag::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let why = graph.stopped.expect("stopped early");
    assert!(
        why.contains("stopped after 300 ms") && why.contains("what was drawn"),
        "{why}"
    );
    // Cancelled, it is no graph at all.
    let flag = CancelFlag::new();
    flag.cancel();
    assert!(matches!(
        calc.plot(&slow, 400, &flag).map_err(|e| e.kind),
        Err(ErrorKind::Cancelled)
    ));
    // x^x^x^x beyond the float range is said at once, point by point
    // (each took gigabytes as an integer before): the graph completes.
    let calc = limited(30, 60_000);
    let towers = PlotRequest::new("x^x^x^x", "x", "0", "100");
    let graph = calc
        .plot(&towers, 400, &CancelFlag::new())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(graph.stopped, None);
    assert!(!graph.segments.is_empty());
    // A range wider than a double is refused, not sampled forever.
    let wide = PlotRequest::new("x", "x", "-1e308", "1e308");
    let e = calc.plot(&wide, 400, &CancelFlag::new()).unwrap_err();
    assert!(e.to_string().contains("must be less than"), "{e}");
}
