#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The window, driven headless by egui_kittest over a catalogue of photos
//! made here: type a query and see the count change, click a tag, open
//! the loupe and step through photos, edit a caption and find it by
//! search, select with keys, hover a broken file for its reason, keep
//! drawing while the disk stalls; and a snapshot rendered with wgpu.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use catalog::{Catalog, NewFile};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};
use viewer2::loader::{Files, ReadSeek, Source};

mod photos;
mod ui;

use ui::settle;

/// (name, caption, hue) of the photos made.
const PHOTOS: &[(&str, &str)] = &[
    ("CuteKitten.jpg", "Golden Gate | sofa"),
    ("kitten_2.jpg", "Golden Gate"),
    ("dog_beach.jpg", "Ocean Beach"),
    ("boat.jpg", "Golden Gate"),
    ("tree.jpg", ""),
    ("broken.jpg", ""),
];

/// A catalogue of the photos in a folder of their own.
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("photos");
    std::fs::create_dir_all(&photos_dir).unwrap();
    let mut files = Vec::new();
    for (k, (name, caption)) in PHOTOS.iter().enumerate() {
        let path = photos_dir.join(name);
        if *name == "broken.jpg" {
            std::fs::write(&path, b"this is not a JPEG").unwrap();
        } else {
            let mut img = photos::picture(320 + 40 * k as u32, 240);
            for p in img.pixels_mut() {
                p.0[k % 3] = p.0[k % 3].saturating_add(80);
            }
            std::fs::write(&path, photos::jpeg(&img, 85)).unwrap();
        }
        files.push((path.to_string_lossy().into_owned(), *caption));
    }
    let cat = dir.path().join("cat.sqlite");
    let mut c = Catalog::open(&cat).unwrap();
    let new: Vec<NewFile<'_>> = files
        .iter()
        .enumerate()
        .map(|(k, (path, caption))| NewFile {
            path,
            caption,
            size: 1000 + k as i64,
            mtime: 1_700_000_000 + k as i64,
            raw_path: None,
            camera: "",
            date: "",
            identity: Default::default(),
        })
        .collect();
    c.add(&new).unwrap();
    (dir, cat)
}

fn harness_with(options: Options) -> Harness<'static, ViewerApp> {
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app)
}

fn harness(cat: &Path) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(cat.to_owned(), vec![]);
    options.threads = 2;
    harness_with(options)
}

/// Steps until nothing is owed (20 s at most).
fn type_query(h: &mut Harness<'static, ViewerApp>, text: &str) {
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text(text);
    settle(h);
}

#[test]
fn typing_a_query_changes_the_count() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    assert!(h.query_by_label("6 photos").is_some());
    type_query(&mut h, "kitten");
    assert_eq!(h.state().shown(), 2);
    assert!(h.query_by_label("2 of 6 photos").is_some());
    // Each keystroke searches: one more narrows to one photo.
    type_query(&mut h, " cute");
    assert_eq!(h.state().shown(), 1);
    assert!(h.query_by_label("CuteKitten.jpg").is_some());
    assert!(h.query_by_label("kitten_2.jpg").is_none());
    // A query that does not parse says so.
    type_query(&mut h, " (");
    assert!(h.query_by_label_contains("Query:").is_some());
}

/// Issue 45 item 12: 3,000 `(` typed into the search once overflowed the
/// catalogue thread's stack and killed the window. Now the query's error
/// names the limit, and the window searches on.
#[test]
fn a_deeply_nested_query_is_an_error_and_the_window_goes_on() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    type_query(&mut h, &"(".repeat(3000));
    assert!(
        h.query_by_label_contains("nested deeper than 256")
            .is_some(),
        "no error shown"
    );
    // At the limit it is a query like any other.
    h.get_by_label("Search").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.key_press(egui::Key::Backspace);
    type_query(
        &mut h,
        &format!("{}kitten{}", "(".repeat(256), ")".repeat(256)),
    );
    assert!(h.query_by_label("2 of 6 photos").is_some());
}

/// Issue 45 item 16: a catalogue too damaged to open says, in the
/// window, which command salvages it.
#[test]
fn a_damaged_catalogue_names_the_repair_command() {
    let (_dir, cat) = setup();
    let mut bytes = std::fs::read(&cat).unwrap();
    bytes[..100].fill(0x5a);
    std::fs::write(&cat, &bytes).unwrap();
    let mut h = harness(&cat);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("viewer2 repair --catalog")
            .is_some(),
        "no repair hint shown"
    );
}

