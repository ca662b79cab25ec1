#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `decode_peak` is what a decode reserves from the memory budget before
//! it starts, so it must never be below what the decode really holds:
//! every allocation of this test binary is counted while a thumbnail is
//! made, over random formats (baseline and progressive JPEG, PNG at 8 and
//! 16 bits with and without alpha, GIF, WebP, TIFF, BMP), sizes and
//! targets, and JPEGs cut short at random places (their part is shown).
//! The estimate must also stay honest: within four times the
//! measured peak and a few megabytes.
//!
//! This file holds one test, so nothing else allocates while it counts.

use std::io::Cursor;
use std::sync::atomic::Ordering;

use proptest::prelude::*;
use viewer2::thumbnail::{Limits, decode_peak, thumbnail};

#[path = "support/counting.rs"]
mod counting;
use counting::{NOW, PEAK};

/// A photo-like picture (gradients and detail), RGBA.
fn picture(w: u32, h: u32, seed: u32) -> Vec<u8> {
    (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            [
                (x * 255 / w.max(1)) as u8,
                (y * 255 / h.max(1)) as u8,
                ((x ^ y).wrapping_mul(seed) >> 3) as u8,
                (128 + (x + y) % 128) as u8,
            ]
        })
        .collect()
}

fn encode(kind: usize, w: u32, h: u32, seed: u32) -> Vec<u8> {
    let rgba = picture(w, h, seed);
    let rgb: Vec<u8> = rgba
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::new();
    match kind {
        0 | 1 => {
            let mut enc = jpeg_encoder::Encoder::new(&mut out, 85);
            enc.set_progressive(kind == 1);
            enc.encode(&rgb, w as u16, h as u16, jpeg_encoder::ColorType::Rgb)
                .unwrap();
        }
        _ => {
            let img = image::RgbaImage::from_raw(w, h, rgba).unwrap();
            let dynamic = match kind {
                2 => image::DynamicImage::ImageRgb8(image::DynamicImage::ImageRgba8(img).to_rgb8()),
                3 => image::DynamicImage::ImageRgba8(img),
                4 => image::DynamicImage::ImageRgba16(
                    image::DynamicImage::ImageRgba8(img).to_rgba16(),
                ),
                _ => image::DynamicImage::ImageRgba8(img),
            };
            let format = match kind {
                2..=4 => image::ImageFormat::Png,
                5 => image::ImageFormat::Gif,
                6 => image::ImageFormat::WebP,
                7 => image::ImageFormat::Tiff,
                _ => image::ImageFormat::Bmp,
            };
            dynamic
                .write_to(&mut Cursor::new(&mut out), format)
                .unwrap();
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn the_estimate_bounds_the_measured_peak(
        kind in 0usize..9,
        w in 16u32..1400,
        h in 16u32..1000,
        target in prop::sample::select(vec![64u32, 256, 1024, 4096]),
        seed in 1u32..1000,
        cut in proptest::option::of(0.2f64..0.97),
    ) {
        let mut file = encode(kind, w, h, seed);
        // A JPEG cut short: its part is shown, read whole to find it.
        if let Some(cut) = cut.filter(|_| kind < 2) {
            file.truncate((file.len() as f64 * cut) as usize);
        }
        let estimate = decode_peak(Cursor::new(&file), target, Limits::default()).unwrap();
        let before = NOW.load(Ordering::SeqCst);
        PEAK.store(before, Ordering::SeqCst);
        let thumb = thumbnail(Cursor::new(&file), target, Limits::default());
        prop_assert!(thumb.is_ok() || cut.is_some(), "{:?}", thumb.err());
        let measured = (PEAK.load(Ordering::SeqCst) - before) as u64;
        drop(thumb);
        prop_assert!(measured <= estimate, "kind {kind}, {w}×{h} at {target}: measured {measured}, estimated {estimate}");
        prop_assert!(estimate <= 4 * measured + (6 << 20), "kind {kind}, {w}×{h} at {target}: estimated {estimate} for {measured}");
    }
}
