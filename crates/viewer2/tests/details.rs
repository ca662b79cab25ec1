#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The details panel, driven headless by egui_kittest: the caption box
//! holds only what someone wrote about the photo (never the camera model),
//! and the panel shows what the file holds.

use std::path::{Path, PathBuf};

use catalog::{Catalog, NewFile};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use exif::Tag;
use viewer2::app::{Options, ViewerApp};

mod photos;
mod ui;

use ui::settle;

fn harness(cat: &Path, dirs: Vec<PathBuf>) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(cat.to_owned(), dirs);
    options.threads = 2;
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app)
}

/// A JPEG carrying `fields` in its EXIF.
fn photo_with(path: &Path, fields: &[exif::Field]) {
    let jpeg = photos::jpeg(&photos::picture(320, 240), 85);
    let app1 = photos::exif_fields(fields);
    std::fs::write(path, photos::with_app1(&jpeg, &app1)).unwrap();
}

fn caption_text(h: &Harness<'static, ViewerApp>) -> String {
    h.get_by_label("Caption")
        .accesskit_node()
        .value()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_caption_box_never_shows_the_camera_model() {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("photos");
    std::fs::create_dir_all(&photos_dir).unwrap();
    photo_with(
        &photos_dir.join("IMG_0001.jpg"),
        &[
            photos::ascii(Tag::Make, "Apple"),
            photos::ascii(Tag::Model, "iPhone 12 Pro"),
        ],
    );
    photo_with(
        &photos_dir.join("IMG_0002.jpg"),
        &[
            photos::ascii(Tag::Model, "iPhone 12 Pro"),
            photos::ascii(Tag::ImageDescription, "Sunset over the bay"),
        ],
    );
    let cat = dir.path().join("cat.sqlite");
    let mut h = harness(&cat, vec![photos_dir]);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "IMG_0001.jpg")
        .click();
    h.run_steps(2);
    assert_eq!(caption_text(&h), "");
    // The model is shown as what it is, and `camera:` finds it.
    assert!(h.query_by_label("iPhone 12 Pro").is_some());
    h.get_by_role_and_label(egui::Role::Button, "IMG_0002.jpg")
        .click();
    h.run_steps(2);
    assert_eq!(caption_text(&h), "Sunset over the bay");
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("camera:iphone");
    settle(&mut h);
    assert_eq!(h.state().shown(), 2);
}

/// A catalogue an earlier version made holds the model in the captions it
/// read from the files; opening it takes the model out of those, never out
/// of one the user wrote.
#[test]
fn captions_made_by_earlier_versions_lose_the_camera_model() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat.sqlite");
    {
        let mut c = Catalog::open(&cat).unwrap();
        let new = |path: &'static str, caption: &'static str| NewFile {
            path,
            caption,
            size: 1000,
            mtime: 1_700_000_000,
            raw_path: None,
            camera: "iPhone 12 Pro",
            date: "",
            identity: Default::default(),
        };
        let ids = c
            .add(&[
                new("/nowhere/a.jpg", "iPhone 12 Pro"),
                new("/nowhere/b.jpg", "Sunset | iPhone 12 Pro"),
                new("/nowhere/c.jpg", ""),
            ])
            .unwrap();
        c.set_caption(ids[2], "iPhone 12 Pro").unwrap();
    }
    let mut h = harness(&cat, vec![]);
    settle(&mut h);
    let caption_of = |h: &mut Harness<'static, ViewerApp>, name: &str| {
        h.get_by_role_and_label(egui::Role::Button, name).click();
        h.run_steps(2);
        caption_text(h)
    };
    assert_eq!(caption_of(&mut h, "a.jpg"), "");
    assert_eq!(caption_of(&mut h, "b.jpg"), "Sunset");
    assert_eq!(caption_of(&mut h, "c.jpg"), "iPhone 12 Pro");
    drop(h);
    let c = Catalog::open(&cat).unwrap();
    let mut captions: Vec<String> = c.files().unwrap().into_iter().map(|f| f.caption).collect();
    captions.sort();
    assert_eq!(captions, ["", "Sunset", "iPhone 12 Pro"]);
}