#[test]
fn clicking_a_tag_narrows_and_clicking_again_widens() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_label("Golden Gate").click();
    settle(&mut h);
    assert_eq!(h.state().query(), "caption:\"golden gate\"");
    assert_eq!(h.state().shown(), 3);
    assert!(h.query_by_label("3 of 6 photos").is_some());
    h.get_by_label("Golden Gate").click();
    settle(&mut h);
    assert_eq!(h.state().query(), "");
    assert_eq!(h.state().shown(), 6);
}

#[test]
fn the_loupe_steps_through_the_photos() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    type_query(&mut h, "-broken");
    // By relevance, and every photo ties: in catalogue order,
    // CuteKitten, kitten_2, dog_beach, boat, tree.
    h.get_by_role_and_label(egui::Role::Button, "CuteKitten.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("CuteKitten.jpg"));
    assert!(
        h.query_by_label_contains("CuteKitten.jpg (1 of 5)")
            .is_some()
    );
    h.key_press(egui::Key::ArrowRight);
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("kitten_2.jpg"));
    h.get_by_label("Next").click();
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("dog_beach.jpg"));
    h.key_press(egui::Key::ArrowLeft);
    h.key_press(egui::Key::ArrowLeft);
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("CuteKitten.jpg"));
    // Zoom keys and 1:1 keep the photo; Escape goes back to the grid.
    h.key_press(egui::Key::Plus);
    h.get_by_label("1:1").click();
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("CuteKitten.jpg"));
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert_eq!(h.state().loupe_photo(), None);
    assert!(
        h.query_by_role_and_label(egui::Role::Button, "tree.jpg")
            .is_some()
    );
}

#[test]
fn an_edited_caption_is_found_by_search() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "tree.jpg")
        .click();
    h.run_steps(2);
    h.get_by_label("Caption").focus();
    h.get_by_label("Caption").type_text("Lighthouse at dusk");
    h.run_steps(1);
    h.get_by_label("Save caption").click();
    settle(&mut h);
    assert!(h.query_by_label("Saved").is_some());
    type_query(&mut h, "lighthouse");
    assert_eq!(h.state().shown(), 1);
    assert!(
        h.query_by_role_and_label(egui::Role::Button, "tree.jpg")
            .is_some()
    );
    // It is in the catalogue file, not only in the window.
    let c = Catalog::open(&cat).unwrap();
    let rows = c.files().unwrap();
    assert!(rows.iter().any(|r| r.caption == "Lighthouse at dusk"));
}

#[test]
fn keys_move_the_cursor_and_extend_the_selection() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "boat.jpg")
        .click();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::End);
    h.run_steps(2);
    assert!(h.query_by_label("6 selected").is_some());
    h.key_press(egui::Key::Home);
    h.run_steps(2);
    assert!(h.query_by_label("1 selected").is_some());
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::ArrowRight);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::ArrowRight);
    h.run_steps(2);
    assert!(h.query_by_label("3 selected").is_some());
    // Ctrl+click takes one out.
    h.get_by_role_and_label(egui::Role::Button, "CuteKitten.jpg")
        .click_modifiers(egui::Modifiers::COMMAND);
    h.run_steps(2);
    assert!(h.query_by_label("2 selected").is_some());
    // `/` goes back to the search box.
    h.key_press(egui::Key::Slash);
    h.run_steps(2);
    assert!(h.get_by_label("Search").is_focused());
}

#[test]
fn a_broken_file_shows_its_reason() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "broken.jpg")
        .hover();
    // Tooltips wait for the pointer to rest.
    h.run_steps(60);
    assert!(
        h.query_by_label_contains("not an image this viewer reads")
            .is_some()
    );
}

/// A disk that hangs until released.
struct Stalling {
    released: Mutex<bool>,
    cv: Condvar,
    opened: Mutex<usize>,
}

impl Source for Stalling {
    fn open(&self, path: &Path) -> std::io::Result<Box<dyn ReadSeek>> {
        *self.opened.lock().unwrap() += 1;
        let mut released = self.released.lock().unwrap();
        // Released by the test, or after a minute (so a window that
        // wrongly waits for the disk fails the test instead of hanging).
        let deadline = Instant::now() + Duration::from_secs(60);
        while !*released && Instant::now() < deadline {
            released = self
                .cv
                .wait_timeout(released, Duration::from_secs(1))
                .unwrap()
                .0;
        }
        drop(released);
        Files.open(path)
    }

    fn stamp(&self, path: &Path) -> std::io::Result<(u64, i64)> {
        Files.stamp(path)
    }
}

