#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The folder tree and the breadcrumb, driven headless by egui_kittest:
//! the tree names each folder with its count, choosing one shows its
//! photos (and its subfolders' unless *Subfolders* is off), the breadcrumb
//! climbs, and Backspace or Alt+Up go to the folder above. Plus the tree
//! against a naive count.

use std::path::Path;

use catalog::FileRecord;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use proptest::prelude::*;
use viewer2::app::{Options, ViewerApp};
use viewer2::folders::{FolderTree, contains};
use viewer2::library::Library;

mod ui;

use ui::settle;

const FILES: &[&str] = &[
    "/home/anna/Pictures/2019/06 Holiday Rome/IMG_0001.jpg",
    "/home/anna/Pictures/2019/06 Holiday Rome/IMG_0002.jpg",
    "/home/anna/Pictures/2019/06 Holiday Rome/day 2/IMG_0003.jpg",
    "/home/anna/Pictures/2019/08 Beach/DSC_0001.jpg",
    "/home/anna/Pictures/2020/Été/photo.jpg",
    "/home/anna/Pictures/2020/cat.png",
];

fn harness(dir: &Path) -> Harness<'static, ViewerApp> {
    let cat = dir.join("cat.sqlite");
    ui::add_photos(&cat, FILES);
    let mut options = Options::new(cat, vec![]);
    options.threads = 1;
    ui::window(options, [1200.0, 800.0])
}

#[test]
fn choosing_a_folder_shows_its_photos_and_the_breadcrumb_climbs() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(dir.path());
    settle(&mut h);
    h.get_by_label("Folders").click();
    h.run_steps(2);
    // The chain above the photos is one root, named by its last folder.
    assert!(h.query_by_label("Pictures (6)").is_some());
    assert!(h.query_by_label("2019 (4)").is_some());
    assert!(h.query_by_label("2020 (2)").is_some());
    h.get_by_label("2019 (4)").click();
    settle(&mut h);
    assert_eq!(h.state().shown(), 4);
    // Open below it now: its folders.
    h.get_by_label("06 Holiday Rome (3)").click();
    settle(&mut h);
    assert_eq!(h.state().shown(), 3);
    // The breadcrumb: every folder from the root, each a button.
    for crumb in ["All photos", "Pictures", "2019", "06 Holiday Rome"] {
        assert!(
            h.query_all_by_label(crumb).next().is_some(),
            "no {crumb} in the breadcrumb"
        );
    }
    h.get_by_label("Subfolders").click();
    settle(&mut h);
    assert_eq!(h.state().shown(), 2);
    h.get_by_label("Subfolders").click();
    settle(&mut h);
    assert_eq!(h.state().shown(), 3);
    // A query applies within the folder.
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("0002");
    settle(&mut h);
    assert_eq!(h.state().shown(), 1);
    h.get_by_label("Search").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.key_press(egui::Key::Backspace);
    settle(&mut h);
    assert_eq!(h.state().shown(), 3);
    // Out of the search box: Backspace and Alt+Up climb.
    h.key_press(egui::Key::Escape);
    h.get_by_role_and_label(egui::Role::Button, "IMG_0001.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Backspace);
    settle(&mut h);
    assert_eq!(h.state().shown(), 4);
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::ArrowUp);
    settle(&mut h);
    assert_eq!(h.state().shown(), 6);
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::ArrowUp);
    settle(&mut h);
    assert_eq!(h.state().shown(), 6);
    assert!(h.query_by_label("Subfolders").is_none());
}

fn record(id: i64, path: &str) -> FileRecord {
    FileRecord {
        id,
        path: path.to_owned(),
        raw_path: None,
        caption: String::new(),
        camera: String::new(),
        date: String::new(),
        size: 1,
        mtime: 0,
    }
}

