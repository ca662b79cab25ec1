#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The window's catalogue thread: loading, debounced searches, caption
//! edits, background indexing, a broken catalogue.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use catalog::Catalog;
use viewer2::library::Sort;
use viewer2::searcher::{Answer, Found, Searcher};

fn start(cat: &Path, dirs: &[&Path]) -> Searcher {
    Searcher::start(
        cat.to_owned(),
        dirs.iter().map(|d| d.to_path_buf()).collect(),
        Arc::new(|| {}),
    )
    .unwrap()
}

/// Answers until `stop` says so (10 s at most), all of them.
fn until(s: &Searcher, mut stop: impl FnMut(&Answer) -> bool) -> Vec<Answer> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Some(a) = s.recv_timeout(Duration::from_millis(50)) {
            let done = stop(&a);
            seen.push(a);
            if done {
                return seen;
            }
        }
    }
    panic!("no such answer; got {seen:?}");
}

fn found(s: &mut Searcher, text: &str, sort: Sort) -> Found {
    let seq = s.search(text, sort, false);
    let answers = until(s, |a| matches!(a, Answer::Found(f) if f.seq == seq));
    match answers.into_iter().last() {
        Some(Answer::Found(f)) => f,
        _ => unreachable!(),
    }
}

fn names(f: &Found) -> Vec<String> {
    f.rows
        .iter()
        .map(|&r| f.library.photos[r as usize].name.clone())
        .collect()
}

fn catalogue(dir: &Path) -> (std::path::PathBuf, Vec<i64>) {
    let path = dir.join("cat.sqlite");
    let mut cat = Catalog::open(&path).unwrap();
    let ids = cat
        .add_files(&[
            ("/p/CuteKitten.jpg", "Sofa"),
            ("/p/dog.jpg", ""),
            ("/p/kitten2.png", ""),
            ("/q/boat.jpg", "Sea"),
        ])
        .unwrap();
    (path, ids)
}

#[test]
fn searches_answer_with_rows_and_a_cloud() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = catalogue(dir.path());
    let mut s = start(&path, &[]);
    let loaded = until(&s, |a| matches!(a, Answer::Loaded(_)));
    assert!(matches!(loaded.last(), Some(Answer::Loaded(l)) if l.len() == 4));
    let f = found(&mut s, "kitten", Sort::Name);
    assert_eq!(names(&f), ["CuteKitten.jpg", "kitten2.png"]);
    assert!(f.error.is_none());
    assert!(
        f.cloud
            .iter()
            .any(|t| t.term == "name:kitten" && t.count == 2)
    );
    let f = found(&mut s, "", Sort::Name);
    assert_eq!(f.rows.len(), 4);
    // A query that does not parse says where, and shows everything.
    let f = found(&mut s, "kitten (", Sort::Name);
    assert!(
        f.error.as_deref().unwrap().contains("character"),
        "{:?}",
        f.error
    );
    assert_eq!(f.rows.len(), 4);
}