#[test]
fn the_window_keeps_drawing_while_the_disk_stalls() {
    let (_dir, cat) = setup();
    let source = Arc::new(Stalling {
        released: Mutex::new(false),
        cv: Condvar::new(),
        opened: Mutex::new(0),
    });
    let mut options = Options::new(cat.clone(), vec![]);
    options.threads = 2;
    options.source = source.clone();
    let mut h = harness_with(options);
    // The catalogue arrives; the thumbnails cannot.
    let start = Instant::now();
    while h.state().shown() == 0 {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(5));
    }
    while *source.opened.lock().unwrap() < 2 {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(5));
    }
    // Frames go on, and searching works, while both workers hang.
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("kitten");
    while h.state().shown() != 2 {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(50);
    assert_eq!(h.state().shown(), 2);
    assert!(
        !*source.released.lock().unwrap(),
        "the frames waited for the disk"
    );
    assert_eq!(h.state().thumbnails_shown(), 0);
    assert!(h.query_by_label_contains("thumbnails loading").is_some());
    *source.released.lock().unwrap() = true;
    source.cv.notify_all();
    settle(&mut h);
    assert_eq!(h.state().thumbnails_shown(), 2);
}

/// The grid rendered by wgpu (lavapipe in CI), against the stored
/// snapshot. Without an adapter this is skipped, unless REQUIRE_GPU=1.
#[test]
fn snapshot_of_the_grid() {
    let (_dir, cat) = setup();
    let mut options = Options::new(cat, vec![]);
    options.threads = 2;
    // The same picture in every time zone.
    options.time_zone = jiff::tz::TimeZone::UTC;
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Harness::builder()
            .with_size(egui::vec2(1000.0, 640.0))
            .wgpu()
            .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app)
    }));
    let mut h = match built {
        Ok(h) => h,
        Err(_) if std::env::var("REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!(
                "SKIPPED snapshot_of_the_grid: no wgpu adapter (set REQUIRE_GPU=1 to fail instead)"
            );
            return;
        }
        Err(_) => panic!("no wgpu adapter, and REQUIRE_GPU=1"),
    };
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "dog_beach.jpg")
        .click();
    settle(&mut h);
    // The temporary folder's name differs per run: hide the metadata's
    // folder row.
    let folder = h.get_by_label("Folder").rect();
    // The metadata's "Size" (the slider's label is the other one).
    let next_row = h
        .get_all_by_label("Size")
        .map(|n| n.rect())
        .find(|r| r.top() > folder.top())
        .unwrap();
    // The label is centred on its row, which the wrapped folder makes
    // two lines high.
    // Up to the heading (the photo's name above the rows).
    let heading = h
        .get_all_by_label("dog_beach.jpg")
        .map(|n| n.rect())
        .find(|r| (r.left() - folder.left()).abs() < 2.0)
        .unwrap();
    h.mask(egui::Rect::from_min_max(
        egui::pos2(folder.right(), heading.bottom()),
        egui::pos2(1000.0, next_row.top()),
    ));
    h.snapshot("viewer2_grid");
}

/// A photo over the loupe's memory limit says what it needs, offers Retry
/// (the same limit here: still refused) and a reduced view, which opens.
#[test]
fn a_photo_too_large_for_memory_offers_retry_and_a_reduced_view() {
    let (_dir, cat) = setup();
    let mut options = Options::new(cat, vec![]);
    options.threads = 2;
    options.loupe_limits = Some(viewer2::thumbnail::Limits {
        max_pixels: 10_000,
        ..Default::default()
    });
    let mut h = harness_with(options);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "tree.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("too large for the memory")
            .is_some()
    );
    // tree.jpg is 480×240: 0.46 MB as RGBA.
    assert!(h.query_by_label_contains("needs 0.46 MB").is_some());
    assert!(!h.state().loupe_ready());
    h.get_by_label("Retry").click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains("too large for the memory")
            .is_some()
    );
    h.get_by_label("Reduced size").click();
    settle(&mut h);
    assert!(h.state().loupe_ready());
    assert_eq!(h.state().loupe_photo(), Some("tree.jpg"));
}

/// A photo whose decode's peak (known from its header) is more than the
/// loupe's whole decode budget is refused before it is decoded, saying
/// what it needs; the window stays, with Retry.
#[test]
fn a_photo_over_the_loupe_budget_says_what_its_decode_needs() {
    let (_dir, cat) = setup();
    let mut options = Options::new(cat, vec![]);
    options.threads = 2;
    options.loupe_budget = Some(100_000);
    let mut h = harness_with(options);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "tree.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("too much for the memory free now")
            .is_some()
    );
    assert!(h.query_by_label_contains("decoding it needs").is_some());
    assert!(!h.state().loupe_ready());
    assert!(h.query_by_label("Retry").is_some());
}

