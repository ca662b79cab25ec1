#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Ratings and labels: kept per file, refused when out of range, keeping
//! a vanished file's record (the user's work), following a merge, gone
//! with a removed record, copied by a recovery, and never touching the
//! search index's generation.

use catalog::{Catalog, CatalogError, Reconcile};

fn marks_of(c: &Catalog) -> Vec<(i64, u8, String)> {
    c.marks()
        .unwrap()
        .into_iter()
        .map(|(id, m)| (id, m.rating, m.label))
        .collect()
}

#[test]
fn marks_are_kept_refused_and_follow_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let mut c = Catalog::open(&path).unwrap();
    let ids = c
        .add_files(&[("/p/a.jpg", ""), ("/p/b.jpg", ""), ("/p/c.jpg", "")])
        .unwrap();
    c.set_marks(&ids[..2], Some(4), None).unwrap();
    c.set_marks(&ids[1..2], None, Some("red")).unwrap();
    assert_eq!(
        marks_of(&c),
        [(ids[0], 4, String::new()), (ids[1], 4, "red".to_owned())]
    );
    // Out of range: refused, nothing written.
    assert!(matches!(
        c.set_marks(&ids, Some(6), None),
        Err(CatalogError::BadMark(_))
    ));
    assert!(matches!(
        c.set_marks(&ids, None, Some("teal")),
        Err(CatalogError::BadMark(_))
    ));
    assert_eq!(marks_of(&c).len(), 2);
    // Clearing both leaves no row.
    c.set_marks(&ids[..1], Some(0), None).unwrap();
    assert_eq!(marks_of(&c), [(ids[1], 4, "red".to_owned())]);
    // A vanished file with a mark is kept as missing; one without goes.
    let gone = c
        .reconcile(&Reconcile {
            vanished: vec![ids[1], ids[2]],
            ..Reconcile::default()
        })
        .unwrap();
    assert_eq!((gone.kept, gone.removed), (1, 1));
    assert_eq!(c.missing_len().unwrap(), 1);
    // A recovery copies them.
    let copy = dir.path().join("copy.sqlite");
    let rec = c.recover_into(&copy).unwrap();
    assert_eq!(rec.marks, 1);
    assert_eq!(marks_of(&Catalog::open(&copy).unwrap()), marks_of(&c));
    // Removing the record removes its marks.
    c.remove(&ids[1..2]).unwrap();
    assert!(marks_of(&c).is_empty());
}

/// Two records of one file merged: the kept one takes the dropped one's
/// marks when it has none.
#[test]
fn a_merge_keeps_the_marks() {
    let mut c = Catalog::in_memory().unwrap();
    let ids = c.add_files(&[("/p/a.jpg", ""), ("/q/a.jpg", "")]).unwrap();
    c.set_marks(&ids[1..], Some(5), Some("blue")).unwrap();
    c.reconcile(&Reconcile {
        merges: vec![(ids[0], ids[1])],
        ..Reconcile::default()
    })
    .unwrap();
    assert_eq!(marks_of(&c), [(ids[0], 5, "blue".to_owned())]);
}