#[test]
fn only_the_newest_of_quick_keystrokes_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = catalogue(dir.path());
    let mut s = start(&path, &[]);
    until(&s, |a| matches!(a, Answer::Loaded(_)));
    for text in ["k", "ki", "kit", "kitt", "kitte"] {
        s.search(text, Sort::Relevance, false);
    }
    let last = s.latest();
    let answers = until(&s, |a| matches!(a, Answer::Found(f) if f.seq == last));
    let founds: Vec<&Found> = answers
        .iter()
        .filter_map(|a| match a {
            Answer::Found(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(founds.len(), 1, "stale searches answered: {founds:?}");
    assert_eq!(founds[0].text, "kitte");
}

#[test]
fn an_edited_caption_is_searchable_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (path, ids) = catalogue(dir.path());
    let mut s = start(&path, &[]);
    until(&s, |a| matches!(a, Answer::Loaded(_)));
    assert!(found(&mut s, "lighthouse", Sort::Name).rows.is_empty());
    s.set_caption(ids[1], "Lighthouse at dusk");
    let answers = until(&s, |a| matches!(a, Answer::Loaded(_)));
    assert!(
        answers
            .iter()
            .any(|a| matches!(a, Answer::CaptionSaved { id, error: None } if *id == ids[1]))
    );
    let f = found(&mut s, "lighthouse", Sort::Name);
    assert_eq!(names(&f), ["dog.jpg"]);
    assert_eq!(
        f.library.photos[f.rows[0] as usize].caption,
        "Lighthouse at dusk"
    );
    // It is in the catalogue, not only in memory.
    let cat = Catalog::open(&path).unwrap();
    assert_eq!(cat.file(ids[1]).unwrap().unwrap().1, "Lighthouse at dusk");
    // A photo gone from the catalogue is an error, not a crash.
    s.set_caption(9999, "x");
    let answers = until(&s, |a| matches!(a, Answer::CaptionSaved { .. }));
    assert!(matches!(
        answers.last(),
        Some(Answer::CaptionSaved { error: Some(_), .. })
    ));
}

#[test]
fn opened_on_folders_it_indexes_them_and_shows_only_them() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = catalogue(dir.path());
    let photos = dir.path().join("photos");
    std::fs::create_dir_all(photos.join("sub")).unwrap();
    for name in ["a.jpg", "b.png", "sub/c.jpg", "notes.txt"] {
        std::fs::write(photos.join(name), b"not really an image").unwrap();
    }
    let mut s = start(&path, &[&photos]);
    // First the catalogue as it is: nothing under the folder yet.
    let first = until(&s, |a| matches!(a, Answer::Loaded(_)));
    assert!(matches!(first.last(), Some(Answer::Loaded(l)) if l.is_empty()));
    // The run's library comes before the news that it ended.
    let answers = until(&s, |a| matches!(a, Answer::Indexed(_)));
    assert!(
        answers
            .iter()
            .any(|a| matches!(a, Answer::Loaded(l) if l.len() == 3))
    );
    let report = answers.iter().find_map(|a| match a {
        Answer::Indexed(r) => Some(r.as_ref().unwrap()),
        _ => None,
    });
    assert_eq!(report.unwrap().added, 3);
    assert!(answers.iter().any(|a| matches!(
        a,
        Answer::Indexing(viewer2::indexer::Progress::BuildingIndex)
    )));
    let f = found(&mut s, "", Sort::Name);
    assert_eq!(names(&f), ["a.jpg", "b.png", "c.jpg"]);
}

#[test]
fn a_file_that_is_not_a_catalogue_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, b"not a database at all, just text").unwrap();
    let s = start(&junk, &[]);
    let answers = until(&s, |a| matches!(a, Answer::Failed(_)));
    assert!(matches!(answers.last(), Some(Answer::Failed(e)) if e.contains("junk.sqlite")));
    assert_eq!(
        std::fs::read(&junk).unwrap(),
        b"not a database at all, just text"
    );
}

/// Moving a file onto a name that is taken moves nothing and says why;
/// a free name moves it and the catalogue records the new path.
#[test]
fn a_file_move_never_replaces_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("x.jpg"), b"mine").unwrap();
    std::fs::write(b.join("x.jpg"), b"theirs").unwrap();
    std::fs::write(a.join("y.jpg"), b"free").unwrap();
    let cat_path = dir.path().join("cat.sqlite");
    let ids = Catalog::open(&cat_path)
        .unwrap()
        .add_files(&[
            (&a.join("x.jpg").to_string_lossy(), ""),
            (&a.join("y.jpg").to_string_lossy(), ""),
        ])
        .unwrap();
    let s = start(&cat_path, &[]);
    until(&s, |a| matches!(a, Answer::TableLoaded(_)));
    s.move_file(ids[0], b.clone());
    let answers = until(&s, |a| matches!(a, Answer::FileMoved(_)));
    match answers.last() {
        Some(Answer::FileMoved(Err(e))) => assert!(e.contains("is already there"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(a.join("x.jpg")).unwrap(), b"mine");
    assert_eq!(std::fs::read(b.join("x.jpg")).unwrap(), b"theirs");
    s.move_file(ids[1], b.clone());
    let answers = until(&s, |a| matches!(a, Answer::FileMoved(_)));
    let moved = b.join("y.jpg").to_string_lossy().into_owned();
    match answers.last() {
        Some(Answer::FileMoved(Ok(path))) => assert_eq!(path, &moved),
        other => panic!("{other:?}"),
    }
    assert!(!a.join("y.jpg").exists());
    assert_eq!(std::fs::read(b.join("y.jpg")).unwrap(), b"free");
    let files = Catalog::open(&cat_path).unwrap().files().unwrap();
    assert!(files.iter().any(|f| f.path == moved), "{files:?}");
}
