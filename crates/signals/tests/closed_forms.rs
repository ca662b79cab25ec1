//! Step, impulse and ramp responses of every linear system against their
//! closed forms, written independently of the implementation (complex
//! exponentials of the characteristic roots), within 1e-9, stepped with
//! random uneven steps.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches: a failure is the report.

use proptest::prelude::*;
use signals::{Exponential, Hold, Smoother, SpringDamper, System};

#[derive(Clone, Copy, Debug)]
struct C(f64, f64);
impl C {
    fn mul(self, o: C) -> C {
        C(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
    fn sub(self, o: C) -> C {
        C(self.0 - o.0, self.1 - o.1)
    }
    fn add(self, o: C) -> C {
        C(self.0 + o.0, self.1 + o.1)
    }
    fn div(self, o: C) -> C {
        let d = o.0 * o.0 + o.1 * o.1;
        C(
            (self.0 * o.0 + self.1 * o.1) / d,
            (self.1 * o.0 - self.0 * o.1) / d,
        )
    }
    fn exp(self) -> C {
        let m = self.0.exp();
        C(m * self.1.cos(), m * self.1.sin())
    }
    fn re(x: f64) -> C {
        C(x, 0.0)
    }
}

/// y(t) for ÿ + 2ζωẏ + ω²y = 0 with y(0) = y0, ẏ(0) = v0.
fn homogeneous(omega: f64, zeta: f64, y0: f64, v0: f64, t: f64) -> f64 {
    if zeta == 1.0 {
        return (y0 + (v0 + omega * y0) * t) * (-omega * t).exp();
    }
    // Roots −ζω ± ω√(ζ² − 1), complex when ζ < 1.
    let disc = zeta * zeta - 1.0;
    let s = if disc >= 0.0 {
        C(omega * disc.sqrt(), 0.0)
    } else {
        C(0.0, omega * (-disc).sqrt())
    };
    let r1 = C::re(-zeta * omega).add(s);
    let r2 = C::re(-zeta * omega).sub(s);
    let c1 = C::re(v0).sub(r2.mul(C::re(y0))).div(r1.sub(r2));
    let c2 = C::re(y0).sub(c1);
    let y = c1
        .mul(r1.mul(C::re(t)).exp())
        .add(c2.mul(r2.mul(C::re(t)).exp()));
    y.0
}

/// Uneven steps adding up to about `total`.
fn steps(seed: &[f64], total: f64) -> Vec<f64> {
    let sum: f64 = seed.iter().sum();
    seed.iter().map(|s| s / sum * total).collect()
}

fn close(got: f64, want: f64, what: &str, t: f64) {
    assert!(
        (got - want).abs() <= 1e-9,
        "{what} at t = {t}: got {got}, closed form {want}, off by {:e}",
        got - want
    );
}

const ZETAS: [f64; 9] = [
    0.0,
    0.1,
    0.3,
    std::f64::consts::FRAC_1_SQRT_2,
    0.95,
    1.0,
    1.5,
    3.0,
    10.0,
];

proptest! {
    #[test]
    fn exponential_step_impulse_ramp(tau in 0.01f64..5.0, seed in prop::collection::vec(0.05f64..1.0, 1..60), total in 0.0f64..20.0) {
        let dyn_ = Exponential::time_constant(tau).unwrap();
        // Step: from 0 toward 1.
        let mut step = Smoother::new(dyn_, 0.0f64).unwrap();
        // Impulse: the response to a unit impulse is the state 1/τ, let go toward 0.
        let mut impulse = Smoother::new(dyn_, 0.0f64).unwrap();
        impulse.set_state(1.0 / tau, 0.0).unwrap();
        // Ramp of slope 2, first-order hold.
        let mut ramp = Smoother::new(dyn_, 0.0f64).unwrap().with_hold(Hold::FirstOrder);
        let mut t = 0.0;
        for dt in steps(&seed, total) {
            t += dt;
            let a = (-t / tau).exp();
            close(step.update(dt, 1.0).unwrap(), 1.0 - a, "step", t);
            close(impulse.update(dt, 0.0).unwrap(), a / tau, "impulse", t);
            close(ramp.update(dt, 2.0 * t).unwrap(), 2.0 * t - 2.0 * tau * (1.0 - a), "ramp", t);
        }
    }

    #[test]
    fn spring_step_impulse_ramp(omega in 0.5f64..30.0, zi in 0usize..ZETAS.len(), tracking: bool,
                                seed in prop::collection::vec(0.05f64..1.0, 1..60), total in 0.0f64..10.0) {
        let zeta = ZETAS[zi];
        let mut dyn_ = SpringDamper::new(omega, zeta).unwrap();
        if tracking {
            dyn_ = dyn_.tracking();
        }
        let mut step = Smoother::new(dyn_, 0.0f64).unwrap();
        // Impulse response of ω²/(s² + 2ζωs + ω²): start at rest with velocity ω².
        let mut impulse = Smoother::new(dyn_, 0.0f64).unwrap();
        impulse.set_state(0.0, omega * omega).unwrap();
        let r = 1.5;
        let mut ramp = Smoother::new(dyn_, 0.0f64).unwrap().with_hold(Hold::FirstOrder);
        let mut t = 0.0;
        for dt in steps(&seed, total) {
            t += dt;
            // Step from rest: error y = x − 1 starts at −1 with rate 0.
            close(step.update(dt, 1.0).unwrap(), 1.0 + homogeneous(omega, zeta, -1.0, 0.0, t), "step", t);
            close(impulse.update(dt, 0.0).unwrap(), homogeneous(omega, zeta, 0.0, omega * omega, t), "impulse", t);
            // Ramp r·t from rest: the error settles at −2ζr/ω (0 when tracking).
            let ep = if tracking { 0.0 } else { -2.0 * zeta * r / omega };
            let want = r * t + ep + homogeneous(omega, zeta, -ep, -r, t);
            close(ramp.update(dt, r * t).unwrap(), want, "ramp", t);
        }
    }
}

#[test]
fn critical_half_life_is_half_way() {
    let s = SpringDamper::critical_half_life(0.25).unwrap();
    let mut x = Smoother::new(s, 0.0f64).unwrap();
    close(x.update(0.25, 1.0).unwrap(), 0.5, "half-life", 0.25);
}

#[test]
fn smooth_time_convention_is_59_percent_at_t() {
    let mut x = Smoother::new(SpringDamper::critical(0.3).unwrap(), 0.0f64).unwrap();
    let at_t = x.update(0.3, 1.0).unwrap();
    close(
        at_t,
        1.0 - 3.0 * (-2.0f64).exp(),
        "step at smooth time",
        0.3,
    );
    assert!((at_t - 0.594).abs() < 1e-3);
}

#[test]
fn half_life_constructor_halves() {
    let mut x = Smoother::new(Exponential::half_life(0.2).unwrap(), 0.0f64).unwrap();
    close(x.update(0.2, 1.0).unwrap(), 0.5, "half-life", 0.2);
    let ported = Exponential::from_lerp_per_frame(0.1, 60.0).unwrap();
    let mut y = Smoother::new(ported, 0.0f64).unwrap();
    close(
        y.update(1.0 / 60.0, 1.0).unwrap(),
        0.1,
        "one frame of lerp 0.1",
        1.0 / 60.0,
    );
}

/// f32 systems compute their coefficients with cheaper exponentials
/// (accurate to 1e-8): their responses still match the closed forms to f32 precision.
#[test]
fn f32_responses_match_closed_forms() {
    let tau = 0.15;
    let mut exp = Smoother::new(Exponential::time_constant(tau).unwrap(), 0.0f32).unwrap();
    let omega = 9.0;
    let mut crit = Smoother::new(SpringDamper::new(omega, 1.0).unwrap(), 0.0f32).unwrap();
    let mut over = Smoother::new(SpringDamper::new(omega, 2.5).unwrap(), 0.0f32).unwrap();
    let mut under = Smoother::new(SpringDamper::new(omega, 0.3).unwrap(), 0.0f32).unwrap();
    let mut t = 0.0;
    for i in 0..400 {
        let dt = 0.001 + 0.02 * ((i * 7) % 11) as f64 / 11.0;
        t += dt;
        let checks = [
            (
                exp.update(dt, 1.0).unwrap(),
                1.0 - (-t / tau).exp(),
                "exponential",
            ),
            (
                crit.update(dt, 1.0).unwrap(),
                1.0 + homogeneous(omega, 1.0, -1.0, 0.0, t),
                "critical",
            ),
            (
                over.update(dt, 1.0).unwrap(),
                1.0 + homogeneous(omega, 2.5, -1.0, 0.0, t),
                "over-damped",
            ),
            (
                under.update(dt, 1.0).unwrap(),
                1.0 + homogeneous(omega, 0.3, -1.0, 0.0, t),
                "under-damped",
            ),
        ];
        for (got, want, what) in checks {
            assert!(
                (f64::from(got) - want).abs() < 2e-6,
                "{what} at t = {t}: {got} vs {want}"
            );
        }
    }
}
