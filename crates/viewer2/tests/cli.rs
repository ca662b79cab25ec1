#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `viewer2 index` and `viewer2 search` on a folder tree made here.

use std::path::Path;
use std::process::Command;

mod common;
#[path = "../../photo/tests/support/dng.rs"]
mod dng;
#[path = "../../photo/tests/support/tools.rs"]
mod tools;
use common::{touch, viewer2};

#[test]
fn index_then_search_then_reindex() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    touch(&photos.join("2019/Holiday/CuteKittenPicture.jpg"), 10);
    touch(&photos.join("2019/Holiday/IMG_1234.JPG"), 10);
    touch(&photos.join("2020/dog drooly.png"), 10);
    touch(&photos.join("2020/Café.HEIC"), 10);
    touch(&photos.join("notes/kitten.txt"), 10);
    // A link pointing nowhere is skipped, not fatal.
    #[cfg(unix)]
    std::os::unix::fs::symlink(photos.join("missing.jpg"), photos.join("2020/broken.jpg")).unwrap();
    let cat = dir.path().join("cat.sqlite");

    let (ok, _, err) = viewer2(&cat, &["search", "kitten"]);
    assert!(!ok && err.contains("viewer2 index"), "{err}");

    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("4 new") && err.contains("4 in the catalogue"),
        "{err}"
    );

    let (ok, out, err) = viewer2(&cat, &["search", "kitten"]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("CuteKittenPicture.jpg"));
    let (_, out, _) = viewer2(&cat, &["search", "tek"]);
    assert!(
        out.contains("CuteKittenPicture.jpg"),
        "substring across tokens: {out}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "tek", "--seed"]);
    assert!(
        out.is_empty(),
        "the seed mode has no substring search: {out}"
    );
    // Typos: `kiten~`, or --fuzzy for every word.
    let (_, out, _) = viewer2(&cat, &["search", "kiten"]);
    assert!(out.is_empty(), "{out}");
    let (_, out, _) = viewer2(&cat, &["search", "kiten~"]);
    assert!(out.contains("CuteKittenPicture.jpg"), "{out}");
    let (_, out, _) = viewer2(&cat, &["search", "--fuzzy", "kiten", "holidy"]);
    assert!(out.contains("CuteKittenPicture.jpg"), "{out}");
    let (_, out, _) = viewer2(&cat, &["search", "cafe"]);
    assert!(out.contains("Café.HEIC"), "accents fold: {out}");
    // An exclusion after a word, options after the query, `--` still
    // allowed.
    let (ok, out, err) = viewer2(&cat, &["search", "kitten", "-jpg", "--limit", "5"]);
    assert!(ok && out.is_empty(), "{out} {err}");
    let (ok, out, err) = viewer2(&cat, &["search", "--", "-jpg", "kitten"]);
    assert!(ok && out.is_empty(), "{out} {err}");
    let (ok, out, err) = viewer2(&cat, &["search", "kitten", "-heic", "--limit=5"]);
    assert!(ok && out.contains("CuteKittenPicture.jpg"), "{out} {err}");
    let (_, out, _) = viewer2(&cat, &["search", "dir:holiday", "--json"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.lines().all(|l| l.starts_with("{\"caption\"")), "{out}");
    let (ok, _, err) = viewer2(&cat, &["search", "(kitten"]);
    assert!(!ok && err.contains("character 0"), "{err}");

    // Change one file, delete another, add one: only those are touched.
    touch(&photos.join("2020/dog drooly.png"), 99);
    std::fs::remove_file(photos.join("2019/Holiday/IMG_1234.JPG")).unwrap();
    touch(&photos.join("2021/beach.webp"), 5);
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("1 new, 1 changed, 0 moved or renamed, 1 removed, 4 in the catalogue"),
        "{err}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "img"]);
    assert!(out.is_empty(), "a deleted file is still found: {out}");
    let (_, out, _) = viewer2(&cat, &["search", "beach", "OR", "drooly"]);
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn bad_input_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", dir.path().join("nope").to_str().unwrap()]);
    assert!(!ok && err.contains("cannot open this folder"), "{err}");
    // A file that is not a catalogue is refused and left alone.
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, b"not a database at all, just text").unwrap();
    let (ok, _, err) = viewer2(&junk, &["search", "x"]);
    assert!(!ok && err.contains("not a database"), "{err}");
    assert_eq!(
        std::fs::read(&junk).unwrap(),
        b"not a database at all, just text"
    );
}