proptest! {
    /// Each folder's counts are what a scan of the paths gives, and every
    /// photo lies under exactly one root.
    #[test]
    fn folder_counts_match_a_scan(
        paths in prop::collection::vec(
            prop::collection::vec(prop::sample::select(&["a", "b", "Été", "c d"][..]), 0..4),
            1..30,
        )
    ) {
        let records: Vec<FileRecord> = paths
            .iter()
            .enumerate()
            .map(|(i, dirs)| {
                let mut p = String::from("/r");
                for d in dirs {
                    p.push('/');
                    p.push_str(d);
                }
                record(i as i64 + 1, &format!("{p}/{i}.jpg"))
            })
            .collect();
        let lib = Library::new(records, &[]);
        let tree = FolderTree::new(&lib.photos);
        for f in &tree.folders {
            let total = lib.photos.iter().filter(|p| contains(&f.path, &p.text_path, true)).count();
            let direct = lib.photos.iter().filter(|p| contains(&f.path, &p.text_path, false)).count();
            prop_assert_eq!(f.total as usize, total, "{}", f.path);
            prop_assert_eq!(f.direct as usize, direct, "{}", f.path);
        }
        for p in &lib.photos {
            let under = tree.roots.iter().filter(|&&r| contains(&tree.folders[r].path, &p.text_path, true)).count();
            prop_assert_eq!(under, 1, "{}", p.text_path);
        }
    }
}

/// The grid grouped by folder shows a header per folder (its path from the
/// root and its count) over that folder's photos; by month taken, a header
/// per month with the undated last. Down moves into the next group in the
/// same column. The choice is kept for the next start.
#[test]
fn the_grid_groups_its_photos_under_folder_and_month_headers() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat.sqlite");
    let dates = [
        "2019-06-14 10:00:00",
        "2019-06-15 11:00:00",
        "2019-06-16 12:00:00",
        "2019-08-02 09:00:00",
        "",
        "",
    ];
    {
        let mut c = catalog::Catalog::open(&cat).unwrap();
        let new: Vec<catalog::NewFile<'_>> = FILES
            .iter()
            .zip(dates)
            .map(|(path, date)| catalog::NewFile {
                path,
                caption: "",
                size: 1000,
                mtime: 1_700_000_000,
                raw_path: None,
                camera: "",
                date,
                identity: Default::default(),
            })
            .collect();
        c.add(&new).unwrap();
    }
    let open = || {
        let mut options = Options::new(cat.clone(), vec![]);
        options.threads = 1;
        let mut h = ui::window(options, [1200.0, 800.0]);
        settle(&mut h);
        h
    };
    let choose = |h: &mut Harness<'static, ViewerApp>, grouping: &str| {
        h.get_by_label("Group").click();
        h.run_steps(2);
        h.get_by_label(grouping).click();
        settle(h);
    };
    let mut h = open();
    assert!(h.query_by_label("June 2019, 3 photos").is_none());
    choose(&mut h, "Folder");
    for header in [
        "Pictures › 2019 › 06 Holiday Rome, 2 photos",
        "Pictures › 2019 › 06 Holiday Rome › day 2, 1 photo",
        "Pictures › 2019 › 08 Beach, 1 photo",
        "Pictures › 2020, 1 photo",
    ] {
        assert!(h.query_by_label(header).is_some(), "no header {header}");
    }
    // The last group lies below the window: End shows it, header and all.
    let last = "Pictures › 2020 › Été, 1 photo";
    assert!(h.query_by_label(last).is_none());
    h.get_by_role_and_label(egui::Role::Button, "IMG_0001.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::End);
    h.run_steps(3);
    assert!(h.query_by_label(last).is_some(), "no header {last}");
    h.key_press(egui::Key::Home);
    h.run_steps(3);
    assert_eq!(
        h.state().shown_names(),
        [
            "IMG_0001.jpg",
            "IMG_0002.jpg",
            "IMG_0003.jpg",
            "DSC_0001.jpg",
            "cat.png",
            "photo.jpg"
        ]
    );
    choose(&mut h, "Month taken");
    for header in [
        "June 2019, 3 photos",
        "August 2019, 1 photo",
        "No date, 2 photos",
    ] {
        assert!(h.query_by_label(header).is_some(), "no header {header}");
    }
    // Down from June's first photo: August's, under the next header (one
    // run of rows would have gone to the last photo).
    h.get_by_role_and_label(egui::Role::Button, "IMG_0001.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    // The grid's button and the details panel's heading.
    assert_eq!(h.query_all_by_label("DSC_0001.jpg").count(), 2);
    assert!(h.state_mut().shut_down(std::time::Duration::from_secs(10)));
    let h = open();
    assert!(
        h.query_by_label("June 2019, 3 photos").is_some(),
        "the grouping is kept"
    );
}
