#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The browser's library (sort orders, scope) and tag cloud, against
//! naive oracles.

use catalog::{Document, FileRecord, Mode, parse};
use proptest::prelude::*;
use viewer2::library::{Library, Sort};
use viewer2::tags::toggle_term;

const WORDS: &[&str] = &[
    "Kitten", "dog", "Golden", "Gate", "sunset", "IMG", "beach", "Café", "holiday", "x100v",
    "2019", "DSC", "sea", "7", "10", "007", "_2",
];

fn record(
    id: i64,
    dir: u8,
    name: &str,
    caption: &str,
    camera: &str,
    date: &str,
    size: i64,
) -> FileRecord {
    FileRecord {
        id,
        path: format!(
            "/photos/{}/{name}",
            ["Holiday", "work", "Beach Trip"][dir as usize % 3]
        ),
        raw_path: None,
        caption: caption.to_owned(),
        camera: camera.to_owned(),
        date: date.to_owned(),
        size,
        mtime: size * 7 % 13,
    }
}

fn words(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..max).prop_map(|w| w.join(" "))
}

fn records() -> impl Strategy<Value = Vec<FileRecord>> {
    prop::collection::vec(
        (
            0u8..3,
            words(3),
            prop::sample::select(&["jpg", "PNG", "heic"][..]),
            prop::collection::vec(words(6), 0..3),
            prop::sample::select(&["", "X100V", "Canon EOS 5D"][..]),
            prop::sample::select(&["", "2019-06-01 10:00:00", "2020-01-02 03:04:05"][..]),
            0i64..5,
        ),
        0..40,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (dir, name, ext, caption, camera, date, size))| {
                let mut parts = caption;
                if !camera.is_empty() {
                    parts.push(camera.to_owned());
                }
                record(
                    (i as i64) * 3 + 1,
                    dir,
                    &format!("{name}{i}.{ext}"),
                    &parts.join(" | "),
                    camera,
                    date,
                    size,
                )
            })
            .collect()
    })
}

/// The oracle's natural order: a name as chunks, each run of digits one
/// number compared by value (and before any character, as a name's
/// characters here are all above U+0001).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Chunk {
    Number(u128),
    Text(char),
}

fn natural(name: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut digits = String::new();
    for c in name.chars().map(Some).chain([None]) {
        match c {
            Some(d) if d.is_ascii_digit() => digits.push(d),
            _ => {
                if !digits.is_empty() {
                    out.push(Chunk::Number(digits.parse().unwrap()));
                    digits.clear();
                }
                if let Some(c) = c {
                    out.push(Chunk::Text(c));
                }
            }
        }
    }
    out
}

