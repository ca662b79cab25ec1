//! collide's pixel masks against pygame-ce's (`pygame.mask`), in one run:
//! two solid discs (an ellipse filling each size) checked at the same
//! random offsets on both sides. pygame's times are taken in Python, as its
//! users call it, by `python/masks_pygame.py` (run with the venv that
//! `scripts/test.sh` makes, or `COLLIDE_PYTHON`).
//!
//! `cargo run --release -p collide-bench --bin masks`

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use collide::mask::Mask;

#[path = "../splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// The same disc as the Python side: pixel centres inside the ellipse.
fn disc(w: usize, h: usize) -> Result<Mask> {
    let (rx, ry) = (w as f64 / 2.0, h as f64 / 2.0);
    Ok(Mask::from_fn(w, h, |x, y| {
        let (u, v) = ((x as f64 + 0.5 - rx) / rx, (y as f64 + 0.5 - ry) / ry);
        u * u + v * v < 1.0
    })?)
}

fn offsets(seed: u64, w: usize, h: usize, n: usize) -> Vec<(i64, i64)> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let dx = rng.below(2 * w as u64) as i64 - w as i64;
            let dy = rng.below(2 * h as u64) as i64 - h as i64;
            (dx, dy)
        })
        .collect()
}

/// Seconds per check, best of three passes over every offset.
fn per_check<T>(offs: &[(i64, i64)], mut f: impl FnMut(i64, i64) -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        for &(dx, dy) in offs {
            std::hint::black_box(f(dx, dy));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    best / offs.len() as f64
}

fn main() -> Result<()> {
    let sizes = [(64usize, 64usize), (512, 512), (2048, 2048), (800, 400)];
    let checks = 2000;
    let seed = 1994;
    let python = std::env::var("COLLIDE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/py-venv/bin/python")
        });
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/masks_pygame.py");
    let size_args: Vec<String> = sizes.iter().map(|(w, h)| format!("{w}x{h}")).collect();
    let out = Command::new(&python)
        .arg(&script)
        .arg("--sizes")
        .args(&size_args)
        .args(["--checks", &checks.to_string(), "--seed", &seed.to_string()])
        .output()
        .with_context(|| {
            format!(
                "running {} (run ./scripts/test.sh once to make the venv with pygame-ce)",
                python.display()
            )
        })?;
    if !out.status.success() {
        bail!(
            "pygame-ce side failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let theirs: Vec<serde_json::Value> = String::from_utf8(out.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;

    println!(
        "| masks | checks | pygame-ce overlap µs | ours overlap µs | ratio | pygame-ce overlap_area µs | ours overlap_area µs | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (&(w, h), t) in sizes.iter().zip(&theirs) {
        let (a, b) = (disc(w, h)?, disc(w, h)?);
        let offs = offsets(seed, w, h, checks);
        // Both sides must have done the same work.
        let hits = offs
            .iter()
            .filter(|&&(dx, dy)| a.overlap(&b, dx, dy).is_some())
            .count() as u64;
        let area: u64 = offs
            .iter()
            .map(|&(dx, dy)| a.overlap_area(&b, dx, dy))
            .sum();
        if Some(a.count()) != t["count"].as_u64()
            || Some(hits) != t["hits"].as_u64()
            || Some(area) != t["area_sum"].as_u64()
        {
            bail!(
                "{w}x{h}: the two sides disagree (ours: {} set, {hits} hits, area {area}; pygame-ce: {t})",
                a.count()
            );
        }
        let ov = per_check(&offs, |dx, dy| a.overlap(&b, dx, dy));
        let ar = per_check(&offs, |dx, dy| a.overlap_area(&b, dx, dy));
        let (pov, par) = (
            t["overlap_s"].as_f64().unwrap_or(f64::NAN),
            t["overlap_area_s"].as_f64().unwrap_or(f64::NAN),
        );
        println!(
            "| {w}×{h} | {checks} | {:.3} | {:.3} | {:.1}× | {:.3} | {:.3} | {:.1}× |",
            pov * 1e6,
            ov * 1e6,
            pov / ov,
            par * 1e6,
            ar * 1e6,
            par / ar
        );
    }
    Ok(())
}
