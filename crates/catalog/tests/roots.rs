#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The library's roots: the folders above a root, and the root's own name,
//! are not searched (in both modes); what lies below is. A root inside
//! another adds nothing; one around others replaces them.

use catalog::{Catalog, Mode, parse};

const FILES: &[&str] = &[
    "/home/anna/Pictures/2019/06 Holiday Rome/IMG_0001.jpg",
    "/home/anna/Pictures/2019/08 Beach/DSC_0001.jpg",
    "/home/anna/Pictures/anna at home.jpg",
    "/mnt/other/pictures/x.jpg",
];

fn found(c: &Catalog, q: &str) -> (usize, usize) {
    let q = parse(q).unwrap();
    (
        c.search(&q, Mode::Default).unwrap().len(),
        c.search_seed(&q).unwrap().len(),
    )
}

#[test]
fn folders_above_a_root_are_not_searched() {
    let mut c = Catalog::in_memory().unwrap();
    let files: Vec<(&str, &str)> = FILES.iter().map(|p| (*p, "")).collect();
    c.add_files(&files).unwrap();
    assert_eq!(found(&c, "anna"), (3, 3));
    assert_eq!(found(&c, "pictures"), (4, 4));
    assert!(c.add_roots(&["/home/anna/Pictures"]).unwrap());
    // Only the file whose own name says anna; the other tree is no root.
    assert_eq!(found(&c, "anna"), (1, 1));
    assert_eq!(found(&c, "home"), (1, 1));
    assert_eq!(found(&c, "pictures"), (1, 1));
    assert_eq!(found(&c, "dir:pictures"), (1, 1));
    // Below the root, folders stay searchable.
    assert_eq!(found(&c, "rome"), (1, 1));
    assert_eq!(found(&c, "dir:2019"), (2, 2));
    assert_eq!(found(&c, "holiday rome"), (1, 1));
    // The same roots again change nothing; a root inside adds nothing.
    assert!(!c.add_roots(&["/home/anna/Pictures/"]).unwrap());
    assert!(!c.add_roots(&["/home/anna/Pictures/2019"]).unwrap());
    assert_eq!(c.roots().unwrap(), ["/home/anna/Pictures"]);
    // A root around it replaces it.
    assert!(c.add_roots(&["/home/anna", "/mnt/other"]).unwrap());
    assert_eq!(c.roots().unwrap(), ["/home/anna", "/mnt/other"]);
    assert_eq!(found(&c, "pictures"), (4, 4));
    assert_eq!(found(&c, "other"), (0, 0));
}
