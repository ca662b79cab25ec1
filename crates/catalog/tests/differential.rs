#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The SQLite search against the reference meaning (`Query::matches`), on
//! random corpora and random queries: zero mismatches.

use catalog::{Catalog, Document, Mode, NewFile, SearchIndex, Source, parse};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "cat", "cute", "kitten", "dog", "drooly", "picture", "img", "café", "résumé", "straße",
    "holiday", "beach", "2019", "07", "jpg", "png", "Cat", "DOG",
];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_owned)
}

/// A name: words joined CamelCase, with separators, or with digits.
fn name() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(word(), 1..5),
        prop::sample::select(vec!["", " ", "_", "-", ".", "/"]),
    )
        .prop_map(|(ws, sep)| {
            let mut s = String::new();
            for (i, w) in ws.iter().enumerate() {
                if i > 0 {
                    s.push_str(sep);
                }
                if sep.is_empty() {
                    let mut c = w.chars();
                    if let Some(f) = c.next() {
                        s.extend(f.to_uppercase());
                        s.push_str(c.as_str());
                    }
                } else {
                    s.push_str(w);
                }
            }
            s
        })
}

/// A query term: a whole word, a piece of one, a fuzzy word with a typo, or
/// a phrase.
fn term() -> impl Strategy<Value = String> {
    prop_oneof![
        word(),
        (word(), 0usize..3, 1usize..4).prop_map(|(w, a, n)| w
            .chars()
            .skip(a)
            .take(n)
            .collect::<String>()),
        (word(), any::<prop::sample::Index>()).prop_map(|(w, i)| {
            let mut c: Vec<char> = w.chars().collect();
            if c.len() > 2 {
                c.remove(i.index(c.len()));
            }
            format!("{}~", c.into_iter().collect::<String>())
        }),
        (word(), word()).prop_map(|(a, b)| format!("\"{a} {b}\"")),
        // Short runs of common letters: these often match across token
        // boundaries (`tek` in `CuteKitten`), where the modes differ.
        "[aceiktou]{3,4}",
        // The end of one word and the start of another: across a boundary
        // wherever the two stand side by side (`tek`, `g20`).
        (word(), word(), 1usize..3, 1usize..3).prop_map(|(a, b, i, j)| {
            let a: Vec<char> = a.to_lowercase().chars().collect();
            let tail: String = a[a.len().saturating_sub(i)..].iter().collect();
            let head: String = b.to_lowercase().chars().take(j).collect();
            tail + &head
        }),
    ]
    .prop_filter("a term must have a letter or digit", |t| {
        t.chars().any(char::is_alphanumeric)
    })
}

/// A field filter: `name:`, `dir:` or `caption:` on a plain or fuzzy word
/// or a piece of one, or `ext:` on an extension.
fn scoped() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop::sample::select(vec!["name", "dir", "caption", "NAME"]),
            term()
        )
            .prop_filter("no phrases in a field filter", |(_, t)| !t.starts_with('"'))
            .prop_map(|(f, t)| format!("{f}:{t}")),
        prop::sample::select(vec!["ext:jpg", "ext:png", "ext:JPG", "ext:07", "ext:jp"])
            .prop_map(str::to_owned),
        prop::sample::select(vec![
            "camera:canon",
            "camera:d7",
            "camera:EOS",
            "camera:iphon~",
            "camera:5",
            "camera:nikon"
        ])
        .prop_map(str::to_owned),
        prop::sample::select(vec![
            "date:2019",
            "date:2019-06..2019-07",
            "date:2020-01-02",
            "date:2019-07..2020",
            "date:2021"
        ])
        .prop_map(str::to_owned),
    ]
}

fn item() -> impl Strategy<Value = String> {
    prop_oneof![3 => term(), 1 => scoped(), 1 => term().prop_map(|t| format!("-{t}"))]
}

fn and() -> impl Strategy<Value = String> {
    prop::collection::vec(item(), 1..4).prop_map(|v| v.join(" "))
}

