//! JPEG XL through `jxl-oxide` (pure Rust, the decoder the `image`
//! ecosystem uses; it passes libjxl's conformance suite). Its orientation
//! is applied by the decoder; an animation shows its first frame.

use std::io::Read;

use crate::heif::RgbaImage;
use crate::{Limits, PhotoError};

/// Whether the first bytes are a JPEG XL codestream or container.
pub fn is_jxl(head: &[u8]) -> bool {
    head.starts_with(&[0xFF, 0x0A])
        || head.starts_with(&[
            0, 0, 0, 0x0C, b'J', b'X', b'L', b' ', 0x0D, 0x0A, 0x87, 0x0A,
        ])
}

fn corrupt(detail: impl std::fmt::Display) -> PhotoError {
    PhotoError::Corrupt {
        format: "JPEG XL",
        detail: detail.to_string(),
    }
}

/// The memory [`decode_jxl`] holds at its peak for a `width`×`height`
/// image: jxl-oxide renders into 32-bit float planes (colour and alpha,
/// with a copy for its frame composition), then the RGBA bytes.
pub fn jxl_decode_peak(file_bytes: u64, width: u32, height: u32) -> u64 {
    let pixels = u64::from(width) * u64::from(height);
    file_bytes + pixels * 4 * 4 * 2 + pixels * 4 + (4 << 20)
}

/// The size (as shown, after orientation) of the JPEG XL `reader` holds,
/// from its header.
pub fn jxl_size(reader: impl Read) -> Result<(u32, u32), PhotoError> {
    let image = jxl_oxide::JxlImage::builder()
        .read(reader)
        .map_err(corrupt)?;
    Ok((image.width(), image.height()))
}

/// Decodes the first frame of the JPEG XL `reader` holds to 8-bit RGBA,
/// the right way up. Sizes over `limits` are refused before its pixels
/// are decoded.
pub fn decode_jxl(reader: impl Read, limits: &Limits) -> Result<RgbaImage, PhotoError> {
    let image = jxl_oxide::JxlImage::builder()
        .read(reader)
        .map_err(corrupt)?;
    let (w, h) = (image.width(), image.height());
    limits.check(w, h)?;
    let icc = image
        .original_icc()
        .filter(|d| d.len() <= crate::MAX_ICC_BYTES)
        .map(<[u8]>::to_vec);
    let render = image.render_frame(0).map_err(corrupt)?;
    let mut stream = render.stream();
    let (sw, sh, channels) = (stream.width(), stream.height(), stream.channels());
    let samples = (sw as usize)
        .checked_mul(sh as usize)
        .and_then(|n| n.checked_mul(channels as usize))
        .ok_or_else(|| corrupt(format!("{sw}×{sh}×{channels} rendered")))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(samples)
        .map_err(|_| PhotoError::OutOfMemory {
            bytes: samples as u64,
        })?;
    buf.resize(samples, 0u8);
    let written = stream.write_to_buffer(&mut buf);
    if written != samples {
        return Err(corrupt(format!(
            "the decoder gave {written} of {samples} samples"
        )));
    }
    let n = (sw as usize) * (sh as usize);
    let mut rgba = Vec::new();
    rgba.try_reserve_exact(n * 4)
        .map_err(|_| PhotoError::OutOfMemory {
            bytes: (n * 4) as u64,
        })?;
    for p in buf.chunks_exact(channels as usize) {
        let px = match p {
            [l] => [*l, *l, *l, 255],
            [l, a] => [*l, *l, *l, *a],
            [r, g, b] => [*r, *g, *b, 255],
            [r, g, b, a, ..] => [*r, *g, *b, *a],
            [] => continue,
        };
        rgba.extend_from_slice(&px);
    }
    Ok(RgbaImage {
        width: sw,
        height: sh,
        rgba,
        full_size: (w, h),
        icc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        assert!(is_jxl(&[0xFF, 0x0A, 1, 2]));
        assert!(is_jxl(b"\0\0\0\x0CJXL \r\n\x87\n\0\0"));
        assert!(!is_jxl(&[0xFF, 0xD8, 0xFF]));
    }

    #[test]
    fn broken_bytes_are_an_error_naming_jpeg_xl() {
        let e = decode_jxl(&[0xFF, 0x0A, 0, 0, 0][..], &Limits::default()).unwrap_err();
        assert!(e.to_string().starts_with("JPEG XL"), "{e}");
    }
}
