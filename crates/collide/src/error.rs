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
    /// A transform, angle or direction that is NaN or infinite.
    NonFiniteTransform {
        /// Which part was not finite.
        what: &'static str,
    },
    /// A shape parameter (radius, half extent, scale) that is negative, zero
    /// where it must be positive, or not finite.
    InvalidShapeParameter {
        /// Which parameter.
        name: &'static str,
        /// The value given.
        value: Real,
        /// What it must be.
        expected: &'static str,
    },
    /// A polygon point with a NaN or infinite coordinate.
    NonFinitePoint {
        /// Index of the point in the input.
        index: usize,
        /// The point as given.
        point: [Real; 2],
    },
    /// Fewer than three distinct points once near-duplicates were welded and
    /// collinear points dropped.
    TooFewPoints {
        /// Points in the input.
        given: usize,
        /// Distinct corners left after welding and dropping collinear points.
        distinct: usize,
    },
    /// More polygon points than the constructor accepts.
    TooManyPoints {
        /// Points in the input.
        given: usize,
        /// The most accepted.
        limit: usize,
    },
    /// Two edges of a polygon cross or touch away from their shared corner.
    /// Edge `i` runs from input point `i` to the next kept point.
    SelfIntersecting {
        /// Input index of the first point of one edge.
        edge_a: usize,
        /// Input index of the first point of the other edge.
        edge_b: usize,
    },
    /// A convex polygon was asked for, but the polygon turns the other way
    /// at this corner (use `Shape::polygon`, which decomposes concave input).
    NotConvex {
        /// Input index of the reflex corner.
        vertex: usize,
    },
    /// A compound shape with no parts.
    EmptyCompound,
    /// Input with no area or volume where the shape needs some.
    Degenerate {
        /// What was wrong.
        what: &'static str,
    },
    /// A query that does not apply to these shapes.
    Unsupported {
        /// The query.
        operation: &'static str,
        /// Why, and what to do instead.
        reason: &'static str,
    },
    /// An allocation sized by the input failed. Nothing was lost: the
    /// structure is as it was before the call (or empty after a failed rebuild).
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// How many bytes were asked for.
        bytes: usize,
    },
    /// A mask bigger than [`Mask::MAX_SIDE`](crate::mask::Mask::MAX_SIDE) a
    /// side.
    MaskTooLarge {
        /// The width asked for.
        width: u64,
        /// The height asked for.
        height: u64,
        /// The largest side a mask may have.
        limit: u32,
    },
    /// A pixel buffer whose length does not match the mask's size.
    MaskBufferSize {
        /// Samples needed (width × height × stride).
        expected: usize,
        /// Samples given.
        got: usize,
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
            Self::NonFiniteTransform { what } => write!(f, "{what} is NaN or infinite"),
            Self::InvalidShapeParameter {
                name,
                value,
                expected,
            } => write!(f, "shape parameter {name} = {value}; it must be {expected}"),
            Self::NonFinitePoint { index, point } => write!(
                f,
                "polygon point {index} has a NaN or infinite coordinate: {point:?}"
            ),
            Self::TooFewPoints { given, distinct } => write!(
                f,
                "a polygon needs 3 distinct, non-collinear corners; {given} points were given and \
                 {distinct} are left after welding near-duplicates and dropping collinear points"
            ),
            Self::TooManyPoints { given, limit } => {
                write!(f, "{given} polygon points given, at most {limit} accepted")
            }
            Self::SelfIntersecting { edge_a, edge_b } => write!(
                f,
                "polygon is self-intersecting: the edge starting at point {edge_a} meets the edge \
                 starting at point {edge_b}"
            ),
            Self::NotConvex { vertex } => write!(
                f,
                "polygon is not convex at point {vertex} (Shape::polygon accepts concave polygons)"
            ),
            Self::EmptyCompound => write!(f, "a compound shape needs at least one part"),
            Self::Degenerate { what } => write!(f, "degenerate input: {what}"),
            Self::Unsupported { operation, reason } => write!(f, "{operation}: {reason}"),
            Self::OutOfMemory { what, bytes } => {
                write!(f, "out of memory allocating {bytes} bytes for {what}")
            }
            Self::MaskTooLarge {
                width,
                height,
                limit,
            } => write!(
                f,
                "a {width}x{height} mask is over the limit of {limit} pixels a side"
            ),
            Self::MaskBufferSize { expected, got } => write!(
                f,
                "the pixel buffer holds {got} samples where the mask's size needs {expected}"
            ),
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
    let cap = v.capacity();
    v.try_reserve(additional)
        .map_err(|_| CollideError::OutOfMemory {
            what,
            bytes: additional.saturating_mul(std::mem::size_of::<T>()),
        })?;
    if v.capacity() != cap {
        crate::huge::advise(v);
    }
    Ok(())
}

/// As [`try_reserve`], but asks for exactly `additional` more: for the big,
/// long-lived buffers whose size is known.
pub(crate) fn try_reserve_exact<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), CollideError> {
    let cap = v.capacity();
    v.try_reserve_exact(additional)
        .map_err(|_| CollideError::OutOfMemory {
            what,
            bytes: additional.saturating_mul(std::mem::size_of::<T>()),
        })?;
    if v.capacity() != cap {
        crate::huge::advise(v);
    }
    Ok(())
}

/// Sets `v`'s length to `len` for a caller that writes every element before
/// reading it: elements already there are kept as they are (no pass over
/// memory that is about to be overwritten), new ones are `value`.
pub(crate) fn try_size<T: Clone>(
    v: &mut Vec<T>,
    len: usize,
    value: T,
    what: &'static str,
) -> Result<(), CollideError> {
    if v.len() >= len {
        v.truncate(len);
    } else {
        try_reserve(v, len - v.len(), what)?;
        v.resize(len, value);
    }
    Ok(())
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
    try_size(v, len, value, what)
}
