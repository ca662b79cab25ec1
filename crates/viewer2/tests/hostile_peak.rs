#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The memory half of the standing guard (issue 45): photos with random
//! bytes changed or cut off anywhere, and headers that claim any size.
//! Whatever `decode_peak` answers for such a file bounds what the
//! thumbnail decoder then holds (it is what the memory budget reserves);
//! a file it refuses is refused by the decoder too, holding little.
//!
//! This file holds one test, so nothing else allocates while it counts.

use std::io::Cursor;
use std::sync::atomic::Ordering;

use proptest::prelude::*;
use viewer2::thumbnail::{Limits, decode_peak, thumbnail};

#[path = "support/counting.rs"]
mod counting;
use counting::{NOW, PEAK};

mod photos;

/// A refused file may still have read its header and a few buffers.
const REFUSED_SLACK: u64 = 4 << 20;

fn samples() -> Vec<Vec<u8>> {
    let img = photos::picture(160, 120);
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img.clone())
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    vec![photos::jpeg(&img, 80), png]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn a_hostile_photo_holds_no_more_than_its_estimate(
        which in 0usize..2,
        changes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..24),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        target in prop::sample::select(vec![128u32, 1024]),
    ) {
        let mut bytes = samples().swap_remove(which);
        for (at, b) in &changes {
            let i = at.index(bytes.len());
            bytes[i] = *b;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        let estimate = decode_peak(Cursor::new(&bytes), target, Limits::default());
        let before = NOW.load(Ordering::SeqCst);
        PEAK.store(before, Ordering::SeqCst);
        let thumb = thumbnail(Cursor::new(&bytes), target, Limits::default());
        let measured = (PEAK.load(Ordering::SeqCst) - before) as u64;
        let decoded = thumb.is_ok();
        drop(thumb);
        match estimate {
            Ok(estimate) => prop_assert!(
                measured <= estimate.max(REFUSED_SLACK),
                "estimated {estimate}, measured {measured} (decoded: {decoded})"
            ),
            Err(e) => {
                prop_assert!(!decoded, "refused by the estimate ({e}) but decoded");
                prop_assert!(measured <= REFUSED_SLACK, "refused ({e}) yet held {measured}");
            }
        }
    }
}
