#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The tag cloud, driven headless by egui_kittest: a tag's count is what
//! clicking it shows, its rows are as tall as their tallest tag, and tags
//! read as their owner wrote them.

use std::path::Path;

use catalog::{Catalog, NewFile};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};

mod ui;

use ui::settle;

/// (path, caption) of a small library under `/library/photos`, whose
/// folder names share words with each other and with the root.
const FILES: &[(&str, &str)] = &[
    ("/library/photos/trip/IMG_0001.jpg", "Café | Paris"),
    ("/library/photos/trip/IMG_0002.jpg", "Café"),
    ("/library/photos/trip/IMG_0003.jpg", ""),
    ("/library/photos/trip/IMG_0004.jpg", "Paris"),
    ("/library/photos/photos old/scan_001.jpg", ""),
    ("/library/photos/photos old/scan_002.jpg", "Grand-mère"),
    ("/library/photos/Birthday party/DSC_0001.jpg", ""),
    ("/library/photos/Birthday party/DSC_0002.jpg", "cake"),
    ("/library/photos/Birthday party/DSC_0003.jpg", "cake"),
    ("/library/photos/day out/Lake.jpg", ""),
];

fn catalogue(dir: &Path) -> std::path::PathBuf {
    let cat = dir.join("cat.sqlite");
    let mut c = Catalog::open(&cat).unwrap();
    let new: Vec<NewFile<'_>> = FILES
        .iter()
        .enumerate()
        .map(|(k, &(path, caption))| NewFile {
            path,
            caption,
            size: 1000 + k as i64,
            mtime: 1_700_000_000 + k as i64,
            raw_path: None,
            camera: if k % 2 == 0 { "X100V" } else { "" },
            date: "",
            identity: Default::default(),
        })
        .collect();
    c.add(&new).unwrap();
    cat
}

fn harness(cat: &Path, height: f32) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(cat.to_owned(), vec![]);
    options.threads = 1;
    let ctx = egui::Context::default();
    let app = ViewerApp::new(&ctx, options).unwrap();
    Harness::builder()
        .with_size(egui::vec2(1200.0, height))
        .build_ui_state(|ui, app: &mut ViewerApp| app.ui(ui), app)
}

/// The cloud as (text, term, count).
fn cloud_tags(h: &Harness<'static, ViewerApp>) -> Vec<(String, String, u32)> {
    h.state()
        .cloud()
        .iter()
        .map(|t| (t.text.clone(), t.term.clone(), t.count))
        .collect()
}

/// Every tag's count, on hover and in the cloud, is the number of photos
/// clicking it shows; `dir:day` finds `Birthday` too, and `photos` is in
/// every path, so it narrows nothing and is not offered.
#[test]
fn a_tags_count_is_what_clicking_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue(dir.path());
    let mut h = harness(&cat, 800.0);
    settle(&mut h);
    let tags = cloud_tags(&h);
    assert!(tags.len() >= 6, "{tags:?}");
    assert!(!tags.iter().any(|t| t.1 == "dir:photos"), "{tags:?}");
    for (text, term, count) in &tags {
        let tag = h.get_by_label(text);
        tag.hover();
        // Tooltips wait half a second.
        h.run_steps(40);
        let from = h
            .state()
            .cloud()
            .iter()
            .find(|t| &t.term == term)
            .map(|t| {
                t.sources
                    .iter()
                    .map(|k| k.source_text())
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .unwrap();
        let hover = format!(
            "{count} photo{} · from {from} · {term}",
            if *count == 1 { "" } else { "s" }
        );
        assert!(h.query_by_label(&hover).is_some(), "no tooltip {hover:?}");
        h.get_by_label(text).click();
        settle(&mut h);
        assert_eq!(h.state().query(), term);
        assert_eq!(h.state().shown() as u32, *count, "{text} ({term})");
        h.get_by_label(text).click();
        settle(&mut h);
        assert_eq!(h.state().shown(), FILES.len());
    }
    let day = tags.iter().find(|t| t.1 == "dir:day").unwrap();
    assert_eq!(day.2, 4);
}

/// Tags show as written (`Café`, `Grand`), not folded.
#[test]
fn tags_read_as_their_owner_wrote_them() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue(dir.path());
    let mut h = harness(&cat, 800.0);
    settle(&mut h);
    let texts: Vec<&str> = h.state().cloud().iter().map(|t| t.text.as_str()).collect();
    assert!(texts.contains(&"Café"), "{texts:?}");
    assert!(texts.contains(&"Birthday"), "{texts:?}");
    assert!(!texts.contains(&"cafe"), "{texts:?}");
}

