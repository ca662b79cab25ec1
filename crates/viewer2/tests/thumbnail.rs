//! Thumbnails: the scaled JPEG path against a full decode and resize, EXIF
//! orientation and embedded previews, and broken files.

use std::io::Cursor;

use proptest::prelude::*;
use viewer2::thumbnail::{Limits, Source, ThumbError, embedded_preview, fitted, thumbnail};

mod photos;
use photos::{exif_app1, jpeg, picture, with_app1};

/// Mean absolute difference per channel of two RGBA buffers.
fn mean_difference(a: &[u8], b: &[u8]) -> f64 {
    let total: u64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    total as f64 / a.len() as f64
}

fn full_decode_then_resize(bytes: &[u8], tw: u32, th: u32) -> Vec<u8> {
    let img = image::load_from_memory(bytes)
        .unwrap_or_else(|e| panic!("reference decode: {e}"))
        .into_rgba8();
    image::imageops::resize(&img, tw, th, image::imageops::FilterType::Lanczos3).into_raw()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The scaled decode looks like a full decode resized the same way.
    #[test]
    fn scaled_decode_matches_a_full_decode(w in 200u32..1400, h in 200u32..1400, target in 32u32..300) {
        let bytes = jpeg(&picture(w, h), 92);
        let t = thumbnail(Cursor::new(&bytes), target, Limits::default());
        prop_assert!(t.is_ok(), "{:?}", t.err());
        let t = t.unwrap_or_else(|_| unreachable!());
        prop_assert_eq!((t.width, t.height), fitted(w, h, target));
        prop_assert_eq!(t.full_size, (w, h));
        prop_assert_eq!(t.rgba.len(), (t.width * t.height * 4) as usize);
        let Source::Decoded { scale } = t.source else { panic!("not decoded") };
        // The scale never drops below the target.
        prop_assert!(w.div_ceil(scale) >= t.width && h.div_ceil(scale) >= t.height);
        let reference = full_decode_then_resize(&bytes, t.width, t.height);
        let d = mean_difference(&t.rgba, &reference);
        prop_assert!(d < 4.0, "mean difference {d} at scale {scale}");
    }
}

#[test]
fn a_wide_photo_is_not_decoded_narrower_than_its_thumbnail() {
    // At an eighth this photo is 169 × 29: tall enough for the 170 × 28
    // thumbnail, but not wide enough. jpeg-decoder, asked for 170 × 28,
    // would pick it (either side covering is enough for it).
    let bytes = jpeg(&picture(1352, 225), 90);
    let t =
        thumbnail(Cursor::new(&bytes), 170, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((t.width, t.height), (170, 28));
    assert_eq!(t.source, Source::Decoded { scale: 4 });
}

#[test]
fn a_big_photo_decodes_at_an_eighth() {
    let bytes = jpeg(&picture(2400, 1600), 90);
    let t =
        thumbnail(Cursor::new(&bytes), 256, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((t.width, t.height), (256, 171));
    assert_eq!(t.source, Source::Decoded { scale: 8 });
}

#[test]
fn exif_orientation_turns_the_thumbnail() {
    // A red block in the top-left corner.
    let mut img = picture(400, 200);
    for y in 0..50 {
        for x in 0..50 {
            img.put_pixel(x, y, image::Rgb([255, 0, 0]));
        }
    }
    let bytes = with_app1(&jpeg(&img, 95), &exif_app1(6, None));
    let t =
        thumbnail(Cursor::new(&bytes), 100, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    // Orientation 6: rotate 90° clockwise; 400×200 becomes 100×200 → fits 50×100.
    assert_eq!((t.width, t.height), (50, 100));
    assert_eq!(t.full_size, (200, 400));
    // The top-left block is now top-right.
    let px = |x: u32, y: u32| {
        let i = ((y * t.width + x) * 4) as usize;
        [t.rgba[i], t.rgba[i + 1], t.rgba[i + 2]]
    };
    let top_right = px(t.width - 3, 3);
    assert!(top_right[0] > 200 && top_right[1] < 60, "{top_right:?}");
    let top_left = px(2, 2);
    assert!(top_left[0] < 200, "{top_left:?}");
}

#[test]
fn the_embedded_preview_is_read_from_the_head() {
    let small = jpeg(&picture(160, 120), 80);
    let bytes = with_app1(&jpeg(&picture(1200, 900), 90), &exif_app1(1, Some(&small)));
    let p = embedded_preview(&bytes[..bytes.len().min(64 * 1024)])
        .unwrap_or_else(|| panic!("no preview"));
    assert_eq!((p.width, p.height), (160, 120));
    assert_eq!(p.source, Source::Embedded);
    // None without one, and none from a PNG.
    assert!(embedded_preview(&jpeg(&picture(100, 100), 80)).is_none());
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(picture(10, 10))
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(embedded_preview(&png).is_none());
}

#[test]
fn other_formats_go_through_image() {
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(picture(300, 100))
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap_or_else(|e| panic!("{e}"));
    let t = thumbnail(Cursor::new(&png), 150, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((t.width, t.height), (150, 50));
}

#[test]
fn broken_files_are_errors_that_say_why() {
    let limits = Limits::default();
    let err = |bytes: &[u8]| thumbnail(Cursor::new(bytes), 128, limits).err();
    assert!(matches!(err(b""), Some(ThumbError::Empty)));
    assert!(matches!(
        err(b"hello, not a picture"),
        Some(ThumbError::NotAnImage(_))
    ));
    // Truncated in the middle of the scan: the part before the cut, the
    // rest grey, and the reason (as ImageMagick shows it).
    let good = jpeg(&picture(640, 480), 90);
    let part = thumbnail(Cursor::new(&good[..good.len() / 3]), 128, limits)
        .unwrap_or_else(|e| panic!("{e}"));
    let problem = part.problem.clone().unwrap_or_default();
    assert!(problem.contains("cut short"), "{problem}");
    let last_row = &part.rgba[part.rgba.len() - part.width as usize * 4..];
    assert!(last_row.chunks_exact(4).all(|p| p == [128, 128, 128, 255]));
    let first_row = &part.rgba[..part.width as usize * 4];
    assert!(first_row.chunks_exact(4).any(|p| p != [128, 128, 128, 255]));
    // A whole file has no problem.
    let whole = thumbnail(Cursor::new(&good), 128, limits).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(whole.problem, None);
    // A header claiming 60000×60000: refused before decoding.
    let mut huge = good.clone();
    let sof = huge
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .unwrap_or_else(|| panic!("no SOF0"));
    huge[sof + 5..sof + 7].copy_from_slice(&60000u16.to_be_bytes());
    huge[sof + 7..sof + 9].copy_from_slice(&60000u16.to_be_bytes());
    assert!(
        matches!(
            err(&huge),
            Some(ThumbError::TooLarge {
                width: 60000,
                height: 60000,
                ..
            })
        ),
        "{:?}",
        err(&huge)
    );
    // A PNG header with absurd dimensions.
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(picture(8, 8))
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap_or_else(|e| panic!("{e}"));
    png[16..20].copy_from_slice(&60000u32.to_be_bytes());
    png[20..24].copy_from_slice(&60000u32.to_be_bytes());
    assert!(err(&png).is_some());
    // Random bytes after a JPEG signature never panic.
    for seed in 0..200u32 {
        let mut junk = vec![0xFF, 0xD8, 0xFF];
        let mut s = seed.wrapping_mul(2_654_435_761).max(1);
        for _ in 0..(seed % 300) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            junk.push(s as u8);
        }
        let _ = thumbnail(Cursor::new(&junk), 64, limits);
    }
}
