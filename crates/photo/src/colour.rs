//! Colour as shot: pixels in a file's embedded ICC profile (Display P3
//! from phones, Adobe RGB from cameras) converted to sRGB, the display's
//! assumed space, through Little CMS (`lcms2`, the colour engine of
//! darktable, GIMP and ImageMagick). Untagged pixels are sRGB already.

use std::sync::{Arc, Mutex};

use lcms2::{Flags, GlobalContext, Intent, PixelFormat, Profile, Transform};

use crate::{MAX_ICC_BYTES, PhotoError};

type Rgba8Transform = Transform<[u8; 4], [u8; 4], GlobalContext, lcms2::DisallowCache>;

/// Transforms made for the last few profiles (a library of one phone's
/// photos carries one profile thousands of times).
/// A profile's bytes and its transform (`None`: sRGB, nothing to do).
type Kept = (Vec<u8>, Option<Arc<Rgba8Transform>>);
static TRANSFORMS: Mutex<Vec<Kept>> = Mutex::new(Vec::new());
const KEPT: usize = 8;

fn corrupt(detail: impl std::fmt::Display) -> PhotoError {
    PhotoError::Corrupt {
        format: "ICC profile",
        detail: detail.to_string(),
    }
}

/// The transform from `icc` to sRGB; `None` when `icc` is sRGB itself.
fn transform_for(icc: &[u8]) -> Result<Option<Arc<Rgba8Transform>>, PhotoError> {
    let mut kept = TRANSFORMS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(at) = kept.iter().position(|(p, _)| p == icc) {
        let hit = kept.remove(at);
        let transform = hit.1.clone();
        kept.push(hit);
        return Ok(transform);
    }
    let source = Profile::new_icc(icc).map_err(corrupt)?;
    let description = source
        .info(lcms2::InfoType::Description, lcms2::Locale::none())
        .unwrap_or_default();
    let transform = if is_srgb(&description) {
        None
    } else {
        let srgb = Profile::new_srgb();
        let t = Transform::new_flags_context(
            GlobalContext::new(),
            &source,
            PixelFormat::RGBA_8,
            &srgb,
            PixelFormat::RGBA_8,
            Intent::Perceptual,
            Flags::NO_CACHE,
        )
        .map_err(corrupt)?;
        Some(Arc::new(t))
    };
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push((icc.to_vec(), transform.clone()));
    Ok(transform)
}

/// Whether a profile's description names sRGB (IEC 61966-2.1, the
/// profile cameras and most software embed), whose pixels need no change.
fn is_srgb(description: &str) -> bool {
    let d = description.to_ascii_lowercase();
    d.contains("srgb") || d.contains("61966-2-1") || d.contains("61966-2.1")
}

/// Converts 8-bit RGBA pixels from the ICC profile `icc` to sRGB in place
/// (perceptual intent; alpha kept). Returns whether anything changed: an
/// sRGB profile leaves the pixels as they are. A profile over
/// [`MAX_ICC_BYTES`] or one Little CMS cannot read is an error naming it,
/// and the pixels are left as sRGB.
pub fn to_srgb(rgba: &mut [u8], icc: &[u8]) -> Result<bool, PhotoError> {
    if icc.len() > MAX_ICC_BYTES {
        return Err(corrupt(format!(
            "{} bytes, more than the {} MB read",
            icc.len(),
            MAX_ICC_BYTES >> 20
        )));
    }
    let Some(transform) = transform_for(icc)? else {
        return Ok(false);
    };
    let pixels: &mut [[u8; 4]] = bytemuck::cast_slice_mut(rgba);
    transform.transform_in_place(pixels);
    Ok(true)
}