/// Killing `index` at random moments leaves a catalogue that opens and
/// answers, and the next run finishes the work. A second run while one is
/// going is refused clearly.
#[cfg(unix)]
#[test]
fn killed_index_runs_leave_a_working_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    for i in 0..3000 {
        touch(&photos.join(format!("d{}/Holiday_{i:04}.jpg", i % 30)), 1);
    }
    let cat = dir.path().join("cat.sqlite");
    let mut seed = 12345u64;
    for round in 0..6 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_viewer2"))
            .arg("--catalog")
            .arg(&cat)
            .args(["index", photos.to_str().unwrap()])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(std::time::Duration::from_millis(20 + (seed >> 33) % 400));
        if round == 0 {
            // While it runs, a second index run is refused.
            let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
            if !ok {
                assert!(err.contains("another `viewer2 index` is running"), "{err}");
            }
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        if cat.exists() {
            // The catalogue opens and answers after every kill.
            let (ok, out, err) = viewer2(&cat, &["search", "holiday", "--limit", "5"]);
            assert!(ok, "round {round}: {err}");
            assert!(out.lines().count() <= 5);
        }
    }
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(err.contains("3000 in the catalogue"), "{err}");
    let (ok, out, _) = viewer2(&cat, &["search", "holiday_0042", "--seed"]);
    assert!(ok && out.lines().count() == 1, "{out}");
}

/// While one index run holds the catalogue, a second is refused clearly,
/// and searches still work.
#[test]
fn a_second_index_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("p");
    touch(&photos.join("a.jpg"), 1);
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    // Hold the lock the way a running index does.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(cat.with_extension("index-lock"))
        .unwrap();
    lock.try_lock().unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(
        !ok && err.contains("another `viewer2 index` is running"),
        "{err}"
    );
    let (ok, out, _) = viewer2(&cat, &["search", "a"]);
    assert!(ok && out.contains("a.jpg"));
    drop(lock);
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
}