fn query() -> impl Strategy<Value = String> {
    let leaf = prop::collection::vec(and(), 1..3).prop_map(|v| v.join(" OR "));
    leaf.prop_recursive(2, 8, 3, |inner| {
        (inner.clone(), and(), any::<bool>())
            .prop_map(|(g, a, neg)| format!("{a} {}({g})", if neg { "-" } else { "" }))
    })
}

proptest! {
    #[test]
    fn search_matches_the_reference_in_both_modes(
        docs in prop::collection::vec((
            name(),
            prop_oneof![Just(String::new()), name()],
            prop::sample::select(vec!["", "Canon EOS 5D", "NIKON D750", "iPhone 12"]),
            prop::sample::select(vec!["", "2019-07-14 10:00:00", "2020-01-02 08:30:00", "2019-06-30 23:59:59", "2021-12-31 00:00:00"]),
        ), 1..40),
        queries in prop::collection::vec(query(), 1..8),
    ) {
        let mut cat = Catalog::in_memory().unwrap();
        let files: Vec<NewFile<'_>> = docs
            .iter()
            .map(|(p, c, cam, d)| NewFile { path: p, caption: c, size: 0, mtime: 0, raw_path: None, camera: cam, date: d })
            .collect();
        let ids = cat.add(&files).unwrap();
        let prepared: Vec<Document> = docs.iter().map(|(p, c, cam, d)| Document::with_meta(p, c, cam, d)).collect();
        let index = SearchIndex::build(ids.iter().zip(&docs).map(|(&id, (p, c, cam, d))| Source { id, path: p, caption: c, camera: cam, date: d })).unwrap();
        for text in &queries {
            let q = match parse(text) {
                Ok(q) => q,
                Err(e) => return Err(TestCaseError::fail(format!("generated query {text:?} does not parse: {e}"))),
            };
            for mode in [Mode::Seed, Mode::Default] {
                let expected: Vec<i64> = ids
                    .iter()
                    .zip(&prepared)
                    .filter(|(_, d)| q.matches_document(mode, d))
                    .map(|(&id, _)| id)
                    .collect();
                let got = cat.search(&q, mode).unwrap();
                // Ranking reorders the same files.
                let mut ranked = cat.search_ranked(&q, mode, usize::MAX).unwrap();
                ranked.sort_unstable();
                prop_assert_eq!(&ranked, &got);
                prop_assert_eq!(&got, &expected, "query {:?} in {:?} mode", text, mode);
                // The index, every match and ranked pages.
                prop_assert_eq!(&index.search(&q, mode, usize::MAX, false), &expected, "index: query {:?} in {:?} mode", text, mode);
                prop_assert_eq!(index.count(&q, mode), expected.len());
                let mut best: Vec<(u32, i64)> = ids
                    .iter()
                    .zip(&prepared)
                    .filter(|(_, d)| q.matches_document(mode, d))
                    .map(|(&id, d)| (q.rank(d), id))
                    .collect();
                best.sort_unstable();
                for limit in [1, 3, usize::MAX] {
                    let want: Vec<i64> = best.iter().take(limit).map(|&(_, id)| id).collect();
                    prop_assert_eq!(index.search(&q, mode, limit, true), want, "index ranked: query {:?} in {:?} mode, limit {}", text, mode, limit);
                    let first: Vec<i64> = expected.iter().take(limit).copied().collect();
                    prop_assert_eq!(index.search(&q, mode, limit, false), first);
                }
            }
        }
    }
}

