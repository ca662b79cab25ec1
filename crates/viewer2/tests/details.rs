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
    assert!(h.query_by_label("Apple iPhone 12 Pro").is_some());
    h.get_by_role_and_label(egui::Role::Button, "IMG_0002.jpg")
        .click();
    // The caption box shows the file's description once it is read.
    settle(&mut h);
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
        settle(h);
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

fn rational(values: &[(u32, u32)]) -> exif::Value {
    exif::Value::Rational(
        values
            .iter()
            .map(|&(num, denom)| exif::Rational { num, denom })
            .collect(),
    )
}

fn field(tag: Tag, value: exif::Value) -> exif::Field {
    exif::Field {
        tag,
        ifd_num: exif::In::PRIMARY,
        value,
    }
}

/// An XMP APP1 segment holding `packet`.
fn xmp_app1(packet: &str) -> Vec<u8> {
    let mut body = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
    body.extend_from_slice(packet.as_bytes());
    let mut seg = vec![0xFF, 0xE1];
    seg.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    seg.extend_from_slice(&body);
    seg
}

/// Everything a camera and a photo manager write shows in the panel, in
/// words and units, the time in the local zone, and the position with a
/// link that opens the map.
#[test]
fn the_panel_shows_what_the_file_holds() {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("Vacances été");
    std::fs::create_dir_all(&photos_dir).unwrap();
    let exif = photos::exif_fields(&[
        photos::ascii(Tag::Make, "FUJIFILM"),
        photos::ascii(Tag::Model, "X100V"),
        photos::ascii(Tag::LensModel, "23mm F2"),
        field(Tag::FocalLength, rational(&[(23, 1)])),
        field(Tag::FocalLengthIn35mmFilm, exif::Value::Short(vec![35])),
        field(Tag::ExposureTime, rational(&[(1, 250)])),
        field(Tag::FNumber, rational(&[(28, 10)])),
        field(Tag::PhotographicSensitivity, exif::Value::Short(vec![400])),
        field(Tag::Flash, exif::Value::Short(vec![0x10])),
        field(Tag::Orientation, exif::Value::Short(vec![6])),
        photos::ascii(Tag::DateTimeOriginal, "2021:07:14 10:00:00"),
        photos::ascii(Tag::OffsetTimeOriginal, "+02:00"),
        photos::ascii(Tag::GPSLatitudeRef, "N"),
        field(Tag::GPSLatitude, rational(&[(48, 1), (51, 1), (2964, 100)])),
        photos::ascii(Tag::GPSLongitudeRef, "E"),
        field(Tag::GPSLongitude, rational(&[(2, 1), (17, 1), (4008, 100)])),
    ]);
    let xmp = xmp_app1(
        "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\
         <rdf:Description rdf:about='' xmlns:xmp='http://ns.adobe.com/xap/1.0/' \
         xmlns:dc='http://purl.org/dc/elements/1.1/' xmp:Rating=\"4\">\
         <dc:title><rdf:Alt><rdf:li xml:lang='x-default'>Tour Eiffel</rdf:li></rdf:Alt></dc:title>\
         <dc:subject><rdf:Bag><rdf:li>Paris</rdf:li><rdf:li>tower</rdf:li></rdf:Bag></dc:subject>\
         </rdf:Description></rdf:RDF></x:xmpmeta>",
    );
    let jpeg = photos::jpeg(&photos::picture(320, 240), 85);
    let file = photos_dir.join("DSCF0042.jpg");
    std::fs::write(
        &file,
        photos::with_app1(&photos::with_app1(&jpeg, &xmp), &exif),
    )
    .unwrap();
    let cat = dir.path().join("cat.sqlite");
    let launched = std::sync::Arc::new(viewer2::launch::Recorded::default());
    let mut options = Options::new(cat, vec![photos_dir]);
    options.threads = 2;
    options.time_zone = jiff::tz::TimeZone::fixed(jiff::tz::offset(-4));
    options.launch = launched.clone();
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app);
    settle(&mut h);
    let empty_width = h.state().details_width();
    h.get_by_role_and_label(egui::Role::Button, "DSCF0042.jpg")
        .click();
    settle(&mut h);
    // The panel keeps its width (a wider one takes a column of the grid).
    assert_eq!(h.state().details_width(), empty_width);
    // The rating the file gives, named as the file's.
    assert!(h.query_by_label("File rating").is_some());
    for shown in [
        "Tour Eiffel",
        "Paris, tower",
        "4 of 5",
        "FUJIFILM X100V",
        "23mm F2",
        "23 mm (35 mm in 35 mm film)",
        "1/250 s",
        "f/2.8",
        "400",
        "Did not fire, off",
        "Rotated 90° clockwise",
        "2021-07-14 04:00:00 -04 (2021-07-14 10:00:00 where taken, UTC+02)",
        "48.85823° N, 2.29447° E",
    ] {
        assert!(h.query_by_label(shown).is_some(), "{shown} is not shown");
    }
    h.get_by_label("Open map").click();
    h.run_steps(2);
    assert_eq!(
        launched.asked(),
        [
            "url https://www.openstreetmap.org/?mlat=48.858233&mlon=2.294467#map=16/48.858233/2.294467"
        ]
    );
}