/// A name that is not UTF-8 is indexed, found by its lossy text, and
/// printed as its exact bytes, so the path opens the real file.
#[cfg(unix)]
#[test]
fn non_utf8_names_round_trip() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("p");
    std::fs::create_dir_all(&photos).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9_sunset.jpg");
    std::fs::write(photos.join(name), b"x").unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--catalog")
        .arg(&cat)
        .args(["search", "sunset"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed = out.stdout.strip_suffix(b"\n").unwrap();
    let path = std::ffi::OsStr::from_bytes(printed);
    assert_eq!(
        std::fs::read(path).unwrap(),
        b"x",
        "the printed path does not open the file"
    );
    // The JSON carries the exact bytes too.
    let (_, json, _) = viewer2(&cat, &["search", "sunset", "--json"]);
    assert!(json.contains("path_bytes"), "{json}");
    // A second run sees the same file, unchanged.
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(
        ok && err.contains("0 new, 0 changed, 0 moved or renamed, 0 removed, 1 in the catalogue"),
        "{err}"
    );
}

/// A little-endian TIFF block with IFD0 entries (tag, type, bytes): what a
/// JPEG's APP1 EXIF segment carries.
fn tiff(entries: &[(u16, u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"II*\0\x08\0\0\0".to_vec();
    let n = entries.len();
    let data_start = 8 + 2 + 12 * n + 4;
    let mut data = Vec::new();
    out.extend_from_slice(&(n as u16).to_le_bytes());
    for (tag, ty, bytes) in entries {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&ty.to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        if bytes.len() <= 4 {
            let mut v = bytes.clone();
            v.resize(4, 0);
            out.extend_from_slice(&v);
        } else {
            out.extend_from_slice(&((data_start + data.len()) as u32).to_le_bytes());
            data.extend_from_slice(bytes);
            if data.len() % 2 == 1 {
                data.push(0);
            }
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&data);
    out
}

fn jpeg_with_exif(path: &Path, exif: Vec<u8>) {
    std::fs::write(path_made(path), jpeg_bytes(exif, 8)).unwrap();
}

fn path_made(path: &Path) -> &Path {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    path
}

/// A grey JPEG of `side` × `side` pixels carrying `exif`.
fn jpeg_bytes(exif: Vec<u8>, side: u32) -> Vec<u8> {
    use image::ImageEncoder;
    let mut bytes = Vec::new();
    let mut enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 80);
    enc.set_exif_metadata(exif).unwrap();
    let pixels = vec![90u8; (side * side * 3) as usize];
    enc.write_image(&pixels, side, side, image::ExtendedColorType::Rgb8)
        .unwrap();
    bytes
}

/// EXIF with only DateTimeOriginal (`YYYY:MM:DD HH:MM:SS`), in the Exif
/// sub-IFD.
fn exif_taken(date: &str) -> Vec<u8> {
    assert_eq!(date.len(), 19);
    let mut exif = b"II*\0\x08\0\0\0".to_vec();
    // IFD0 at 8: one entry, the Exif IFD pointer (0x8769, LONG) to 26.
    exif.extend_from_slice(&1u16.to_le_bytes());
    exif.extend_from_slice(&[0x69, 0x87, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0]);
    exif.extend_from_slice(&0u32.to_le_bytes());
    // Exif IFD at 26: DateTimeOriginal (0x9003, ASCII, 20 bytes at 44).
    exif.extend_from_slice(&1u16.to_le_bytes());
    exif.extend_from_slice(&[0x03, 0x90, 2, 0, 20, 0, 0, 0, 44, 0, 0, 0]);
    exif.extend_from_slice(&0u32.to_le_bytes());
    exif.extend_from_slice(date.as_bytes());
    exif.push(0);
    exif
}

#[test]
fn metadata_words_are_searchable_and_broken_metadata_is_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("p");
    let ascii = |s: &str| {
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        v
    };
    let ucs2 = |s: &str| {
        s.encode_utf16()
            .chain([0])
            .flat_map(u16::to_le_bytes)
            .collect::<Vec<u8>>()
    };
    jpeg_with_exif(
        &photos.join("DSC0001.jpg"),
        tiff(&[
            (0x010e, 2, ascii("Sunset over the harbour")),
            (0x0110, 2, ascii("Canon EOS 5D")),
            (0x013b, 2, ascii("Ansel")),
            (0x9c9e, 1, ucs2("holiday;lighthouse")),
        ]),
    );
    // Hostile EXIF: a TIFF header pointing nowhere.
    jpeg_with_exif(
        &photos.join("DSC0002.jpg"),
        b"II*\0\xff\xff\xff\x7f garbage".to_vec(),
    );
    // XMP keywords in a PNG's iTXt chunk, where XMP lives in PNG.
    let mut png = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png, 4, 4);
        enc.set_color(png::ColorType::Grayscale);
        enc.add_itxt_chunk(
            "XML:com.adobe.xmp".into(),
            "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/'><dc:subject><rdf:Bag><rdf:li>Lagoon</rdf:li><rdf:li>Fish &amp; Chips</rdf:li></rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>".into(),
        )
        .unwrap();
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[0u8; 16]).unwrap();
    }
    std::fs::write(photos.join("scan.png"), png).unwrap();

    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    // Only the hostile EXIF is a warning; the file is indexed all the same.
    assert!(
        err.contains("3 new") && err.contains("1 with unreadable metadata, indexed by name"),
        "{err}"
    );
    for (query, file) in [
        ("harbour", "DSC0001.jpg"),
        // The model is no caption: `camera:` finds it.
        ("camera:\"canon eos\"", "DSC0001.jpg"),
        ("ansel", "DSC0001.jpg"),
        ("lighthouse", "DSC0001.jpg"),
        ("caption:sunset", "DSC0001.jpg"),
        ("lagoon", "scan.png"),
        ("chips", "scan.png"),
        ("dsc0002", "DSC0002.jpg"),
        ("camera:canon", "DSC0001.jpg"),
    ] {
        let (ok, out, err) = viewer2(&cat, &["search", query]);
        assert!(ok, "{err}");
        assert!(out.contains(file), "{query:?} found {out:?}");
        assert_eq!(out.lines().count(), 1, "{query:?} found {out:?}");
    }
}

/// DateTimeOriginal (in the Exif sub-IFD) becomes the date `date:` filters.
#[test]
fn date_taken_is_filterable() {
    let exif = exif_taken("2019:07:14 10:00:00");
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("p");
    jpeg_with_exif(&photos.join("dated.jpg"), exif);
    jpeg_with_exif(
        &photos.join("undated.jpg"),
        tiff(&[(0x010e, 2, b"x\0".to_vec())]),
    );
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok && err.contains("2 new"), "{err}");
    for (q, n) in [
        ("date:2019-07", 1),
        ("date:2019-06..2019-08", 1),
        ("date:2019-07-14", 1),
        ("date:2020", 0),
        ("-date:2019", 1),
    ] {
        // `--` lets a query start with "-" (an exclusion).
        let (ok, out, err) = viewer2(&cat, &["search", "--", q]);
        assert!(ok, "{q}: {err}");
        assert_eq!(out.lines().count(), n, "{q}: {out}");
    }
    let (ok, _, err) = viewer2(&cat, &["search", "date:july"]);
    assert!(!ok && err.contains("a date looks like"), "{err}");
}

