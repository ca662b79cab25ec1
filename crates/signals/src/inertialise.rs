//! Crossing a discontinuity smoothly: when a continuous input jumps (a
//! warp, a target switch, a mode change, a snapshot buffer's correction),
//! the output keeps its value and velocity and blends onto the new signal.

use crate::error::{SignalError, check_dt};
use crate::smoother::{Dynamics, Transition};
use crate::space::{Space, Vector};
use crate::system::{System, check_initial};

/// Follows its input exactly, except across a jump: there the difference
/// between where the output was (and how fast it moved) and the new signal
/// becomes an offset that decays through the given [`Dynamics`], as
/// inertialisation does (Bollo's inertial blending in Unreal, Holden's
/// spring-based "dead blending"). With second-order dynamics (a
/// [`crate::SpringDamper`]) the output is continuous in value and velocity;
/// with first-order ones ([`crate::Exponential`]) in value only.
///
/// A jump is an update whose input moved farther than the jump threshold,
/// or the update after [`Self::mark_jump`]. The new signal's velocity over
/// the jump step is taken as the old signal's (it cannot be differenced
/// across the jump) unless [`Self::update_with_velocity`] gives it. The
/// offset's decay is exact at any step size.
///
/// ```
/// use signals::{Inertialiser, SpringDamper, System};
/// let mut camera = Inertialiser::new(SpringDamper::critical(0.25)?, 0.0f64)?
///     .with_jump_threshold(1.0)?;
/// for frame in 1..=30 {
///     camera.update(1.0 / 60.0, frame as f64 / 60.0)?; // 1 unit/s
/// }
/// let before = camera.value();
/// let after = camera.update(1.0 / 60.0, 10.0)?; // the target switched
/// // No jump: the output moves on at 1 unit/s and starts to turn, 0.1 in
/// // the first frame of a 10-unit switch.
/// assert!((after - before).abs() < 0.2);
/// assert!(camera.jumped());
/// # Ok::<(), signals::SignalError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Inertialiser<S: Space, D: Dynamics> {
    dynamics: D,
    input: S,
    input_velocity: S::Tangent,
    offset: S::Tangent,
    offset_velocity: S::Tangent,
    jump_threshold: Option<f64>,
    jump_marked: bool,
    jumped: bool,
    /// The last step's dt and transition (a steady frame rate computes the
    /// exponentials once).
    cached: (f64, Transition),
    /// The blend's size when it started (|offset| + |offset velocity|·1 s):
    /// it ends, exactly, once it has decayed to 1e-9 of that.
    blend_scale: f64,
}

impl<S: Space, D: Dynamics> Inertialiser<S, D> {
    /// At rest at `initial` with no offset.
    pub fn new(dynamics: D, initial: S) -> Result<Self, SignalError> {
        let zero = <S::Tangent as Vector>::zero();
        Ok(Inertialiser {
            dynamics,
            input: check_initial(initial)?,
            input_velocity: zero,
            offset: zero,
            offset_velocity: zero,
            jump_threshold: None,
            jump_marked: false,
            jumped: false,
            cached: (0.0, Transition::IDENTITY),
            blend_scale: 0.0,
        })
    }

    /// An input that moves farther than `distance` in one update is a jump.
    pub fn with_jump_threshold(mut self, distance: f64) -> Result<Self, SignalError> {
        self.jump_threshold = Some(crate::error::check_positive("distance", distance)?);
        Ok(self)
    }

    /// The next update is a jump whatever its distance (the game knows: it
    /// warped the player, switched the target).
    pub fn mark_jump(&mut self) {
        self.jump_marked = true;
    }

    /// Whether the last update was a jump.
    pub fn jumped(&self) -> bool {
        self.jumped
    }

    /// What is left of the blend: the output minus the input.
    pub fn offset(&self) -> S::Tangent {
        self.offset
    }

    /// As [`System::update`], with the input's velocity given (per second).
    pub fn update_with_velocity(
        &mut self,
        dt: f64,
        input: S,
        velocity: S::Tangent,
    ) -> Result<S, SignalError> {
        if !velocity.is_finite() {
            return Err(SignalError::NonFiniteInput {
                what: "input velocity",
            });
        }
        self.step(dt, input, Some(velocity))
    }

    fn step(&mut self, dt: f64, input: S, velocity: Option<S::Tangent>) -> Result<S, SignalError> {
        check_dt(dt)?;
        if !input.is_valid() {
            return Err(SignalError::NonFiniteInput { what: "input" });
        }
        let change = input.difference(self.input);
        let jumped = self.jump_marked
            || dt == 0.0 && change.norm() > 0.0
            || self.jump_threshold.is_some_and(|d| change.norm() > d);
        let input_velocity = match velocity {
            Some(v) => v,
            None if jumped || dt == 0.0 => self.input_velocity,
            None => {
                let v = change.scale_f64(1.0 / dt);
                if !v.is_finite() {
                    return Err(SignalError::NonFiniteInput {
                        what: "input velocity (change / dt)",
                    });
                }
                v
            }
        };
        let (mut offset, mut offset_velocity) = (self.offset, self.offset_velocity);
        if jumped {
            // Where the output is now, against where the new signal was at
            // the start of this step.
            let output = self.value();
            let output_velocity = self.velocity();
            let new_start = input.offset(input_velocity.scale_f64(-dt));
            offset = output.difference(new_start);
            offset_velocity = output_velocity.sub(input_velocity);
            self.blend_scale = offset.norm() + offset_velocity.norm();
        }
        let zero = <S::Tangent as Vector>::zero();
        if !jumped && offset.norm_squared() == 0.0 && offset_velocity.norm_squared() == 0.0 {
            // No blend under way: the output is the input.
            self.input = input;
            self.input_velocity = input_velocity;
            self.jumped = false;
            return Ok(input);
        }
        let t = if self.cached.0.to_bits() == dt.to_bits() {
            self.cached.1
        } else {
            let t = if dt == 0.0 {
                Transition::IDENTITY
            } else {
                self.dynamics.transition(dt)
            };
            self.cached = (dt, t);
            t
        };
        let (mut next, mut next_velocity) = if self.dynamics.second_order() {
            t.apply(offset, offset_velocity, zero)
        } else {
            (offset.scale_f64(t.ee), offset.scale_f64(t.de))
        };
        if next.norm() + next_velocity.norm() <= 1e-9 * self.blend_scale {
            (next, next_velocity) = (zero, zero);
        }
        if !(next.is_finite() && next_velocity.is_finite() && input.offset(next).is_valid()) {
            return Err(SignalError::NonFiniteInput {
                what: "blend (the offset overflowed)",
            });
        }
        self.input = input;
        self.input_velocity = input_velocity;
        self.offset = next;
        self.offset_velocity = next_velocity;
        self.jump_marked = false;
        self.jumped = jumped;
        Ok(self.value())
    }
}

impl<S: Space, D: Dynamics> System<S> for Inertialiser<S, D> {
    fn update(&mut self, dt: f64, target: S) -> Result<S, SignalError> {
        self.step(dt, target, None)
    }

    fn value(&self) -> S {
        self.input.offset(self.offset)
    }

    fn velocity(&self) -> S::Tangent {
        self.input_velocity.add(self.offset_velocity)
    }

    fn reset(&mut self, value: S) -> Result<(), SignalError> {
        let zero = <S::Tangent as Vector>::zero();
        self.input = check_initial(value)?;
        self.input_velocity = zero;
        self.offset = zero;
        self.offset_velocity = zero;
        self.jump_marked = false;
        self.jumped = false;
        self.blend_scale = 0.0;
        Ok(())
    }
}