/// The cloud's rows are as tall as their tallest tag: a big tag wraps the
/// row before it, and the small ones after it keep small rows.
#[test]
fn cloud_rows_are_as_tall_as_their_tallest_tag() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue(dir.path());
    let mut h = harness(&cat, 800.0);
    settle(&mut h);
    let texts: Vec<String> = h.state().cloud().iter().map(|t| t.text.clone()).collect();
    let mut rects: Vec<egui::Rect> = texts.iter().map(|t| h.get_by_label(t).rect()).collect();
    rects.sort_by(|a, b| a.top().total_cmp(&b.top()));
    // Rows: tags whose vertical extents overlap.
    let mut rows: Vec<egui::Rect> = Vec::new();
    for r in rects {
        match rows.last_mut() {
            Some(row) if r.top() < row.bottom() - 1.0 => *row = row.union(r),
            _ => rows.push(r),
        }
    }
    assert!(rows.len() >= 2, "{rows:?}");
    for pair in rows.windows(2) {
        let gap = pair[1].top() - pair[0].bottom();
        // egui's item spacing between rows, no more.
        assert!(gap <= 3.5, "a gap of {gap} px between rows {pair:?}");
    }
}

/// Issue 48: the same word from different sources was listed twice
/// ("Berlin" from a caption and from a folder; "CANON" and "canon"). Now it
/// is one tag, shown as the caption writes it, counted once per photo,
/// found by the OR of its sources' terms, and its hover says where it
/// comes from.
#[test]
fn the_same_word_from_several_sources_is_one_tag() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat.sqlite");
    let mut c = Catalog::open(&cat).unwrap();
    let files: &[(&str, &str, &str)] = &[
        ("/lib/Berlin/a.jpg", "", "X100V"),
        ("/lib/Berlin/b.jpg", "Berlin", "X100V"),
        ("/lib/trip/c.jpg", "Berlin | canon", "CANON"),
        ("/lib/trip/d.jpg", "Rome", "CANON"),
        ("/lib/trip/e.jpg", "Rome", ""),
        ("/lib/other/f.jpg", "", ""),
    ];
    let new: Vec<NewFile<'_>> = files
        .iter()
        .enumerate()
        .map(|(k, &(path, caption, camera))| NewFile {
            path,
            caption,
            size: 1000 + k as i64,
            mtime: 1_700_000_000 + k as i64,
            raw_path: None,
            camera,
            date: "",
            identity: Default::default(),
        })
        .collect();
    c.add(&new).unwrap();
    drop(c);
    let mut h = harness(&cat, 800.0);
    settle(&mut h);
    let tags = cloud_tags(&h);
    let folded = |t: &str| t.to_lowercase();
    for word in ["berlin", "canon"] {
        let n = tags.iter().filter(|t| folded(&t.0) == word).count();
        assert_eq!(n, 1, "{word} listed {n} times: {tags:?}");
    }
    let berlin = tags
        .iter()
        .find(|t| folded(&t.0) == "berlin")
        .unwrap()
        .clone();
    assert_eq!(berlin.0, "Berlin");
    assert_eq!(berlin.1, "(caption:berlin OR dir:berlin)");
    // a and b by their folder, b and c by their caption: three photos.
    assert_eq!(berlin.2, 3);
    let tag = h.get_by_label("Berlin");
    tag.hover();
    h.run_steps(40);
    assert!(
        h.query_by_label_contains("from a caption or keyword and a folder")
            .is_some(),
        "the hover says where it comes from"
    );
    h.get_by_label("Berlin").click();
    settle(&mut h);
    assert_eq!(h.state().query(), "(caption:berlin OR dir:berlin)");
    assert_eq!(h.state().shown(), 3);
    // Clicked again, it comes out of the query whole.
    h.get_by_label("Berlin").click();
    settle(&mut h);
    assert_eq!(h.state().query(), "");
    assert_eq!(h.state().shown(), files.len());
}