/// A moved or renamed photo keeps its record: the same id, and the caption
/// the user wrote.
#[test]
fn moves_and_renames_keep_captions() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    touch(&photos.join("x/a.jpg"), 10);
    touch(&photos.join("x/b.jpg"), 20);
    touch(&photos.join("x/other.jpg"), 30);
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    let id_of = |name: &str| -> i64 {
        let c = catalog::Catalog::open(&cat).unwrap();
        let q = catalog::parse(&format!("name:{name}")).unwrap();
        let ids = c.search(&q, catalog::Mode::Default).unwrap();
        assert_eq!(ids.len(), 1, "{name}: {ids:?}");
        ids[0]
    };
    let (a, b) = (id_of("a"), id_of("b"));
    {
        let mut c = catalog::Catalog::open(&cat).unwrap();
        assert!(c.set_caption(a, "Grandma's garden").unwrap());
        assert!(c.set_caption(b, "first snow").unwrap());
    }
    // A move keeps the name; a rename keeps the folder.
    std::fs::create_dir_all(photos.join("y")).unwrap();
    std::fs::rename(photos.join("x/a.jpg"), photos.join("y/a.jpg")).unwrap();
    std::fs::rename(photos.join("x/b.jpg"), photos.join("x/winter.jpg")).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("0 new, 0 changed, 2 moved or renamed, 0 removed, 3 in the catalogue"),
        "{err}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "garden"]);
    assert!(out.trim_end().ends_with("y/a.jpg"), "{out}");
    let (_, out, _) = viewer2(&cat, &["search", "snow"]);
    assert!(out.trim_end().ends_with("x/winter.jpg"), "{out}");
    assert_eq!(id_of("a"), a);
    assert_eq!(id_of("winter"), b);
    // A different photo (other bytes) that merely replaced a deleted one
    // elsewhere, with the same size and time, is new.
    std::fs::remove_file(photos.join("x/other.jpg")).unwrap();
    std::fs::create_dir_all(photos.join("z")).unwrap();
    std::fs::write(photos.join("z/unrelated.jpg"), [7u8; 30]).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("1 new, 0 changed, 0 moved or renamed, 1 removed"),
        "{err}"
    );
}

/// A photo saved by an editor that writes a new file and renames it over
/// the old one (a new inode, size and time; the same date taken) keeps its
/// record and caption. Another photo given a deleted one's name does not
/// take its caption: the deleted one's record is kept, hidden, for it.
#[test]
fn an_edited_photo_keeps_its_caption_and_a_stranger_in_its_place_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("p");
    let one = photos.join("IMG_0001.jpg");
    std::fs::write(
        path_made(&one),
        jpeg_bytes(exif_taken("2019:07:14 10:00:00"), 8),
    )
    .unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    {
        let mut c = catalog::Catalog::open(&cat).unwrap();
        let id = c.files().unwrap()[0].id;
        assert!(c.set_caption(id, "Grandma's garden").unwrap());
    }
    // Saved by an editor: written aside, then renamed over the original.
    let aside = dir.path().join("IMG_0001.jpg.saving");
    std::fs::write(&aside, jpeg_bytes(exif_taken("2019:07:14 10:00:00"), 16)).unwrap();
    std::fs::rename(&aside, &one).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("0 new, 1 changed, 0 moved or renamed, 0 removed"),
        "{err}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "garden"]);
    assert!(out.contains("IMG_0001.jpg"), "{out}");
    // Deleted; a new card's photo gets the same name.
    std::fs::remove_file(&one).unwrap();
    std::fs::write(&one, jpeg_bytes(exif_taken("2023:05:01 08:30:00"), 12)).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("1 new, 0 changed, 0 moved or renamed, 0 removed, 1 in the catalogue")
            && err.contains("1 gone from disk but kept"),
        "{err}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "garden"]);
    assert!(out.is_empty(), "{out}");
}

