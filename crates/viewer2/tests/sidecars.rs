#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 46 in the window, driven headless by egui_kittest: stars, labels
//! and captions given here land in the photo's XMP sidecar (where
//! digiKam, darktable and Lightroom read them), the photo itself
//! untouched; undo writes the old marks back; a rename, a move to the
//! Trash and its undo carry the sidecars with the photo; a sidecar that
//! cannot be written says so, keeps the change marked unwritten in the
//! catalogue, and is written later.

use std::path::PathBuf;

use catalog::Catalog;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use photo::meta::{self, Label};
use viewer2::app::{Options, ViewerApp};
use viewer2::fileops::Trash;

mod photos;
mod ui;

use ui::settle;

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    cat: PathBuf,
}

/// `photos/a.jpg`, `photos/b.jpg`, `photos/c.jpg` in a catalogue.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    std::fs::create_dir_all(root.join("photos")).unwrap();
    let mut paths = Vec::new();
    for (k, name) in ["a.jpg", "b.jpg", "c.jpg"].iter().enumerate() {
        let jpeg = photos::jpeg(&photos::picture(60 + 10 * k as u32, 40), 80);
        let path = root.join("photos").join(name);
        std::fs::write(&path, jpeg).unwrap();
        paths.push(path.to_string_lossy().into_owned());
    }
    let cat = root.join("cat.sqlite");
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    ui::add_photos(&cat, &refs);
    Setup {
        _dir: dir,
        root,
        cat,
    }
}

fn harness(s: &Setup) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(s.cat.clone(), vec![]);
    options.threads = 1;
    options.trash = Some(Trash::at(s.root.join("trash")));
    ui::window(options, [1200.0, 800.0])
}

fn select(h: &mut Harness<'static, ViewerApp>, name: &str) {
    h.get_by_role_and_label(egui::Role::Button, name).click();
    h.run_steps(2);
}

fn photo(s: &Setup, name: &str) -> PathBuf {
    s.root.join("photos").join(name)
}

#[test]
fn stars_and_labels_land_in_the_sidecar_and_undo_writes_them_back() {
    let s = setup();
    let before = std::fs::read(photo(&s, "a.jpg")).unwrap();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "a.jpg");
    h.key_press(egui::Key::Num4);
    settle(&mut h);
    h.key_press(egui::Key::Num6);
    settle(&mut h);
    assert!(h.query_by_label_contains("Labelled 1 photo red").is_some());
    // The details read the sidecar again, and say where each value is:
    // what the sidecar holds beside the window's own marks.
    assert!(
        h.query_by_label("Sidecar rating").is_some(),
        "the details were not read again"
    );
    assert!(h.query_by_label("Sidecar label").is_some());
    assert!(h.query_by_label("Your label").is_some());
    assert!(h.query_by_label("Red").is_some());
    let side = s.root.join("photos/a.jpg.xmp");
    assert!(side.is_file(), "no sidecar was written");
    let m = meta::read(&photo(&s, "a.jpg")).unwrap();
    assert_eq!((m.rating, m.label), (Some(4), Some(Label::Red)));
    assert_eq!(
        std::fs::read(photo(&s, "a.jpg")).unwrap(),
        before,
        "the photo changed"
    );
    // Undo takes the label off in the sidecar too.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    let m = meta::read(&photo(&s, "a.jpg")).unwrap();
    assert_eq!((m.rating, m.label), (Some(4), None));
    assert!(
        Catalog::open(&s.cat)
            .unwrap()
            .unwritten()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_saved_caption_is_the_sidecars_description() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "b.jpg");
    h.get_by_label("Caption").focus();
    h.get_by_label("Caption")
        .type_text("Café \"am\" Tiber & mehr");
    h.run_steps(1);
    h.get_by_label("Save caption").click();
    settle(&mut h);
    assert!(h.query_by_label("Saved").is_some());
    let m = meta::read(&photo(&s, "b.jpg")).unwrap();
    assert_eq!(m.description.as_deref(), Some("Café \"am\" Tiber & mehr"));
}

