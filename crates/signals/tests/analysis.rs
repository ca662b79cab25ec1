//! The analysis harness against closed forms: if these figures are right
//! for the systems whose answers are known, the report is right for the rest.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches: a failure is the report.

use signals::analysis::{self, Input, frequency_response, ramp_lag, simulate, step_metrics};
use signals::{Exponential, Hold, Smoother, SpringDamper, System};

fn exp_factory(tau: f64) -> impl Fn() -> Box<dyn System<f64>> {
    move || {
        Box::new(
            Smoother::new(Exponential::time_constant(tau).unwrap(), 0.0)
                .unwrap()
                .with_hold(Hold::FirstOrder),
        )
    }
}

/// The time a monotone closed-form step response reaches `level`, by bisection.
fn crossing(f: impl Fn(f64) -> f64, level: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 100.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < level { lo = mid } else { hi = mid }
    }
    lo
}

fn near(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1e-9),
        "{what}: measured {got}, closed form {want}"
    );
}

#[test]
fn exponential_figures_match_closed_forms() {
    let tau = 0.2;
    let make = exp_factory(tau);
    // Under first-order hold the step is a ramp over the first frame: use a fine rate.
    let trace = simulate(&make, &Input::Step, 10_000.0, 3.0, None).unwrap();
    let m = step_metrics(&trace, 1.0);
    near(m.rise, tau * 9f64.ln(), 1e-3, "rise");
    near(m.settle, tau * 50f64.ln(), 1e-3, "settle");
    assert_eq!(m.overshoot_percent, 0.0);
    let ramp = simulate(&make, &Input::Ramp { slope: 2.0 }, 30.0, 10.0, None).unwrap();
    near(
        ramp_lag(&ramp, 2.0),
        tau,
        1e-9,
        "ramp lag (exact at any rate)",
    );
    for p in frequency_response(&make, &[0.5, 2.0], 1000.0).unwrap() {
        let wt = std::f64::consts::TAU * p.hz * tau;
        near(p.gain, 1.0 / (1.0 + wt * wt).sqrt(), 1e-3, "gain");
        near(p.phase_degrees, -wt.atan().to_degrees(), 1e-2, "phase");
    }
}

#[test]
fn critical_spring_figures_match_closed_forms() {
    let omega = 8.0;
    let make = || -> Box<dyn System<f64>> {
        Box::new(Smoother::new(SpringDamper::new(omega, 1.0).unwrap(), 0.0).unwrap())
    };
    let step = |t: f64| 1.0 - (1.0 + omega * t) * (-omega * t).exp();
    let trace = simulate(&make, &Input::Step, 10_000.0, 3.0, None).unwrap();
    let m = step_metrics(&trace, 1.0);
    near(
        m.rise,
        crossing(step, 0.9) - crossing(step, 0.1),
        1e-3,
        "rise",
    );
    near(m.settle, crossing(step, 0.98), 1e-3, "settle");
    // Zero-order hold: the ramp lags 2/ω plus about half a frame.
    let ramp = simulate(&make, &Input::Ramp { slope: 1.0 }, 10_000.0, 10.0, None).unwrap();
    near(ramp_lag(&ramp, 1.0), 2.0 / omega, 1e-3, "ramp lag");
    for p in frequency_response(&make, &[0.5, 1.0, 2.0], 2000.0).unwrap() {
        let r = std::f64::consts::TAU * p.hz / omega;
        near(p.gain, 1.0 / (1.0 + r * r), 2e-3, "gain");
        near(p.phase_degrees, -2.0 * r.atan().to_degrees(), 1e-2, "phase");
    }
}

#[test]
fn underdamped_overshoot_matches_closed_form() {
    let zeta = 0.3;
    let make = || -> Box<dyn System<f64>> {
        Box::new(Smoother::new(SpringDamper::new(6.0, zeta).unwrap(), 0.0).unwrap())
    };
    let trace = simulate(&make, &Input::Step, 5000.0, 5.0, None).unwrap();
    let m = step_metrics(&trace, 1.0);
    let want = 100.0 * (-std::f64::consts::PI * zeta / (1.0 - zeta * zeta).sqrt()).exp();
    near(m.overshoot_percent, want, 1e-3, "overshoot");
}

#[test]
fn exact_systems_do_not_care_about_the_frame_rate_and_the_compat_step_does() {
    let exact = analysis::report("exp", &exp_factory(0.15)).unwrap();
    assert!(exact.ramp_lag.percent() < 1e-6, "{:?}", exact.ramp_lag);
    let compat = analysis::report("smooth damp", &|| -> Box<dyn System<f64>> {
        Box::new(signals::SmoothDamp::new(0.3, 0.0).unwrap())
    })
    .unwrap();
    // Its ramp lag moves with the frame rate (0.275 s at 20 Hz).
    assert!(compat.ramp_lag.percent() > 1.0, "{:?}", compat.ramp_lag);
    assert!(
        (compat.ramp_lag.min - 0.275).abs() < 2e-3,
        "{:?}",
        compat.ramp_lag
    );
}

#[test]
fn the_discrete_tables_show_what_each_rule_does() {
    use signals::analysis::{button_table, lock_on_table, switch_table, tap_table};
    let find = |rows: &[signals::analysis::DiscreteRow], system: &str, condition: &str| {
        rows.iter()
            .find(|r| r.system.starts_with(system) && r.condition.starts_with(condition))
            .cloned()
            .unwrap_or_else(|| panic!("no row {system} / {condition}"))
    };
    let buttons = button_table().unwrap().rows;
    for noise in ["noise ±0.02", "noise ±0.05", "noise ±0.1"] {
        // A band wider than the noise's swing never flickers and misses nothing.
        let wide = find(&buttons, "hysteresis 0.6 / 0.4", noise);
        assert_eq!((wide.false_triggers, wide.missed), (0, 0), "{wide:?}");
        // One point flickers at every noise level.
        assert!(find(&buttons, "naive", noise).false_triggers > 0);
    }
    // The wide band is late by about its half-width over the slope (0.1 / 0.2 per s).
    let wide = find(&buttons, "hysteresis 0.6 / 0.4", "noise ±0.02, 60 Hz");
    assert!((wide.latency - 0.5).abs() < 0.1, "{wide:?}");

    let switch = switch_table().unwrap().rows;
    let trailing = find(&switch, "debounce 20 ms, trailing", "polled at 1000 Hz");
    assert_eq!((trailing.false_triggers, trailing.missed), (0, 0));
    assert!(find(&switch, "raw", "polled at 1000 Hz").false_triggers > 20);

    let lock = lock_on_table().unwrap().rows;
    assert!(find(&lock, "best score", "noise ±0.05").false_triggers > 0);
    for noise in ["noise ±0.05", "noise ±0.15"] {
        let r = find(&lock, "margin 0.05 + dwell", noise);
        assert_eq!((r.false_triggers, r.missed), (0, 0), "{r:?}");
    }

    // Taps by time are right at every frame rate; by frames, code written
    // for 60 Hz takes slow presses for taps at 30 Hz and misses taps at 144.
    let taps = tap_table().unwrap().rows;
    for rate in ["30 Hz", "60 Hz", "144 Hz"] {
        let r = find(&taps, "tap ≤ 0.2 s, by time", rate);
        assert_eq!((r.false_triggers, r.missed), (0, 0), "{r:?}");
    }
    assert!(find(&taps, "tap ≤ 12 frames", "30 Hz").false_triggers > 0);
    assert!(find(&taps, "tap ≤ 12 frames", "144 Hz").missed > 0);
}
