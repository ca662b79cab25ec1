#![allow(clippy::unwrap_used, clippy::expect_used)]
//! File operations in the window, driven headless by egui_kittest: Delete
//! moves to the Trash and Ctrl+Z puts back (caption and all), F2 renames
//! and refuses a taken name, ] turns a JPEG, Move to and Copy to choose a
//! folder, the right-click menu opens with the default application and
//! shows in the file manager, and a copy onto a taken name says so and
//! changes nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use catalog::Catalog;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};
use viewer2::fileops::Trash;
use viewer2::launch::Recorded;

mod photos;
mod ui;

use ui::settle;

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    cat: PathBuf,
    launched: Arc<Recorded>,
}

/// `photos/a.jpg`, `photos/b.jpg` (captioned "Lighthouse"), `photos/c.jpg`
/// and an empty `other/`, in a catalogue.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    std::fs::create_dir_all(root.join("photos")).unwrap();
    std::fs::create_dir_all(root.join("other")).unwrap();
    let mut paths = Vec::new();
    for (k, name) in ["a.jpg", "b.jpg", "c.jpg"].iter().enumerate() {
        let jpeg = photos::jpeg(&photos::picture(60 + 10 * k as u32, 40), 80);
        let path = root.join("photos").join(name);
        std::fs::write(&path, photos::with_app1(&jpeg, &photos::exif_app1(1, None))).unwrap();
        paths.push(path.to_string_lossy().into_owned());
    }
    let cat = root.join("cat.sqlite");
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let ids = ui::add_photos(&cat, &refs);
    let mut c = Catalog::open(&cat).unwrap();
    c.set_caption(ids[1], "Lighthouse").unwrap();
    Setup {
        _dir: dir,
        root,
        cat,
        launched: Arc::new(Recorded::default()),
    }
}

fn harness(s: &Setup) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(s.cat.clone(), vec![]);
    options.threads = 2;
    options.trash = Some(Trash::at(s.root.join("trash")));
    options.launch = s.launched.clone();
    ui::window(options, [1200.0, 800.0])
}

fn select(h: &mut Harness<'static, ViewerApp>, name: &str) {
    h.get_by_role_and_label(egui::Role::Button, name).click();
    h.run_steps(2);
}

fn caption_of(cat: &Path, name: &str) -> Option<String> {
    let c = Catalog::open(cat).unwrap();
    c.files()
        .unwrap()
        .into_iter()
        .find(|f| f.path.ends_with(&format!("/{name}")))
        .map(|f| f.caption)
}

#[test]
fn delete_moves_to_the_trash_and_ctrl_z_puts_back() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "b.jpg");
    h.key_press(egui::Key::Delete);
    settle(&mut h);
    assert_eq!(h.state().shown(), 2);
    assert!(
        h.query_by_label_contains("Moved 1 photo to the Trash")
            .is_some()
    );
    assert!(!s.root.join("photos/b.jpg").exists());
    assert!(s.root.join("trash/files/b.jpg").exists());
    assert!(s.root.join("trash/info/b.jpg.trashinfo").exists());
    // Kept in the catalogue, out of sight, with its caption.
    assert_eq!(Catalog::open(&s.cat).unwrap().len().unwrap(), 2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert_eq!(h.state().shown(), 3);
    assert!(s.root.join("photos/b.jpg").exists());
    assert!(!s.root.join("trash/info/b.jpg.trashinfo").exists());
    assert_eq!(caption_of(&s.cat, "b.jpg").as_deref(), Some("Lighthouse"));
    assert!(h.query_by_label_contains("Put back 1 photo").is_some());
}

