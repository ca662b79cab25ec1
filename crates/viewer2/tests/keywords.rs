#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 46's keyword tree, driven headless by egui_kittest: the
//! Keywords tab shows the library's hierarchy with photo counts, a click
//! on a keyword filters by it and everything below it and a second click
//! takes the filter off; under a photo's details, typing completes from
//! the library's keywords and adds one to the selection (written to the
//! sidecar), × takes one off, and Ctrl+Z puts the keywords back.

use std::path::PathBuf;

use catalog::{Catalog, FileWords};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};

mod photos;
mod ui;

use ui::settle;

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    cat: PathBuf,
}

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
    let ids = ui::add_photos(&cat, &refs);
    let mut c = Catalog::open(&cat).unwrap();
    let words = |k: &[&str]| FileWords {
        keywords: k.iter().map(|s| (*s).to_owned()).collect(),
        people: Vec::new(),
    };
    let a = words(&["Places|Italy|Rome", "evening"]);
    let b = words(&["Places|Italy|Florence"]);
    c.set_file_words(&[(ids[0], &a), (ids[1], &b)]).unwrap();
    Setup {
        _dir: dir,
        root,
        cat,
    }
}

fn harness(s: &Setup) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(s.cat.clone(), vec![]);
    options.threads = 1;
    ui::window(options, [1200.0, 800.0])
}

#[test]
fn the_keyword_tree_counts_and_filters() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    h.get_by_label("Keywords").click();
    h.run_steps(2);
    for shown in [
        "Places (2)",
        "Italy (2)",
        "Rome (1)",
        "Florence (1)",
        "evening (1)",
    ] {
        assert!(
            h.query_by_label(shown).is_some(),
            "{shown} is not in the tree"
        );
    }
    h.get_by_label("Italy (2)").click();
    settle(&mut h);
    assert_eq!(h.state().query(), "keyword:Places|Italy");
    assert_eq!(h.state().shown(), 2);
    h.get_by_label("Rome (1)").click();
    settle(&mut h);
    assert_eq!(h.state().shown(), 1);
    assert!(
        h.query_by_role_and_label(egui::Role::Button, "a.jpg")
            .is_some()
    );
    // A second click takes each filter off.
    h.get_by_label("Rome (1)").click();
    settle(&mut h);
    h.get_by_label("Italy (2)").click();
    settle(&mut h);
    assert_eq!(h.state().query(), "");
    assert_eq!(h.state().shown(), 3);
}

#[test]
fn typing_a_keyword_completes_adds_and_undoes() {
    let s = setup();
    let mut h = harness(&s);
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "c.jpg").click();
    h.run_steps(2);
    h.get_by_label("Add keyword").focus();
    h.get_by_label("Add keyword").type_text("flo");
    h.run_steps(2);
    // The library's keyword, completed.
    h.get_by_label("Places › Italy › Florence").click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Gave 1 photo the keyword “Places|Italy|Florence”")
            .is_some()
    );
    let m = photo::meta::read(&s.root.join("photos/c.jpg")).unwrap();
    assert_eq!(m.hierarchy, [vec!["Places", "Italy", "Florence"]]);
    assert!(h.query_by_label("Places › Italy › Florence ×").is_some());
    // A new one, typed in full with Enter.
    h.get_by_label("Add keyword").focus();
    h.get_by_label("Add keyword").type_text("People|Anna");
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    let m = photo::meta::read(&s.root.join("photos/c.jpg")).unwrap();
    assert_eq!(m.keyword_paths().len(), 2);
    // × takes one off; Ctrl+Z puts it back.
    h.get_by_label("Places › Italy › Florence ×").click();
    settle(&mut h);
    let m = photo::meta::read(&s.root.join("photos/c.jpg")).unwrap();
    assert_eq!(m.hierarchy, [vec!["People", "Anna"]]);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    let m = photo::meta::read(&s.root.join("photos/c.jpg")).unwrap();
    assert_eq!(m.keyword_paths().len(), 2);
    let c = Catalog::open(&s.cat).unwrap();
    let words = c.file_words().unwrap();
    assert_eq!(
        words
            .values()
            .filter(|w| w.keywords.iter().any(|k| k == "People|Anna"))
            .count(),
        1
    );
}
