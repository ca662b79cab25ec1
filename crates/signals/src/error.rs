//! The crate's one error type.

/// What went wrong in a call; the system's state is unchanged when a call
/// returns an error (a bad sample never turns into a NaN that spreads).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SignalError {
    /// The elapsed time was negative: time only runs forward. Reorder the
    /// samples, or use [`crate::SnapshotBuffer`] for samples that arrive out of order.
    #[error("elapsed time {dt} s is negative; steps must move time forward")]
    NegativeDt {
        /// The offending elapsed time, in seconds.
        dt: f64,
    },
    /// The elapsed time was NaN or infinite.
    #[error("elapsed time {dt} s is not finite")]
    NonFiniteDt {
        /// The offending elapsed time.
        dt: f64,
    },
    /// An input value (target, measurement, sample) had a NaN or infinite component.
    #[error("{what} is not finite (NaN or infinite component)")]
    NonFiniteInput {
        /// Which input: "target", "measurement", "sample", ...
        what: &'static str,
    },
    /// A parameter was out of its range.
    #[error("parameter {name} = {value} is invalid: it must be {expected}")]
    InvalidParameter {
        /// The parameter's name as the constructor spells it.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// A batch target was NaN or infinite.
    #[error("batch target {index} is not finite")]
    NonFiniteBatchTarget {
        /// The system's index in the batch.
        index: usize,
    },
    /// Batched update: the slices have different lengths.
    #[error("batch slices differ in length: {name} has {found} items, expected {expected}")]
    LengthMismatch {
        /// Which slice.
        name: &'static str,
        /// Its length.
        found: usize,
        /// The length of the first slice.
        expected: usize,
    },
    /// Memory for a buffer sized by the caller could not be reserved.
    #[error("could not reserve memory for {items} items")]
    OutOfMemory {
        /// How many items were asked for.
        items: usize,
    },
}

/// Checks an elapsed time: finite and not negative. Zero is allowed (a step
/// of zero time changes no state, apart from remembering the latest target).
#[inline]
pub(crate) fn check_dt(dt: f64) -> Result<f64, SignalError> {
    if !dt.is_finite() {
        Err(SignalError::NonFiniteDt { dt })
    } else if dt < 0.0 {
        Err(SignalError::NegativeDt { dt })
    } else {
        Ok(dt)
    }
}

/// Checks that `value` is finite and strictly positive.
pub(crate) fn check_positive(name: &'static str, value: f64) -> Result<f64, SignalError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(SignalError::InvalidParameter {
            name,
            value,
            expected: "finite and > 0",
        })
    }
}

/// Checks that `value` is finite and not negative.
pub(crate) fn check_non_negative(name: &'static str, value: f64) -> Result<f64, SignalError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(SignalError::InvalidParameter {
            name,
            value,
            expected: "finite and >= 0",
        })
    }
}
