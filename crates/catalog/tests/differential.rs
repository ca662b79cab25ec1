#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The SQLite search against the reference meaning (`Query::matches`), on
//! random corpora and random queries: zero mismatches.

use catalog::{Catalog, Document, FileRecord, Mode, NewFile, SearchIndex, Source, parse};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "cat",
    "cute",
    "kitten",
    "dog",
    "drooly",
    "picture",
    "img",
    "café",
    "résumé",
    "straße",
    "holiday",
    "beach",
    "2019",
    "07",
    "jpg",
    "png",
    "Cat",
    "DOG",
    "Cœur",
    "coeur",
    "smørrebrød",
    "ŒUVRE",
    "Łódź",
];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_owned)
}

/// A name: words joined CamelCase, with separators, or with digits.
fn name() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(word(), 1..5),
        prop::sample::select(vec!["", " ", "_", "-", ".", "/", "'", " - ", "\u{2019}"]),
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
        // Inner punctuation: a literal (`ssl.h`, `l.j`, `2019-07`), whose
        // pieces may stand in longer words or across case changes.
        (
            word(),
            prop::sample::select(vec![".", "-", "_", "/", "'", ".."]),
            word(),
            1usize..4,
            1usize..4
        )
            .prop_map(|(a, sep, b, i, j)| {
                let a: Vec<char> = a.chars().collect();
                let tail: String = a[a.len().saturating_sub(i)..].iter().collect();
                let head: String = b.chars().take(j).collect();
                format!("{tail}{sep}{head}")
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
            "camera:\"canon eos\"",
            "camera:\"eos 5\"",
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
    prop::collection::vec(item(), 1..6).prop_map(|v| v.join(" "))
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
            .map(|(p, c, cam, d)| NewFile { path: p, caption: c, size: 0, mtime: 0, raw_path: None, camera: cam, date: d, identity: Default::default() })
            .collect();
        let ids = cat.add(&files).unwrap();
        let prepared: Vec<Document> = docs.iter().map(|(p, c, cam, d)| Document::with_meta(p, c, cam, d)).collect();
        let built = SearchIndex::build(ids.iter().zip(&docs).map(|(&id, (p, c, cam, d))| Source { id, path: p, caption: c, camera: cam, date: d })).unwrap();
        // Through its stored form, as a new process would load it.
        let mut index = SearchIndex::from_bytes(&built.to_bytes()).unwrap();
        // Bound every folder before ranking it, however small.
        index.set_bound_min_folder(0);
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
                if mode == Mode::Seed {
                    // The seed's own tables and SQL.
                    prop_assert_eq!(&cat.search_seed(&q).unwrap(), &expected, "seed tables: query {:?}", text);
                }
                // The index, every match and ranked pages.
                prop_assert_eq!(&index.search(&q, mode, usize::MAX, false), &expected, "index: query {:?} in {:?} mode", text, mode);
                prop_assert_eq!(index.count(&q, mode), expected.len());
                let mut best: Vec<(u32, i64)> = ids
                    .iter()
                    .zip(&prepared)
                    .filter(|(_, d)| q.matches_document(mode, d))
                    .map(|(&id, d)| (q.rank(mode, d), id))
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

/// An alternative that excludes what it asks for matches nothing, found
/// without reading a file; one whose exclusion is matched another way (a
/// short word within words, a long one across them) still finds files.
#[test]
fn exclusions_of_what_is_asked_for() {
    let (_, ids, index) = bounded(&[("p/CuteKitten.jpg", ""), ("p/annabelle.jpg", "")]);
    for (query, want) in [
        ("anna -anna", vec![]),
        ("annabel -anna", vec![]),
        ("anna -annabel", vec![]),
        // `ek` is in no word: the file is not excluded.
        ("tek -ek", vec![ids[0]]),
        ("tek -ek OR anna", vec![ids[0], ids[1]]),
    ] {
        let q = parse(query).unwrap();
        for mode in [Mode::Default, Mode::Seed] {
            let want = if mode == Mode::Seed && query.starts_with("tek") {
                &want[1..]
            } else {
                &want[..]
            };
            assert_eq!(
                index.search(&q, mode, 10, false),
                want,
                "{query} in {mode:?} mode"
            );
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
    // Another program's SQLite file: refused, untouched.
    let foreign = dir.join("foreign.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
            .unwrap();
    }
    let before = std::fs::read(&foreign).unwrap();
    let err = Catalog::open(&foreign)
        .err()
        .expect("another program's database opened");
    assert!(err.to_string().contains("not a catalogue"), "{err}");
    assert_eq!(std::fs::read(&foreign).unwrap(), before);
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
    assert_eq!(
        cat.search_seed_ranked(&q, 10).unwrap(),
        [ids[2], ids[1], ids[0]]
    );
    // A fuzzy word's exact matches come before its typo matches.
    let more = cat
        .add_files(&[("kitchen.jpg", ""), ("kiten.jpg", "")])
        .unwrap();
    assert_eq!(
        cat.search_ranked(&parse("kiten~").unwrap(), Mode::Default, 10)
            .unwrap(),
        [more[1], ids[0], ids[1], ids[2]]
    );
    // `cute kitten OR dog`: each alternative is scored on its own terms, so
    // the files with a dog tie with the near pair (a dog is not punished
    // for having no kitten), and the reversed pair comes last.
    assert_eq!(
        cat.search_ranked(&parse("cute kitten OR dog").unwrap(), Mode::Default, 4)
            .unwrap(),
        [ids[0], ids[2], ids[3], ids[1]]
    );
    // One term: every match ties, in id order.
    assert_eq!(
        cat.search_ranked(&parse("kitten").unwrap(), Mode::Default, 10)
            .unwrap(),
        [ids[0], ids[1], ids[2]]
    );
}

/// A version-1 catalogue (folded copies and a trigram table in SQLite, the
/// seed's tables filled) is migrated in place and keeps its files.
#[test]
fn version_1_catalogues_are_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE files (
                 file_id INTEGER PRIMARY KEY, path TEXT NOT NULL,
                 caption TEXT NOT NULL DEFAULT '', path_folded TEXT NOT NULL DEFAULT '',
                 caption_folded TEXT NOT NULL DEFAULT '', name_start INTEGER NOT NULL DEFAULT 0,
                 dir_folded TEXT NOT NULL DEFAULT '', name_folded TEXT NOT NULL DEFAULT '',
                 ext TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL DEFAULT 0,
                 mtime INTEGER NOT NULL DEFAULT 0, raw_path BLOB,
                 camera TEXT NOT NULL DEFAULT '', camera_folded TEXT NOT NULL DEFAULT '',
                 date TEXT NOT NULL DEFAULT '');
             CREATE INDEX files_by_path ON files (path);
             CREATE INDEX files_by_ext ON files (ext);
             CREATE TABLE trigrams (tri INTEGER NOT NULL, file_id INTEGER NOT NULL,
                 PRIMARY KEY (tri, file_id)) WITHOUT ROWID;
             CREATE TABLE tokens (token_id INTEGER PRIMARY KEY, word TEXT UNIQUE NOT NULL);
             CREATE TABLE links (token_id INTEGER NOT NULL, file_id INTEGER NOT NULL,
                 field INTEGER NOT NULL, position INTEGER NOT NULL);
             CREATE INDEX links_by_token ON links (token_id, file_id);
             CREATE INDEX links_by_file ON links (file_id, field, position);
             CREATE INDEX trigrams_by_file ON trigrams (file_id);
             INSERT INTO files (file_id, path, caption, path_folded, name_start, ext, size, mtime)
                 VALUES (7, 'a/CuteCat.jpg', 'Sofa', 'a/cutecat.jpg', 1, 'jpg', 10, 20);
             INSERT INTO tokens VALUES (1, 'a'), (2, 'cute'), (3, 'cat'), (4, 'jpg'), (5, 'sofa');
             INSERT INTO links VALUES (1, 7, 0, 0), (2, 7, 0, 1), (3, 7, 0, 2), (4, 7, 0, 3),
                 (5, 7, 1, 0);
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let cat = Catalog::open(&path).unwrap();
    assert_eq!(cat.len().unwrap(), 1);
    assert_eq!(
        cat.search(&parse("tec").unwrap(), Mode::Default).unwrap(),
        [7]
    );
    assert_eq!(cat.search_seed(&parse("cute sofa").unwrap()).unwrap(), [7]);
    assert_eq!(cat.stamps_under("a/").unwrap()[0].size, 10);
    drop(cat);
    let c = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
    let old: i64 = c
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'trigrams'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(old, 0);
}

/// Letters NFD leaves whole (œ, ø, ł, þ, …) are found as readers type
/// them, in names, folders and captions, by the index, the seed's tables
/// and the reference alike.
#[test]
fn letters_without_accents_to_drop_are_found_as_typed() {
    let mut cat = Catalog::in_memory().unwrap();
    let ids = cat
        .add_files(&[
            ("/p/Paris/Sacré-Cœur at dusk.jpg", ""),
            ("/p/Kraków/IMG_0001.jpg", "lunch in Łódź"),
            ("/p/Ísland/Þingvellir.jpg", "smørrebrød by the Øresund"),
            ("/p/other/coeur.png", ""),
        ])
        .unwrap();
    for (q, want) in [
        ("coeur", vec![ids[0], ids[3]]),
        ("sacre coeur", vec![ids[0]]),
        ("lodz", vec![ids[1]]),
        ("krakow", vec![ids[1]]),
        ("thingvellir", vec![ids[2]]),
        ("smorrebrod oresund", vec![ids[2]]),
        ("Cœur -png", vec![ids[0]]),
    ] {
        let query = parse(q).unwrap();
        let mut got = cat.search(&query, Mode::Default).unwrap();
        got.sort_unstable();
        assert_eq!(got, want, "{q}");
        let mut seed = cat.search_seed(&query).unwrap();
        seed.sort_unstable();
        assert_eq!(seed, want, "{q} (seed)");
    }
}

/// Every change is seen by the next search, the stored index is used by a
/// new connection, and a rename or an edited caption keeps the file's id.
#[test]
fn changes_reach_the_index_and_keep_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let mut cat = Catalog::open(&path).unwrap();
    let ids = cat
        .add_files(&[("/p/IMG_1.jpg", "beach"), ("/p/IMG_2.jpg", "")])
        .unwrap();
    let find = |cat: &Catalog, q: &str| cat.search(&parse(q).unwrap(), Mode::Default).unwrap();
    assert_eq!(find(&cat, "beach"), [ids[0]]);
    assert!(cat.set_caption(ids[1], "Sunset over the Beach").unwrap());
    assert_eq!(find(&cat, "beach"), ids);
    cat.rename(&[(ids[1], "/q/Renamed.jpg", None)]).unwrap();
    assert_eq!(find(&cat, "renamed sunset"), [ids[1]]);
    // A changed file keeps the caption the user wrote.
    cat.update(&[(
        ids[1],
        NewFile {
            path: "/q/Renamed.jpg",
            caption: "from the file",
            size: 5,
            mtime: 6,
            raw_path: None,
            camera: "Canon",
            date: "",
            identity: Default::default(),
        },
    )])
    .unwrap();
    assert_eq!(find(&cat, "camera:canon sunset"), [ids[1]]);
    assert_eq!(find(&cat, "from"), Vec::<i64>::new());
    cat.remove(&[ids[0]]).unwrap();
    assert_eq!(find(&cat, "img"), Vec::<i64>::new());
    cat.refresh_index().unwrap();
    drop(cat);
    let cat = Catalog::open(&path).unwrap();
    assert_eq!(find(&cat, "sunset"), [ids[1]]);
    assert_eq!(
        cat.search_seed(&parse("sunset").unwrap()).unwrap(),
        [ids[1]]
    );
}

/// A catalogue of `files` (path, caption), its ids, and its index with
/// every folder bounded before it is ranked, however small.
fn bounded(files: &[(&str, &str)]) -> (Catalog, Vec<i64>, SearchIndex) {
    let mut cat = Catalog::in_memory().unwrap();
    let ids = cat.add_files(files).unwrap();
    let mut index = (*cat.search_index().unwrap()).clone();
    index.set_bound_min_folder(0);
    (cat, ids, index)
}

/// The first `limit` files `index` ranks for `query`.
fn ranked(index: &SearchIndex, query: &str, limit: usize) -> Vec<i64> {
    index.search(&parse(query).unwrap(), Mode::Default, limit, true)
}

/// Ranked pages pass over folders whose files cannot beat the page; a term
/// that is in the folder's words may still score best from the name.
#[test]
fn ranked_pages_do_not_pass_over_a_better_name() {
    let (cat, ids, index) = bounded(&[
        ("p/dog x cat.jpg", ""),
        ("x/cat/y/y/y/y/y/DogCat.jpg", ""),
        ("x/cat/y/y/y/y/y/Dog.jpg", ""),
    ]);
    let q = parse("dog cat").unwrap();
    let want = [ids[1], ids[0], ids[2]];
    for limit in [1, 3] {
        assert_eq!(
            cat.search_ranked(&q, Mode::Default, limit).unwrap(),
            want[..limit]
        );
        // The same with every folder bounded first.
        assert_eq!(ranked(&index, "dog cat", limit), want[..limit]);
    }
}

/// A ranked page keeps files whose term matches only across words (a
/// substring over a case change), in the name or in the caption: the bound
/// that passes folders over must let such a term be absent from the words.
#[test]
fn ranked_pages_keep_matches_across_words() {
    let (cat, ids, index) = bounded(&[
        ("a/dog/b/c/d/e/f/g/h/i/j/k/tek.jpg", ""),
        ("x/y/DogCuteKitten.jpg", ""),
        ("x/z/Dog.jpg", "CuteKitten"),
    ]);
    let q = parse("dog tek").unwrap();
    // Scores: 11 (far apart), 8 (tek only across words), 8.
    let want = [ids[1], ids[2], ids[0]];
    assert_eq!(cat.search_ranked(&q, Mode::Default, 3).unwrap(), want);
    for limit in 1..=3 {
        assert_eq!(ranked(&index, "dog tek", limit), want[..limit]);
    }
}

/// The folder bound takes a name word's exact places: one place later
/// would pass over a file that belongs on the page.
#[test]
fn ranked_pages_use_exact_name_places() {
    let (_, ids, index) = bounded(&[
        // dog at 1, cat at 11: 9.
        ("p/dog/a/b/c/d/e/f/g/h/i/cat.jpg", ""),
        // cat at 1 in the folder, dog at 7 in the name, reversed: 8.
        ("x/cat/y/y/y/y/y/Dog.jpg", ""),
    ]);
    assert_eq!(ranked(&index, "dog cat", 1), [ids[1]]);
    assert_eq!(ranked(&index, "dog cat", 2), [ids[1], ids[0]]);
}

/// The folder bound takes the places names have numbers at: one place
/// later would pass over a file that belongs on the page.
#[test]
fn ranked_pages_use_number_places() {
    let (_, ids, index) = bounded(&[
        // dog at 1, 2019 at 3: 1.
        ("p/dog/x/2019.jpg", ""),
        // dog at 1, 2019 at 2, the name's first word: 0.
        ("q/dog/2019.jpg", ""),
    ]);
    assert_eq!(ranked(&index, "dog 2019", 1), [ids[1]]);
    assert_eq!(ranked(&index, "dog 01", 1), [ids[1]]);
}

/// A file whose caption holds the terms side by side beats the page even
/// where its folder and name hold none of them: the caption words' lists
/// must stop the pass over its folder there.
#[test]
fn ranked_pages_find_a_better_caption() {
    let (_, ids, index) = bounded(&[
        // dog cat one word apart in the path: 1.
        ("p/dog/x/cat.jpg", ""),
        // Side by side in the caption: 0; the path lacks both.
        ("q/zzz/b.jpg", "a dog cat"),
    ]);
    assert_eq!(ranked(&index, "dog cat", 1), [ids[1]]);
    assert_eq!(ranked(&index, "dog cat", 2), [ids[1], ids[0]]);
}

/// A file is scored on the alternatives it matches only: its terms of
/// another alternative side by side do not count when an exclusion keeps
/// it out of that one.
#[test]
fn ranked_pages_score_only_matching_alternatives() {
    let (cat, ids, index) = bounded(&[
        // cat dog one word apart (the second alternative): 1.
        ("a/cat/b/dog.jpg", ""),
        // cat zebra five words apart: 5; cat dog side by side, but bird
        // keeps it out of the second alternative.
        ("cat dog bird/u/v/w/zebra.jpg", ""),
    ]);
    let query = "cat zebra OR cat dog -bird";
    assert_eq!(ranked(&index, query, 1), [ids[0]]);
    assert_eq!(ranked(&index, query, 2), [ids[0], ids[1]]);
    let q = parse(query).unwrap();
    assert_eq!(cat.search_ranked(&q, Mode::Default, 1).unwrap(), [ids[0]]);
}

/// Four terms are bounded too, by trying every choice of places, or, where
/// the choices are too many, by the terms a folder lacks alone. Each bound
/// here equals the better file's score: one higher would pass it over.
#[test]
fn ranked_pages_bound_four_terms() {
    let (_, ids, index) = bounded(&[
        // dog cat owl bee spread over 6 places for 4 terms: 2.
        ("p/dog/cat/y/y/owl/Bee.jpg", ""),
        // Over 5: 1.
        ("x/dog/cat/y/owl/Bee.jpg", ""),
        // aa bb cc dd over 5: 1.
        ("p/aa/bb/cc/x/dd.jpg", ""),
        // Side by side (4 × 4 places in the folder: too many to try): 0.
        ("aa/bb/cc/dd/aa/bb/cc/dd/aa/bb/cc/dd/aa/bb/cc/dd/f.jpg", ""),
    ]);
    assert_eq!(ranked(&index, "dog cat owl bee", 1), [ids[1]]);
    assert_eq!(ranked(&index, "aa bb cc dd", 1), [ids[3]]);
}

/// A date taken that is not a date is refused with the file's path, and the
/// whole batch is left out (one transaction), not half written.
#[test]
fn bad_dates_are_refused_whole() {
    let mut cat = Catalog::in_memory().unwrap();
    let long = "2019-".repeat(20);
    for date in [long.as_str(), "2019\0-07"] {
        let files = [
            NewFile {
                path: "a/ok.jpg",
                caption: "",
                size: 0,
                mtime: 0,
                raw_path: None,
                camera: "",
                date: "",
                identity: Default::default(),
            },
            NewFile {
                path: "a/bad.jpg",
                caption: "",
                size: 0,
                mtime: 0,
                raw_path: None,
                camera: "",
                date,
                identity: Default::default(),
            },
        ];
        let err = cat.add(&files).expect_err("a bad date accepted");
        assert!(err.to_string().contains("a/bad.jpg"), "{err}");
        assert_eq!(cat.len().unwrap(), 0);
    }
}

/// `files` lists every record as stored, after edits, renames and
/// removals.
#[test]
fn files_lists_what_is_stored() {
    let mut cat = Catalog::in_memory().unwrap();
    let new = |path, caption, size, mtime, camera, date| NewFile {
        path,
        caption,
        size,
        mtime,
        raw_path: None,
        camera,
        date,
        identity: Default::default(),
    };
    let ids = cat
        .add(&[
            new("/p/a.jpg", "sea", 10, 100, "X100", "2019-06-01 10:00:00"),
            new("/p/b.jpg", "", 20, 200, "", ""),
            new("/p/c.jpg", "", 30, 300, "", ""),
        ])
        .unwrap();
    assert!(cat.set_caption(ids[1], "my words").unwrap());
    let raw: &[u8] = b"/p/\xffd.jpg";
    cat.rename(&[(ids[2], "/p/\u{fffd}d.jpg", Some(raw))])
        .unwrap();
    cat.remove(&[ids[0]]).unwrap();
    let files = cat.files().unwrap();
    assert_eq!(
        files,
        [
            FileRecord {
                id: ids[1],
                path: "/p/b.jpg".into(),
                raw_path: None,
                caption: "my words".into(),
                camera: String::new(),
                date: String::new(),
                size: 20,
                mtime: 200,
            },
            FileRecord {
                id: ids[2],
                path: "/p/\u{fffd}d.jpg".into(),
                raw_path: Some(raw.to_vec()),
                caption: String::new(),
                camera: String::new(),
                date: String::new(),
                size: 30,
                mtime: 300,
            },
        ]
    );
}
