//! Behaviour of the nonlinear and special systems: the SmoothDamp
//! compatibility step, PID, rate limiter, backlash, interpolation, angles
//! and rotations, the batch.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::needless_range_loop)] // Tests: a failure is the report.

use proptest::prelude::*;
use signals::*;

#[test]
fn smooth_damp_is_the_exact_spring_with_an_approximate_exp() {
    // One step from rest toward 1: 1 − (1 + x)·approx(x), x = ωdt, against 1 − (1 + x)e^(−x).
    for (smooth_time, dt) in [(0.3, 1.0 / 60.0), (0.3, 0.25), (0.3, 1.0), (0.1, 0.05)] {
        let mut compat = SmoothDamp::new(smooth_time, 0.0f64).unwrap();
        let mut exact =
            Smoother::new(SpringDamper::critical(smooth_time).unwrap(), 0.0f64).unwrap();
        let x = 2.0 / smooth_time * dt;
        let approx = 1.0 / (1.0 + x + 0.48 * x * x + 0.235 * x * x * x);
        let got = compat.update(dt, 1.0).unwrap();
        assert!(
            (got - (1.0 - (1.0 + x) * approx)).abs() < 1e-12,
            "compat step at dt {dt}"
        );
        let e = exact.update(dt, 1.0).unwrap();
        assert!(
            (e - (1.0 - (1.0 + x) * (-x).exp())).abs() < 1e-12,
            "exact step at dt {dt}"
        );
    }
    // The documented hitch: a 1 s frame at smooth time 0.3.
    let mut compat = SmoothDamp::new(0.3, 0.0f64).unwrap();
    assert!((compat.update(1.0, 1.0).unwrap() - 0.922).abs() < 1e-3);
}

#[test]
fn smooth_damp_f32_matches_its_f64_run() {
    let mut a = SmoothDamp::new(0.2, 0.0f32).unwrap();
    let mut b = SmoothDamp::new(0.2, 0.0f64).unwrap();
    for i in 0..200 {
        let g = if i < 100 { 3.0 } else { -2.0 };
        let x = a.update(1.0 / 60.0, g as f32).unwrap();
        let y = b.update(1.0 / 60.0, g).unwrap();
        assert!((f64::from(x) - y).abs() < 1e-5, "frame {i}: {x} vs {y}");
    }
}

#[test]
fn pid_derivative_is_on_the_measurement_and_integral_is_exact() {
    let mut pid = Pid::new(PidConfig {
        kp: 0.0,
        ki: 2.0,
        kd: 1.0,
        ..PidConfig::default()
    })
    .unwrap();
    pid.update(0.1, 0.0, 0.0).unwrap();
    // A setpoint jump gives no derivative kick.
    let out = pid.update(0.1, 10.0, 0.0).unwrap();
    assert_eq!(out.d, 0.0);
    // Constant error: the integral is ki·e·t however the time is split.
    let mut t = 0.1;
    for dt in [0.05, 0.2, 0.013, 0.3] {
        pid.update(dt, 10.0, 0.0).unwrap();
        t += dt;
    }
    assert!((pid.integral() - 2.0 * 10.0 * t).abs() < 1e-9);
    // A moving measurement: d = −kd·dm/dt.
    let out = pid.update(0.5, 10.0, 1.0).unwrap();
    assert!((out.d - (-1.0 / 0.5)).abs() < 1e-12);
}

/// A first-order plant driven by a PID with a saturated actuator: the
/// anti-windup variants overshoot less than none.
fn overshoot(anti_windup: AntiWindup) -> f64 {
    let mut pid = Pid::new(PidConfig {
        kp: 2.0,
        ki: 4.0,
        kd: 0.0,
        output_limits: (-1.0, 1.0),
        anti_windup,
        ..PidConfig::default()
    })
    .unwrap();
    let (mut y, dt) = (0.0f64, 0.01);
    let mut peak = 0.0f64;
    for _ in 0..2000 {
        let u = pid.update(dt, 5.0, y).unwrap().output;
        // ẏ = −y/10 + u, stepped exactly.
        let a = (-dt / 10.0f64).exp();
        y = y * a + 10.0 * u * (1.0 - a);
        peak = peak.max(y);
    }
    peak - 5.0
}

