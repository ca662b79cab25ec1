//! Discrete signals: bools, indices and modes that games keep in their
//! state (a button from an analog trigger, the lock-on target, the camera
//! mode), and the systems that keep them from flickering.
//!
//! Every system here takes the elapsed time of each step, like the
//! continuous ones, and time — not the number of frames — decides: the
//! same input sampled at 30, 60 or 144 steps per second, or at jittery
//! steps, gives the same decisions within one step. The input given to an
//! update is taken to hold from the start of that step (the discrete form
//! of [`crate::Hold::Zero`]), so a decision that falls inside a long step is
//! made at its exact time, and [`Hysteresis::since_change`] and its kin say
//! how long ago that was.
//!
//! ```
//! use signals::{Debounce, Discrete, Edge, Hysteresis};
//!
//! // An analog trigger as a button, with Unity's press and release points.
//! let mut trigger = Hysteresis::unity();
//! assert!(trigger.update(1.0 / 60.0, 0.6)?);
//! assert!(trigger.update(1.0 / 60.0, 0.45)?); // inside the band: still down
//! assert!(!trigger.update(1.0 / 60.0, 0.3)?);
//!
//! // A networked bool accepted after it has held for 50 ms.
//! let mut door = Debounce::new(false, 0.05, Edge::Trailing)?;
//! assert!(!door.update(0.03, true)?);
//! assert!(door.update(0.03, true)?);
//! # Ok::<(), signals::SignalError>(())
//! ```

mod debounce;
mod dwell;
mod gesture;
mod mode;
mod threshold;

pub use debounce::{Debounce, Edge};
pub use dwell::Dwell;
pub use gesture::{GestureEvents, GestureTimings, Gestures};
pub use mode::{ModeLimiter, WhileCooling};
pub use threshold::{Hysteresis, Stick, StickDirection, StickRule};

use crate::error::{SignalError, check_dt};
use alloc::vec::Vec;

/// A system whose output is discrete: a bool, an index, a mode, or the
/// events of one step.
///
/// Like [`crate::System`], a negative or non-finite elapsed time, or an input
/// the system cannot take (a NaN), is an error and leaves the state as it
/// was.
pub trait Discrete<I> {
    /// What one update returns.
    type Output: Copy + core::fmt::Debug;

    /// Checks an input without changing anything (a NaN, a score of +∞).
    fn check_input(&self, input: &I) -> Result<(), SignalError>;

    /// Advances by `dt` seconds with `input` holding over the step, without
    /// checking: `dt` must be finite and ≥ 0 and `input` must pass
    /// [`Self::check_input`]. Use [`Self::update`] unless both are known
    /// good (as [`DiscreteBatch`] does, having checked them all first).
    fn update_unchecked(&mut self, dt: f64, input: I) -> Self::Output;

    /// Advances by `dt` seconds with `input` holding over the step and
    /// returns the output.
    fn update(&mut self, dt: f64, input: I) -> Result<Self::Output, SignalError> {
        check_dt(dt)?;
        self.check_input(&input)?;
        Ok(self.update_unchecked(dt, input))
    }
}

/// Many discrete systems stepped with one shared elapsed time: every input
/// is checked first, so an error changes none of them.
///
/// ```
/// use signals::{DiscreteBatch, Hysteresis};
/// let mut triggers = DiscreteBatch::new(Hysteresis::unity(), 3)?;
/// let mut pressed = [false; 3];
/// triggers.update(1.0 / 60.0, &[0.1, 0.6, 0.9], &mut pressed)?;
/// assert_eq!(pressed, [false, true, true]);
/// # Ok::<(), signals::SignalError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DiscreteBatch<D> {
    systems: Vec<D>,
}

impl<D: Clone> DiscreteBatch<D> {
    /// `len` copies of `prototype`.
    pub fn new(prototype: D, len: usize) -> Result<Self, SignalError> {
        let mut systems = Vec::new();
        systems
            .try_reserve_exact(len)
            .map_err(|_| SignalError::OutOfMemory { items: len })?;
        systems.resize(len, prototype);
        Ok(DiscreteBatch { systems })
    }

    /// The systems, to read their state.
    pub fn systems(&self) -> &[D] {
        &self.systems
    }

    /// The systems, to reset or reconfigure one.
    pub fn systems_mut(&mut self) -> &mut [D] {
        &mut self.systems
    }

    /// Steps every system by `dt` with its input; writes the outputs.
    /// Inputs and outputs must have the batch's length; on any error
    /// (a length, a bad dt, the first bad input) nothing changes.
    pub fn update<I: Copy>(
        &mut self,
        dt: f64,
        inputs: &[I],
        outputs: &mut [D::Output],
    ) -> Result<(), SignalError>
    where
        D: Discrete<I>,
    {
        check_dt(dt)?;
        for (name, found) in [("inputs", inputs.len()), ("outputs", outputs.len())] {
            if found != self.systems.len() {
                return Err(SignalError::LengthMismatch {
                    name,
                    found,
                    expected: self.systems.len(),
                });
            }
        }
        for (system, input) in self.systems.iter().zip(inputs) {
            system.check_input(input)?;
        }
        for ((system, input), out) in self.systems.iter_mut().zip(inputs).zip(outputs) {
            *out = system.update_unchecked(dt, *input);
        }
        Ok(())
    }
}
