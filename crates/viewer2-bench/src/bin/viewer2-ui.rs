//! The window's frame time while 10,000 thumbnails load and the grid
//! scrolls, and the process's memory with 100,000 photos in the catalogue.
//!
//! The window runs headless: each frame feeds egui a pointer over the grid
//! and a wheel step, runs the window's code, and tessellates what it drew
//! (all the work of a frame on the UI thread but the GPU submission). The
//! loader's threads make the thumbnails meanwhile, as in the real window.
//! Frames are paced at 60 per second; a frame's time is from the start of
//! its input to the end of tessellation.
//!
//! The catalogue holds 10,000 real JPEGs (made once into
//! `target/viewer2-ui-bench`) and 90,000 records of an archive that is not
//! mounted (shown as placeholders), so the grid holds 100,000 photos.
//!
//!     cargo run --release -p viewer2-bench --bin viewer2-ui

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use catalog::{Catalog, NewFile};
use clap::Parser;
use eframe::egui;
use viewer2::app::{Options, ViewerApp};
use viewer2::library::Grouping;

#[path = "../shared.rs"]
mod shared;
use shared::{bar, make_photos};

#[derive(Parser, Debug)]
struct Args {
    /// Real photos to scroll through.
    #[arg(long, default_value_t = 10_000)]
    photos: usize,
    /// Photos in the catalogue in all.
    #[arg(long, default_value_t = 100_000)]
    catalogue: usize,
    /// Points scrolled per frame.
    #[arg(long, default_value_t = 60.0)]
    scroll: f32,
    /// Group the grid: `folder` or `month` (headers between the groups).
    #[arg(long)]
    group: Option<String>,
}

/// Resident memory now and at its peak, in bytes (Linux).
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn make_catalogue(path: &Path, photos: &[PathBuf], total: usize) -> Result<()> {
    let _ = std::fs::remove_file(path);
    let mut cat = Catalog::open(path)?;
    let mut records: Vec<(String, String)> = photos
        .iter()
        .map(|p| (p.to_string_lossy().into_owned(), String::new()))
        .collect();
    for k in photos.len()..total {
        records.push((
            format!("/mnt/archive/{}/scan_{k:06}.jpg", 1990 + k % 30),
            format!("archive box {}", k % 97),
        ));
    }
    for chunk in records.chunks(5000) {
        let files: Vec<NewFile<'_>> = chunk
            .iter()
            .map(|(path, caption)| NewFile {
                path,
                caption,
                size: 100_000,
                mtime: 1_700_000_000,
                raw_path: None,
                camera: "",
                date: "",
                identity: Default::default(),
            })
            .collect();
        cat.add(&files)?;
    }
    cat.refresh_index()?;
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/viewer2-ui-bench");
    let photos = make_photos(&root.join("photos"), args.photos)?;
    let cat = root.join("catalog.sqlite");
    make_catalogue(&cat, &photos, args.catalogue.max(args.photos)).context("the catalogue")?;
    let (rss_before, _) = memory();

    let ctx = egui::Context::default();
    let size = egui::vec2(1280.0, 800.0);
    let options = Options::new(cat, vec![]);
    let threads = options.threads;
    let mut app = ViewerApp::new(&ctx, options)?;
    let start = Instant::now();
    let frame = Duration::from_secs_f64(1.0 / 60.0);
    let mut times = Vec::new();
    let mut uploaded = 0usize;
    let mut k = 0u64;
    let bar = bar(args.photos, "scrolling");
    let mut loaded_at = None;
    let mut settled_after = 0;
    let grouping = match args.group.as_deref() {
        None => Grouping::None,
        Some(key) => Grouping::ALL
            .into_iter()
            .find(|g| g.key() == format!("by-{key}"))
            .with_context(|| format!("--group {key}: folder or month"))?,
    };
    let mut grouped = grouping == Grouping::None;
    loop {
        let due = start + frame * k as u32;
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        k += 1;
        let scrolling = app.shown() > 0 && app.visible().1 < args.photos;
        let mut events = vec![egui::Event::PointerMoved(egui::pos2(640.0, 400.0))];
        if scrolling {
            events.push(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: egui::vec2(0.0, -args.scroll),
                phase: egui::TouchPhase::Move,
                modifiers: egui::Modifiers::NONE,
                source: egui::MouseWheelSource::Wheel,
            });
        }
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
            time: Some(start.elapsed().as_secs_f64()),
            predicted_dt: frame.as_secs_f32(),
            events,
            ..Default::default()
        };
        let t = Instant::now();
        let out = ctx.run_ui(input, |ui| app.ui(ui));
        let primitives = ctx.tessellate(out.shapes, out.pixels_per_point);
        let took = t.elapsed();
        std::hint::black_box(primitives);
        for deltas in out.textures_delta.set.values() {
            for delta in deltas {
                uploaded +=
                    delta.image.bytes_per_pixel() * delta.image.width() * delta.image.height();
            }
        }
        if app.shown() > 0 && loaded_at.is_none() {
            loaded_at = Some(start.elapsed());
        }
        if app.shown() > 0 && !grouped {
            app.group_by(grouping);
            grouped = true;
        }
        if scrolling {
            times.push(took);
            bar.set_position(app.visible().1 as u64);
        } else if app.shown() > 0 {
            // At the end: until the last screen is painted.
            settled_after += 1;
            if !app.is_busy() || settled_after > 600 {
                break;
            }
        }
        if start.elapsed() > Duration::from_secs(900) {
            anyhow::bail!("did not reach the end in 15 minutes");
        }
    }
    bar.finish_and_clear();
    let (rss, peak) = memory();
    times.sort();
    println!("# viewer2's window: frame time while scrolling through 10,000 loading thumbnails\n");
    println!(
        "{} photos in the catalogue, the first {} real 640×427 JPEGs; a 1280×800 window with 160 pt cells (5 columns), grouped: {}; {} pt scrolled per frame at 60 frames/s; {threads} loader threads; {} frames while scrolling ({:.1} s). The catalogue loaded in {:.2} s.\n",
        app.shown(),
        args.photos,
        grouping.label(),
        args.scroll,
        times.len(),
        times.len() as f64 / 60.0,
        loaded_at.unwrap_or_default().as_secs_f64(),
    );
    println!("| frame time (UI thread: build + tessellate) | p50 | p95 | p99 | max |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
    println!(
        "| viewer2 | {} | {} | {} | {} |",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.95)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().unwrap_or(&Duration::ZERO)),
    );
    println!(
        "\nThumbnail pixels uploaded: {:.0} MB. Resident memory: {:.0} MB before the window, {:.0} MB at the end, {:.0} MB at the peak (GPU textures not included: a fixed 64 MB atlas budget).",
        uploaded as f64 / 1e6,
        rss_before as f64 / 1e6,
        rss as f64 / 1e6,
        peak as f64 / 1e6,
    );
    Ok(())
}
