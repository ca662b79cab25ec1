#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Orientation and colour as shot, against ImageMagick: JPEGs of random
//! sizes with a random EXIF orientation and an embedded ICC profile
//! (Display P3 as phones write it, Adobe RGB as cameras do, a wide D50
//! space, sRGB, or none), shown by viewer2 and by `convert -auto-orient
//! -profile sRGB.icc` (ImageMagick through Little CMS), pixel for pixel.
//! Without ImageMagick the test says SKIPPED, and fails under
//! REQUIRE_IMAGE_TOOLS=1, which CI sets.

use std::process::Command;

use lcms2::{CIExyY, CIExyYTRIPLE, Profile, ToneCurve};
use proptest::prelude::*;
use viewer2::thumbnail::{Limits, thumbnail};

mod photos;

fn convert_present() -> bool {
    let ok = Command::new("convert")
        .arg("-version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("ImageMagick"));
    if !ok {
        assert!(
            std::env::var_os("REQUIRE_IMAGE_TOOLS").is_none(),
            "ImageMagick's convert is required (REQUIRE_IMAGE_TOOLS is set): apt-get install imagemagick"
        );
        eprintln!(
            "SKIPPED colour_and_orientation_match_imagemagick: ImageMagick is not installed (Debian package imagemagick)"
        );
    }
    ok
}

fn xy(x: f64, y: f64) -> CIExyY {
    CIExyY { x, y, Y: 1.0 }
}

/// An RGB profile of these primaries and white, with a gamma or (None)
/// the sRGB curve.
fn profile(name: &str, white: CIExyY, rgb: [(f64, f64); 3], gamma: Option<f64>) -> Vec<u8> {
    let primaries = CIExyYTRIPLE {
        Red: xy(rgb[0].0, rgb[0].1),
        Green: xy(rgb[1].0, rgb[1].1),
        Blue: xy(rgb[2].0, rgb[2].1),
    };
    let curve = match gamma {
        Some(g) => ToneCurve::new(g),
        None => {
            ToneCurve::new_parametric(4, &[2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045])
                .unwrap()
        }
    };
    let mut p = Profile::new_rgb(&white, &primaries, &[&curve, &curve, &curve]).unwrap();
    let mut mlu = lcms2::MLU::new(1);
    mlu.set_text_ascii(name, lcms2::Locale::none());
    p.write_tag(
        lcms2::TagSignature::ProfileDescriptionTag,
        lcms2::Tag::MLU(&mlu),
    );
    p.icc().unwrap()
}

fn profiles() -> Vec<Option<Vec<u8>>> {
    let d65 = xy(0.3127, 0.3290);
    vec![
        None,
        Some(Profile::new_srgb().icc().unwrap()),
        Some(profile(
            "Display P3",
            d65,
            [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
            None,
        )),
        Some(profile(
            "Adobe RGB (1998)",
            d65,
            [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)],
            Some(563.0 / 256.0),
        )),
        Some(profile(
            "Wide D50",
            xy(0.3457, 0.3585),
            [(0.7347, 0.2653), (0.1596, 0.8404), (0.0366, 0.0001)],
            Some(1.8),
        )),
    ]
}

/// `jpeg` with an APP2 ICC_PROFILE segment (one chunk) after its SOI.
fn with_icc(jpeg: &[u8], icc: &[u8]) -> Vec<u8> {
    let mut body = b"ICC_PROFILE\0\x01\x01".to_vec();
    body.extend_from_slice(icc);
    let mut seg = vec![0xFF, 0xE2];
    seg.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    seg.extend_from_slice(&body);
    photos::with_app1(jpeg, &seg)
}

/// Mean, 99th percentile and largest difference of the colour channels.
/// Two JPEG decoders differ by a unit here and there, which a wide
/// space's steep corners turn into a few larger steps: the mean and the
/// 99th percentile are what say the conversion is the same.
fn difference(a: &[u8], b: &[u8]) -> (f64, u8, u8) {
    let mut d: Vec<u8> = a
        .iter()
        .zip(b)
        .enumerate()
        .filter(|(i, _)| i % 4 != 3)
        .map(|(_, (x, y))| x.abs_diff(*y))
        .collect();
    d.sort_unstable();
    let mean = d.iter().map(|&v| f64::from(v)).sum::<f64>() / d.len() as f64;
    (mean, d[d.len() * 99 / 100], d[d.len() - 1])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn colour_and_orientation_match_imagemagick(
        w in 8u32..72,
        h in 8u32..72,
        orientation in 1u16..=8,
        which in 0usize..5,
    ) {
        if !convert_present() {
            return Ok(());
        }
        let dir = tempfile::tempdir().unwrap();
        // Saturated colours, where the spaces differ most.
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x * 255 / w) as u8, (y * 255 / h) as u8, if (x / 8 + y / 8) % 2 == 0 { 250 } else { 10 }])
        });
        let mut jpeg = Vec::new();
        jpeg_encoder::Encoder::new(&mut jpeg, 100)
            .encode(img.as_raw(), w as u16, h as u16, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        if let Some(icc) = &profiles()[which] {
            jpeg = with_icc(&jpeg, icc);
        }
        let file = photos::with_app1(&jpeg, &photos::exif_app1(orientation, None));
        let path = dir.path().join("in.jpg");
        std::fs::write(&path, &file).unwrap();
        let srgb = dir.path().join("sRGB.icc");
        std::fs::write(&srgb, Profile::new_srgb().icc().unwrap()).unwrap();
        let out = dir.path().join("out.png");
        let made = Command::new("convert")
            .arg(&path)
            .args(["-auto-orient", "-profile"])
            .arg(&srgb)
            .args(["-depth", "8", "-define", "png:color-type=6"])
            .arg(&out)
            .output()
            .unwrap();
        prop_assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        let theirs = image::open(&out).unwrap().into_rgba8();
        let ours = thumbnail(std::fs::File::open(&path).unwrap(), 256, Limits::default()).unwrap();
        prop_assert_eq!((ours.width, ours.height), theirs.dimensions(), "orientation {}", orientation);
        let (mean, p99, max) = difference(&ours.rgba, theirs.as_raw());
        prop_assert!(
            mean <= 1.0 && p99 <= 8 && max <= 40,
            "profile {} orientation {}: mean {:.2}, 99th percentile {}, largest {} from ImageMagick",
            which, orientation, mean, p99, max
        );
    }
}
