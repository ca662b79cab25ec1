//! Opening photo files safely, for the programs that show and resize them
//! (viewer2, retarget).
//!
//! - [`open_regular`]: a regular file or a clear refusal, never a read
//!   that waits forever on a FIFO or runs on through `/dev/zero`.
//! - [`jpeg_end`]: whether a JPEG reaches its end-of-image marker, found
//!   by walking its segments and scans without decoding, because JPEG
//!   decoders fill a scan that ends early with grey and say nothing.
//! - [`decode_png`]: a PNG's pixels at their own depth, with its colour
//!   profile inflated only up to [`MAX_ICC_BYTES`]: a profile that inflates
//!   to gigabytes is skipped with a reason, never decoded into memory.
//! - [`decode_heif`]: HEIC and AVIF through libheif, the primary image
//!   (or its embedded thumbnail when that covers what is asked) with its
//!   rotation applied once; [`heif_info`] for its true size.
//! - [`decode_jxl`]: JPEG XL through jxl-oxide.
//! - [`raw_picture`]: a camera RAW's embedded preview through LibRaw (or,
//!   without one, the image developed at half size).
//! - [`to_srgb`]: pixels in an embedded ICC profile (Display P3, Adobe
//!   RGB) converted to sRGB through Little CMS; [`jpeg_icc`] finds a
//!   JPEG's profile.
//! - [`MemoryBudget`]: one budget of memory that the decodes in flight
//!   share, each reserving its peak (known from its header) before it
//!   starts.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut png = Vec::new();
//! {
//!     let mut enc = png::Encoder::new(&mut png, 2, 1);
//!     enc.set_color(png::ColorType::Rgb);
//!     enc.write_header()?.write_image_data(&[255, 0, 0, 0, 0, 255])?;
//! }
//! let image = photo::decode_png(std::io::Cursor::new(png), &photo::Limits::default())?;
//! assert_eq!((image.width, image.height, image.channels), (2, 1, 3));
//! assert!(matches!(image.icc, photo::Icc::None));
//! # Ok(())
//! # }
//! ```

mod budget;
mod colour;
mod error;
mod file;
mod heif;
mod jpeg;
mod jxl;
pub mod meta;
mod png_file;
mod raw;

pub use budget::{MemoryBudget, Reservation};
pub use colour::{jpeg_icc, to_srgb};
pub use error::PhotoError;
pub use file::{open_regular, read_regular};
pub use heif::{
    HeifInfo, HeifKind, RgbaImage, decode_heif, heif_decode_peak, heif_info, heif_kind,
};
pub use jpeg::{JpegEnd, jpeg_end};
pub use jxl::{decode_jxl, is_jxl, jxl_decode_peak, jxl_size};
pub use png_file::{Icc, MAX_ICC_BYTES, PngHeader, PngImage, Samples, decode_png, png_header};
pub use raw::{
    MAX_RAW_BYTES, RawInfo, RawPicture, raw_decode_peak, raw_info, raw_kind, raw_picture,
};

/// Sizes refused before anything is allocated for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest side accepted, in pixels.
    pub max_side: u32,
    /// The most pixels accepted.
    pub max_pixels: u64,
}

impl Default for Limits {
    /// 65,535 a side and 2²⁸ pixels (a 16,384² image).
    fn default() -> Self {
        Limits {
            max_side: 65_535,
            max_pixels: 1 << 28,
        }
    }
}

impl Limits {
    /// Whether a `width`×`height` image is within the limits (and not
    /// empty).
    pub fn check(&self, width: u32, height: u32) -> Result<(), PhotoError> {
        if width == 0 || height == 0 {
            return Err(PhotoError::Empty { width, height });
        }
        let pixels = u64::from(width) * u64::from(height);
        if width > self.max_side || height > self.max_side || pixels > self.max_pixels {
            return Err(PhotoError::TooLarge {
                width,
                height,
                max_side: self.max_side,
                max_pixels: self.max_pixels,
            });
        }
        Ok(())
    }
}