#[test]
fn anti_windup_limits_overshoot() {
    let none = overshoot(AntiWindup::None);
    let clamp = overshoot(AntiWindup::Clamp);
    let back = overshoot(AntiWindup::BackCalculation { tracking_time: 0.5 });
    assert!(clamp < 0.5 * none, "clamp {clamp} vs none {none}");
    assert!(back < 0.5 * none, "back-calculation {back} vs none {none}");
}

proptest! {
    #[test]
    fn rate_limiter_is_exact_under_splitting(x0 in -10.0f64..10.0, g in -10.0f64..10.0, rate in 0.1f64..20.0,
                                             parts in prop::collection::vec(0.01f64..1.0, 1..20), total in 0.0f64..3.0) {
        let mut one = RateLimiter::new(rate, x0).unwrap();
        let mut many = one;
        let a = one.update(total, g).unwrap();
        let sum: f64 = parts.iter().sum();
        let mut b = x0;
        for p in &parts {
            b = many.update(p / sum * total, g).unwrap();
        }
        // Closed form: move at the rate until there.
        let want = if (g - x0).abs() <= rate * total { g } else { x0 + (g - x0).signum() * rate * total };
        prop_assert!((a - want).abs() < 1e-9 && (b - want).abs() < 1e-9, "one {a}, split {b}, closed form {want}");
    }

    #[test]
    fn backlash_stays_within_its_width(inputs in prop::collection::vec(-10.0f64..10.0, 1..50), width in 0.0f64..2.0) {
        let mut b = Backlash::new(width, 0.0).unwrap();
        let mut prev = 0.0;
        for x in inputs {
            let y = b.update(0.016, x).unwrap();
            prop_assert!((y - x).abs() <= width + 1e-12);
            // It moves only when pushed, and no further than needed.
            if (x - prev).abs() <= width { prop_assert_eq!(y, prev); }
            prev = y;
        }
    }

    #[test]
    fn interpolation_hits_its_samples(p in prop::array::uniform4(-10.0f64..10.0), gaps in prop::array::uniform3(0.1f64..2.0)) {
        let [a, b, c, d] = p;
        prop_assert_eq!(lerp(a, b, 0.0), a);
        prop_assert_eq!(lerp(a, b, 1.0), b);
        prop_assert!((catmull_rom(a, b, c, d, 0.0) - b).abs() < 1e-12);
        prop_assert!((catmull_rom(a, b, c, d, 1.0) - c).abs() < 1e-12);
        let times = [0.0, gaps[0], gaps[0] + gaps[1], gaps[0] + gaps[1] + gaps[2]];
        let at = |t| catmull_rom_timed(p, times, t).unwrap();
        prop_assert!((at(times[1]) - b).abs() < 1e-9 && (at(times[2]) - c).abs() < 1e-9);
        // Samples on a line come back on the line, even at uneven times.
        let line = times.map(|t| 3.0 * t - 1.0);
        let mid = 0.5 * (times[1] + times[2]);
        prop_assert!((catmull_rom_timed(line, times, mid).unwrap() - (3.0 * mid - 1.0)).abs() < 1e-9);
        // Hermite with the true tangents reproduces a cubic.
        let f = |t: f64| t * t * t - 2.0 * t;
        let df = |t: f64| 3.0 * t * t - 2.0;
        prop_assert!((hermite(f(0.0), df(0.0), f(1.0), df(1.0), 0.3) - f(0.3)).abs() < 1e-12);
    }

    #[test]
    fn angles_take_the_short_way(from in -180.0f64..180.0, to in -180.0f64..180.0) {
        let mut s = Smoother::new(Exponential::time_constant(0.1).unwrap(), Angle::from_degrees(from)).unwrap();
        let mut plain = Smoother::new(Exponential::time_constant(0.1).unwrap(), 0.0f64).unwrap();
        // The short signed difference, in degrees.
        let short = (to - from + 540.0).rem_euclid(360.0) - 180.0;
        let got = s.update(0.1, Angle::from_degrees(to)).unwrap();
        let moved = plain.update(0.1, short).unwrap();
        let want = Angle::from_degrees(from + moved);
        prop_assert!(got.difference(want).abs() < 1e-9, "{got:?} vs {want:?}");
    }

    #[test]
    fn rotations_follow_the_scalar_angle_and_ignore_the_sign(axis in prop::array::uniform3(-1.0f64..1.0), angle in -3.0f64..3.0,
                                                              steps in prop::collection::vec(0.001f64..0.1, 1..20)) {
        prop_assume!(axis.iter().map(|c| c * c).sum::<f64>() > 0.01);
        let target = Rotation::from_axis_angle(axis, angle).unwrap();
        let [w, x, y, z] = target.to_array();
        let negated = Rotation::from_quaternion(-w, -x, -y, -z).unwrap();
        let spring = SpringDamper::critical(0.2).unwrap();
        let mut a = Smoother::new(spring, Rotation::identity()).unwrap();
        let mut b = Smoother::new(spring, Rotation::identity()).unwrap();
        let mut scalar = Smoother::new(spring, 0.0f64).unwrap();
        for dt in steps {
            let ra = a.update(dt, target).unwrap();
            let rb = b.update(dt, negated).unwrap();
            let s = scalar.update(dt, angle.abs()).unwrap();
            prop_assert!(ra.angle_to(rb) < 1e-9, "q and −q gave different rotations");
            // About a fixed axis the rotation's angle is the scalar spring's.
            prop_assert!((ra.angle_to(Rotation::identity()) - s.abs()).abs() < 1e-9);
        }
    }

    #[test]
    fn batch_matches_single_systems(n in 1usize..40, dt in 0.0f64..0.5, targets in prop::collection::vec(-5.0f32..5.0, 40), second: bool) {
        let spring = SpringDamper::new(9.0, 0.6).unwrap();
        let exp = Exponential::half_life(0.1).unwrap();
        let mut batch = Batch::<f32>::with_len(n).unwrap();
        batch.set_targets(&targets[..n]).unwrap();
        if second { batch.step(&spring, dt).unwrap() } else { batch.step(&exp, dt).unwrap() }
        for i in 0..n {
            let single = if second {
                Smoother::new(spring, 0.0f32).unwrap().update(dt, targets[i]).unwrap()
            } else {
                Smoother::new(exp, 0.0f32).unwrap().update(dt, targets[i]).unwrap()
            };
            prop_assert!((batch.values()[i] - single).abs() <= 1e-5 * targets[i].abs().max(1.0));
        }
    }
}

#[test]
fn batch_refuses_a_bad_target_and_moves_nothing() {
    let mut batch = Batch::<f64>::with_len(4).unwrap();
    batch.set_targets(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(
        batch.set_targets(&[1.0, f64::NAN, 2.0, 3.0]),
        Err(SignalError::NonFiniteBatchTarget { index: 1 })
    );
    assert_eq!(batch.targets(), &[1.0, 2.0, 3.0, 4.0]);
    assert!(batch.set_targets(&[1.0]).is_err());
    assert!(batch.set_target(9, 1.0).is_err());
    assert!(batch.set_target(2, f64::INFINITY).is_err());
    assert!(batch.reset(0, f64::NAN).is_err());
    batch.reset(3, 4.0).unwrap();
    batch
        .step(&Exponential::half_life(0.1).unwrap(), 0.1)
        .unwrap();
    assert_eq!(batch.values()[3], 4.0);
    assert!((batch.values()[0] - 0.5).abs() < 1e-12);
}
