#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Repair salvages every row whose page can still be read, in every table
//! that holds the user's work. A catalogue of 10,000 photos, each rated
//! and labelled, 2,000 of them on the light table, is damaged as disks and
//! crashes damage files: one interior page of the marks tree (the issue's
//! case: 0 of 10,000 were recovered), page 1 (the schema and the header),
//! a cut-off tail, and, as a property, any one page overwritten with
//! garbage or zeros. The oracle is the catalogue before the damage: every
//! row recovered is a row it held, value for value, and what is lost is at
//! most what one page can hold.

use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use catalog::{Catalog, FileRecord, Marks, Placement, recover_file};
use proptest::prelude::*;

const PHOTOS: usize = 10_000;
const PLACED: usize = 2_000;
const PAGE: u64 = 4096;

struct Library {
    files: BTreeMap<i64, FileRecord>,
    marks: BTreeMap<i64, Marks>,
    placements: BTreeMap<String, Placement>,
}

fn snapshot(c: &Catalog) -> Library {
    Library {
        files: c.files().unwrap().into_iter().map(|f| (f.id, f)).collect(),
        marks: c.marks().unwrap().into_iter().collect(),
        placements: c
            .placements()
            .unwrap()
            .into_iter()
            .map(|p| (p.key.clone(), p))
            .collect(),
    }
}

/// A catalogue file with every kind of the user's work in it, closed
/// (checkpointed into the main file), and what it holds.
fn library(dir: &Path) -> (PathBuf, Library) {
    let path = dir.join("catalogue.sqlite");
    let mut c = Catalog::open(&path).unwrap();
    let names: Vec<(String, String)> = (0..PHOTOS)
        .map(|i| {
            (
                format!("/photos/{}/Été {i:05} café.jpg", 2000 + i % 25),
                format!("caption {i}"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = names
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let ids = c.add_files(&refs).unwrap();
    for (n, label) in ["", "red", "yellow", "green", "blue", "purple"]
        .iter()
        .enumerate()
    {
        let mine: Vec<i64> = ids.iter().copied().skip(n).step_by(6).collect();
        c.set_marks(&mine, Some((n % 5 + 1) as u8), Some(label))
            .unwrap();
    }
    for &id in ids.iter().step_by(97) {
        c.set_caption(id, &format!("written by hand {id}")).unwrap();
    }
    let placed: Vec<Placement> = ids[..PLACED]
        .iter()
        .map(|&id| Placement {
            key: catalog::file_key(id),
            x: id as f64 * 1.5,
            y: -(id as f64),
            angle: (id % 7) as f64,
            group: format!("tray {}", id % 3),
        })
        .collect();
    c.save_placements(&placed, &[]).unwrap();
    c.set_setting("table.view", "zoom=1.5").unwrap();
    let before = snapshot(&c);
    drop(c);
    assert!(!dir.join("catalogue.sqlite-wal").exists(), "closed cleanly");
    (path, before)
}

fn root_page(path: &Path, table: &str) -> u64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(
        "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
        [table],
        |r| r.get(0),
    )
    .unwrap()
}

fn overwrite_page(path: &Path, page: u64, byte: Option<u8>, seed: u64) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start((page - 1) * PAGE)).unwrap();
    let mut x = seed | 1;
    let bytes: Vec<u8> = (0..PAGE)
        .map(|_| {
            byte.unwrap_or_else(|| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
        })
        .collect();
    f.write_all(&bytes).unwrap();
}

/// Recovers `damaged` into a new file and checks it against `before`:
/// nothing invented or changed, nothing left beside the new file. Returns
/// the rows lost, per table.
fn recover_and_compare(dir: &Path, damaged: &Path, before: &Library) -> (usize, usize, usize) {
    let dest = dir.join("recovered.sqlite");
    let report = recover_file(damaged, &dest).unwrap();
    let after = snapshot(&Catalog::open(&dest).unwrap());
    for (id, f) in &after.files {
        assert_eq!(before.files.get(id), Some(f), "file {id} as it was");
    }
    for (id, m) in &after.marks {
        assert_eq!(before.marks.get(id), Some(m), "marks of {id} as they were");
    }
    for (k, p) in &after.placements {
        assert_eq!(before.placements.get(k), Some(p), "placement {k} as it was");
    }
    assert_eq!(report.files, after.files.len());
    assert_eq!(report.marks, after.marks.len());
    assert_eq!(report.placements, after.placements.len());
    let names: Vec<&str> = report.tables.iter().map(|t| t.table).collect();
    assert_eq!(names, ["files", "marks", "placements", "settings"]);
    let beside: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("recovered"))
        .collect();
    assert_eq!(beside, ["recovered.sqlite"], "nothing left beside it");
    (
        before.files.len() - after.files.len(),
        before.marks.len() - after.marks.len(),
        before.placements.len() - after.placements.len(),
    )
}

#[test]
fn an_interior_page_of_the_marks_keeps_every_mark_on_the_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let (path, before) = library(dir.path());
    // The root of a 10,000-row tree is an interior page.
    let root = root_page(&path, "marks");
    overwrite_page(&path, root, None, 7);
    let (files, marks, placements) = recover_and_compare(dir.path(), &path, &before);
    assert_eq!((files, placements), (0, 0));
    // The root's own entries are lost with it (a WITHOUT ROWID tree keeps
    // rows on its interior pages); every leaf's rows come back.
    assert!(marks < 400, "{marks} of {PHOTOS} marks lost");
}

