//! [`Smoother`]: one stateful system for every linear dynamics (first-order
//! exponential, mass–spring–damper at any damping ratio, second-order
//! low-pass, tracking spring), stepped exactly by a closed-form transition.

use crate::error::{SignalError, check_positive};
use crate::math::Float;
use crate::space::{Space, Vector};
use crate::system::{Hold, System, TargetTracker, check_initial};
use core::fmt::Debug;

/// The exact effect of one step of linear dynamics on the error `e = x ⊖ g`
/// and its rate `ė`, with the target moving at a constant velocity `v`:
///
/// ```text
/// e₁ = ee·e + ed·ė + ev·v
/// ė₁ = de·e + dd·ė + dv·v
/// ```
///
/// Coefficients are computed in `f64` once per step (or once per batch).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    /// e₁ per unit e.
    pub ee: f64,
    /// e₁ per unit ė.
    pub ed: f64,
    /// e₁ per unit v.
    pub ev: f64,
    /// ė₁ per unit e.
    pub de: f64,
    /// ė₁ per unit ė.
    pub dd: f64,
    /// ė₁ per unit v.
    pub dv: f64,
}

impl Transition {
    /// The step that changes nothing (dt = 0).
    pub const IDENTITY: Transition = Transition {
        ee: 1.0,
        ed: 0.0,
        ev: 0.0,
        de: 0.0,
        dd: 1.0,
        dv: 0.0,
    };

    /// Applies the transition to one error and rate.
    #[inline]
    pub fn apply<V: Vector>(&self, e: V, e_dot: V, v: V) -> (V, V) {
        let e1 = e
            .scale_f64(self.ee)
            .add(e_dot.scale_f64(self.ed))
            .add(v.scale_f64(self.ev));
        let d1 = e
            .scale_f64(self.de)
            .add(e_dot.scale_f64(self.dd))
            .add(v.scale_f64(self.dv));
        (e1, d1)
    }
}

/// Linear dynamics of the error between a system's output and its target.
pub trait Dynamics: Copy + Debug + Send + Sync + 'static {
    /// The exact transition over `dt` seconds (`dt` finite, ≥ 0).
    fn transition(&self, dt: f64) -> Transition;
    /// The transition for values stored in `f32`: may use cheaper functions
    /// accurate to 1e-8 (relative) instead of `f64`'s last bit. Defaults to
    /// [`Self::transition`].
    fn transition_single(&self, dt: f64) -> Transition {
        self.transition(dt)
    }
    /// Whether the dynamics have a velocity state (second order). First-order
    /// systems ignore the incoming rate.
    fn second_order(&self) -> bool;
}

/// A system following a target through linear [`Dynamics`], stepped exactly:
/// any number of steps of any sizes that add up to the same time give the
/// same output (up to rounding), under [`Hold::Zero`] and [`Hold::FirstOrder`].
///
/// ```
/// use signals::{Exponential, Smoother, System};
/// let mut s = Smoother::new(Exponential::half_life(0.1)?, 0.0f64)?;
/// let halfway = s.update(0.1, 10.0)?;
/// assert!((halfway - 5.0).abs() < 1e-12);
/// # Ok::<(), signals::SignalError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Smoother<S: Space, D: Dynamics> {
    dynamics: D,
    value: S,
    velocity: S::Tangent,
    target: TargetTracker<S>,
    max_speed: Option<f64>,
    jumped: bool,
    /// The last step's dt and transition: at a steady frame rate the
    /// exponentials are computed once, not every frame.
    cached: (f64, Transition),
}

impl<S: Space, D: Dynamics> Smoother<S, D> {
    /// A system at rest at `initial`, its target there too. A non-finite
    /// `initial` is an error.
    pub fn new(dynamics: D, initial: S) -> Result<Self, SignalError> {
        Ok(Smoother {
            dynamics,
            value: check_initial(initial)?,
            velocity: <S::Tangent as Vector>::zero(),
            target: TargetTracker::new(initial),
            max_speed: None,
            jumped: false,
            cached: (0.0, Transition::IDENTITY),
        })
    }

    /// Sets how the target moves between updates (default [`Hold::Zero`]).
    pub fn with_hold(mut self, hold: Hold) -> Self {
        self.target.hold = hold;
        self
    }

    /// Teleport detection: when the target moves farther than `distance` in
    /// one update, the output snaps to it at rest instead of sweeping across.
    pub fn with_jump_threshold(mut self, distance: f64) -> Result<Self, SignalError> {
        self.target.jump_threshold = Some(check_positive("jump threshold", distance)?);
        Ok(self)
    }

