//! Camera RAW through LibRaw, on DNGs laid out as Adobe's converter and
//! cameras write them: the first directory a JPEG preview (with the
//! camera's orientation, make and model), the raw colour-filter samples
//! in a sub-directory. The preview must come back byte for byte (after
//! the EXIF segment LibRaw puts before it); a DNG
//! without one is developed, the right way up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;

#[path = "support/dng.rs"]
mod dng;

use dng::{dng, preview_jpeg};

#[test]
fn the_embedded_preview_comes_back_byte_for_byte_with_the_cameras_orientation() {
    let jpeg = preview_jpeg();
    for (orientation, shown) in [
        (1u16, (256, 192)),
        (3, (256, 192)),
        (6, (192, 256)),
        (8, (192, 256)),
    ] {
        let file = dng(orientation, Some(&jpeg));
        assert_eq!(photo::raw_kind(&file), Some("DNG"));
        let info = photo::raw_info(std::io::Cursor::new(&file)).unwrap();
        assert_eq!(info.orientation, u32::from(orientation));
        assert_eq!(
            (info.width, info.height),
            shown,
            "orientation {orientation}"
        );
        assert_eq!(info.camera, "Testcam Model 1");
        assert_eq!(info.preview, Some((128, 96)));
        let (_, picture) = photo::raw_picture(
            std::io::Cursor::new(&file),
            &photo::Limits::default(),
            false,
        )
        .unwrap();
        let photo::RawPicture::Jpeg(got) = picture else {
            panic!("no preview")
        };
        // LibRaw puts an EXIF segment (the camera, orientation 1) after
        // the start of image; the rest is the camera's JPEG unchanged.
        assert!(
            got.starts_with(&[0xFF, 0xD8]) && got.ends_with(&jpeg[2..]),
            "orientation {orientation}"
        );
    }
}

#[test]
fn a_raw_without_a_preview_is_developed_the_right_way_up() {
    for (orientation, size, corner) in [
        (1u16, (128, 96), (4, 4)),
        (6, (96, 128), (92, 4)),
        (3, (128, 96), (124, 92)),
    ] {
        let file = dng(orientation, None);
        let (info, picture) = photo::raw_picture(
            std::io::Cursor::new(&file),
            &photo::Limits::default(),
            false,
        )
        .unwrap();
        let photo::RawPicture::Rgb { width, height, rgb } = picture else {
            panic!("orientation {orientation}: a preview where there is none");
        };
        assert_eq!((width, height), size, "orientation {orientation}");
        assert_eq!((info.width / 2, info.height / 2), size);
        // The blue corner block lands where the orientation puts it.
        let at = |x: u32, y: u32| {
            let i = ((y * width + x) * 3) as usize;
            [rgb[i], rgb[i + 1], rgb[i + 2]]
        };
        let c = at(corner.0, corner.1);
        assert!(
            c[2] > c[0] && c[2] > 100,
            "orientation {orientation}: {c:?} at {corner:?}"
        );
        let far = at(width - 1 - corner.0, height - 1 - corner.1);
        assert!(far[2] < 100, "orientation {orientation}: {far:?} opposite");
    }
}

#[test]
fn sizes_over_the_limits_are_refused_before_developing() {
    let file = dng(1, None);
    let small = photo::Limits {
        max_side: 100,
        max_pixels: 1 << 20,
    };
    let e = photo::raw_picture(std::io::Cursor::new(&file), &small, true).unwrap_err();
    assert!(matches!(e, photo::PhotoError::TooLarge { .. }), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A RAW cut short or damaged anywhere is a picture or LibRaw's
    /// reason, never a crash.
    #[test]
    fn broken_raws_never_crash(cut in 0.0f64..1.0, flip in proptest::option::of((0.0f64..1.0, any::<u8>())), with_preview: bool) {
        let jpeg = preview_jpeg();
        let mut file = dng(6, with_preview.then_some(&jpeg[..]));
        file.truncate(((file.len() as f64) * cut) as usize + 8);
        if let Some((at, v)) = flip {
            let i = ((file.len() as f64) * at) as usize;
            if let Some(b) = file.get_mut(i) { *b ^= v; }
        }
        if let Err(e) = photo::raw_picture(std::io::Cursor::new(&file), &photo::Limits::default(), false) {
            prop_assert!(e.to_string().starts_with("RAW") || e.to_string().contains("limit") || e.to_string().contains("header"), "{}", e);
        }
    }
}