#[test]
fn f2_renames_refuses_a_taken_name_and_ctrl_z_undoes() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "a.jpg");
    h.key_press(egui::Key::F2);
    h.run_steps(2);
    // The name is selected without its extension: typing keeps `.jpg`.
    h.get_by_label("New name").type_text("Roma");
    h.run_steps(1);
    {
        use egui_kittest::kittest::NodeT;
        let value = h.get_by_label("New name").accesskit_node().value();
        assert_eq!(value.as_deref(), Some("Roma.jpg"));
    }
    h.get_by_label("New name").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("New name").type_text("c.jpg");
    h.run_steps(1);
    h.get_by_role_and_label(egui::Role::Button, "Rename")
        .click();
    settle(&mut h);
    // In the dialog, which stays open, and in the status bar.
    assert_eq!(
        h.query_all_by_label_contains("“c.jpg” is already there")
            .count(),
        2,
        "the dialog does not say why"
    );
    assert!(h.query_by_label("New name").is_some());
    assert!(s.root.join("photos/a.jpg").exists());
    h.get_by_label("New name").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("New name").type_text("Tour Eiffel.jpg");
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert!(h.query_by_label("New name").is_none(), "the dialog stayed");
    assert!(s.root.join("photos/Tour Eiffel.jpg").exists());
    assert!(!s.root.join("photos/a.jpg").exists());
    assert!(
        h.query_by_role_and_label(egui::Role::Button, "Tour Eiffel.jpg")
            .is_some()
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert!(s.root.join("photos/a.jpg").exists());
    assert!(
        h.query_by_role_and_label(egui::Role::Button, "a.jpg")
            .is_some()
    );
}

fn orientation(path: &Path) -> u32 {
    let bytes = std::fs::read(path).unwrap();
    let exif = exif::Reader::new()
        .read_from_container(&mut std::io::Cursor::new(&bytes))
        .unwrap();
    exif.get_field(exif::Tag::Orientation, exif::In::PRIMARY)
        .unwrap()
        .value
        .get_uint(0)
        .unwrap()
}

#[test]
fn brackets_turn_a_jpeg_and_ctrl_z_turns_it_back() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    select(&mut h, "c.jpg");
    h.key_press(egui::Key::CloseBracket);
    settle(&mut h);
    assert_eq!(orientation(&s.root.join("photos/c.jpg")), 6);
    assert!(h.query_by_label_contains("Turned 1 photo right").is_some());
    h.key_press(egui::Key::OpenBracket);
    h.key_press(egui::Key::OpenBracket);
    settle(&mut h);
    assert_eq!(orientation(&s.root.join("photos/c.jpg")), 8);
    // Each undo takes back one turn.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert_eq!(orientation(&s.root.join("photos/c.jpg")), 1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert_eq!(orientation(&s.root.join("photos/c.jpg")), 6);
}

#[test]
fn the_right_click_menu_opens_shows_and_moves() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    let a = s.root.join("photos/a.jpg");
    h.get_by_role_and_label(egui::Role::Button, "a.jpg")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Show in the file manager").click();
    h.run_steps(2);
    h.get_by_role_and_label(egui::Role::Button, "a.jpg")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Open with the default application").click();
    h.run_steps(2);
    assert_eq!(
        s.launched.asked(),
        [
            format!("show {}", a.display()),
            format!("open {}", a.display())
        ]
    );
    // Move to… a folder typed in the dialog.
    h.get_by_role_and_label(egui::Role::Button, "a.jpg")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Move to…").click();
    h.run_steps(2);
    h.get_by_label("Destination").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Destination")
        .type_text(&s.root.join("other").display().to_string());
    h.run_steps(2);
    h.get_by_label("Move here").click();
    settle(&mut h);
    assert!(s.root.join("other/a.jpg").exists());
    assert!(!a.exists());
    assert!(h.query_by_label_contains("Moved 1 photo to").is_some());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert!(a.exists());
}

/// Copying onto a name that appeared meanwhile: the window names the file
/// and the reason, and nothing changes, in the folders or the catalogue.
#[test]
fn a_copy_onto_a_taken_name_says_so_and_changes_nothing() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    std::fs::write(s.root.join("other/b.jpg"), b"someone else's").unwrap();
    select(&mut h, "b.jpg");
    h.get_by_label("Menu").click();
    h.run_steps(2);
    h.get_by_label("Photo").click();
    h.run_steps(2);
    h.get_by_label("Copy to…").click();
    h.run_steps(2);
    h.get_by_label("Destination").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Destination")
        .type_text(&s.root.join("other").display().to_string());
    h.run_steps(2);
    h.get_by_label("Copy here").click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains("other/b.jpg” is already there; nothing was copied")
            .is_some()
    );
    assert_eq!(
        std::fs::read(s.root.join("other/b.jpg")).unwrap(),
        b"someone else's"
    );
    assert_eq!(std::fs::read_dir(s.root.join("other")).unwrap().count(), 1);
    assert_eq!(Catalog::open(&s.cat).unwrap().len().unwrap(), 3);
    assert_eq!(h.state().shown(), 3);
}