fn ids(lib: &Library, rows: &[u32]) -> Vec<i64> {
    rows.iter().map(|&r| lib.photos[r as usize].id).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(128)
    ))]

    /// Every order is the naive sort by its key, ties by folded name, then
    /// path, then id.
    #[test]
    fn sort_orders_match_a_naive_sort(recs in records()) {
        let lib = Library::new(recs.clone(), &[]);
        let name_key = |r: &FileRecord| {
            let (_, name) = catalog::split_path(&r.path);
            (natural(&catalog::fold(name)), catalog::fold(&r.path), r.id)
        };
        let mut by_name = recs.clone();
        by_name.sort_by_key(name_key);
        let mut by_date = recs.clone();
        by_date.sort_by_key(|r| (r.date.is_empty(), r.date.clone(), name_key(r)));
        let mut by_mtime = recs.clone();
        by_mtime.sort_by_key(|r| (r.mtime, name_key(r)));
        let mut by_size = recs.clone();
        by_size.sort_by_key(|r| (r.size, name_key(r)));
        let expect = |v: &[FileRecord]| v.iter().map(|r| r.id).collect::<Vec<_>>();
        prop_assert_eq!(ids(&lib, &lib.all(Sort::Name)), expect(&by_name));
        prop_assert_eq!(ids(&lib, &lib.all(Sort::Relevance)), expect(&by_name));
        prop_assert_eq!(ids(&lib, &lib.all(Sort::DateTaken)), expect(&by_date));
        prop_assert_eq!(ids(&lib, &lib.all(Sort::Modified)), expect(&by_mtime));
        prop_assert_eq!(ids(&lib, &lib.all(Sort::Size)), expect(&by_size));
        // A result keeps its ranking under Relevance and drops unknown ids;
        // other orders sort it.
        let mut ranked: Vec<i64> = recs.iter().rev().map(|r| r.id).collect();
        ranked.insert(0, 2); // not in the library (ids are 1 mod 3)
        let expected: Vec<i64> = recs.iter().rev().map(|r| r.id).collect();
        prop_assert_eq!(ids(&lib, &lib.rows_of(&ranked, Sort::Relevance)), expected);
        let sorted = lib.rows_of(&ranked, Sort::Size);
        prop_assert_eq!(ids(&lib, &sorted), expect(&by_size));
        // Turned around: the naive order reversed, except that photos
        // without a date stay last.
        for (sort, naive) in [
            (Sort::Name, &by_name),
            (Sort::Modified, &by_mtime),
            (Sort::Size, &by_size),
        ] {
            let mut rows = lib.all(sort);
            lib.reverse(&mut rows, sort);
            let mut want = expect(naive);
            want.reverse();
            prop_assert_eq!(ids(&lib, &rows), want);
        }
        let mut rows = lib.all(Sort::DateTaken);
        lib.reverse(&mut rows, Sort::DateTaken);
        let (mut dated, undated): (Vec<_>, Vec<_>) =
            by_date.iter().partition(|r| !r.date.is_empty());
        dated.reverse();
        let want: Vec<i64> = dated.iter().chain(undated.iter()).map(|r| r.id).collect();
        prop_assert_eq!(ids(&lib, &rows), want);
    }

    /// A scope keeps exactly the photos under its folders.
    #[test]
    fn scope_keeps_the_folders_photos(recs in records()) {
        let scope = vec!["/photos/work/".to_owned(), "/photos/Beach Trip/".to_owned()];
        let lib = Library::new(recs.clone(), &scope);
        let mut expected: Vec<i64> = recs
            .iter()
            .filter(|r| !r.path.starts_with("/photos/Holiday/"))
            .map(|r| r.id)
            .collect();
        expected.sort_unstable();
        let got: Vec<i64> = lib.photos.iter().map(|p| p.id).collect();
        prop_assert_eq!(got, expected);
    }

    /// Each tag of a result's cloud counts the result's photos carrying
    /// it, and its term, as a query, finds every one of them: clicking it
    /// narrows the result to them (or keeps it whole). A photo carries a
    /// cloud tag when any of its tags reads the same, case and accents
    /// aside, whatever the source (issue 48: one tag per word), and no two
    /// cloud tags read the same.
    #[test]
    fn cloud_terms_find_the_tagged_photos(recs in records(), keep in prop::collection::vec(any::<bool>(), 40)) {
        let lib = Library::new(recs, &[]);
        let rows: Vec<u32> = (0..lib.len() as u32).filter(|&r| keep[r as usize]).collect();
        let cloud = lib.tags.cloud(&rows, 1000);
        for tag in &cloud {
            let q = parse(&tag.term).unwrap();
            let carrying: Vec<u32> = rows
                .iter()
                .copied()
                .filter(|&r| {
                    lib.tags
                        .of(r as usize)
                        .any(|t| catalog::fold(&t.text) == catalog::fold(&tag.text))
                })
                .collect();
            prop_assert_eq!(carrying.len() as u32, tag.count, "{}", tag.term);
            for &r in &carrying {
                let p = &lib.photos[r as usize];
                let d = Document::with_meta(&p.text_path, &p.caption, &p.camera, &p.date);
                prop_assert!(q.matches_document(Mode::Default, &d), "{} on {:?}", tag.term, p);
            }
            prop_assert!((0.0..=1.0).contains(&tag.weight));
        }
        // Alphabetical, each once.
        let texts: Vec<String> = cloud.iter().map(|t| catalog::fold(&t.text)).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(texts, sorted);
    }

    /// Clicking a tag twice gives the query back, and a query that parses
    /// still parses with the tag in it, meaning "the query AND the tag".
    #[test]
    fn toggling_a_term_twice_is_the_identity(q in words(4), or in any::<bool>(), term in prop::sample::select(&["caption:\"golden gate\"", "dir:holiday", "name:kitten"][..])) {
        let q = if or && !q.is_empty() { format!("{q} OR dog") } else { q };
        prop_assume!(!q.split_whitespace().any(|w| w == term));
        let with = toggle_term(&q, term);
        prop_assert!(with.ends_with(term), "{}", with);
        prop_assert!(parse(&with).is_ok(), "{}", with);
        prop_assert_eq!(toggle_term(&with, term), q.split_whitespace().collect::<Vec<_>>().join(" "));
    }
}

