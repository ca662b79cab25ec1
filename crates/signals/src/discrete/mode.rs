//! Rate-limited mode changes (camera modes, animation states): at most one
//! change per interval, with a stated rule for requests that come sooner.

use super::Discrete;
use crate::error::{SignalError, check_non_negative};
use core::fmt::Debug;

/// What a [`ModeLimiter`] does with a request made while it is cooling down
/// after a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhileCooling {
    /// The latest request waits and is applied the moment the interval
    /// ends; a later request replaces it, and a request for the current
    /// mode cancels it.
    #[default]
    KeepLatest,
    /// The request is dropped; the caller asks again.
    Drop,
}

/// A mode that changes on request, at most once per `interval` seconds.
///
/// A request given to an update is made at the start of its step. The first
/// request is applied at once; after each change the next waits until
/// `interval` has passed since it, by [`WhileCooling`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModeLimiter<T> {
    interval: f64,
    rule: WhileCooling,
    mode: T,
    pending: Option<T>,
    since_change: f64,
    changed: bool,
}

impl<T: Copy + PartialEq + Debug> ModeLimiter<T> {
    /// Starts in `initial`; `interval` finite and ≥ 0.
    pub fn new(initial: T, interval: f64, rule: WhileCooling) -> Result<Self, SignalError> {
        Ok(ModeLimiter {
            interval: check_non_negative("interval", interval)?,
            rule,
            mode: initial,
            pending: None,
            since_change: f64::INFINITY,
            changed: false,
        })
    }

    /// The current mode.
    pub fn mode(&self) -> T {
        self.mode
    }

    /// The request waiting for the interval to end.
    pub fn pending(&self) -> Option<T> {
        self.pending
    }

    /// Whether the last update changed the mode.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Seconds since the mode last changed (∞ before the first change).
    pub fn since_change(&self) -> f64 {
        self.since_change
    }

    /// Sets the mode at once, dropping what was pending, with no cooldown.
    pub fn reset(&mut self, mode: T) {
        self.mode = mode;
        self.pending = None;
        self.since_change = f64::INFINITY;
    }
}

impl<T: Copy + PartialEq + Debug> Discrete<Option<T>> for ModeLimiter<T> {
    type Output = T;

    fn check_input(&self, _input: &Option<T>) -> Result<(), SignalError> {
        Ok(())
    }

    fn update_unchecked(&mut self, dt: f64, request: Option<T>) -> T {
        self.changed = false;
        if let Some(wanted) = request {
            if wanted == self.mode {
                self.pending = None;
            } else if self.since_change >= self.interval {
                self.mode = wanted;
                self.pending = None;
                self.since_change = 0.0;
                self.changed = true;
            } else if self.rule == WhileCooling::KeepLatest {
                self.pending = Some(wanted);
            }
        }
        match self.pending {
            Some(next) if self.since_change + dt >= self.interval => {
                // Applied the moment the interval ends, inside this step.
                self.since_change = self.since_change + dt - self.interval;
                self.mode = next;
                self.pending = None;
                self.changed = true;
            }
            _ => self.since_change += dt,
        }
        self.mode
    }
}
