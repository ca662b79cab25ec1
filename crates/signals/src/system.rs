//! What every system shares: the [`System`] trait, how the target is held
//! between samples ([`Hold`]), and jump (teleport) detection.

use crate::error::{SignalError, check_dt};
use crate::space::{Space, Vector};

/// A system that turns a jumpy target signal into a smooth output.
///
/// Every call takes the elapsed time since the previous call, in seconds
/// (`f64`: a `f32` clock loses milliseconds after hours). A negative or
/// non-finite elapsed time, or a non-finite target, is an error and leaves
/// the state as it was. An elapsed time of zero moves nothing; it only
/// records the new target (the one exception is [`crate::Backlash`], whose
/// output depends on the input's path and not on time).
pub trait System<S: Space> {
    /// Advances by `dt` seconds toward `target` and returns the new output.
    fn update(&mut self, dt: f64, target: S) -> Result<S, SignalError>;
    /// The current output.
    fn value(&self) -> S;
    /// The output's current rate of change, per second.
    fn velocity(&self) -> S::Tangent;
    /// Teleports: the output becomes `value` at rest, the target too, and any
    /// memory of past samples is forgotten. A non-finite `value` is an error
    /// and changes nothing.
    fn reset(&mut self, value: S) -> Result<(), SignalError>;
}

/// How the target is taken to move between two updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Hold {
    /// The new target holds for the whole step (it jumped at the start).
    /// Lag on a moving target then depends a little on the step size.
    #[default]
    Zero,
    /// The target moved in a straight line from the previous target to the
    /// new one during the step. A ramp is then followed with the same lag at
    /// every frame rate, exactly.
    FirstOrder,
}

/// Checks a value a system is started or reset at.
#[inline]
pub(crate) fn check_initial<S: Space>(value: S) -> Result<S, SignalError> {
    if value.is_valid() {
        Ok(value)
    } else {
        Err(SignalError::NonFiniteInput {
            what: "initial value",
        })
    }
}

/// The target's path during one step: it starts at `start` and moves at
/// `velocity` (tangent units per second), reaching `end` after `dt`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TargetPath<S: Space> {
    pub start: S,
    pub end: S,
    pub velocity: S::Tangent,
    /// The step crossed the jump threshold: the system should snap.
    pub jumped: bool,
}

/// The latest target, the hold rule and the jump threshold, shared by the
/// systems that follow a target.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TargetTracker<S: Space> {
    pub latest: S,
    pub hold: Hold,
    pub jump_threshold: Option<f64>,
}

impl<S: Space> TargetTracker<S> {
    pub fn new(initial: S) -> Self {
        TargetTracker {
            latest: initial,
            hold: Hold::Zero,
            jump_threshold: None,
        }
    }

    /// Checks the inputs, works out the target's path over this step and
    /// records `target` as the latest. Nothing changes on error.
    #[inline(always)]
    pub fn begin(&mut self, dt: f64, target: S) -> Result<TargetPath<S>, SignalError> {
        check_dt(dt)?;
        if !target.is_valid() {
            return Err(SignalError::NonFiniteInput { what: "target" });
        }
        // The change since the last target is only needed for jump detection
        // and first-order hold; a plain zero-order step skips it (for
        // rotations it costs a quaternion product and an atan2).
        let first_order = self.hold == Hold::FirstOrder && dt > 0.0;
        if self.jump_threshold.is_none() && !first_order {
            self.latest = target;
            return Ok(TargetPath {
                start: target,
                end: target,
                velocity: <S::Tangent as Vector>::zero(),
                jumped: false,
            });
        }
        let change = target.difference(self.latest);
        let jumped = self
            .jump_threshold
            .is_some_and(|limit| change.norm() > limit);
        if jumped || !first_order {
            self.latest = target;
            return Ok(TargetPath {
                start: target,
                end: target,
                velocity: <S::Tangent as Vector>::zero(),
                jumped,
            });
        }
        let velocity = change.scale_f64(1.0 / dt);
        if !velocity.is_finite() {
            // A finite change over a denormal dt can overflow.
            return Err(SignalError::NonFiniteInput {
                what: "target velocity (change / dt)",
            });
        }
        let start = self.latest;
        self.latest = target;
        Ok(TargetPath {
            start,
            end: target,
            velocity,
            jumped,
        })
    }

    /// As [`Self::begin`], with the target's velocity given rather than
    /// derived: the target ends at `target` having moved at `velocity`.
    pub fn begin_with_velocity(
        &mut self,
        dt: f64,
        target: S,
        velocity: S::Tangent,
    ) -> Result<TargetPath<S>, SignalError> {
        check_dt(dt)?;
        if !velocity.is_finite() {
            return Err(SignalError::NonFiniteInput {
                what: "target velocity",
            });
        }
        let hold = core::mem::replace(&mut self.hold, Hold::Zero);
        let path = self.begin(dt, target);
        self.hold = hold;
        let mut path = path?;
        if !path.jumped {
            path.velocity = velocity;
            path.start = target.offset(velocity.scale_f64(-dt));
        }
        Ok(path)
    }
}
