//! The limits of one evaluation: a size limit on exact numbers (the memory
//! budget), a deadline, and a flag another thread may raise to cancel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why an evaluation stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The caller raised the cancel flag.
    Cancelled,
    /// The time budget ran out.
    TimedOut,
    /// A step that cannot stop part-way would, by its cost estimate, take
    /// about this many milliseconds, more than the time left: refused
    /// before it started.
    WouldTakeTooLong(u64),
}

/// A flag shared with another thread: raising it stops the evaluation at
/// its next check (between operations, and inside long loops).
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag that is not raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the evaluation to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether `cancel` was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The limits one evaluation runs under.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    /// The most bits an exact number may take (numerator plus denominator).
    pub(crate) max_bits: u64,
    pub(crate) deadline: Option<Instant>,
    pub(crate) cancel: CancelFlag,
}

impl Budget {
    pub(crate) fn new(max_bits: u64, time: Option<Duration>, cancel: CancelFlag) -> Self {
        Budget {
            max_bits,
            deadline: time.map(|t| Instant::now() + t),
            cancel,
        }
    }

    /// Whether to go on.
    pub(crate) fn check(&self) -> Result<(), crate::real::NumError> {
        if self.cancel.is_cancelled() {
            return Err(crate::real::NumError::Stopped(Stop::Cancelled));
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(crate::real::NumError::Stopped(Stop::TimedOut));
        }
        Ok(())
    }
}
