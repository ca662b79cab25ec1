//! The light table's frame time with 10,000 cards in three levels of open
//! groups, physics and collisions included, and the time to open a stack
//! of 1,000.
//!
//! The window runs headless, as `viewer2-ui` does: each frame feeds egui
//! the pointer, runs the window's code (the table's fixed-rate physics
//! step, collision, drawing) and tessellates what it drew. Frames are
//! paced at 60 per second. The catalogue holds 10,000 records of photos
//! that are not mounted (10 folders × 10 subfolders × 100 photos), so the
//! cards show their placeholders: the frame's work is the table's.
//!
//!     cargo run --release -p viewer2-bench --bin viewer2-table

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use catalog::{Catalog, FileRecord, NewFile};
use eframe::egui;
use viewer2::app::{Options, ViewerApp};
use viewer2::library::Library;
use viewer2::table::{Item, Saved, Table};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn row(name: &str, times: &mut [Duration]) {
    times.sort();
    println!(
        "| {name} | {} | {} | {} | {} | {} |",
        times.len(),
        ms(percentile(times, 0.5)),
        ms(percentile(times, 0.95)),
        ms(percentile(times, 0.99)),
        ms(*times.last().unwrap_or(&Duration::ZERO)),
    );
}

/// Drives the window frame by frame at 60 per second.
struct Driver {
    ctx: egui::Context,
    app: ViewerApp,
    start: Instant,
    frame: u32,
    size: egui::Vec2,
}

impl Driver {
    /// One frame with these events; returns its time (build + tessellate).
    fn frame(&mut self, events: Vec<egui::Event>) -> Duration {
        let period = Duration::from_secs_f64(1.0 / 60.0);
        let due = self.start + period * self.frame;
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        self.frame += 1;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, self.size)),
            time: Some(self.start.elapsed().as_secs_f64()),
            predicted_dt: period.as_secs_f32(),
            events,
            ..Default::default()
        };
        let t = Instant::now();
        let app = &mut self.app;
        let out = self.ctx.run_ui(input, |ui| app.ui(ui));
        let primitives = self.ctx.tessellate(out.shapes, out.pixels_per_point);
        let took = t.elapsed();
        std::hint::black_box(primitives);
        took
    }

    fn screen(&self, item: Item) -> Option<egui::Pos2> {
        let view = self.app.table_view()?;
        let c = view.table.card(view.table.card_of(item)?)?;
        Some(view.to_screen(c.pos))
    }
}

fn press(at: egui::Pos2, pressed: bool) -> egui::Event {
    egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    }
}

fn wheel(dy: f32) -> egui::Event {
    egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, dy),
        phase: egui::TouchPhase::Move,
        modifiers: egui::Modifiers::NONE,
        source: egui::MouseWheelSource::Wheel,
    }
}

/// Opening a stack of `n` photos: the model alone, `runs` times.
fn open_times(n: usize, runs: usize) -> Result<Vec<Duration>> {
    let records = (0..n)
        .map(|k| FileRecord {
            id: k as i64 + 1,
            path: format!("/archive/roll/IMG_{k:05}.jpg"),
            raw_path: None,
            caption: String::new(),
            camera: String::new(),
            date: String::new(),
            size: 1,
            mtime: 1,
        })
        .collect();
    let lib = Arc::new(Library::new(records, &[]));
    let rows: Vec<u32> = (0..n as u32).collect();
    let mut table = Table::new(lib, &rows, &Saved::default())?;
    let g = table.tree.groups[0].groups[0];
    // The top folder starts open: close it to a stack.
    table.close_group(g)?;
    table.settle_instantly()?;
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        table.open_group(g, true)?;
        times.push(t.elapsed());
        table.settle_instantly()?;
        table.close_group(g)?;
        table.settle_instantly()?;
    }
    Ok(times)
}