/// The ICC profile a JPEG carries in its APP2 `ICC_PROFILE` segments
/// (chunks joined in their order), from its first bytes: the segments
/// come before the image data. `None` without one, or when its chunks
/// are incomplete or over [`MAX_ICC_BYTES`].
pub fn jpeg_icc(head: &[u8]) -> Option<Vec<u8>> {
    if !head.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut at = 2;
    let mut chunks: Vec<(u8, &[u8])> = Vec::new();
    let mut count = 0u8;
    while at + 4 <= head.len() {
        if head[at] != 0xFF {
            return None;
        }
        let marker = head[at + 1];
        if marker == 0xFF {
            at += 1;
            continue;
        }
        // Start of scan (or of frame data): the profile comes before.
        if marker == 0xDA || marker == 0xD9 {
            break;
        }
        let len = usize::from(u16::from_be_bytes([head[at + 2], head[at + 3]]));
        let body = head.get(at + 4..at + 2 + len)?;
        if marker == 0xE2 && body.starts_with(b"ICC_PROFILE\0") && body.len() >= 14 {
            count = body[13];
            chunks.push((body[12], &body[14..]));
        }
        at += 2 + len;
    }
    if chunks.is_empty() || chunks.len() != usize::from(count) {
        return None;
    }
    chunks.sort_by_key(|c| c.0);
    let total: usize = chunks.iter().map(|c| c.1.len()).sum();
    if total > MAX_ICC_BYTES {
        return None;
    }
    Some(chunks.iter().flat_map(|c| c.1.iter().copied()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p3() -> Vec<u8> {
        // Display P3: the P3 primaries, D65, the sRGB curve.
        let white = lcms2::CIExyY {
            x: 0.3127,
            y: 0.3290,
            Y: 1.0,
        };
        let primaries = lcms2::CIExyYTRIPLE {
            Red: lcms2::CIExyY {
                x: 0.680,
                y: 0.320,
                Y: 1.0,
            },
            Green: lcms2::CIExyY {
                x: 0.265,
                y: 0.690,
                Y: 1.0,
            },
            Blue: lcms2::CIExyY {
                x: 0.150,
                y: 0.060,
                Y: 1.0,
            },
        };
        let curve = lcms2::ToneCurve::new_parametric(
            4,
            &[2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045],
        )
        .unwrap();
        let mut p = Profile::new_rgb(&white, &primaries, &[&curve, &curve, &curve]).unwrap();
        let mut mlu = lcms2::MLU::new(1);
        mlu.set_text_ascii("Display P3 (test)", lcms2::Locale::none());
        p.write_tag(
            lcms2::TagSignature::ProfileDescriptionTag,
            lcms2::Tag::MLU(&mlu),
        );
        p.icc().unwrap()
    }

    #[test]
    fn p3_red_is_more_saturated_than_srgb_can_show() {
        let mut px = vec![255, 0, 0, 255, 128, 128, 128, 7];
        assert!(to_srgb(&mut px, &p3()).unwrap());
        // P3's red is outside sRGB: clipped to full red, green and blue
        // pulled down; grey stays grey; alpha is kept.
        assert!(px[0] >= 250 && px[1] < 60 && px[2] < 60, "{px:?}");
        assert!(
            (i16::from(px[4]) - 128).abs() <= 2 && px[4] == px[5] && px[5] == px[6],
            "{px:?}"
        );
        assert_eq!(px[7], 7);
    }

    #[test]
    fn an_srgb_profile_changes_nothing_and_junk_is_an_error() {
        let srgb = Profile::new_srgb().icc().unwrap();
        let mut px = vec![10, 20, 30, 255];
        assert!(!to_srgb(&mut px, &srgb).unwrap());
        assert_eq!(px, [10, 20, 30, 255]);
        let e = to_srgb(&mut px, b"not a profile").unwrap_err();
        assert!(e.to_string().starts_with("ICC profile"), "{e}");
    }

    #[test]
    fn jpeg_chunks_are_joined_in_order() {
        let profile: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let mut jpeg = vec![0xFF, 0xD8];
        // Two chunks, written out of order.
        for (seq, part) in [(2u8, &profile[200..]), (1, &profile[..200])] {
            let mut body = b"ICC_PROFILE\0".to_vec();
            body.extend_from_slice(&[seq, 2]);
            body.extend_from_slice(part);
            jpeg.extend_from_slice(&[0xFF, 0xE2]);
            jpeg.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
            jpeg.extend_from_slice(&body);
        }
        jpeg.extend_from_slice(&[0xFF, 0xDA, 0, 2]);
        assert_eq!(jpeg_icc(&jpeg), Some(profile));
        // A missing chunk: no profile rather than half of one.
        let cut = &jpeg[..jpeg.len() - 4 - 202 - 4];
        assert_eq!(jpeg_icc(cut), None);
        assert_eq!(jpeg_icc(b"\xFF\xD8\xFF\xDA"), None);
    }
}
