//! The crate's one error type.
//!
//! The crate has no required dependencies, so this is written out by hand
//! rather than with `thiserror`; it has the same shape: one variant per
//! failure, carrying the values that were wrong.

use std::fmt;

use crate::math::Real;

/// Everything that can go wrong in `collide`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CollideError {
    /// A box had a NaN or infinite coordinate. Boxes are checked when they are
    /// made, so a bad coordinate is never silently missed by a query.
    NonFinite {
        /// The offending minimum corner.
        min: [Real; 2],
        /// The offending maximum corner.
        max: [Real; 2],
    },
    /// `min > max` on some axis. Use [`Aabb::from_corners`](crate::Aabb::from_corners)
    /// if the corners may come in any order.
    Inverted {
        /// The offending minimum corner.
        min: [Real; 2],
        /// The offending maximum corner.
        max: [Real; 2],
    },
    /// A handle whose object was removed (or that belongs to another grid).
    StaleHandle {
        /// The handle's slot index.
        index: u32,
        /// The handle's generation.
        generation: u32,
    },
    /// A sector size that is not a positive, finite power of two.
    InvalidSectorSize {
        /// The size that was given.
        size: Real,
    },
    /// An object too large for a fixed-size sector grid: Moertel's method
    /// needs every side shorter than half a sector, the 9-cell method no
    /// longer than one sector. [`Grid`](crate::Grid) has no such limit.
    ObjectTooLarge {
        /// Index of the object in the input slice.
        index: usize,
        /// Its longest side.
        extent: f64,
        /// The largest side the structure accepts (exclusive for `Sectors`).
        limit: f64,
    },
    /// More objects than a structure can index.
    TooManyObjects {
        /// How many were given.
        count: usize,
        /// The most the structure can hold.
        limit: usize,
    },
    /// An allocation sized by the input failed. Nothing was lost: the
    /// structure is as it was before the call (or empty after a failed rebuild).
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// How many bytes were asked for.
        bytes: usize,
    },
}

impl fmt::Display for CollideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { min, max } => write!(
                f,
                "box has a NaN or infinite coordinate: min {min:?}, max {max:?}"
            ),
            Self::Inverted { min, max } => write!(
                f,
                "box has min > max: min {min:?}, max {max:?} (use Aabb::from_corners for unordered corners)"
            ),
            Self::StaleHandle { index, generation } => write!(
                f,
                "handle (index {index}, generation {generation}) does not name a live object"
            ),
            Self::InvalidSectorSize { size } => write!(
                f,
                "sector size {size} is not a positive, finite power of two"
            ),
            Self::ObjectTooLarge {
                index,
                extent,
                limit,
            } => write!(
                f,
                "object {index} has a side of {extent}, but this sector size allows at most {limit}; \
                 use a larger sector or collide::Grid, which takes any size"
            ),
            Self::TooManyObjects { count, limit } => {
                write!(f, "{count} objects given, at most {limit} supported")
            }
            Self::OutOfMemory { what, bytes } => {
                write!(f, "out of memory allocating {bytes} bytes for {what}")
            }
        }
    }
}

impl std::error::Error for CollideError {}

/// Grows `v` so it can hold `additional` more items, as an error rather than
/// an abort when memory runs out.
pub(crate) fn try_reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), CollideError> {
    v.try_reserve(additional)
        .map_err(|_| CollideError::OutOfMemory {
            what,
            bytes: additional.saturating_mul(std::mem::size_of::<T>()),
        })
}

/// As [`try_reserve`], but asks for exactly `additional` more: for the big,
/// long-lived buffers whose size is known.
pub(crate) fn try_reserve_exact<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), CollideError> {
    v.try_reserve_exact(additional)
        .map_err(|_| CollideError::OutOfMemory {
            what,
            bytes: additional.saturating_mul(std::mem::size_of::<T>()),
        })
}

/// Clears `v` and resizes it to `len` copies of `value`, reporting a failed
/// allocation as an error.
pub(crate) fn try_fill<T: Clone>(
    v: &mut Vec<T>,
    len: usize,
    value: T,
    what: &'static str,
) -> Result<(), CollideError> {
    v.clear();
    try_reserve(v, len, what)?;
    v.resize(len, value);
    Ok(())
}