#[test]
fn a_damaged_first_page_keeps_the_rows_of_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let (path, before) = library(dir.path());
    assert!(Catalog::open(&path).is_ok());
    overwrite_page(&path, 1, None, 11);
    assert!(Catalog::open(&path).is_err(), "it no longer opens");
    let (files, marks, placements) = recover_and_compare(dir.path(), &path, &before);
    assert!(files < 50, "{files} of {PHOTOS} file records lost");
    assert!(marks < 400, "{marks} marks lost");
    assert!(placements < 100, "{placements} placements lost");
}

#[test]
fn a_cut_off_file_keeps_what_comes_before_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (path, before) = library(dir.path());
    let len = std::fs::metadata(&path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(len * 2 / 3 / PAGE * PAGE + 1000).unwrap();
    drop(f);
    let dest = dir.path().join("recovered.sqlite");
    let report = recover_file(&path, &dest).unwrap();
    assert!(report.files > PHOTOS / 3, "{} files kept", report.files);
    drop(report);
    std::fs::remove_file(&dest).unwrap();
    recover_and_compare(dir.path(), &path, &before);
}

#[test]
fn a_sound_file_is_recovered_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (path, before) = library(dir.path());
    let dest = dir.path().join("recovered.sqlite");
    let report = recover_file(&path, &dest).unwrap();
    assert_eq!(
        (
            report.files,
            report.marks,
            report.placements,
            report.settings
        ),
        (PHOTOS, PHOTOS, PLACED, 1)
    );
    assert!(report.tables.iter().all(|t| t.lost() == Some(0)));
    assert!(report.unreadable.is_empty(), "{:?}", report.unreadable);
    let c = Catalog::open(&dest).unwrap();
    assert_eq!(
        c.setting("table.view").unwrap().as_deref(),
        Some("zoom=1.5")
    );
    let after = snapshot(&c);
    assert_eq!(after.files, before.files);
    assert_eq!(after.marks, before.marks);
    assert_eq!(after.placements, before.placements);
    // The search index is built afresh: the captions are found.
    let q = catalog::parse("café").unwrap();
    assert_eq!(c.search(&q, catalog::Mode::Default).unwrap().len(), PHOTOS);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 12,
        ..ProptestConfig::default()
    })]

    /// Any one page destroyed loses at most what one page holds, and
    /// nothing recovered differs from what was there.
    #[test]
    fn any_one_page_destroyed_loses_at_most_one_page(frac in 0.0f64..1.0, zeros: bool, seed: u64) {
        let dir = tempfile::tempdir().unwrap();
        let (path, before) = library(dir.path());
        let pages = std::fs::metadata(&path).unwrap().len() / PAGE;
        let page = 1 + ((pages - 1) as f64 * frac) as u64;
        overwrite_page(&path, page, zeros.then_some(0), seed);
        let (files, marks, placements) = recover_and_compare(dir.path(), &path, &before);
        prop_assert!(files + marks + placements < 400,
            "page {page} of {pages}: lost {files} files, {marks} marks, {placements} placements");
    }
}
