//! Any bytes as a photo, through every reader of a photo's bytes: the
//! thumbnail decoder and its peak estimate, the embedded-preview finder,
//! the details panel's reader and the index run's metadata reader. Each
//! answers or refuses; none panics.
//!
//!     cargo +nightly fuzz run photo_bytes    (in crates/viewer2)

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use viewer2::thumbnail::{Limits, decode_peak, embedded_preview, thumbnail};

fuzz_target!(|data: &[u8]| {
    // Small limits keep each run short; the sizes are checked all the same.
    let limits = Limits {
        max_pixels: 1 << 22,
        max_side: 8192,
    };
    let _ = decode_peak(Cursor::new(data), 256, limits);
    let _ = thumbnail(Cursor::new(data), 256, limits);
    let _ = embedded_preview(data);
    let _ = viewer2::details::read(
        Box::new(Cursor::new(data.to_vec())),
        &jiff::tz::TimeZone::UTC,
    );
    // The metadata reader takes a file, as the index run opens one.
    let path = std::env::temp_dir().join(format!("viewer2-fuzz-{}", std::process::id()));
    if std::fs::write(&path, data).is_ok() {
        if let Ok(mut file) = std::fs::File::open(&path) {
            let _ = viewer2::metadata::read_from(&path, &mut file);
        }
    }
});
