#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Ratings and colour labels in the window, driven headless by
//! egui_kittest: 0–5 give stars, 6–9 labels (again: off), both kept in
//! the catalogue across restarts, searchable (`rating:>=4`, `label:red`),
//! drawn on the thumbnail, and undone by Ctrl+Z.

use std::path::Path;

use catalog::Catalog;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use viewer2::app::{Options, ViewerApp};

mod ui;

use ui::settle;

fn catalogue(dir: &Path) -> std::path::PathBuf {
    let cat = dir.join("cat.sqlite");
    ui::add_photos(&cat, &["/p/a.jpg", "/p/b.jpg", "/p/c.jpg", "/p/d.jpg"]);
    cat
}

fn harness(cat: &Path) -> Harness<'static, ViewerApp> {
    let mut options = Options::new(cat.to_owned(), vec![]);
    options.threads = 1;
    ui::window(options, [1200.0, 800.0])
}

fn query(h: &mut Harness<'static, ViewerApp>, text: &str) {
    h.get_by_label("Search").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.key_press(egui::Key::Backspace);
    h.get_by_label("Search").type_text(text);
    settle(h);
}

/// Star-coloured shapes painted in the last frame.
fn stars_painted(h: &Harness<'static, ViewerApp>) -> usize {
    let gold = egui::Color32::from_rgb(250, 205, 60);
    h.output()
        .shapes
        .iter()
        .filter(|s| matches!(&s.shape, egui::Shape::Path(p) if p.fill == gold))
        .count()
}

#[test]
fn digits_rate_and_label_and_the_query_finds_them() {
    let dir = tempfile::tempdir().unwrap();
    let cat = catalogue(dir.path());
    {
        let mut h = harness(&cat);
        settle(&mut h);
        assert_eq!(stars_painted(&h), 0);
        h.get_by_role_and_label(egui::Role::Button, "b.jpg").click();
        h.run_steps(1);
        h.key_press(egui::Key::Num4);
        settle(&mut h);
        assert!(h.query_by_label_contains("Gave 1 photo 4 stars").is_some());
        assert!(h.query_by_label("4 of 5 (0–5 to change)").is_some());
        // Four stars of a pentagon and five tips each.
        assert_eq!(stars_painted(&h), 4 * 6);
        // Shift+click extends the selection; 6 labels both red.
        h.get_by_role_and_label(egui::Role::Button, "c.jpg")
            .click_modifiers(egui::Modifiers::SHIFT);
        h.run_steps(1);
        h.key_press(egui::Key::Num6);
        settle(&mut h);
        assert!(h.query_by_label_contains("Labelled 2 photos red").is_some());
        query(&mut h, "rating:>=4");
        assert_eq!(h.state().shown(), 1);
        query(&mut h, "label:red");
        assert_eq!(h.state().shown(), 2);
        query(&mut h, "-label:red");
        assert_eq!(h.state().shown(), 2);
        query(&mut h, "rating:9");
        assert!(h.query_by_label_contains("a rating is 0 to 5").is_some());
        query(&mut h, "");
        // 6 again on photos that have red: off; Ctrl+Z: back on.
        h.get_by_role_and_label(egui::Role::Button, "c.jpg").click();
        h.run_steps(1);
        h.key_press(egui::Key::Num6);
        settle(&mut h);
        assert!(
            h.query_by_label_contains("Took the label off 1 photo")
                .is_some()
        );
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
        settle(&mut h);
        query(&mut h, "label:red");
        assert_eq!(h.state().shown(), 2);
        assert!(h.state_mut().shut_down(std::time::Duration::from_secs(5)));
    }
    // Kept across restarts.
    let mut h = harness(&cat);
    settle(&mut h);
    query(&mut h, "rating:4 label:red");
    assert_eq!(h.state().shown(), 1);
    let marks = Catalog::open(&cat).unwrap().marks().unwrap();
    assert_eq!(marks.len(), 2);
}