/// Unreadable folders, a link loop and a broken link are each skipped with
/// a counted warning; the rest is indexed.
#[cfg(unix)]
#[test]
fn unreadable_folders_and_link_loops_are_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    touch(&photos.join("open/seen.jpg"), 10);
    touch(&photos.join("locked/hidden.jpg"), 10);
    touch(&dir.path().join("elsewhere/linked.jpg"), 10);
    std::os::unix::fs::symlink(&photos, photos.join("open/loop")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), photos.join("link")).unwrap();
    std::os::unix::fs::symlink(photos.join("gone"), photos.join("broken.jpg")).unwrap();
    std::fs::set_permissions(
        photos.join("locked"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let cat = dir.path().join("cat.sqlite");
    // Root reads any folder, so as root the run drops to `nobody`.
    let mut cmd = common::as_ordinary_user(dir.path(), &[dir.path(), &photos]);
    let out = cmd
        .arg("--catalog")
        .arg(&cat)
        .args(["index", photos.to_str().unwrap()])
        .output()
        .expect("setpriv (util-linux) runs the index as another user");
    let err = String::from_utf8_lossy(&out.stderr);
    std::fs::set_permissions(
        photos.join("locked"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert!(out.status.success(), "{err}");
    // seen.jpg and linked.jpg; the locked folder, the loop and the broken
    // link are warnings.
    assert!(err.contains("2 new"), "{err}");
    assert!(err.contains("3 skipped with a warning"), "{err}");
    let (_, found, _) = viewer2(&cat, &["search", "jpg"]);
    assert!(
        found.contains("seen.jpg") && found.contains("linked.jpg"),
        "{found}"
    );
    assert!(!found.contains("hidden.jpg"), "{found}");
}

/// Files deleted while an index run walks past them are skipped, never a
/// stop; the next run leaves exactly the files that remain.
#[test]
fn files_vanishing_mid_scan_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    let mut paths = Vec::new();
    for i in 0..3000 {
        let p = photos.join(format!("d{}/IMG_{i:04}.jpg", i % 30));
        touch(&p, 10 + i % 7);
        paths.push(p);
    }
    let cat = dir.path().join("cat.sqlite");
    let child = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--catalog")
        .arg(&cat)
        .args(["index", photos.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Delete every other file, and some whole folders, while it runs.
    for (i, p) in paths.iter().enumerate() {
        if i % 2 == 1 {
            std::fs::remove_file(p).unwrap();
        }
    }
    for d in 0..5 {
        let _ = std::fs::remove_dir_all(photos.join(format!("d{d}")));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    let left = paths.iter().filter(|p| p.exists()).count();
    let (_, found, _) = viewer2(&cat, &["search", "--limit", "100000", "img"]);
    assert_eq!(found.lines().count(), left, "{err}");
}

/// Without a display the window says so and points to the commands that
/// work without one; options before a subcommand still reach it.
#[test]
fn no_display_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat.sqlite");
    let out = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--catalog")
        .arg(&cat)
        .arg(dir.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("no display") && err.contains("viewer2 index"),
        "{err}"
    );
    // `--catalog C index DIR`: `index` is the subcommand, not a folder.
    let (ok, _, err) = viewer2(&cat, &["index", dir.path().to_str().unwrap()]);
    assert!(ok, "{err}");
    let (ok, _, err) = viewer2(&cat, &["--gpu-budget-mb", "8", "search", "x"]);
    assert!(!ok && err.contains("unexpected argument"), "{err}");
}

/// A name with a newline prints quoted as `ls` quotes it (or NUL-ended
/// with -0); punctuation and impossible dates get errors saying what they
/// are; index warnings are printed, not only logged.
#[cfg(unix)]
#[test]
fn odd_names_and_odd_queries_are_answered_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("p");
    std::fs::create_dir_all(&photos).unwrap();
    std::fs::write(photos.join("two\nlines.jpg"), b"x").unwrap();
    std::fs::write(photos.join("it's.jpg"), b"y").unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    // The two bytes-only files have no metadata: each warning is printed.
    assert_eq!(err.matches("warning: ").count(), 2, "{err}");
    let (ok, out, _) = viewer2(&cat, &["search", "lines"]);
    assert!(ok);
    assert_eq!(out.lines().count(), 1, "{out:?}");
    assert!(out.ends_with("/p/two'$'\\n''lines.jpg'\n"), "{out:?}");
    // Pasted into a shell (bash, zsh, ksh: `$'…'` as ls writes it), the
    // quoted path names the file.
    let listed = Command::new("bash")
        .arg("-c")
        .arg(format!("cat {}", out.trim_end()))
        .output()
        .unwrap();
    assert_eq!(listed.stdout, b"x");
    let (_, out, _) = viewer2(&cat, &["search", "-0", "jpg"]);
    let mut paths: Vec<&str> = out.split_terminator('\0').collect();
    paths.sort();
    assert!(paths[0].ends_with("/p/it's.jpg") && paths[1].ends_with("/p/two\nlines.jpg"));
    let (_, out, _) = viewer2(&cat, &["search", "it"]);
    assert!(
        out.ends_with("/p/it's.jpg\n"),
        "only control characters quote: {out:?}"
    );
    for (query, says) in [
        ("😀", "has no letter or digit"),
        (":", "makes a field filter"),
        ("*", "no wildcards"),
        ("~", "allows a typo"),
        ("\\", "has no letter or digit"),
        ("date:2019-13-45", "there is no month 13"),
        ("date:2019-02-30", "February 2019 has 28 days"),
        ("date:2019..2018", "the range ends before it starts"),
        ("date:abc", "a date looks like"),
    ] {
        let (ok, _, err) = viewer2(&cat, &["search", "--", query]);
        assert!(!ok && err.contains(says), "{query}: {err}");
        assert!(!err.contains("OR needs"), "{query}: {err}");
    }
}

/// `viewer2 --version` answers, and `viewer2 install-desktop` registers the
/// program with the desktop: a `.desktop` file whose Exec is this very
/// program (quoted) with `%F`, offered for images and folders, and the
/// icon it names.
#[test]
fn version_and_desktop_registration() {
    let out = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && version.starts_with("viewer2 "),
        "{version}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .args(["install-desktop", "--prefix"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entry = std::fs::read_to_string(dir.path().join("applications/viewer2.desktop")).unwrap();
    let exec = entry.lines().find_map(|l| l.strip_prefix("Exec=")).unwrap();
    assert_eq!(
        exec,
        format!("\"{}\" %F", env!("CARGO_BIN_EXE_viewer2")),
        "{entry}"
    );
    let mime = entry
        .lines()
        .find_map(|l| l.strip_prefix("MimeType="))
        .unwrap();
    for m in ["inode/directory", "image/jpeg", "image/png", "image/heic"] {
        assert!(mime.split(';').any(|x| x == m), "{m} missing: {mime}");
    }
    assert!(entry.starts_with("[Desktop Entry]\n") && entry.contains("\nIcon=viewer2\n"));
    let icon = std::fs::read_to_string(dir.path().join("icons/hicolor/scalable/apps/viewer2.svg"))
        .unwrap();
    assert!(icon.starts_with("<svg") && icon.trim_end().ends_with("</svg>"));
    // Installing again replaces the files, leaving nothing else behind.
    let again = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .args(["install-desktop", "--prefix"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(
        std::fs::read_dir(dir.path().join("applications"))
            .unwrap()
            .count(),
        1
    );
}

/// With the library at `…/anna/Pictures`, `anna` and `pictures` match
/// nothing (they are above it), while the folders inside stay searchable.
#[test]
fn the_folders_above_the_library_are_not_searched() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("anna/Pictures");
    let rome = root.join("2019/06 Holiday Rome");
    std::fs::create_dir_all(&rome).unwrap();
    std::fs::write(rome.join("IMG_0001.jpg"), b"not really").unwrap();
    std::fs::write(root.join("beach.jpg"), b"not really").unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", root.to_str().unwrap()]);
    assert!(ok, "{err}");
    for (query, hits) in [
        ("anna", 0),
        ("pictures", 0),
        ("rome", 1),
        ("dir:2019", 1),
        ("beach", 1),
    ] {
        let (ok, out, err) = viewer2(&cat, &["search", query]);
        assert!(ok, "{err}");
        assert_eq!(out.lines().count(), hits, "{query:?} found {out:?}");
    }
}

/// Issue 45 item 15: a catalogue that cannot be written where it lies (a
/// read-only file system or share; here a folder and file the user may
/// only read, so SQLite cannot make its shared-memory file beside it) is
/// opened read-only and searched, and says why a write is refused.
#[cfg(unix)]
#[test]
fn a_catalogue_that_cannot_be_written_is_searched_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let photos = dir.path().join("photos");
    touch(&photos.join("2019/Holiday/CuteKitten.jpg"), 10);
    touch(&photos.join("2019/Holiday/IMG_1234.JPG"), 10);
    let shelf = dir.path().join("shelf");
    std::fs::create_dir_all(&shelf).unwrap();
    let cat = shelf.join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(!shelf.join("cat.sqlite-wal").exists());
    std::fs::set_permissions(&cat, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o555)).unwrap();
    let run =
        |args: &[&str]| common::viewer2_as(common::as_ordinary_user(dir.path(), &[]), &cat, args);
    let (ok, out, err) = run(&["search", "kitten"]);
    assert!(ok, "{err}");
    assert!(out.contains("CuteKitten.jpg"), "{out}{err}");
    // The seed's search writes its tables first: refused, saying why.
    let (ok, _, err) = run(&["search", "--seed", "kitten"]);
    assert!(!ok);
    assert!(err.contains("open read-only"), "{err}");
    // An index run is refused before it starts, saying why and that
    // searching still works (not SQLite's "unable to open database file").
    let (ok, _, err) = run(&["index", photos.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("cannot index into") && err.contains("searching it still works"),
        "{err}"
    );
    assert!(err.contains("Permission denied"), "{err}");
    // The folder writable, the file not: the same, naming the file.
    std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o777)).unwrap();
    let _ = std::fs::remove_file(shelf.join("cat.index-lock"));
    let (ok, _, err) = run(&["index", photos.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("cannot index into") && err.contains("cat.sqlite: Permission denied"),
        "{err}"
    );
    std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Issue 45 item 5: `search rating:3` and `label:green` read the marks,
/// as the window does, alone or beside words, and with `-`.
#[test]
fn search_finds_ratings_and_labels() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    for i in 0..30 {
        touch(&photos.join(format!("trip/IMG_{i:02}.jpg")), 10);
    }
    touch(&photos.join("CuteKitten.jpg"), 10);
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    {
        let mut c = catalog::Catalog::open(&cat).unwrap();
        let ids: Vec<_> = c
            .stamps_under("/")
            .unwrap()
            .into_iter()
            .map(|s| (c.file(s.id).unwrap().unwrap().0, s.id))
            .collect();
        let id = |name: &str| ids.iter().find(|(p, _)| p.ends_with(name)).unwrap().1;
        c.set_marks(&[id("IMG_03.jpg"), id("IMG_13.jpg")], Some(3), None)
            .unwrap();
        c.set_marks(
            &[id("IMG_13.jpg"), id("CuteKitten.jpg")],
            None,
            Some("green"),
        )
        .unwrap();
        c.set_marks(&[id("CuteKitten.jpg")], Some(5), None).unwrap();
    }
    let names = |args: &[&str]| -> Vec<String> {
        let (ok, out, err) = viewer2(&cat, args);
        assert!(ok, "{args:?}: {err}");
        let mut n: Vec<String> = out
            .lines()
            .map(|l| l.rsplit('/').next().unwrap().to_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&["search", "rating:3"]), ["IMG_03.jpg", "IMG_13.jpg"]);
    assert_eq!(
        names(&["search", "label:green"]),
        ["CuteKitten.jpg", "IMG_13.jpg"]
    );
    assert_eq!(names(&["search", "rating:>=3", "label:green"]).len(), 2);
    assert_eq!(
        names(&["search", "trip", "rating:>=3", "-label:green"]),
        ["IMG_03.jpg"]
    );
    assert_eq!(names(&["search", "kitten", "rating:5"]), ["CuteKitten.jpg"]);
    assert_eq!(names(&["search", "rating:0"]).len(), 28);
    // The limit counts what passes the marks.
    assert_eq!(names(&["search", "--limit", "1", "rating:3"]).len(), 1);
    let (ok, _, err) = viewer2(&cat, &["search", "rating:9"]);
    assert!(!ok && err.contains("0 to 5 stars"), "{err}");
}

/// Issue 45 item 16: a link named like a photo that leads to a device is
/// named for what it is, not "not an image file (by its extension)".
#[cfg(unix)]
#[test]
fn a_link_to_a_device_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let y = dir.path().join("y.jpg");
    std::os::unix::fs::symlink("/dev/zero", &y).unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", y.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("y.jpg: a device (a link to /dev/zero), not a photo or a folder"),
        "{err}"
    );
    assert!(!err.contains("by its extension"), "{err}");
}

