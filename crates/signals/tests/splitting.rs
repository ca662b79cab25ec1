//! Step-splitting invariance: N random sub-steps give the same state as one
//! step of the same total time, under zero- and first-order hold, for every
//! linear system: within 1e-12 (f64) and 1e-5 (f32), relative to the
//! signal's scale.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::too_many_arguments,
    clippy::collapsible_if
)] // Tests: a failure is the report.

use proptest::prelude::*;
use signals::{Exponential, Hold, Smoother, SpringDamper, System};

#[derive(Clone, Copy, Debug)]
enum Dyn {
    Exp(Exponential),
    Spring(SpringDamper),
}

fn dynamics() -> impl Strategy<Value = Dyn> {
    prop_oneof![
        (0.01f64..10.0).prop_map(|tau| Dyn::Exp(Exponential::time_constant(tau).unwrap())),
        (
            0.5f64..40.0,
            prop_oneof![Just(1.0), Just(0.0), 0.0f64..5.0],
            any::<bool>()
        )
            .prop_map(|(w, z, tracking)| {
                let s = SpringDamper::new(w, z).unwrap();
                Dyn::Spring(if tracking { s.tracking() } else { s })
            }),
    ]
}

fn hold() -> impl Strategy<Value = Hold> {
    prop_oneof![Just(Hold::Zero), Just(Hold::FirstOrder)]
}

/// Runs one step of `total` and the split version; returns both (value, velocity).
fn run<V>(
    d: Dyn,
    hold: Hold,
    x0: V,
    v0: V,
    g0: V,
    g1: V,
    total: f64,
    parts: &[f64],
) -> ((V, V), (V, V))
where
    V: signals::Vector + signals::Space<Tangent = V>,
{
    fn go<V, D>(
        d: D,
        hold: Hold,
        x0: V,
        v0: V,
        g0: V,
        g1: V,
        total: f64,
        parts: &[f64],
    ) -> ((V, V), (V, V))
    where
        V: signals::Vector + signals::Space<Tangent = V>,
        D: signals::Dynamics,
    {
        let mut one = Smoother::new(d, g0).unwrap().with_hold(hold);
        one.set_state(x0, v0).unwrap();
        let mut many = one;
        one.update(total, g1).unwrap();
        let sum: f64 = parts.iter().sum();
        let mut t = 0.0;
        for (i, p) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let next_t = if last { total } else { t + p / sum * total };
            // The target at the end of this piece: on the straight path from g0 to g1.
            let g = if last {
                g1
            } else {
                signals::lerp(g0, g1, next_t / total)
            };
            many.update(next_t - t, if hold == Hold::Zero { g1 } else { g })
                .unwrap();
            t = next_t;
        }
        (
            (one.value(), one.velocity()),
            (many.value(), many.velocity()),
        )
    }
    match d {
        Dyn::Exp(e) => go(e, hold, x0, v0, g0, g1, total, parts),
        Dyn::Spring(s) => go(s, hold, x0, v0, g0, g1, total, parts),
    }
}

proptest! {
    #[test]
    fn f64_split_steps_match_one_step(d in dynamics(), hold in hold(), x0 in -100.0f64..100.0, v0 in -100.0f64..100.0,
                                      g0 in -100.0f64..100.0, g1 in -100.0f64..100.0, total in 0.001f64..5.0,
                                      parts in prop::collection::vec(0.01f64..1.0, 1..30)) {
        let ((x1, v1), (x2, v2)) = run(d, hold, x0, v0, g0, g1, total, &parts);
        let scale = [x0, v0, g0, g1, (g1 - g0) / total].iter().fold(1.0f64, |m, v| m.max(v.abs()));
        prop_assert!((x1 - x2).abs() <= 1e-12 * scale, "value: one step {x1}, split {x2}, off {:e} (scale {scale})", x1 - x2);
        // The velocity scales with ω·scale.
        let vscale = scale * match d { Dyn::Exp(e) => 1.0 / e.tau(), Dyn::Spring(s) => s.omega() }.max(1.0);
        prop_assert!((v1 - v2).abs() <= 1e-12 * vscale, "velocity: one step {v1}, split {v2}");
    }

    #[test]
    fn f32_vectors_split_steps_match_one_step(d in dynamics(), hold in hold(), x0 in prop::array::uniform2(-100.0f32..100.0),
                                              g0 in prop::array::uniform2(-100.0f32..100.0), g1 in prop::array::uniform2(-100.0f32..100.0),
                                              total in 0.01f64..5.0, parts in prop::collection::vec(0.05f64..1.0, 1..20)) {
        let ((x1, _), (x2, _)) = run(d, hold, x0, [0.0; 2], g0, g1, total, &parts);
        let scale = x0.iter().chain(&g0).chain(&g1).fold(1.0f32, |m, v| m.max(v.abs()))
            .max(((g1[0] - g0[0]).abs().max((g1[1] - g0[1]).abs())) / total as f32);
        for k in 0..2 {
            prop_assert!((x1[k] - x2[k]).abs() <= 1e-5 * scale, "component {k}: one step {}, split {}", x1[k], x2[k]);
        }
    }
}