/// A browser that will not start.
struct NoBrowser;

impl viewer2::launch::Launch for NoBrowser {
    fn open_url(&self, _: &str) -> std::io::Result<()> {
        Err(std::io::Error::other("no browser here"))
    }
    fn open_file(&self, _: &Path) -> std::io::Result<()> {
        Ok(())
    }
    fn show_in_folder(&self, _: &Path) -> std::io::Result<()> {
        Ok(())
    }
}

/// Messages belong to their photo (issue 48's stale messages): "Saved"
/// shows beside the photo whose caption was saved, not beside the next
/// one never captioned, and a failed "Open map" stays with its photo
/// instead of staying red on unrelated ones.
#[test]
fn saved_and_failed_map_messages_stay_with_their_photo() {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("Trip");
    std::fs::create_dir_all(&photos_dir).unwrap();
    photo_with(
        &photos_dir.join("paris.jpg"),
        &[
            photos::ascii(Tag::GPSLatitudeRef, "N"),
            field(Tag::GPSLatitude, rational(&[(48, 1), (51, 1), (2964, 100)])),
            photos::ascii(Tag::GPSLongitudeRef, "E"),
            field(Tag::GPSLongitude, rational(&[(2, 1), (17, 1), (4008, 100)])),
        ],
    );
    photo_with(
        &photos_dir.join("plain.jpg"),
        &[photos::ascii(Tag::Make, "Canon")],
    );
    let mut options = Options::new(dir.path().join("cat.sqlite"), vec![photos_dir]);
    options.threads = 2;
    options.launch = std::sync::Arc::new(NoBrowser);
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app);
    settle(&mut h);

    h.get_by_role_and_label(egui::Role::Button, "paris.jpg")
        .click();
    settle(&mut h);
    h.get_by_label("Open map").click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Cannot open the browser")
            .is_some()
    );
    h.get_by_label("Caption").focus();
    h.get_by_label("Caption").type_text("Tour Eiffel");
    h.run_steps(2);
    h.get_by_label("Save caption").click();
    settle(&mut h);
    assert!(h.query_by_label("Saved").is_some());

    h.get_by_role_and_label(egui::Role::Button, "plain.jpg")
        .click();
    settle(&mut h);
    assert!(h.query_by_label("Saved").is_none(), "never captioned");
    assert!(
        h.query_by_label_contains("Cannot open the browser")
            .is_none(),
        "the map error was paris.jpg's"
    );
    // Back on paris.jpg the map's failure is still said.
    h.get_by_role_and_label(egui::Role::Button, "paris.jpg")
        .click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Cannot open the browser")
            .is_some()
    );
}
