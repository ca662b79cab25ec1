//! From launch on a new folder of 10,000 photos to the first screen of
//! thumbnails, and how long quitting takes (issue 34's goals: ≤ 1 s and
//! ≤ 200 ms on this machine).
//!
//! The window runs headless (as in `viewer2-ui`): `ViewerApp::new` on a
//! catalogue that does not exist yet and the folder, then frames at 60 per
//! second until the grid's visible cells all show their thumbnail. Timed
//! from before `ViewerApp::new`: the catalogue made, the folder walked,
//! the first batch read, the library loaded, the first thumbnails made
//! (no thumbnail cache: a new folder has none). Quitting is `shut_down`,
//! what the window's `on_exit` runs: once while the index run is still
//! going (it stops at its next transaction), once after it ended. Each
//! run starts from a fresh catalogue; the photos are in the page cache
//! after the first (a cold first launch reads them from disk too).
//!
//! The GPU frame the real window draws before it closes (about 0.25 s
//! under Xvfb's software rendering, nothing on a GPU) is not counted.
//!
//!     cargo run --release -p viewer2-bench --bin viewer2-launch

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Parser;
use eframe::egui;
use viewer2::app::{Options, ViewerApp};

#[path = "../shared.rs"]
mod shared;
use shared::make_photos;

#[derive(Parser, Debug)]
struct Args {
    /// Photos in the folder.
    #[arg(long, default_value_t = 10_000)]
    photos: usize,
    /// Launches timed.
    #[arg(long, default_value_t = 5)]
    runs: usize,
}

/// One launch: (first photos shown, first screen of thumbnails, quit
/// while indexing, quit after).
fn launch(photos: &std::path::Path, scratch: &std::path::Path) -> Result<[Duration; 4]> {
    let _ = std::fs::remove_dir_all(scratch);
    std::fs::create_dir_all(scratch)?;
    let size = egui::vec2(1280.0, 800.0);
    let frame = Duration::from_secs_f64(1.0 / 60.0);
    let ctx = egui::Context::default();
    let start = Instant::now();
    let options = Options::new(scratch.join("catalog.sqlite"), vec![photos.to_owned()]);
    let mut app = ViewerApp::new(&ctx, options)?;
    let mut first_photos = None;
    let mut k = 0u32;
    let first_screen = loop {
        let due = start + frame * k;
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        k += 1;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
            time: Some(start.elapsed().as_secs_f64()),
            predicted_dt: frame.as_secs_f32(),
            ..Default::default()
        };
        let out = ctx.run_ui(input, |ui| app.ui(ui));
        std::hint::black_box(ctx.tessellate(out.shapes, out.pixels_per_point));
        if app.shown() > 0 && first_photos.is_none() {
            first_photos = Some(start.elapsed());
        }
        let (a, b) = app.visible();
        if b > a && app.thumbnails_shown() >= b - a {
            break start.elapsed();
        }
        if start.elapsed() > Duration::from_secs(120) {
            anyhow::bail!("no first screen of thumbnails in 2 minutes");
        }
    };
    let t = Instant::now();
    app.shut_down(Duration::from_millis(150));
    let quit_indexing = t.elapsed();
    drop(app);
    // Quitting once nothing runs: a window on the indexed catalogue.
    let ctx = egui::Context::default();
    let mut app = ViewerApp::new(&ctx, Options::new(scratch.join("catalog.sqlite"), vec![]))?;
    let settle = Instant::now();
    while app.is_busy() && settle.elapsed() < Duration::from_secs(60) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
            ..Default::default()
        };
        let _ = ctx.run_ui(input, |ui| app.ui(ui));
        std::thread::sleep(Duration::from_millis(10));
    }
    let t = Instant::now();
    app.shut_down(Duration::from_millis(150));
    let quit_idle = t.elapsed();
    Ok([
        first_photos.unwrap_or_default(),
        first_screen,
        quit_indexing,
        quit_idle,
    ])
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/viewer2-ui-bench");
    make_photos(&root.join("photos"), args.photos)?;
    // The folder holds exactly the photos asked for (the shared set may
    // hold more): hard links, made once.
    let folder = root.join(format!("launch-{}", args.photos));
    if !folder.exists() {
        std::fs::create_dir_all(&folder)?;
        for k in 0..args.photos {
            let name = format!("IMG_{k:05}.jpg");
            std::fs::hard_link(root.join("photos").join(&name), folder.join(&name))?;
        }
    }
    let scratch = root.join("launch-scratch");
    let mut runs = Vec::new();
    for r in 0..args.runs {
        let times = launch(&folder, &scratch)?;
        eprintln!(
            "run {}: photos {:.3} s, thumbnails {:.3} s, quit {:.1}/{:.1} ms",
            r + 1,
            times[0].as_secs_f64(),
            times[1].as_secs_f64(),
            times[2].as_secs_f64() * 1e3,
            times[3].as_secs_f64() * 1e3
        );
        runs.push(times);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let median = |i: usize| {
        let mut v: Vec<Duration> = runs.iter().map(|r| r[i]).collect();
        v.sort();
        v[v.len() / 2]
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    println!("# viewer2: launch on a new folder, and quit\n");
    println!(
        "A new catalogue and no thumbnail cache; a folder of {} 640×427 JPEGs (in the page cache); a 1280×800 window with 160 pt cells; {threads} loader threads; the median of {} launches.\n",
        args.photos, args.runs
    );
    println!("| | viewer2 | goal |");
    println!("| --- | ---: | ---: |");
    println!(
        "| launch → first photos in the grid | {:.2} s | |",
        median(0).as_secs_f64()
    );
    println!(
        "| launch → first screen of thumbnails | {:.2} s | ≤ 1 s |",
        median(1).as_secs_f64()
    );
    println!(
        "| quit while indexing (`shut_down`) | {:.1} ms | ≤ 200 ms |",
        median(2).as_secs_f64() * 1e3
    );
    println!(
        "| quit when idle (`shut_down`) | {:.1} ms | ≤ 200 ms |",
        median(3).as_secs_f64() * 1e3
    );
    Ok(())
}