/// A query nothing matches as typed shows what it matches with a typo, in
/// place, and says so with the word it found; one that matches nothing
/// even then says that.
#[test]
fn a_query_with_a_typo_shows_the_near_result_and_says_so() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    type_query(&mut h, "kiten");
    assert_eq!(h.state().shown(), 2, "the kittens, in place");
    assert!(
        h.query_by_label("No photo matches kiten · 2 with one typo: kitten")
            .is_some(),
        "the hint names the word found"
    );
    assert!(h.query_by_label("CuteKitten.jpg").is_some());
    // A real match again: the hint goes.
    h.get_by_label("Search").focus();
    for _ in 0.."kiten".len() {
        h.key_press(egui::Key::Backspace);
    }
    type_query(&mut h, "boat");
    assert_eq!(h.state().shown(), 1);
    assert!(h.query_by_label("1 of 6 photos").is_some());
    assert!(h.query_by_label_contains("No photo matches").is_none());
    // Nothing near either.
    type_query(&mut h, " zzqqxx");
    assert_eq!(h.state().shown(), 0);
    assert!(
        h.query_by_label("No photo matches boat zzqqxx, even with a typo")
            .is_some()
    );
}

/// Ctrl+Q closes the window at once, and what the user wrote is not lost:
/// a caption typed but not saved is written on the way out.
#[test]
fn ctrl_q_quits_keeping_an_unsaved_caption() {
    let (_dir, cat) = setup();
    let mut options = Options::new(cat.clone(), vec![]);
    options.threads = 2;
    let mut h = harness_with(options);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "tree.jpg")
        .click();
    h.run_steps(2);
    h.get_by_label("Caption").focus();
    h.get_by_label("Caption").type_text("Sailing at noon");
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    h.run_steps(1);
    assert!(h.state().quit_requested());
    assert!(h.state_mut().shut_down(Duration::from_secs(10)));
    drop(h);
    let mut c = Catalog::open(&cat).unwrap();
    c.check().unwrap();
    let rows = c.files().unwrap();
    assert!(
        rows.iter()
            .any(|r| r.path.ends_with("tree.jpg") && r.caption == "Sailing at noon"),
        "the unsaved caption was written: {:?}",
        rows.iter()
            .map(|r| (&r.path, &r.caption))
            .collect::<Vec<_>>()
    );
}

/// A window indexing a folder stops its run between transactions when it
/// closes: the catalogue passes its check, and the next run completes it.
#[test]
fn closing_while_indexing_leaves_a_catalogue_the_next_run_completes() {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..3000 {
        std::fs::write(many.join(format!("IMG_{i:05}.jpg")), b"").unwrap();
    }
    let cat = dir.path().join("cat.sqlite");
    let mut options = Options::new(cat.clone(), vec![many.clone()]);
    options.threads = 2;
    let mut h = harness_with(options);
    h.run_steps(3);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    h.run_steps(1);
    assert!(h.state().quit_requested());
    assert!(h.state_mut().shut_down(Duration::from_secs(10)));
    drop(h);
    // The index thread (in this process, which does not exit as the
    // program does) stops at its next transaction and lets go of the
    // catalogue's lock; wait for that, then check and finish the run.
    let started = Instant::now();
    let report = loop {
        match viewer2::indexer::index(&cat, std::slice::from_ref(&many), &mut |_| {}) {
            Err(viewer2::indexer::IndexError::Busy(_))
                if started.elapsed() < Duration::from_secs(20) =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    assert_eq!(report.total, 3000);
    Catalog::open(&cat).unwrap().check().unwrap();
}

/// Presses that arrive within one slow frame all count: three Shift+Right
/// presses select three more photos, and three Right presses in the loupe
/// go three photos on.
#[test]
fn every_key_press_counts_however_slow_the_frame() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "boat.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Home);
    h.run_steps(2);
    assert!(h.query_by_label("1 selected").is_some());
    // Three presses, one frame.
    let press = |key, modifiers| egui::Event::Key {
        key,
        pressed: true,
        modifiers,
        repeat: false,
        physical_key: None,
    };
    let shift = egui::Event::ModifiersChanged(egui::Modifiers::SHIFT);
    h.input_mut().events.push(shift);
    for _ in 0..3 {
        let e = press(egui::Key::ArrowRight, egui::Modifiers::SHIFT);
        h.input_mut().events.push(e);
    }
    h.run_steps(1);
    let none = egui::Event::ModifiersChanged(egui::Modifiers::NONE);
    h.input_mut().events.push(none);
    h.run_steps(1);
    assert!(h.query_by_label("4 selected").is_some());
    // The loupe, from the first photo.
    h.key_press(egui::Key::Home);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    let first = h.state().loupe_photo().unwrap().to_owned();
    for _ in 0..3 {
        let e = press(egui::Key::ArrowRight, egui::Modifiers::NONE);
        h.input_mut().events.push(e);
    }
    h.run_steps(1);
    settle(&mut h);
    let names: Vec<&str> = PHOTOS.iter().map(|p| p.0).collect();
    let now = h.state().loupe_photo().unwrap().to_owned();
    assert_ne!(now, first);
    // Three on from the first in the grid's order: the fourth.
    h.key_press(egui::Key::Escape);
    settle(&mut h);
    assert!(names.contains(&now.as_str()));
    assert!(h.query_by_label("1 selected").is_some());
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Home);
    h.run_steps(2);
    assert!(
        h.query_by_label("4 selected").is_some(),
        "the loupe went three photos on"
    );
}