    /// Limits the output's speed (tangent units per second): after each exact
    /// step the move is shortened to `speed · dt` and the velocity clamped.
    /// This makes the system nonlinear: step-splitting invariance and the
    /// closed forms no longer hold while the limit is active.
    pub fn with_max_speed(mut self, speed: f64) -> Result<Self, SignalError> {
        self.max_speed = Some(check_positive("max speed", speed)?);
        Ok(self)
    }

    /// How the target is held between updates.
    pub fn hold(&self) -> Hold {
        self.target.hold
    }

    /// Replaces the dynamics (for example a new half-life) keeping the state.
    pub fn set_dynamics(&mut self, dynamics: D) {
        self.dynamics = dynamics;
        self.cached = (0.0, Transition::IDENTITY);
    }

    /// The dynamics.
    pub fn dynamics(&self) -> &D {
        &self.dynamics
    }

    /// The latest target.
    pub fn target(&self) -> S {
        self.target.latest
    }

    /// Whether the last update snapped because of the jump threshold.
    pub fn jumped(&self) -> bool {
        self.jumped
    }

    /// Sets the output and its velocity (for an impulse response: start
    /// displaced or moving, then let go). Errors on a non-finite component.
    pub fn set_state(&mut self, value: S, velocity: S::Tangent) -> Result<(), SignalError> {
        if !value.is_valid() || !velocity.is_finite() {
            return Err(SignalError::NonFiniteInput { what: "state" });
        }
        self.value = value;
        self.velocity = velocity;
        Ok(())
    }

    /// Jumps the output to the latest target, at rest.
    pub fn snap_to_target(&mut self) {
        self.value = self.target.latest;
        self.velocity = <S::Tangent as Vector>::zero();
    }

    /// Advances toward a target that moves at a known `velocity` (tangent
    /// units per second) and is at `target` at the end of the step: a
    /// first-order hold with the velocity supplied (from the network, or
    /// from the game's own physics) instead of differenced.
    pub fn update_with_velocity(
        &mut self,
        dt: f64,
        target: S,
        velocity: S::Tangent,
    ) -> Result<S, SignalError> {
        let path = self.target.begin_with_velocity(dt, target, velocity)?;
        Ok(self.advance(dt, path))
    }

    #[inline(always)]
    fn advance(&mut self, dt: f64, path: crate::system::TargetPath<S>) -> S {
        self.jumped = path.jumped;
        if path.jumped {
            self.value = path.end;
            self.velocity = <S::Tangent as Vector>::zero();
            return self.value;
        }
        if dt == 0.0 {
            return self.value;
        }
        // Use the fresh transition from registers; the cache is only read on a hit.
        let t = if self.cached.0.to_bits() == dt.to_bits() {
            self.cached.1
        } else {
            let t = if <<S::Tangent as Vector>::Scalar as Float>::SINGLE {
                self.dynamics.transition_single(dt)
            } else {
                self.dynamics.transition(dt)
            };
            self.cached = (dt, t);
            t
        };
        let e = self.value.difference(path.start);
        let e_dot = if self.dynamics.second_order() {
            self.velocity.sub(path.velocity)
        } else {
            <S::Tangent as Vector>::zero()
        };
        let (e1, d1) = if self.dynamics.second_order() {
            t.apply(e, e_dot, path.velocity)
        } else {
            // First order: the rate terms are zero; skip their products.
            let v = path.velocity;
            (
                e.scale_f64(t.ee).add(v.scale_f64(t.ev)),
                e.scale_f64(t.de).add(v.scale_f64(t.dv)),
            )
        };
        let mut next = path.end.offset(e1);
        let mut velocity = d1.add(path.velocity);
        if let Some(limit) = self.max_speed {
            let moved = next.difference(self.value);
            let len = moved.norm();
            if len > limit * dt {
                next = self.value.offset(moved.scale_f64(limit * dt / len));
            }
            let speed = velocity.norm();
            if speed > limit {
                velocity = velocity.scale_f64(limit / speed);
            }
        }
        // Finite inputs and finite coefficients give finite results, but a
        // huge target times a huge gain can still overflow: snap to the
        // target rather than store an infinity.
        // A branch, not a select: the check stays off the chain from one
        // step's output to the next (a select put it on, costing a third of
        // an update).
        if !(next.is_valid() && velocity.is_finite()) {
            return self.overflowed(path.end);
        }
        self.value = next;
        self.velocity = velocity;
        next
    }

    #[cold]
    #[inline(never)]
    fn overflowed(&mut self, target: S) -> S {
        self.value = target;
        self.velocity = <S::Tangent as Vector>::zero();
        target
    }
}

impl<S: Space, D: Dynamics> System<S> for Smoother<S, D> {
    #[inline(always)]
    fn update(&mut self, dt: f64, target: S) -> Result<S, SignalError> {
        let path = self.target.begin(dt, target)?;
        Ok(self.advance(dt, path))
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
        self.jumped = false;
        Ok(())
    }
}