#[test]
fn rename_and_the_trash_carry_the_sidecars() {
    let s = setup();
    let rated = meta::Changes {
        rating: Some(5),
        ..meta::Changes::default()
    };
    meta::write_sidecar(&photo(&s, "a.jpg"), &rated).unwrap();
    // Lightroom's name for b.jpg's sidecar.
    std::fs::write(
        s.root.join("photos/b.xmp"),
        std::fs::read(s.root.join("photos/a.jpg.xmp")).unwrap(),
    )
    .unwrap();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "a.jpg");
    h.key_press(egui::Key::F2);
    h.run_steps(2);
    h.get_by_label("New name").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("New name").type_text("Roma.jpg");
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert!(photo(&s, "Roma.jpg").exists());
    assert!(
        s.root.join("photos/Roma.jpg.xmp").is_file(),
        "the sidecar stayed behind"
    );
    assert!(!s.root.join("photos/a.jpg.xmp").exists());
    assert_eq!(meta::read(&photo(&s, "Roma.jpg")).unwrap().rating, Some(5));
    select(&mut h, "b.jpg");
    h.key_press(egui::Key::Delete);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Moved 1 photo to the Trash")
            .is_some()
    );
    assert!(
        !s.root.join("photos/b.xmp").exists(),
        "the sidecar was left"
    );
    assert!(s.root.join("trash/files/b.xmp").is_file());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert!(photo(&s, "b.jpg").exists());
    assert!(
        s.root.join("photos/b.xmp").is_file(),
        "the sidecar did not come back"
    );
    assert!(!s.root.join("trash/files/b.xmp").exists());
}

/// A sidecar that cannot be written (here a folder holds its name, which
/// stops root too): the window says which file and why, the catalogue
/// keeps the mark and marks it unwritten, and once the way is clear
/// `write_back::flush` writes it.
#[test]
fn a_sidecar_that_cannot_be_written_keeps_the_change_unwritten() {
    let s = setup();
    let blocker = s.root.join("photos/c.jpg.xmp");
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"x").unwrap();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "c.jpg");
    h.key_press(egui::Key::Num3);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("not written to its sidecar")
            .is_some(),
        "the window did not say the sidecar was not written"
    );
    assert!(h.query_all_by_label_contains("c.jpg.xmp").count() >= 1);
    // The details say the change waits.
    assert!(h.query_by_label("Not yet written").is_some());
    drop(h);
    let mut cat = Catalog::open(&s.cat).unwrap();
    assert_eq!(cat.unwritten().unwrap().len(), 1);
    let marks = cat.marks().unwrap();
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].1.rating, 3);
    std::fs::remove_dir_all(&blocker).unwrap();
    let (written, errors) = viewer2::write_back::flush(&mut cat).unwrap();
    assert_eq!((written, errors.len()), (1, 0), "{errors:?}");
    assert_eq!(meta::read(&photo(&s, "c.jpg")).unwrap().rating, Some(3));
    assert!(cat.unwritten().unwrap().is_empty());
    let leftovers: Vec<_> = std::fs::read_dir(s.root.join("photos"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

/// With the setting "file" (`viewer2 --write-to file`), stars go into the
/// JPEG itself, the safe way: no sidecar is made, the image data is the
/// same bytes, and undo writes the old rating back into the file.
#[test]
fn with_write_to_file_stars_go_into_the_photo() {
    let s = setup();
    Catalog::open(&s.cat)
        .unwrap()
        .set_setting(viewer2::write_back::WRITE_TO, "file")
        .unwrap();
    let before = std::fs::read(photo(&s, "c.jpg")).unwrap();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "c.jpg");
    h.key_press(egui::Key::Num2);
    settle(&mut h);
    assert!(h.query_by_label_contains("Gave 1 photo 2 stars").is_some());
    assert!(
        !s.root.join("photos/c.jpg.xmp").exists(),
        "a sidecar was made"
    );
    let after = std::fs::read(photo(&s, "c.jpg")).unwrap();
    assert_ne!(after, before, "the file was not written");
    let p = photo(&s, "c.jpg");
    assert_eq!(meta::image_data(&p, &after), meta::image_data(&p, &before));
    assert_eq!(meta::read(&p).unwrap().rating, Some(2));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert_eq!(meta::read(&p).unwrap().rating.unwrap_or(0), 0);
}