/// At the smallest grid size every name and every "cannot show" is drawn
/// inside its cell: cut at its end with an ellipsis, never clipped at its
/// start ("ƆSC01202…") or spilling over.
#[test]
fn labels_stay_inside_their_cells_at_the_smallest_size() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat);
    settle(&mut h);
    // The slider pulled to its left end.
    let slider = h.get_by_label("Size").rect();
    h.drag_at(slider.center());
    h.run_steps(1);
    h.drop_at(slider.left_center() - egui::vec2(40.0, 0.0));
    settle(&mut h);
    h.run_steps(2);
    let mut names = 0;
    let mut broken = 0;
    for clipped in &h.output().shapes {
        let egui::Shape::Text(t) = &clipped.shape else {
            continue;
        };
        let text = t.galley.text();
        let is_name = PHOTOS.iter().any(|(n, _)| *n == text);
        if !(is_name || text == "cannot show") {
            continue;
        }
        let drawn = t.visual_bounding_rect();
        assert!(
            clipped.clip_rect.expand(0.5).contains_rect(drawn),
            "{text:?} drawn at {drawn:?}, outside its cell {:?}",
            clipped.clip_rect
        );
        assert!(
            clipped.clip_rect.width() < 80.0,
            "the cells did not shrink: {:?}",
            clipped.clip_rect
        );
        if is_name {
            names += 1;
        } else {
            broken += 1;
        }
    }
    assert_eq!((names, broken), (PHOTOS.len(), 1));
}

/// Started on a photo (as a file manager's "Open with viewer2" does), the
/// window opens that photo in the loupe once the catalogue holds it.
#[test]
fn started_on_a_photo_the_window_opens_it_in_the_loupe() {
    let (dir, cat) = setup();
    let mut options = Options::new(cat.clone(), vec![]);
    options.threads = 2;
    options.open = Some(dir.path().join("photos").join("tree.jpg"));
    let mut h = harness_with(options);
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("tree.jpg"));
}

/// The grid sorts by name descending when asked, and the order is kept in
/// the catalogue: the next window starts with it.
#[test]
fn the_sort_order_turns_around_and_is_kept_across_restarts() {
    let (_dir, cat) = setup();
    let first_name = |h: &mut Harness<'static, ViewerApp>| {
        h.get_by_role_and_label(egui::Role::Button, "dog_beach.jpg")
            .click();
        h.run_steps(2);
        h.key_press(egui::Key::Home);
        h.run_steps(2);
        // The grid's button and the details panel's heading.
        PHOTOS
            .iter()
            .map(|p| p.0)
            .find(|n| h.query_all_by_label(n).count() == 2)
            .map(str::to_owned)
    };
    {
        let mut h = harness(&cat);
        settle(&mut h);
        h.get_by_label("Sort").click();
        h.run_steps(2);
        h.get_by_label("Name").click();
        settle(&mut h);
        assert_eq!(first_name(&mut h).as_deref(), Some("boat.jpg"));
        h.get_by_label("Descending").click();
        settle(&mut h);
        assert_eq!(first_name(&mut h).as_deref(), Some("tree.jpg"));
        assert!(h.state_mut().shut_down(Duration::from_secs(10)));
    }
    let mut h = harness(&cat);
    settle(&mut h);
    {
        use egui_kittest::kittest::NodeT;
        let toggled = h.get_by_label("Descending").accesskit_node().toggled();
        assert_eq!(toggled, Some(egui::accesskit::Toggled::True));
    }
    assert_eq!(first_name(&mut h).as_deref(), Some("tree.jpg"));
}