#[test]
fn seed_examples_through_sqlite() {
    let mut cat = Catalog::in_memory().unwrap();
    let ids = cat
        .add_files(&[
            ("CuteKittenPicture.jpg", ""),
            ("kitten.png", "sleepy"),
            ("dog drooly.jpg", ""),
            ("cat cute.gif", ""),
            ("holiday/IMG1234.JPG", "Café on the beach"),
        ])
        .unwrap();
    let run = |q: &str| cat.search_seed(&parse(q).unwrap()).unwrap();
    assert_eq!(run("kitten -jpg"), [ids[1]]);
    assert_eq!(run("cat cute OR dog drooly"), [ids[2], ids[3]]);
    assert_eq!(run("CuteKitten"), [ids[0]]);
    assert_eq!(run("img1234"), [ids[4]]);
    assert_eq!(run("cafe beach"), [ids[4]]);
    assert_eq!(run("sleepy"), [ids[1]]);
    assert_eq!(run("-jpg"), [ids[1], ids[3]]);
    assert_eq!(cat.file(ids[4]).unwrap().unwrap().1, "Café on the beach");
    // The default mode finds substrings across token boundaries (3+
    // characters); the seed mode does not.
    let q = parse("tek").unwrap();
    assert_eq!(cat.search(&q, Mode::Default).unwrap(), [ids[0]]);
    assert_eq!(cat.search(&q, Mode::Seed).unwrap(), Vec::<i64>::new());
    // Field filters.
    let run_d = |q: &str| cat.search(&parse(q).unwrap(), Mode::Default).unwrap();
    assert_eq!(run_d("dir:holiday"), [ids[4]]);
    assert_eq!(run_d("name:holiday"), Vec::<i64>::new());
    assert_eq!(run_d("name:img"), [ids[4]]);
    assert_eq!(run_d("caption:beach"), [ids[4]]);
    assert_eq!(run_d("caption:kitten"), Vec::<i64>::new());
    assert_eq!(run_d("ext:jpg"), [ids[0], ids[2], ids[4]]);
    assert_eq!(run_d("ext:jp"), Vec::<i64>::new());
    assert!(parse("name:").is_err());
    // Two-letter terms use the token dictionary in both modes.
    assert_eq!(
        cat.search(&parse("ki").unwrap(), Mode::Default).unwrap(),
        [ids[0], ids[1]]
    );
}

#[test]
fn bad_catalogue_files_are_refused_untouched() {
    let dir = std::env::temp_dir().join(format!("catalog-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Not a database: an error, and the file is left as it was.
    let junk = dir.join("junk.db");
    let bytes = b"this is a text file, not a catalogue; it must survive".repeat(100);
    std::fs::write(&junk, &bytes).unwrap();
    let err = Catalog::open(&junk)
        .err()
        .expect("a text file opened as a catalogue");
    assert!(err.to_string().contains("not a database"), "{err}");
    assert_eq!(std::fs::read(&junk).unwrap(), bytes);
    // A newer schema: refused, untouched.
    let newer = dir.join("newer.db");
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        c.execute_batch("CREATE TABLE files (x); PRAGMA user_version = 99;")
            .unwrap();
    }
    let before = std::fs::read(&newer).unwrap();
    let err = Catalog::open(&newer)
        .err()
        .expect("a newer catalogue opened");
    assert!(err.to_string().contains("schema version 99"), "{err}");
    assert_eq!(std::fs::read(&newer).unwrap(), before);
    // A real one opens twice, keeps its files, and searches.
    let good = dir.join("good.db");
    let mut c = Catalog::open(&good).unwrap();
    let ids = c.add_files(&[("a/CuteCat.jpg", "")]).unwrap();
    drop(c);
    let c = Catalog::open(&good).unwrap();
    assert_eq!(c.search_seed(&parse("cat").unwrap()).unwrap(), ids);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The seed's NEAR example: for [cute kitten], "Here is a cute dog. It is
/// not a kitten" ranks below texts with the words together, and the exact
/// order ranks above the reversed one.
#[test]
fn near_and_order_rank_higher() {
    let mut cat = Catalog::in_memory().unwrap();
    let ids = cat
        .add_files(&[
            ("a.jpg", "Here is a cute dog. It is not a kitten"),
            ("b.jpg", "kitten cute"),
            ("c.jpg", "cute kitten on a sofa"),
            ("d.jpg", "dog"),
        ])
        .unwrap();
    let q = parse("cute kitten").unwrap();
    assert_eq!(
        cat.search_ranked(&q, Mode::Seed, 10).unwrap(),
        [ids[2], ids[1], ids[0]]
    );
    assert_eq!(
        cat.search_ranked(&q, Mode::Seed, 2).unwrap(),
        [ids[2], ids[1]]
    );
    // One term: every match ties, in id order.
    assert_eq!(
        cat.search_ranked(&parse("kitten").unwrap(), Mode::Default, 10)
            .unwrap(),
        [ids[0], ids[1], ids[2]]
    );
}
