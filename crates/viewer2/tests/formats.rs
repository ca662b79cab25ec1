#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Phone and new-format photos in the window, driven headless by
//! egui_kittest: a HEIC (made by libheif's heif-enc from a phone-like
//! JPEG whose EXIF gives the sensor's 4032 × 3024 and a quarter turn), an
//! AVIF and a JPEG XL (libjxl's cjxl) are shown in the grid and the
//! loupe, the panel gives the HEIC's true size, a camera's DNG shows its
//! preview the camera's way up (and one without a preview is developed),
//! and a Photoshop file says what it is. Without heif-enc or cjxl (Debian libheif-examples,
//! libjxl-tools) the test says SKIPPED, and fails under
//! REQUIRE_IMAGE_TOOLS=1, which CI sets.

use std::path::Path;
use std::process::Command;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use exif::{Field, In, Tag, Value};
use viewer2::app::Options;

#[path = "../../photo/tests/support/dng.rs"]
mod dng;
mod photos;
mod ui;

use ui::settle;

#[path = "../../photo/tests/support/tools.rs"]
mod tools;

fn tools_present(test: &str) -> bool {
    [("heif-enc", "libheif-examples"), ("cjxl", "libjxl-tools")]
        .iter()
        .all(|(tool, package)| tools::tool_present(tool, package, test))
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn field(tag: Tag, value: Value) -> Field {
    Field {
        tag,
        ifd_num: In::PRIMARY,
        value,
    }
}

/// A folder of a phone's HEIC, an AVIF, a JPEG XL and a Photoshop file.
fn library(dir: &Path) {
    let picture = photos::picture(300, 200);
    let jpeg = photos::jpeg(&picture, 90);
    let exif = photos::exif_fields(&[
        photos::ascii(Tag::Make, "Apple"),
        photos::ascii(Tag::Model, "iPhone 12 Pro"),
        field(Tag::Orientation, Value::Short(vec![6])),
        field(Tag::PixelXDimension, Value::Long(vec![4032])),
        field(Tag::PixelYDimension, Value::Long(vec![3024])),
    ]);
    let src = dir.join("source.jpg");
    std::fs::write(&src, photos::with_app1(&jpeg, &exif)).unwrap();
    let photos_dir = dir.join("Phone");
    std::fs::create_dir_all(&photos_dir).unwrap();
    run(Command::new("heif-enc")
        .args(["-q", "80", "-t", "96"])
        .arg(&src)
        .arg("-o")
        .arg(photos_dir.join("IMG_4711.HEIC")));
    run(Command::new("heif-enc")
        .args(["-A", "-q", "80"])
        .arg(&src)
        .arg("-o")
        .arg(photos_dir.join("Frühling.avif")));
    let png = dir.join("source.png");
    picture.save(&png).unwrap();
    run(Command::new("cjxl")
        .arg(&png)
        .arg(photos_dir.join("drawing.jxl"))
        .args(["-d", "1"]));
    // A camera's DNG (a JPEG preview, turned a quarter by the camera) and
    // one without a preview, developed.
    std::fs::write(
        photos_dir.join("DSC_0001.DNG"),
        dng::dng(6, Some(&dng::preview_jpeg())),
    )
    .unwrap();
    std::fs::write(photos_dir.join("scan.dng"), dng::dng(1, None)).unwrap();
    let mut psd = b"8BPS\0\x01\0\0\0\0\0\0\0\x03".to_vec();
    psd.resize(200, 0);
    std::fs::write(photos_dir.join("layers.jpg"), psd).unwrap();
    std::fs::remove_file(src).unwrap();
}

#[test]
fn heic_avif_and_jpeg_xl_show_in_the_grid_the_loupe_and_the_panel() {
    if !tools_present("heic_avif_and_jpeg_xl_show") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    library(dir.path());
    let mut options = Options::new(
        dir.path().join("cat.sqlite"),
        vec![dir.path().join("Phone")],
    );
    options.threads = 2;
    let mut h = ui::window(options, [1200.0, 800.0]);
    settle(&mut h);
    assert_eq!(h.state().shown(), 6, "{:?}", h.state().shown_names());
    // Five real thumbnails; the Photoshop file (named .jpg) says what it is.
    assert_eq!(h.state().thumbnails_shown(), 5);
    h.get_by_role_and_label(egui::Role::Button, "layers.jpg")
        .hover();
    h.run_steps(60);
    assert!(
        h.query_by_label_contains("a Photoshop PSD").is_some(),
        "the reason names the format"
    );

    // The panel: the HEIC's own size, shown as the file is (its EXIF's
    // quarter turn is not applied again: libheif applies the file's own
    // rotation, as ImageMagick and libvips show it).
    h.get_by_role_and_label(egui::Role::Button, "IMG_4711.HEIC")
        .click();
    settle(&mut h);
    assert!(h.query_by_label("300 × 200").is_some(), "the true size");
    assert!(
        h.query_by_label("4032 × 3024").is_none(),
        "not the sensor's"
    );
    assert!(h.query_by_label("HEIC").is_some());
    assert!(h.query_by_label("Apple iPhone 12 Pro").is_some());

    // The DNG: the RAW's size the way the camera held it, and its format.
    h.get_by_role_and_label(egui::Role::Button, "DSC_0001.DNG")
        .click();
    settle(&mut h);
    assert!(
        h.query_by_label("192 × 256").is_some(),
        "the RAW's size, turned"
    );
    assert!(h.query_by_label("DNG").is_some());
    assert!(h.query_all_by_label("Testcam Model 1").next().is_some());

    // The loupe decodes each of them whole.
    for name in [
        "IMG_4711.HEIC",
        "Frühling.avif",
        "drawing.jxl",
        "DSC_0001.DNG",
        "scan.dng",
    ] {
        h.get_by_role_and_label(egui::Role::Button, name).click();
        h.run_steps(2);
        h.key_press(egui::Key::Enter);
        settle(&mut h);
        assert!(h.state().loupe_ready(), "{name} in the loupe");
        h.key_press(egui::Key::Escape);
        settle(&mut h);
    }
}

/// A JPEG cut short (a copy interrupted) and one whose frame header is
/// damaged: the first shows the rows before the cut, the second its EXIF
/// preview, each with a mark on its card, the reason when hovered, in
/// the panel and under the picture in the loupe (ImageMagick and
/// libjpeg show the part; Geeqie and gThumb the preview).
#[test]
fn broken_jpegs_show_what_they_can_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("Copied");
    std::fs::create_dir_all(&photos_dir).unwrap();
    let picture = photos::picture(1200, 900);
    let preview = photos::jpeg(&photos::picture(160, 120), 80);
    let whole = photos::with_app1(
        &photos::jpeg(&picture, 90),
        &photos::exif_app1(1, Some(&preview)),
    );
    std::fs::write(photos_dir.join("cut.jpg"), &whole[..whole.len() * 11 / 20]).unwrap();
    // The image's frame marker (the last frame header: the preview's
    // comes first; FF C0 alone also occurs inside Huffman tables) made
    // one for arithmetic coding, which no decoder here takes.
    let mut damaged = whole.clone();
    let sof = damaged
        .windows(5)
        .rposition(|w| w == [0xFF, 0xC0, 0, 17, 8])
        .unwrap();
    damaged[sof + 1] = 0xCB;
    std::fs::write(photos_dir.join("damaged.jpg"), &damaged).unwrap();
    std::fs::write(photos_dir.join("whole.jpg"), &whole).unwrap();

    let mut options = Options::new(dir.path().join("cat.sqlite"), vec![photos_dir]);
    options.threads = 2;
    let mut h = ui::window(options, [1200.0, 800.0]);
    settle(&mut h);
    assert_eq!(h.state().shown(), 3);
    assert_eq!(h.state().thumbnails_shown(), 3, "all three show a picture");
    for (name, says) in [
        ("cut.jpg", "the file is cut short"),
        ("damaged.jpg", "its embedded preview is shown"),
    ] {
        h.get_by_role_and_label(egui::Role::Button, name).hover();
        h.run_steps(60);
        assert!(
            h.query_all_by_label_contains(says).next().is_some(),
            "{name}'s card says {says:?}"
        );
        h.get_by_role_and_label(egui::Role::Button, name).click();
        settle(&mut h);
        assert!(
            h.query_by_label("Problem").is_some(),
            "{name}: the panel's row"
        );
        h.key_press(egui::Key::Enter);
        settle(&mut h);
        assert!(h.state().loupe_ready(), "{name} in the loupe");
        assert!(
            h.query_all_by_label_contains(says).next().is_some(),
            "{name}: under the picture"
        );
        h.key_press(egui::Key::Escape);
        settle(&mut h);
    }
    // A whole file says nothing of the kind.
    h.get_by_role_and_label(egui::Role::Button, "whole.jpg")
        .click();
    settle(&mut h);
    assert!(h.query_by_label("Problem").is_none());
}
