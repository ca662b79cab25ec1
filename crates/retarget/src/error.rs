//! The one error type of the library.

use thiserror::Error;

/// What went wrong, with the values that were wrong.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RetargetError {
    /// A width or height of zero.
    #[error("{what} has a zero {axis} ({width}x{height})")]
    ZeroSize {
        /// Which image: "source", "target", "protect mask", ...
        what: &'static str,
        /// "width" or "height".
        axis: &'static str,
        /// Its width.
        width: u64,
        /// Its height.
        height: u64,
    },
    /// An image or a target bigger than the limits allow.
    #[error(
        "{what} of {width}x{height} is over the limit of {max_side} pixels a side and {max_pixels} pixels in all"
    )]
    TooLarge {
        /// Which image.
        what: &'static str,
        /// Its width.
        width: u64,
        /// Its height.
        height: u64,
        /// The largest side allowed.
        max_side: u32,
        /// The most pixels allowed.
        max_pixels: u64,
    },
    /// A target the chosen mode cannot reach.
    #[error(
        "target {axis} {target} is out of reach of {mode}: it can give {min} to {max} pixels here"
    )]
    OutOfReach {
        /// "width" or "height".
        axis: &'static str,
        /// The target asked for.
        target: u32,
        /// The mode's name.
        mode: &'static str,
        /// The narrowest it reaches.
        min: f64,
        /// The widest it reaches.
        max: f64,
    },
    /// The sample buffer's length does not match the stated size.
    #[error(
        "a {width}x{height} image with {channels} channels needs {expected} samples, got {got}"
    )]
    BadBuffer {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Channels.
        channels: u8,
        /// Samples needed.
        expected: u64,
        /// Samples given.
        got: u64,
    },
    /// A channel count other than 1 to 4.
    #[error("{0} channels: only 1 (grey), 2 (grey+alpha), 3 (RGB) and 4 (RGBA) are supported")]
    BadChannels(u8),
    /// A mask whose size differs from the image's.
    #[error("the {which} mask is {mask_width}x{mask_height} but the image is {width}x{height}")]
    MaskSize {
        /// "protect" or "remove".
        which: &'static str,
        /// The mask's width.
        mask_width: u32,
        /// The mask's height.
        mask_height: u32,
        /// The image's width.
        width: u32,
        /// The image's height.
        height: u32,
    },
    /// An option outside its range.
    #[error("option {name} = {value} is outside {range}")]
    BadOption {
        /// The option.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must be in.
        range: &'static str,
    },
    /// A plan made for another image's size.
    #[error(
        "the plan is for a {plan_width}x{plan_height} source, but the image is {width}x{height}"
    )]
    PlanMismatch {
        /// Source width the plan was made for.
        plan_width: u64,
        /// Source height the plan was made for.
        plan_height: u64,
        /// The image's width.
        width: u32,
        /// The image's height.
        height: u32,
    },
    /// Memory for a buffer could not be had.
    #[error("out of memory: could not allocate {bytes} bytes for {what}")]
    OutOfMemory {
        /// What the buffer was for.
        what: &'static str,
        /// How big it was.
        bytes: u64,
    },
}

/// Allocates a vector of `len` copies of `value`, or says how much memory was
/// missing instead of aborting.
pub(crate) fn try_vec<T: Clone>(
    len: usize,
    value: T,
    what: &'static str,
) -> Result<Vec<T>, RetargetError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| RetargetError::OutOfMemory {
            what,
            bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
    v.resize(len, value);
    Ok(v)
}
