#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A first run on a new folder, driven headless by egui_kittest with the
//! index run held at chosen steps: the window names the folder being
//! indexed and shows a progress bar with counts, and the first photos show
//! while the rest are still being read.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};
use viewer2::indexer::Progress;

mod photos;
mod ui;

use ui::settle;

const PHOTOS: usize = 200;

/// Holds the index thread at the reading steps it is told about, until
/// the test lets it go on.
struct Gate {
    arrived: SyncSender<Progress>,
    go: Mutex<Receiver<()>>,
}

/// Steps the window until `ready` holds (10 s at most).
fn step_until(
    h: &mut Harness<'static, ViewerApp>,
    what: &str,
    ready: impl Fn(&Harness<'static, ViewerApp>) -> bool,
) {
    let start = Instant::now();
    while !ready(h) {
        assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_first_run_shows_its_progress_and_its_first_photos_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("Vacances été 2021");
    std::fs::create_dir_all(&folder).unwrap();
    let jpeg = photos::jpeg(&photos::picture(64, 48), 80);
    for i in 0..PHOTOS {
        std::fs::write(folder.join(format!("IMG_{i:04}.jpg")), &jpeg).unwrap();
    }
    let (arrived, at) = sync_channel(1);
    let (go, gate) = sync_channel(1);
    let gate = Arc::new(Gate {
        arrived,
        go: Mutex::new(gate),
    });
    let mut options = Options::new(dir.path().join("cat.sqlite"), vec![folder.clone()]);
    options.threads = 2;
    options.index_watch = Some(Arc::new(move |p: &Progress| {
        if let Progress::Reading { done, .. } = *p
            && (done == 0 || done == 48)
        {
            gate.arrived.send(*p).unwrap();
            gate.go.lock().unwrap().recv().unwrap();
        }
    }));
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app);

    // Walked, nothing read yet: the centre names the folder, not "No
    // photos here yet".
    assert_eq!(
        at.recv_timeout(Duration::from_secs(20)).unwrap(),
        Progress::Reading {
            done: 0,
            total: PHOTOS
        }
    );
    let heading = format!("Indexing {}", folder.display());
    step_until(&mut h, "the folder named", |h| {
        h.query_by_label(&heading).is_some()
    });
    assert!(h.query_by_label_contains("No photos here yet").is_none());
    assert!(
        h.query_by_label("Reading 0 of 200 new or changed files")
            .is_some()
    );
    go.send(()).unwrap();

    // The first batch is in: its photos show (with thumbnails) while the
    // run waits, and the bar says how far it is.
    assert_eq!(
        at.recv_timeout(Duration::from_secs(20)).unwrap(),
        Progress::Reading {
            done: 48,
            total: PHOTOS
        }
    );
    step_until(&mut h, "the first photos shown", |h| {
        h.state().shown() == 48 && h.state().thumbnails_shown() > 0
    });
    assert!(
        h.query_by_label_contains("Reading 48 of 200 new or changed files")
            .is_some()
    );
    assert!(
        h.query_by_role(egui::accesskit::Role::ProgressIndicator)
            .is_some()
    );
    // The first batch is the first names: the grid's first screen.
    let names = h.state().shown_names();
    let expected: Vec<String> = (0..48).map(|i| format!("IMG_{i:04}.jpg")).collect();
    assert_eq!(names, expected);
    go.send(()).unwrap();

    settle(&mut h);
    assert_eq!(h.state().shown(), PHOTOS);
    assert!(h.query_by_label_contains("200 new").is_some());
}
