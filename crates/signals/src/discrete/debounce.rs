//! Debounce: a change is believed only once it has held (trailing edge), or
//! is taken at once and then nothing more for a while (leading edge).

use super::Discrete;
use crate::error::{SignalError, check_non_negative};
use core::fmt::Debug;

/// When a [`Debounce`] takes a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Edge {
    /// A new value is taken once it has held for the whole hold time
    /// (a switch's bounce, a networked bool that blips): no false change,
    /// a latency of the hold time.
    #[default]
    Trailing,
    /// A new value is taken at once, and then the output keeps it for the
    /// hold time whatever the input does; when the hold ends the output takes
    /// the input as it is then. No latency on the first change; a blip still
    /// shows for the hold time.
    Leading,
}

/// A discrete value (a bool, an enum) that changes only by the [`Edge`] rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Debounce<T> {
    hold: f64,
    edge: Edge,
    output: T,
    /// Trailing: the value the input has held, and for how long.
    candidate: T,
    candidate_for: f64,
    since_change: f64,
}

impl<T: Copy + PartialEq + Debug> Debounce<T> {
    /// Starts at `initial`; `hold` seconds must be finite and ≥ 0 (0 follows
    /// the input).
    pub fn new(initial: T, hold: f64, edge: Edge) -> Result<Self, SignalError> {
        Ok(Debounce {
            hold: check_non_negative("hold", hold)?,
            edge,
            output: initial,
            candidate: initial,
            candidate_for: 0.0,
            since_change: f64::INFINITY,
        })
    }

    /// The output.
    pub fn output(&self) -> T {
        self.output
    }

    /// Seconds since the output last changed (∞ before the first change).
    pub fn since_change(&self) -> f64 {
        self.since_change
    }

    /// Sets the output at once, forgetting any pending change.
    pub fn reset(&mut self, value: T) {
        self.output = value;
        self.candidate = value;
        self.candidate_for = 0.0;
        self.since_change = f64::INFINITY;
    }

    fn trailing(&mut self, dt: f64, input: T) {
        if input == self.output {
            self.candidate = input;
            self.candidate_for = 0.0;
            self.since_change += dt;
            return;
        }
        if input != self.candidate {
            self.candidate = input;
            self.candidate_for = 0.0;
        }
        self.candidate_for += dt;
        if self.candidate_for >= self.hold {
            // Taken at the moment it had held for `hold`, inside this step.
            self.output = input;
            self.since_change = self.candidate_for - self.hold;
            self.candidate_for = 0.0;
        } else {
            self.since_change += dt;
        }
    }

    fn leading(&mut self, dt: f64, input: T) {
        if input == self.output {
            self.since_change += dt;
            return;
        }
        // The lockout left at the start of this step.
        let locked = (self.hold - self.since_change).max(0.0);
        if locked <= dt {
            self.output = input;
            self.since_change = dt - locked;
        } else {
            self.since_change += dt;
        }
    }
}

impl<T: Copy + PartialEq + Debug> Discrete<T> for Debounce<T> {
    type Output = T;

    fn check_input(&self, _input: &T) -> Result<(), SignalError> {
        Ok(())
    }

    #[inline]
    fn update_unchecked(&mut self, dt: f64, input: T) -> T {
        match self.edge {
            Edge::Trailing => self.trailing(dt, input),
            Edge::Leading => self.leading(dt, input),
        }
        self.output
    }
}
