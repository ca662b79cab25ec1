#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The standing guard over every reader of a photo's bytes (issue 45):
//! JPEGs and PNGs with random bytes changed, cut off anywhere, or random
//! bytes alone, through the thumbnail decoder, its peak estimate, the
//! embedded-preview finder, the details panel's EXIF and XMP reader and
//! the index run's metadata reader. Each answers or refuses; none
//! panics. More cases: `PROPTEST_CASES=5000`.

use std::io::Cursor;

use proptest::prelude::*;
use viewer2::thumbnail::{Limits, decode_peak, embedded_preview, thumbnail};

mod photos;

fn samples() -> Vec<Vec<u8>> {
    let img = photos::picture(96, 64);
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img.clone())
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    vec![photos::jpeg(&img, 80), png]
}

/// Every reader over `bytes`: no panic is the property.
fn read_all(bytes: &[u8]) {
    let _ = thumbnail(Cursor::new(bytes), 128, Limits::default());
    let _ = decode_peak(Cursor::new(bytes), 128, Limits::default());
    let _ = embedded_preview(bytes);
    let _ = viewer2::details::read(
        Box::new(Cursor::new(bytes.to_vec())),
        &jiff::tz::TimeZone::UTC,
    );
    // The metadata reader opens the file by name (Adobe's XMP Toolkit
    // reads it), with a sidecar of the same bytes beside it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.jpg");
    std::fs::write(&path, bytes).unwrap();
    std::fs::write(dir.path().join("hostile.jpg.xmp"), bytes).unwrap();
    let mut f = std::fs::File::open(&path).unwrap();
    let _ = viewer2::metadata::read_from(&path, &mut f);
    viewer2::details::with_metadata(
        &mut viewer2::details::Details::default(),
        photo::meta::read(&path),
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn changed_or_cut_photos_never_panic_a_reader(
        which in 0usize..2,
        changes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..24),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let mut bytes = samples().swap_remove(which);
        for (at, b) in &changes {
            let i = at.index(bytes.len());
            bytes[i] = *b;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        read_all(&bytes);
    }

    #[test]
    fn random_bytes_never_panic_a_reader(
        head in prop_oneof![Just(&b"\xff\xd8\xff\xe1"[..]), Just(&b"\x89PNG\r\n\x1a\n"[..]), Just(&b""[..])],
        tail in proptest::collection::vec(any::<u8>(), 0..4096),
    ) {
        let mut bytes = head.to_vec();
        bytes.extend(tail);
        read_all(&bytes);
    }
}
