//! `Raster`: an interleaved image of 8-bit, 16-bit or float samples, and the
//! size limits every buffer is checked against before it is allocated.

use crate::error::{RetargetError, try_vec};

/// The largest side, and the most pixels, an image or a target may have.
/// Checked before anything sized by them is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest side in pixels.
    pub max_side: u32,
    /// Most pixels in all.
    pub max_pixels: u64,
}

impl Default for Limits {
    /// 65,535 a side (what PNG, TIFF and the GPU path can all carry) and
    /// 2²⁸ pixels (a 16,384² image), so a hostile header cannot make us
    /// reserve gigabytes.
    fn default() -> Self {
        Limits {
            max_side: 65_535,
            max_pixels: 1 << 28,
        }
    }
}

impl Limits {
    /// Checks a size against the limits; `what` names it in the error.
    pub fn check(&self, what: &'static str, width: u64, height: u64) -> Result<(), RetargetError> {
        if width == 0 || height == 0 {
            let axis = if width == 0 { "width" } else { "height" };
            return Err(RetargetError::ZeroSize {
                what,
                axis,
                width,
                height,
            });
        }
        if width > u64::from(self.max_side)
            || height > u64::from(self.max_side)
            || width.saturating_mul(height) > self.max_pixels
        {
            return Err(RetargetError::TooLarge {
                what,
                width,
                height,
                max_side: self.max_side,
                max_pixels: self.max_pixels,
            });
        }
        Ok(())
    }
}

/// A sample type: `u8`, `u16` or `f32`, converted to `f32` in its own scale
/// (0..=255, 0..=65535, 0..=1) for filtering.
pub trait Sample: Copy + Default + Send + Sync + 'static {
    /// The value of full intensity (and of an opaque alpha).
    const MAX: f32;
    /// The sample as a float in its own scale.
    fn to_f32(self) -> f32;
    /// A float in the sample's scale, rounded to nearest and clamped.
    fn from_f32(v: f32) -> Self;
    /// The sample as an integer level (0..=255 for u8, 0..=65535 for u16
    /// and for f32 scaled), for exact and cheap sums.
    fn to_level(self) -> u32;
    /// The level of full intensity.
    const LEVEL_MAX: f32;
    /// The samples as bytes, where they are bytes (for the 8-bit fast
    /// paths).
    fn as_bytes(samples: &[Self]) -> Option<&[u8]> {
        let _ = samples;
        None
    }
}

impl Sample for u8 {
    const MAX: f32 = 255.0;
    #[inline]
    fn to_f32(self) -> f32 {
        f32::from(self)
    }
    #[inline]
    fn from_f32(v: f32) -> Self {
        // `as` saturates and maps NaN to 0.
        (v + 0.5) as u8
    }
    const LEVEL_MAX: f32 = 255.0;
    #[inline]
    fn to_level(self) -> u32 {
        u32::from(self)
    }
    fn as_bytes(samples: &[Self]) -> Option<&[u8]> {
        Some(samples)
    }
}

impl Sample for u16 {
    const MAX: f32 = 65535.0;
    #[inline]
    fn to_f32(self) -> f32 {
        f32::from(self)
    }
    #[inline]
    fn from_f32(v: f32) -> Self {
        (v + 0.5) as u16
    }
    const LEVEL_MAX: f32 = 65535.0;
    #[inline]
    fn to_level(self) -> u32 {
        u32::from(self)
    }
}

impl Sample for f32 {
    const MAX: f32 = 1.0;
    #[inline]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline]
    fn from_f32(v: f32) -> Self {
        v
    }
    const LEVEL_MAX: f32 = 65535.0;
    #[inline]
    fn to_level(self) -> u32 {
        (self.clamp(0.0, 1.0) * 65535.0 + 0.5) as u32
    }
}

/// An image: `width × height` pixels of `channels` interleaved samples, rows
/// top to bottom. Two channels are grey + alpha, four RGBA; alpha is always
/// the last channel and is never premultiplied here.
#[derive(Debug, Clone, PartialEq)]
pub struct Raster<S> {
    width: u32,
    height: u32,
    channels: u8,
    data: Vec<S>,
}

