#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 46: a library tagged by other programs (exiftool writing in the
//! conventions of Lightroom, digiKam and darktable) is indexed and every
//! search the issue names finds what it should; what `viewer2 mark`
//! writes is what exiftool reads; a sidecar edited outside is read again
//! by the next index run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn exiftool_present() -> bool {
    let ok = Command::new("exiftool")
        .arg("-ver")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("REQUIRE_EXIFTOOL").is_none(),
            "exiftool is required (REQUIRE_EXIFTOOL is set)"
        );
        eprintln!("SKIPPED metadata_travels: exiftool is not installed (libimage-exiftool-perl)");
    }
    ok
}

fn exiftool(args: &[&str]) {
    let out = Command::new("exiftool")
        .args(["-q", "-m", "-charset", "utf8"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "exiftool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn jpeg(path: &Path) {
    let pixels: Vec<u8> = (0..16 * 12 * 3).map(|i| (i * 7 % 251) as u8).collect();
    jpeg_encoder::Encoder::new_file(path, 90)
        .unwrap()
        .encode(&pixels, 16, 12, jpeg_encoder::ColorType::Rgb)
        .unwrap();
}

fn viewer2(catalog: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .env("RUST_BACKTRACE", "0")
        .arg("--catalog")
        .arg(catalog)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "viewer2 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn names(catalog: &Path, query: &str) -> Vec<String> {
    let mut v: Vec<String> = viewer2(catalog, &["search", "--", query])
        .lines()
        .map(|l| {
            Path::new(l)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// The library another program made: (folder, its catalogue).
fn library() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("Fotos");
    for sub in ["Rom Trip", "darktable", "digiKam"] {
        std::fs::create_dir_all(lib.join(sub)).unwrap();
    }
    let lr = lib.join("Rom Trip/IMG_1.jpg");
    let iptc = lib.join("Rom Trip/IMG_2.jpg");
    let dt = lib.join("darktable/DSC_1.jpg");
    let dk = lib.join("digiKam/P1.jpg");
    for p in [&lr, &iptc, &dt, &dk] {
        jpeg(p);
    }
    // Lightroom: embedded XMP, hierarchical keywords, a face.
    exiftool(&[
        "-XMP:Rating=5",
        "-XMP:Label=Red",
        "-XMP-lr:HierarchicalSubject=Places|Italy|Rome",
        "-XMP-dc:Subject=Rome",
        "-XMP-mwg-rs:RegionInfo={RegionList=[{Name=Anna Schmidt,Type=Face}]}",
        "-overwrite_original",
        lr.to_str().unwrap(),
    ]);
    // A phone or an old program: IPTC-IIM only.
    exiftool(&[
        "-codedcharacterset=utf8",
        "-IPTC:Keywords=Colosseo",
        "-IPTC:Caption-Abstract=Café am Tiber",
        "-overwrite_original",
        iptc.to_str().unwrap(),
    ]);
    // darktable: name.ext.xmp.
    exiftool(&[
        "-XMP:Rating=4",
        "-XMP:Label=Green",
        "-XMP-lr:HierarchicalSubject=Places|Italy|Florence",
        "-o",
        lib.join("darktable/DSC_1.jpg.xmp").to_str().unwrap(),
    ]);
    // digiKam's tags and colour label, in Lightroom's name.xmp.
    exiftool(&[
        "-XMP:Rating=3",
        "-XMP-digiKam:ColorLabel=1",
        "-XMP-digiKam:TagsList=People/Family/Anna",
        "-o",
        lib.join("digiKam/P1.xmp").to_str().unwrap(),
    ]);
    let catalog = dir.path().join("catalog.db");
    viewer2(&catalog, &["index", lib.to_str().unwrap()]);
    (dir, catalog)
}

#[test]
fn a_library_tagged_elsewhere_is_found_by_what_it_says() {
    if !exiftool_present() {
        return;
    }
    let (_dir, cat) = library();
    assert_eq!(names(&cat, "italy"), ["DSC_1.jpg", "IMG_1.jpg"]);
    assert_eq!(names(&cat, "rating:>=4"), ["DSC_1.jpg", "IMG_1.jpg"]);
    assert_eq!(names(&cat, "label:red"), ["IMG_1.jpg", "P1.jpg"]);
    assert_eq!(names(&cat, "label:green"), ["DSC_1.jpg"]);
    assert_eq!(names(&cat, "person:anna"), ["IMG_1.jpg"]);
    assert_eq!(names(&cat, "keyword:italy"), ["DSC_1.jpg", "IMG_1.jpg"]);
    assert_eq!(names(&cat, "keyword:places|italy|rome"), ["IMG_1.jpg"]);
    assert_eq!(names(&cat, "keyword:anna"), ["P1.jpg"]);
    assert_eq!(names(&cat, "colosseo"), ["IMG_2.jpg"]);
    assert_eq!(names(&cat, "tiber"), ["IMG_2.jpg"]);
}

#[test]
fn what_viewer2_marks_every_other_program_reads() {
    if !exiftool_present() {
        return;
    }
    let (dir, cat) = library();
    let photo = dir.path().join("Fotos/Rom Trip/IMG_2.jpg");
    let before = std::fs::read(&photo).unwrap();
    viewer2(
        &cat,
        &[
            "mark",
            "--rating",
            "2",
            "--label",
            "blue",
            "--caption",
            "Sonnenuntergang \"am\" Tiber & mehr",
            "--keyword",
            "Places|Italy|Rome|Trastevere",
            photo.to_str().unwrap(),
        ],
    );
    assert_eq!(
        std::fs::read(&photo).unwrap(),
        before,
        "the photo itself changed"
    );
    let side = dir.path().join("Fotos/Rom Trip/IMG_2.jpg.xmp");
    let out = Command::new("exiftool")
        .args(["-j", "-XMP:all"])
        .arg(&side)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v[0];
    assert_eq!(m["Rating"], 2);
    assert_eq!(m["Label"], "Blue");
    assert_eq!(m["Description"], "Sonnenuntergang \"am\" Tiber & mehr");
    assert_eq!(
        m["HierarchicalSubject"],
        serde_json::json!(["Colosseo", "Places|Italy|Rome|Trastevere"])
    );
    // The catalogue has them too.
    assert_eq!(names(&cat, "label:blue"), ["IMG_2.jpg"]);
    assert_eq!(names(&cat, "keyword:trastevere"), ["IMG_2.jpg"]);
}

#[test]
fn a_sidecar_edited_outside_is_read_again() {
    if !exiftool_present() {
        return;
    }
    let (dir, cat) = library();
    let side = dir.path().join("Fotos/digiKam/P1.xmp");
    exiftool(&[
        "-XMP:Rating=1",
        "-overwrite_original",
        side.to_str().unwrap(),
    ]);
    // A later time than the index run saw, as an edit a while later has.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&side)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let lib = dir.path().join("Fotos");
    let report = viewer2(&cat, &["index", lib.to_str().unwrap()]);
    let _ = report;
    assert_eq!(names(&cat, "rating:1"), ["P1.jpg"]);
    assert_eq!(names(&cat, "rating:3"), Vec::<String>::new());
}

/// Precedence: a change made in viewer2 and not yet written (its sidecar
/// could not be written then) wins over the file at the next index run,
/// even one whose sidecar changed; once written, the sidecar holds it.
#[test]
fn an_unwritten_change_wins_over_an_older_file() {
    if !exiftool_present() {
        return;
    }
    let (dir, cat_path) = library();
    let photo = dir.path().join("Fotos/digiKam/P1.jpg");
    let id = {
        let mut cat = catalog::Catalog::open(&cat_path).unwrap();
        let id = cat
            .files()
            .unwrap()
            .into_iter()
            .find(|f| f.path.ends_with("P1.jpg"))
            .unwrap()
            .id;
        // As the window leaves it when the sidecar cannot be written.
        cat.set_marks(&[id], Some(2), Some("blue")).unwrap();
        cat.set_unwritten(&[id], Some("the folder was read-only"))
            .unwrap();
        id
    };
    let side = dir.path().join("Fotos/digiKam/P1.xmp");
    exiftool(&[
        "-XMP:Rating=1",
        "-overwrite_original",
        side.to_str().unwrap(),
    ]);
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&side)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let lib = dir.path().join("Fotos");
    viewer2(&cat_path, &["index", lib.to_str().unwrap()]);
    assert_eq!(names(&cat_path, "rating:2"), ["P1.jpg"]);
    assert_eq!(names(&cat_path, "label:blue"), ["P1.jpg"]);
    let out = viewer2(&cat_path, &["write-sidecars"]);
    assert!(out.contains("wrote 1 sidecars"), "{out}");
    let m = photo::meta::read(&photo).unwrap();
    assert_eq!(m.rating, Some(2));
    assert_eq!(m.label, Some(photo::meta::Label::Blue));
    let cat = catalog::Catalog::open(&cat_path).unwrap();
    assert!(!cat.unwritten().unwrap().contains_key(&id));
}

/// `viewer2 mark --write-to file`: into the JPEG, with its IPTC-IIM kept
/// in step (the caption is the IPTC Caption-Abstract too), no sidecar.
#[test]
fn mark_into_the_file_keeps_iptc_in_step() {
    if !exiftool_present() {
        return;
    }
    let (dir, cat) = library();
    let photo = dir.path().join("Fotos/Rom Trip/IMG_2.jpg");
    viewer2(
        &cat,
        &[
            "mark",
            "--write-to",
            "file",
            "--rating",
            "4",
            "--caption",
            "Ponte Sisto at dusk",
            photo.to_str().unwrap(),
        ],
    );
    assert!(!dir.path().join("Fotos/Rom Trip/IMG_2.jpg.xmp").exists());
    let out = Command::new("exiftool")
        .args(["-j", "-G1", "-XMP:all", "-IPTC:all"])
        .arg(&photo)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v[0];
    assert_eq!(m["XMP-xmp:Rating"], 4);
    assert_eq!(m["XMP-dc:Description"], "Ponte Sisto at dusk");
    assert_eq!(m["IPTC:Caption-Abstract"], "Ponte Sisto at dusk");
    assert_eq!(m["IPTC:Keywords"], "Colosseo");
}

/// EXIF's own Rating tag (as Windows writes it) is a rating where no XMP
/// gives one.
#[test]
fn an_exif_rating_is_a_mark() {
    if !exiftool_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    let photo = lib.join("win.jpg");
    jpeg(&photo);
    exiftool(&[
        "-EXIF:Rating=3",
        "-overwrite_original",
        photo.to_str().unwrap(),
    ]);
    let cat = dir.path().join("cat.sqlite");
    viewer2(&cat, &["index", lib.to_str().unwrap()]);
    assert_eq!(names(&cat, "rating:3"), ["win.jpg"]);
}
