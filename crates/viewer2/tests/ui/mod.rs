//! Driving the window headless: shared by the window and light-table
//! tests.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use viewer2::app::ViewerApp;

/// Steps the window until neither the catalogue thread, a loader nor the
/// light table owes anything, then three frames more.
pub fn settle(h: &mut Harness<'static, ViewerApp>) {
    let start = Instant::now();
    loop {
        h.step();
        if !h.state().is_busy() {
            h.run_steps(3);
            // Input still on its way (a focus taking a frame, text typed
            // into it) can start work in those frames: settled only when
            // they started none.
            if !h.state().is_busy() {
                return;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the window did not settle"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Records `paths` in the catalogue at `cat` (made if missing), with empty
/// captions, 1,000 bytes each and times a second apart; returns their ids.
pub fn add_photos(cat: &std::path::Path, paths: &[&str]) -> Vec<catalog::FileId> {
    let mut c = catalog::Catalog::open(cat).unwrap_or_else(|e| panic!("{e}"));
    let new: Vec<catalog::NewFile<'_>> = paths
        .iter()
        .enumerate()
        .map(|(k, path)| catalog::NewFile {
            path,
            caption: "",
            size: 1000,
            mtime: 1_700_000_000 + k as i64,
            raw_path: None,
            camera: "",
            date: "",
            identity: Default::default(),
        })
        .collect();
    c.add(&new).unwrap_or_else(|e| panic!("{e}"))
}

/// The window of `options`, headless, at `size`.
pub fn window(options: viewer2::app::Options, size: [f32; 2]) -> Harness<'static, ViewerApp> {
    let ctx = eframe::egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap_or_else(|e| panic!("{e}"));
    Harness::builder()
        .with_size(eframe::egui::vec2(size[0], size[1]))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app)
}
