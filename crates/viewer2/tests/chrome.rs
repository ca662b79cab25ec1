#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The window's chrome and the loupe's viewing modes, driven headless by
//! egui_kittest: F1 and ? show every shortcut, the menu reaches About
//! (with the version), F11 asks for full screen, Tab hides the panels (the
//! loupe then shows the photo alone on black), the loupe shows its zoom
//! and fits, fills or shows 1:1, and S runs a slideshow.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};

mod photos;
mod ui;

use ui::settle;

/// Four photos of 400 × 300 in a catalogue.
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("Été");
    std::fs::create_dir_all(&folder).unwrap();
    let mut paths = Vec::new();
    for k in 0..4 {
        let path = folder.join(format!("photo_{k}.jpg"));
        std::fs::write(&path, photos::jpeg(&photos::picture(400, 300), 85)).unwrap();
        paths.push(path.to_string_lossy().into_owned());
    }
    let cat = dir.path().join("cat.sqlite");
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    ui::add_photos(&cat, &refs);
    (dir, cat)
}

fn harness(cat: &Path, slide: Duration) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(cat.to_owned(), vec![]);
    options.threads = 2;
    options.slide_interval = slide;
    ui::window(options, [1200.0, 800.0])
}

/// The text painted in the last frame (what accesskit does not see).
fn painted(h: &Harness<'static, ViewerApp>) -> Vec<String> {
    h.output()
        .shapes
        .iter()
        .filter_map(|s| match &s.shape {
            egui::epaint::Shape::Text(t) => Some(t.galley.text().to_owned()),
            _ => None,
        })
        .collect()
}

#[test]
fn f1_and_the_question_mark_show_every_shortcut() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat, Duration::from_secs(4));
    settle(&mut h);
    assert!(h.query_by_label("Keyboard shortcuts").is_none());
    h.key_press(egui::Key::F1);
    h.run_steps(2);
    assert!(h.query_by_label("Keyboard shortcuts").is_some());
    for (_, keys) in viewer2::app::SHORTCUTS {
        for (key, what) in *keys {
            assert!(
                h.query_all_by_label(key).next().is_some(),
                "{key} is not listed"
            );
            assert!(
                h.query_all_by_label(what).next().is_some(),
                "{what} is not listed"
            );
        }
    }
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(h.query_by_label("Keyboard shortcuts").is_none());
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Questionmark);
    h.run_steps(2);
    assert!(h.query_by_label("Keyboard shortcuts").is_some());
    h.key_press(egui::Key::F1);
    h.run_steps(2);
    assert!(h.query_by_label("Keyboard shortcuts").is_none());
    // Typed in the search box, ? is a character, not a shortcut.
    h.get_by_label("Search").focus();
    h.get_by_label("Search").type_text("what?");
    h.run_steps(2);
    assert!(h.query_by_label("Keyboard shortcuts").is_none());
}

#[test]
fn the_menu_reaches_about_with_the_version() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat, Duration::from_secs(4));
    settle(&mut h);
    // Each with its shortcut, as the menu shows them.
    let items = [
        "Grid",
        "Light table",
        "Open in the loupe Enter",
        "Slideshow S",
        "Full screen F11",
        "Hide the panels Tab",
        "Keyboard shortcuts F1",
        "About viewer2",
        "Quit Ctrl+Q",
    ];
    h.get_by_role_and_label(egui::Role::Button, "photo_0.jpg")
        .click();
    h.run_steps(2);
    let before: Vec<usize> = items
        .iter()
        .map(|i| h.query_all_by_label(i).count())
        .collect();
    h.get_by_label("Menu").click();
    h.run_steps(2);
    for (item, before) in items.iter().zip(before) {
        assert_eq!(
            h.query_all_by_label(item).count(),
            before + 1,
            "{item} is not in the menu"
        );
    }
    h.get_by_label("About viewer2").click();
    h.run_steps(2);
    let version = format!("viewer2 {}", env!("CARGO_PKG_VERSION"));
    assert!(h.query_by_label(&version).is_some());
}

#[test]
fn f11_asks_for_full_screen_and_back() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat, Duration::from_secs(4));
    settle(&mut h);
    let asked = |h: &Harness<'static, ViewerApp>| {
        h.output()
            .viewport_output
            .values()
            .flat_map(|v| v.commands.iter())
            .find_map(|c| match c {
                egui::ViewportCommand::Fullscreen(on) => Some(*on),
                _ => None,
            })
    };
    // One frame with the press in it (`key_press` takes two, and the
    // output is the last frame's).
    let press = |h: &mut Harness<'static, ViewerApp>| {
        h.input_mut().events.push(egui::Event::Key {
            key: egui::Key::F11,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    };
    press(&mut h);
    assert_eq!(asked(&h), Some(true));
    assert!(h.state().is_full_screen());
    h.step();
    press(&mut h);
    assert_eq!(asked(&h), Some(false));
    assert!(!h.state().is_full_screen());
}

#[test]
fn tab_hides_the_panels_and_the_loupe_shows_the_photo_alone() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat, Duration::from_secs(4));
    settle(&mut h);
    assert!(h.query_by_label("Tags").is_some());
    // In the search box (where the window starts), Tab is the text
    // field's; on the grid it hides the panels.
    h.get_by_role_and_label(egui::Role::Button, "photo_0.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Tab);
    h.run_steps(2);
    assert!(h.state().panels_hidden());
    assert!(h.query_by_label("Tags").is_none());
    // The search bar stays over the grid.
    assert!(h.query_by_label("Search").is_some());
    h.key_press(egui::Key::Tab);
    h.run_steps(2);
    assert!(h.query_by_label("Tags").is_some());

    h.get_by_role_and_label(egui::Role::Button, "photo_1.jpg")
        .click();
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    assert_eq!(h.state().loupe_photo(), Some("photo_1.jpg"));
    h.key_press(egui::Key::Tab);
    settle(&mut h);
    // Nothing but the photo and a small line in the corner.
    assert!(h.query_by_label("Search").is_none());
    assert!(h.query_by_label("Previous").is_none());
    assert!(h.query_by_label("Tags").is_none());
    assert!(
        painted(&h)
            .iter()
            .any(|t| t.starts_with("photo_1.jpg · 2 of 4 · ")),
        "{:?}",
        painted(&h)
    );
    h.key_press(egui::Key::Tab);
    settle(&mut h);
    assert!(h.query_by_label("Previous").is_some());
}

