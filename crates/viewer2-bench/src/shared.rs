//! What the window benchmarks share: the test photos and a progress bar.

use std::path::{Path, PathBuf};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on stderr.
pub fn bar(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(&format!("{what} {{bar:30}} {{pos}}/{{len}} ({{eta}})"))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The real photos: 640×427 JPEGs of gradients and noise, each different.
pub fn make_photos(dir: &Path, n: usize) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let bar = bar(n, "making photos");
    let mut paths = Vec::with_capacity(n);
    for k in 0..n {
        let path = dir.join(format!("IMG_{k:05}.jpg"));
        if !path.exists() {
            let mut seed = (k as u32).wrapping_mul(2_654_435_761);
            let img = image::RgbImage::from_fn(640, 427, |x, y| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let noise = (seed >> 27) as u8;
                image::Rgb([
                    (x / 3) as u8 ^ (k as u8),
                    (y / 2) as u8 ^ (k as u8).rotate_left(3),
                    ((x + y) / 5) as u8 + noise,
                ])
            });
            let mut bytes = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 85)
                .encode_image(&img)?;
            std::fs::write(&path, bytes)?;
        }
        paths.push(path);
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(paths)
}
