#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The status bar's summary of an index run goes by itself (issue 48's
//! stale messages: "indexed in 2.4 s …" stayed forever): shown when the
//! run ends, gone ten seconds later with no input at all.

use egui_kittest::kittest::Queryable;
use viewer2::app::Options;

mod photos;
mod ui;

use ui::settle;

#[test]
fn the_index_summary_goes_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let photos_dir = dir.path().join("Holiday");
    std::fs::create_dir_all(&photos_dir).unwrap();
    std::fs::write(
        photos_dir.join("a.jpg"),
        photos::jpeg(&photos::picture(64, 48), 80),
    )
    .unwrap();
    let mut options = Options::new(dir.path().join("cat.sqlite"), vec![photos_dir]);
    options.threads = 2;
    let mut h = ui::window(options, [1000.0, 600.0]);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("indexed in").is_some(),
        "the summary is shown"
    );
    // No events: only the window's clock moves (kittest steps it).
    let start = h.ctx.input(|i| i.time);
    while h.ctx.input(|i| i.time) - start < 5.0 {
        h.step();
    }
    assert!(
        h.query_by_label_contains("indexed in").is_some(),
        "still there after 5 s"
    );
    while h.ctx.input(|i| i.time) - start < 11.0 {
        h.step();
    }
    assert!(
        h.query_by_label_contains("indexed in").is_none(),
        "gone after 10 s"
    );
}