#[test]
fn the_loupe_shows_its_zoom_and_fits_fills_or_shows_one_to_one() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat, Duration::from_secs(4));
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "photo_0.jpg")
        .click();
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    let fit = h.state().loupe_zoom_percent().unwrap();
    assert!(
        h.query_by_label(&format!("{fit:.0} %")).is_some(),
        "no {fit:.0} % shown"
    );
    h.key_press(egui::Key::Z);
    h.run_steps(2);
    assert!(h.query_by_label("100 %").is_some());
    h.key_press(egui::Key::W);
    h.run_steps(2);
    let fill = h.state().loupe_zoom_percent().unwrap();
    // 400 × 300 in a wider view: filling crops top and bottom.
    assert!(fill > fit, "fill {fill} fit {fit}");
    h.get_by_label("Fit").click();
    h.run_steps(2);
    assert_eq!(h.state().loupe_zoom_percent(), Some(fit));
}

/// A window on `cat` with the slideshow (every 300 ms) started by S from
/// the third photo's loupe.
fn slideshow_from_photo_2(cat: &Path) -> Harness<'static, ViewerApp> {
    let mut h = harness(cat, Duration::from_millis(300));
    settle(&mut h);
    h.get_by_role_and_label(egui::Role::Button, "photo_2.jpg")
        .click();
    h.run_steps(1);
    h.key_press(egui::Key::S);
    h.run_steps(1);
    assert!(h.state().slideshow_running());
    h
}

#[test]
fn s_runs_a_slideshow_that_steps_through_the_result_and_round() {
    let (_dir, cat) = setup();
    let mut h = slideshow_from_photo_2(&cat);
    assert_eq!(h.state().loupe_photo(), Some("photo_2.jpg"));
    let mut seen = vec!["photo_2.jpg".to_owned()];
    let start = Instant::now();
    while seen.len() < 4 {
        assert!(start.elapsed() < Duration::from_secs(10), "only {seen:?}");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
        let now = h.state().loupe_photo().unwrap().to_owned();
        if seen.last() != Some(&now) {
            seen.push(now);
        }
    }
    assert_eq!(
        seen,
        ["photo_2.jpg", "photo_3.jpg", "photo_0.jpg", "photo_1.jpg"]
    );
    h.key_press(egui::Key::S);
    h.run_steps(1);
    assert!(!h.state().slideshow_running());
}

/// Issue 48: the slideshow advanced only while the mouse moved. Here the
/// window is stepped as an event loop steps it with no input at all: only
/// when a frame asked to be repainted, after the whole delay it asked for.
/// A frame that asks for nothing would leave a real window asleep, and
/// whenever the window is about to sleep its bar must name the photo shown
/// (it once named the previous one for a whole slide).
#[test]
fn a_slideshow_advances_with_no_input() {
    let (_dir, cat) = setup();
    let mut h = slideshow_from_photo_2(&cat);
    let mut seen = vec![h.state().loupe_photo().unwrap().to_owned()];
    let start = Instant::now();
    while seen.len() < 5 {
        assert!(start.elapsed() < Duration::from_secs(10), "only {seen:?}");
        let delay = h
            .output()
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map_or(Duration::MAX, |v| v.repaint_delay);
        assert!(
            delay < Duration::from_secs(5),
            "no repaint asked after {seen:?}: with no input the window would sleep"
        );
        std::thread::sleep(delay);
        h.step();
        let now = h.state().loupe_photo().unwrap().to_owned();
        let sleeps = h
            .output()
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .is_none_or(|v| v.repaint_delay > Duration::from_millis(50));
        if sleeps {
            assert!(
                h.query_by_label_contains(&format!("{now} (")).is_some(),
                "the bar does not name {now}, and the window sleeps"
            );
        }
        if seen.last() != Some(&now) {
            seen.push(now);
        }
    }
    assert_eq!(
        seen,
        [
            "photo_2.jpg",
            "photo_3.jpg",
            "photo_0.jpg",
            "photo_1.jpg",
            "photo_2.jpg"
        ]
    );
}

/// F9 turns the side panel from the tags to the folder tree and back, as a
/// file manager's F9 does its side bar; with the panels hidden it shows
/// them.
#[test]
fn f9_shows_the_folder_tree_or_the_tags() {
    let (_dir, cat) = setup();
    let mut h = harness(&cat, Duration::from_secs(4));
    settle(&mut h);
    assert!(h.query_by_label("Été (4)").is_none());
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert!(h.query_by_label("Été (4)").is_some(), "no folder tree");
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert!(
        h.query_by_label("Été (4)").is_none(),
        "the tags are not back"
    );
    // Hidden panels: F9 brings them back first.
    h.get_by_role_and_label(egui::Role::Button, "photo_0.jpg")
        .click();
    h.run_steps(2);
    h.key_press(egui::Key::Tab);
    h.run_steps(2);
    assert!(h.query_by_label("Tags").is_none());
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert!(h.query_by_label("Tags").is_some(), "the panels stay hidden");
}