/// `viewer2 search … | head -1`: a reader that stops early is no error
/// (it printed "Error: Broken pipe" and a backtrace).
#[test]
fn search_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    for i in 0..50 {
        touch(&photos.join(format!("trip/IMG_{i:02}.jpg")), 10);
    }
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--catalog")
        .arg(&cat)
        .args(["search", "trip"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The read end closes before anything is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

/// The freedesktop thumbnailer `install-desktop` writes: its Exec, run as a
/// file manager runs it (`%s` the size, `%i` the input, `%o` the output),
/// makes a PNG of every kind of photo viewer2 shows, at most `%s` a side,
/// and says why for a file it cannot show (writing nothing).
#[test]
fn the_thumbnailer_makes_pngs_of_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .args(["install-desktop", "--prefix"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entry =
        std::fs::read_to_string(dir.path().join("thumbnailers/viewer2.thumbnailer")).unwrap();
    assert!(entry.starts_with("[Thumbnailer Entry]\n"), "{entry}");
    let exec = entry.lines().find_map(|l| l.strip_prefix("Exec=")).unwrap();
    let mime = entry
        .lines()
        .find_map(|l| l.strip_prefix("MimeType="))
        .unwrap();
    for m in ["image/heic", "image/avif", "image/jxl"] {
        assert!(mime.split(';').any(|x| x == m), "{m} missing: {mime}");
    }
    let program = format!("\"{}\"", env!("CARGO_BIN_EXE_viewer2"));
    let rest = exec
        .strip_prefix(&program)
        .unwrap_or_else(|| panic!("Exec runs another program: {exec}"));
    let thumbnail = |input: &Path, output: &Path, size: u32| {
        let args: Vec<std::ffi::OsString> = rest
            .split_whitespace()
            .map(|a| match a {
                "%s" => size.to_string().into(),
                "%i" => input.as_os_str().to_owned(),
                "%o" => output.as_os_str().to_owned(),
                other => other.into(),
            })
            .collect();
        Command::new(env!("CARGO_BIN_EXE_viewer2"))
            .args(args)
            .output()
            .unwrap()
    };
    let photos = dir.path().join("photos");
    std::fs::create_dir_all(&photos).unwrap();
    let jpeg = photos.join("Straße.jpg");
    std::fs::write(&jpeg, jpeg_bytes(Vec::new(), 600)).unwrap();
    let png = photos.join("drawing.png");
    image::RgbImage::from_fn(500, 300, |x, y| image::Rgb([x as u8, y as u8, 90]))
        .save(&png)
        .unwrap();
    // A camera's DNG, held upright: its preview turned a quarter.
    let dng = photos.join("DSC_0001.DNG");
    std::fs::write(&dng, dng::dng(6, Some(&dng::preview_jpeg()))).unwrap();
    let mut inputs = vec![jpeg.clone(), png.clone(), dng.clone()];
    let half = "the HEIC, AVIF and JPEG XL half of the_thumbnailer_makes_pngs_of_every_kind";
    let tools = [("heif-enc", "libheif-examples"), ("cjxl", "libjxl-tools")]
        .iter()
        .all(|(tool, package)| tools::tool_present(tool, package, half));
    if tools {
        for (name, tool, args) in [
            ("phone.heic", "heif-enc", &["-q", "80", "-o"][..]),
            ("phone.avif", "heif-enc", &["-A", "-q", "80", "-o"][..]),
        ] {
            let made = photos.join(name);
            let ok = Command::new(tool)
                .args(&args[..args.len() - 1])
                .arg(&jpeg)
                .arg(args[args.len() - 1])
                .arg(&made)
                .status()
                .unwrap();
            assert!(ok.success(), "{tool} {name}");
            inputs.push(made);
        }
        let jxl = photos.join("drawing.jxl");
        assert!(
            Command::new("cjxl")
                .arg(&png)
                .arg(&jxl)
                .status()
                .unwrap()
                .success()
        );
        inputs.push(jxl);
    }
    for input in &inputs {
        let output = dir.path().join("thumb.png");
        let _ = std::fs::remove_file(&output);
        let run = thumbnail(input, &output, 128);
        assert!(
            run.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(&output).unwrap(),
        ));
        let reader = decoder.read_info().unwrap();
        let (w, h) = (reader.info().width, reader.info().height);
        assert_eq!(w.max(h), 128, "{}: {w}×{h}", input.display());
        if input == &dng {
            assert_eq!((w, h), (96, 128), "the DNG the camera's way up");
        }
        if let Ok(file) = Command::new("file").arg("-b").arg(&output).output() {
            assert!(String::from_utf8_lossy(&file.stdout).starts_with("PNG image data"));
        }
    }
    // Not an image: the reason, and no output.
    let text = photos.join("notes.jpg");
    std::fs::write(&text, "%PDF-1.7 not a photo").unwrap();
    let output = dir.path().join("none.png");
    let run = thumbnail(&text, &output, 128);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("a PDF document"));
    assert!(!output.exists());
}
