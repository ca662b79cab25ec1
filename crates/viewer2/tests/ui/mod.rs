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
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the window did not settle"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
