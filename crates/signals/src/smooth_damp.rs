//! The usual engine `SmoothDamp` step (Game Programming Gems 4, ch. 1.10, as
//! Unity's `Mathf.SmoothDamp` ships it), kept so code can be ported and
//! compared. Prefer [`crate::SpringDamper::critical`]: it is the same spring,
//! stepped exactly.

use crate::error::{SignalError, check_dt, check_positive};
use crate::math::Float;
use crate::system::System;

/// The engine-style critically damped smoothing step, operation for
/// operation as engines write it, in the value's own precision.
///
/// Where it drifts from the exact spring ([`crate::SpringDamper::critical`]
/// with the same smooth time):
/// - it approximates `exp(−x)` by `1/(1 + x + 0.48x² + 0.235x³)`: relative
///   error 0.12% at ωdt ≤ 1, 8.7% at ωdt = 2 (a 1 s hitch at smooth time 0.3
///   leaves a step at 0.922 instead of 0.990);
/// - it holds the target constant within a step, so ramp lag depends on the
///   frame rate (0.275 at 20 fps, 0.2996 at 1000 fps, smooth time 0.3);
/// - its overshoot guard snaps to the target and sets the velocity to 0.
///
/// Two deliberate departures, both where the engine step yields NaN or
/// infinity: `dt = 0` returns the current value unchanged (the engine divides
/// by dt in its guard), and a smooth time below 1e-4 is raised to 1e-4 as
/// the engine does, but a non-positive one is an error at construction.
#[derive(Debug, Clone, Copy)]
pub struct SmoothDamp<F: Float> {
    smooth_time: F,
    max_speed: F,
    value: F,
    velocity: F,
}

impl<F: Float> SmoothDamp<F> {
    /// At rest at `initial`, with `smooth_time` seconds and no speed limit.
    pub fn new(smooth_time: f64, initial: F) -> Result<Self, SignalError> {
        let t = check_positive("smooth_time", smooth_time)?.max(1e-4);
        Ok(SmoothDamp {
            smooth_time: F::from_f64(t),
            max_speed: F::from_f64(f64::INFINITY),
            value: crate::system::check_initial(initial)?,
            velocity: F::ZERO,
        })
    }

    /// Limits the speed as the engine does (the distance to the target used
    /// in a step is clamped to `max_speed · smooth_time`).
    pub fn with_max_speed(mut self, max_speed: f64) -> Result<Self, SignalError> {
        self.max_speed = F::from_f64(check_positive("max_speed", max_speed)?);
        Ok(self)
    }

    /// One engine step, returning `(value, velocity)`; no input checks.
    /// `smooth_time` must already be ≥ 1e-4, `dt > 0`.
    #[inline]
    pub fn step(current: F, target: F, velocity: F, smooth_time: F, max_speed: F, dt: F) -> (F, F) {
        let two = F::from_f64(2.0);
        let omega = two / smooth_time;
        let x = omega * dt;
        let exp =
            F::ONE / (F::ONE + x + F::from_f64(0.48) * x * x + F::from_f64(0.235) * x * x * x);
        let mut change = current - target;
        let original_to = target;
        let max_change = max_speed * smooth_time;
        change = if change < -max_change {
            -max_change
        } else if change > max_change {
            max_change
        } else {
            change
        };
        let target = current - change;
        let temp = (velocity + omega * change) * dt;
        let mut velocity = (velocity - omega * temp) * exp;
        let mut output = target + (change + temp) * exp;
        if (original_to - current > F::ZERO) == (output > original_to) {
            output = original_to;
            velocity = (output - original_to) / dt;
        }
        (output, velocity)
    }
}

impl<F: Float> System<F> for SmoothDamp<F> {
    fn update(&mut self, dt: f64, target: F) -> Result<F, SignalError> {
        check_dt(dt)?;
        if !target.is_finite() {
            return Err(SignalError::NonFiniteInput { what: "target" });
        }
        let dt = F::from_f64(dt);
        // Also a dt too small for the value's precision: the engine step
        // would divide by it.
        if dt == F::ZERO {
            return Ok(self.value);
        }
        let (v, vel) = Self::step(
            self.value,
            target,
            self.velocity,
            self.smooth_time,
            self.max_speed,
            dt,
        );
        if !(v.is_finite() && vel.is_finite()) {
            return Err(SignalError::NonFiniteInput {
                what: "target (the engine step overflows)",
            });
        }
        self.value = v;
        self.velocity = vel;
        Ok(v)
    }

    fn value(&self) -> F {
        self.value
    }

    fn velocity(&self) -> F {
        self.velocity
    }

    fn reset(&mut self, value: F) -> Result<(), SignalError> {
        self.value = crate::system::check_initial(value)?;
        self.velocity = F::ZERO;
        Ok(())
    }
}
