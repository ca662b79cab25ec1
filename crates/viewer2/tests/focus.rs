#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Who has the keys when the window opens (issue 48): the grid, as in
//! digiKam and Lightroom. Arrows move the cursor and `3` rates the photo
//! instead of typing "3" into the search; started on a photo, `Z` zooms
//! the loupe instead of typing "z" into the search and closing it; `/`
//! still gives the keys to the search.

use eframe::egui;
use egui_kittest::kittest::Queryable;
use viewer2::app::Options;

mod photos;
mod ui;

use ui::settle;

fn folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("Holiday");
    std::fs::create_dir_all(&photos_dir).unwrap();
    for name in ["a.jpg", "b.jpg", "c.jpg"] {
        std::fs::write(
            photos_dir.join(name),
            photos::jpeg(&photos::picture(64, 48), 80),
        )
        .unwrap();
    }
    (dir, photos_dir)
}

#[test]
fn at_start_the_grid_has_the_keys() {
    let (dir, photos_dir) = folder();
    let mut options = Options::new(dir.path().join("cat.sqlite"), vec![photos_dir]);
    options.threads = 2;
    let mut h = ui::window(options, [1100.0, 700.0]);
    settle(&mut h);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    // A real keyboard sends the key and its text.
    h.key_press(egui::Key::Num3);
    h.event(egui::Event::Text("3".into()));
    settle(&mut h);
    assert_eq!(h.state().query(), "", "nothing was typed into the search");
    assert_eq!(h.state().shown(), 3, "the search did not narrow the grid");
    assert!(
        h.query_all_by_label_contains("3 of 5").next().is_some(),
        "the photo under the cursor is rated 3"
    );
    // `/` gives the keys to the search.
    h.key_press(egui::Key::Slash);
    h.run_steps(2);
    h.get_by_label("Search").type_text("b");
    settle(&mut h);
    assert_eq!(h.state().query(), "b");
}

#[test]
fn started_on_a_photo_the_loupe_has_the_keys() {
    let (dir, photos_dir) = folder();
    // As main does for a photo: its folder browsed, the photo opened.
    let mut options = Options::new(dir.path().join("cat.sqlite"), vec![photos_dir.clone()]);
    options.open = Some(photos_dir.join("b.jpg"));
    options.threads = 2;
    let mut h = ui::window(options, [1100.0, 700.0]);
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("b.jpg"));
    h.key_press(egui::Key::Z);
    h.event(egui::Event::Text("z".into()));
    settle(&mut h);
    assert_eq!(h.state().query(), "", "nothing was typed into the search");
    assert_eq!(
        h.state().loupe_photo(),
        Some("b.jpg"),
        "the loupe stays open"
    );
    assert!(
        h.query_all_by_label_contains("100 %").next().is_some(),
        "Z is 1:1"
    );
}