impl<S: Sample> Raster<S> {
    /// Wraps samples, checking the channel count and the buffer's length.
    pub fn from_vec(
        width: u32,
        height: u32,
        channels: u8,
        data: Vec<S>,
    ) -> Result<Self, RetargetError> {
        if !(1..=4).contains(&channels) {
            return Err(RetargetError::BadChannels(channels));
        }
        let expected = u64::from(width) * u64::from(height) * u64::from(channels);
        if data.len() as u64 != expected {
            return Err(RetargetError::BadBuffer {
                width,
                height,
                channels,
                expected,
                got: data.len() as u64,
            });
        }
        Ok(Raster {
            width,
            height,
            channels,
            data,
        })
    }

    /// A blank image (every sample zero), checked against `limits` first.
    pub fn new(
        width: u32,
        height: u32,
        channels: u8,
        limits: &Limits,
    ) -> Result<Self, RetargetError> {
        if !(1..=4).contains(&channels) {
            return Err(RetargetError::BadChannels(channels));
        }
        limits.check("image", u64::from(width), u64::from(height))?;
        let len = width as usize * height as usize * usize::from(channels);
        let data = try_vec(len, S::default(), "image samples")?;
        Ok(Raster {
            width,
            height,
            channels,
            data,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Samples per pixel (1 to 4).
    pub fn channels(&self) -> u8 {
        self.channels
    }
    /// Whether the last channel is alpha (2 or 4 channels).
    pub fn has_alpha(&self) -> bool {
        self.channels == 2 || self.channels == 4
    }
    /// The samples, row by row.
    pub fn as_slice(&self) -> &[S] {
        &self.data
    }
    /// The samples, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [S] {
        &mut self.data
    }
    /// The samples, taken out.
    pub fn into_vec(self) -> Vec<S> {
        self.data
    }
    /// One row's samples.
    pub fn row(&self, y: u32) -> &[S] {
        let stride = self.width as usize * usize::from(self.channels);
        &self.data[y as usize * stride..(y as usize + 1) * stride]
    }
    /// One pixel's samples.
    pub fn pixel(&self, x: u32, y: u32) -> &[S] {
        let c = usize::from(self.channels);
        let i = (y as usize * self.width as usize + x as usize) * c;
        &self.data[i..i + c]
    }
}

/// A yes/no mask the size of the image (protect or remove), one byte per
/// pixel: non-zero is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mask {
    width: u32,
    height: u32,
    bits: Vec<bool>,
}

impl Mask {
    /// Wraps one flag per pixel, row by row.
    pub fn from_vec(width: u32, height: u32, bits: Vec<bool>) -> Result<Self, RetargetError> {
        let expected = u64::from(width) * u64::from(height);
        if bits.len() as u64 != expected {
            return Err(RetargetError::BadBuffer {
                width,
                height,
                channels: 1,
                expected,
                got: bits.len() as u64,
            });
        }
        Ok(Mask {
            width,
            height,
            bits,
        })
    }
    /// Width.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Whether pixel (x, y) is set.
    pub fn get(&self, x: u32, y: u32) -> bool {
        self.bits[y as usize * self.width as usize + x as usize]
    }
    /// Which columns have at least one set pixel.
    pub fn columns(&self) -> Vec<bool> {
        let mut cols = vec![false; self.width as usize];
        for row in self.bits.chunks_exact(self.width as usize) {
            for (c, &b) in cols.iter_mut().zip(row) {
                *c |= b;
            }
        }
        cols
    }
    /// Which rows have at least one set pixel.
    pub fn rows(&self) -> Vec<bool> {
        self.bits
            .chunks_exact(self.width as usize)
            .map(|r| r.iter().any(|&b| b))
            .collect()
    }
    /// Checks that the mask is `width × height`.
    pub(crate) fn check_size(
        &self,
        which: &'static str,
        width: u32,
        height: u32,
    ) -> Result<(), RetargetError> {
        if self.width != width || self.height != height {
            return Err(RetargetError::MaskSize {
                which,
                mask_width: self.width,
                mask_height: self.height,
                width,
                height,
            });
        }
        Ok(())
    }
}