fn main() -> Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/viewer2-table-bench");
    std::fs::create_dir_all(&root)?;
    let cat_path = root.join("catalog.sqlite");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", cat_path.display()));
    }
    {
        let mut cat = Catalog::open(&cat_path).context("the catalogue")?;
        let paths: Vec<String> = (0..10_000)
            .map(|k| {
                format!(
                    "/archive/folder-{}/part-{}/IMG_{k:05}.jpg",
                    k / 1000,
                    (k / 100) % 10
                )
            })
            .collect();
        let files: Vec<NewFile<'_>> = paths
            .iter()
            .map(|p| NewFile {
                path: p,
                caption: "",
                size: 1,
                mtime: 1,
                raw_path: None,
                camera: "",
                date: "",
                identity: Default::default(),
            })
            .collect();
        cat.add(&files)?;
    }

    let mut opens = open_times(1000, 20)?;
    let ctx = egui::Context::default();
    let mut options = Options::new(cat_path, vec![]);
    options.threads = 1;
    let mut app = ViewerApp::new(&ctx, options)?;
    app.show_table(true);
    let mut d = Driver {
        ctx,
        app,
        start: Instant::now(),
        frame: 0,
        size: egui::vec2(1280.0, 800.0),
    };
    // Until the table is laid out.
    while d.app.table_view().is_none_or(|v| v.table.is_empty()) {
        d.frame(vec![]);
        anyhow::ensure!(d.start.elapsed() < Duration::from_secs(60), "no table");
    }
    // Three levels of open groups: the top folder, its 10, their 100.
    if let Some(view) = d.app.table_view_mut() {
        let t = &mut view.table;
        let mut level: Vec<u32> = t.tree.groups[0].groups.clone();
        for _ in 0..3 {
            let mut next = Vec::new();
            for g in level {
                t.open_group(g, false)?;
                next.extend(t.tree.groups[g as usize].groups.iter().copied());
            }
            level = next;
        }
        t.settle_instantly()?;
    }
    let cards = d.app.table_view().map_or(0, |v| v.table.len());
    let centre = egui::pos2(640.0, 450.0);
    // Zoomed out on all of it.
    if let Some(view) = d.app.table_view_mut() {
        view.fit_all();
    }
    d.frame(vec![]);
    let zoom_out = d.app.table_view().map_or(0.0, |v| v.zoom());
    let mut all_in_view = Vec::new();
    for k in 0..180 {
        let p = centre + egui::vec2((k % 20) as f32, 0.0);
        all_in_view.push(d.frame(vec![egui::Event::PointerMoved(p)]));
    }
    // Wheel in and out about the pointer.
    let mut zooming = Vec::new();
    for k in 0..240 {
        let dy = if (k / 60) % 2 == 0 { 40.0 } else { -40.0 };
        zooming.push(d.frame(vec![egui::Event::PointerMoved(centre), wheel(dy)]));
    }
    // Zoomed in on one folder's cards, drag one through its neighbours.
    for _ in 0..12 {
        d.frame(vec![egui::Event::PointerMoved(centre), wheel(120.0)]);
    }
    let lib = d.app.table_view().map(|v| Arc::clone(v.table.library()));
    let target = lib
        .and_then(|lib| lib.photos.iter().position(|p| p.name == "IMG_05055.jpg"))
        .map(|r| Item::Photo(r as u32));
    let zoom_in = d.app.table_view().map_or(0.0, |v| v.zoom());
    let snapshot = |d: &Driver| -> Vec<(Item, collide::Vec2)> {
        d.app.table_view().map_or_else(Vec::new, |v| {
            v.table.cards().map(|(_, c)| (c.item, c.pos)).collect()
        })
    };
    let before = snapshot(&d);
    let mut dragging = Vec::new();
    if let Some(item) = target {
        // The view on it.
        if let Some(view) = d.app.table_view_mut()
            && let Some(id) = view.table.card_of(item)
            && let Some(p) = view.table.card(id).map(|c| c.pos)
        {
            view.look_at(p);
        }
        d.frame(vec![]);
        let from = d.screen(item).unwrap_or(centre);
        d.frame(vec![egui::Event::PointerMoved(from)]);
        d.frame(vec![press(from, true)]);
        for k in 0..300 {
            let a = k as f32 / 300.0 * std::f32::consts::TAU;
            let p = from + egui::vec2(a.sin() * 260.0, (1.0 - a.cos()) * 160.0);
            dragging.push(d.frame(vec![egui::Event::PointerMoved(p)]));
        }
        d.frame(vec![press(from, false)]);
        // The crowd settles.
        for _ in 0..120 {
            dragging.push(d.frame(vec![]));
        }
    }
    let after = snapshot(&d);
    let moved = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| a.0 == b.0 && (a.1 - b.1).length() > 1.0)
        .count();
    let mut all: Vec<Duration> = all_in_view
        .iter()
        .chain(&zooming)
        .chain(&dragging)
        .copied()
        .collect();
    println!("# viewer2's light table: 10,000 cards in three levels of open groups\n");
    println!(
        "{cards} cards (photos and trays); a 1280×800 window, 60 frames/s; physics at 120 steps/s; the photos are not mounted (placeholders), so a frame's time is the table's own work.\n"
    );
    println!(
        "| frame time (UI thread: build + physics + tessellate) | frames | p50 | p95 | p99 | max |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    row(
        &format!("zoomed out, every card in view (zoom {zoom_out:.3})"),
        &mut all_in_view,
    );
    row("zooming in and out with the wheel", &mut zooming);
    row(
        &format!(
            "dragging a card through the crowd (zoom {zoom_in:.2}; {moved} cards moved), then settling"
        ),
        &mut dragging,
    );
    row("all", &mut all);
    println!();
    println!("| opening a stack of 1,000 photos (layout + tray) | runs | p50 | p95 | p99 | max |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    row("viewer2", &mut opens);
    Ok(())
}
