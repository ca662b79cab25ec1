//! Nonlinear shapers: a rate limiter, a backlash (dead zone with memory) and
//! the memoryless dead zone.

use crate::error::{SignalError, check_non_negative, check_positive};
use crate::space::{Space, Vector};
use crate::system::{System, TargetTracker, check_initial};

/// Moves the output toward the target at most `max_rate` tangent units per
/// second, in a straight line. Exact at any step size for a held target
/// (N steps equal one step of the same total time); the target's path within
/// a step does not matter, so there is no hold setting.
#[derive(Debug, Clone, Copy)]
pub struct RateLimiter<S: Space> {
    max_rate: f64,
    value: S,
    velocity: S::Tangent,
    target: TargetTracker<S>,
}

impl<S: Space> RateLimiter<S> {
    /// At `initial`, limited to `max_rate` per second (> 0).
    pub fn new(max_rate: f64, initial: S) -> Result<Self, SignalError> {
        Ok(RateLimiter {
            max_rate: check_positive("max_rate", max_rate)?,
            value: check_initial(initial)?,
            velocity: <S::Tangent as Vector>::zero(),
            target: TargetTracker::new(initial),
        })
    }

    /// Snap instead of sliding when the target jumps farther than `distance`.
    pub fn with_jump_threshold(mut self, distance: f64) -> Result<Self, SignalError> {
        self.target.jump_threshold = Some(check_positive("jump threshold", distance)?);
        Ok(self)
    }
}

impl<S: Space> System<S> for RateLimiter<S> {
    fn update(&mut self, dt: f64, target: S) -> Result<S, SignalError> {
        let path = self.target.begin(dt, target)?;
        if path.jumped {
            self.value = target;
            self.velocity = <S::Tangent as Vector>::zero();
            return Ok(target);
        }
        if dt == 0.0 {
            return Ok(self.value);
        }
        let gap = target.difference(self.value);
        let len = gap.norm();
        let reach = self.max_rate * dt;
        let step = if len <= reach {
            gap
        } else {
            gap.scale_f64(reach / len)
        };
        self.value = if len <= reach {
            target
        } else {
            self.value.offset(step)
        };
        self.velocity = step.scale_f64(1.0 / dt);
        Ok(self.value)
    }

    fn value(&self) -> S {
        self.value
    }

    fn velocity(&self) -> S::Tangent {
        self.velocity
    }

    fn reset(&mut self, value: S) -> Result<(), SignalError> {
        self.value = check_initial(value)?;
        self.velocity = <S::Tangent as Vector>::zero();
        self.target.latest = value;
        Ok(())
    }
}

/// Backlash (hysteresis): the output stays put while the input wanders
/// within `width` of it, and is dragged along, `width` behind, when the input
/// moves farther. Kills jitter of amplitude below `width` at rest with no
/// lag beyond `width` in motion. Independent of the step size.
#[derive(Debug, Clone, Copy)]
pub struct Backlash<S: Space> {
    width: f64,
    value: S,
    velocity: S::Tangent,
}

impl<S: Space> Backlash<S> {
    /// At `initial`, with a play of `width` tangent units (≥ 0).
    pub fn new(width: f64, initial: S) -> Result<Self, SignalError> {
        Ok(Backlash {
            width: check_non_negative("width", width)?,
            value: check_initial(initial)?,
            velocity: <S::Tangent as Vector>::zero(),
        })
    }
}

impl<S: Space> System<S> for Backlash<S> {
    fn update(&mut self, dt: f64, input: S) -> Result<S, SignalError> {
        crate::error::check_dt(dt)?;
        if !input.is_valid() {
            return Err(SignalError::NonFiniteInput { what: "input" });
        }
        let gap = input.difference(self.value);
        let len = gap.norm();
        let step = if len > self.width {
            gap.scale_f64((len - self.width) / len)
        } else {
            <S::Tangent as Vector>::zero()
        };
        let velocity = if dt > 0.0 {
            step.scale_f64(1.0 / dt)
        } else {
            <S::Tangent as Vector>::zero()
        };
        if !velocity.is_finite() {
            // A real move over a denormal dt: refuse rather than store an infinity.
            return Err(SignalError::NonFiniteInput {
                what: "input velocity (change / dt)",
            });
        }
        self.value = self.value.offset(step);
        self.velocity = velocity;
        Ok(self.value)
    }

    fn value(&self) -> S {
        self.value
    }

    fn velocity(&self) -> S::Tangent {
        self.velocity
    }

    fn reset(&mut self, value: S) -> Result<(), SignalError> {
        self.value = check_initial(value)?;
        self.velocity = <S::Tangent as Vector>::zero();
        Ok(())
    }
}

/// The continuous dead zone: 0 within `±width`, and `x ∓ width` outside, so
/// small stick noise reads as zero without a jump at the edge. A negative
/// width counts as zero.
#[inline]
pub fn dead_zone(x: f64, width: f64) -> f64 {
    let w = width.max(0.0);
    if x > w {
        x - w
    } else if x < -w {
        x + w
    } else {
        0.0
    }
}

/// The radial dead zone for a stick or any vector: zero within `radius` of
/// the origin, and shortened by `radius` outside, direction kept.
pub fn dead_zone_radial<V: Vector>(v: V, radius: f64) -> V {
    let len = v.norm();
    let r = radius.max(0.0);
    if len <= r || len == 0.0 {
        V::zero()
    } else {
        v.scale_f64((len - r) / len)
    }
}