#[test]
fn tags_come_from_keywords_descriptions_cameras_names_and_folders() {
    let lib = Library::new(
        vec![
            record(
                1,
                2,
                "IMG_1234_the_SleepyKitten.jpg",
                "Golden Gate | A long description of the bridge at sunset | X100V",
                "X100V",
                "",
                1,
            ),
            record(2, 0, "DSC0001.jpg", "Golden Gate", "", "", 1),
            record(3, 1, "other.jpg", "", "", "", 1),
        ],
        &[],
    );
    let terms: Vec<String> = lib.tags.of(0).map(|t| t.term.clone()).collect();
    for expected in [
        "caption:\"golden gate\"",
        "caption:bridge",
        "caption:sunset",
        "caption:description",
        "camera:x100v",
        "name:sleepy",
        "name:kitten",
        "dir:beach",
        "dir:trip",
    ] {
        assert!(
            terms.iter().any(|t| t == expected),
            "{expected} in {terms:?}"
        );
    }
    // Camera prefixes, numbers, stop words and the camera's own caption
    // part give no tag.
    for absent in [
        "name:img",
        "name:1234",
        "caption:the",
        "caption:x100v",
        "name:dsc",
    ] {
        assert!(!terms.iter().any(|t| t == absent), "{absent} in {terms:?}");
    }
    let cloud = lib.tags.cloud(&[0, 1], 100);
    let gate = cloud
        .iter()
        .find(|t| t.term == "caption:\"golden gate\"")
        .unwrap();
    assert_eq!(
        (gate.text.as_str(), gate.count, gate.weight),
        ("Golden Gate", 2, 1.0)
    );
    // `max` keeps the most telling: the shared keyword is the most common
    // in the result, but every tag of photo 0 alone is as rare.
    assert_eq!(
        lib.tags.cloud(&[0, 1], 1)[0].term,
        "caption:\"golden gate\""
    );
    assert!(lib.tags.cloud(&[], 10).is_empty());
    // A tag of every photo is no use in the cloud.
    let same = Library::new(
        vec![
            record(1, 0, "a.jpg", "", "", "", 1),
            record(2, 0, "b.jpg", "", "", "", 1),
        ],
        &[],
    );
    assert!(same.tags.of(0).any(|t| t.term == "dir:holiday"));
    assert!(same.tags.cloud(&[0, 1], 10).is_empty());
}

#[test]
fn a_caption_edit_retags_the_photo() {
    let mut lib = Library::new(vec![record(5, 0, "a.jpg", "", "", "", 1)], &[]);
    assert!(
        lib.tags
            .cloud(&[0], 10)
            .iter()
            .all(|t| !t.term.starts_with("caption:"))
    );
    lib.set_caption(5, "Lighthouse");
    assert_eq!(lib.photos[0].caption, "Lighthouse");
    let cloud = lib.tags.cloud(&[0], 10);
    assert!(
        cloud
            .iter()
            .any(|t| t.term == "caption:lighthouse" && t.count == 1)
    );
    lib.set_caption(5, "");
    assert!(
        lib.tags
            .cloud(&[0], 10)
            .iter()
            .all(|t| !t.term.starts_with("caption:"))
    );
}

/// With room for a few tags, the user's words win over camera models and
/// file-name fragments carried by more photos, and folder names come
/// between.
#[test]
fn the_users_words_weigh_most_in_the_cloud() {
    let mut records = Vec::new();
    for i in 0..12 {
        // Every photo: a camera model; 6 a name fragment; 3 a keyword; 3
        // a folder word.
        let name = if i < 6 {
            format!("received_{i}.jpg")
        } else {
            format!("{i}.jpg")
        };
        let caption = if i < 3 { "Lighthouse" } else { "" };
        let camera = if i % 2 == 0 { "Pixel 7" } else { "X100V" };
        records.push(record(
            i + 1,
            (i % 4 == 0) as u8 * 2,
            &name,
            caption,
            camera,
            "",
            1,
        ));
    }
    let lib = Library::new(records, &[]);
    let rows: Vec<u32> = (0..12).collect();
    let top: Vec<String> = lib
        .tags
        .cloud(&rows, 1)
        .into_iter()
        .map(|t| t.term)
        .collect();
    assert_eq!(top, ["caption:lighthouse"]);
    let three: Vec<String> = lib
        .tags
        .cloud(&rows, 3)
        .into_iter()
        .map(|t| t.term)
        .collect();
    assert!(three.contains(&"dir:beach".to_owned()), "{three:?}");
    assert!(!three.contains(&"name:received".to_owned()), "{three:?}");
}

/// A word of one file's name is left out of a large result's cloud (it
/// leads to one photo), and kept when the result is small.
#[test]
fn one_files_name_words_stay_out_of_a_large_cloud() {
    let mut records: Vec<FileRecord> = (0..30)
        .map(|i| record(i + 1, (i % 3) as u8, &format!("IMG_{i}.jpg"), "", "", "", 1))
        .collect();
    records.push(record(100, 0, "a very long name indeed.jpg", "", "", "", 1));
    let lib = Library::new(records, &[]);
    let all: Vec<u32> = (0..31).collect();
    let terms: Vec<String> = lib
        .tags
        .cloud(&all, 80)
        .into_iter()
        .map(|t| t.term)
        .collect();
    assert!(!terms.contains(&"name:very".to_owned()), "{terms:?}");
    let one: Vec<String> = lib
        .tags
        .cloud(&[30], 80)
        .into_iter()
        .map(|t| t.term)
        .collect();
    assert!(one.contains(&"name:very".to_owned()), "{one:?}");
}
