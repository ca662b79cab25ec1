#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The seed's own examples, the folding and splitting rules, and the query
//! language's errors.

use catalog::{fold, parse, tokenize};
use proptest::prelude::*;

fn words(s: &str) -> Vec<String> {
    tokenize(s).into_iter().map(|t| t.word).collect()
}

#[test]
fn seed_tokenizer_examples() {
    assert_eq!(
        words("CuteKittenPicture.jpg"),
        ["cute", "kitten", "picture", "jpg"]
    );
    assert_eq!(
        words("Cute kitten picture.jpg"),
        ["cute", "kitten", "picture", "jpg"]
    );
    assert_eq!(words("IMG1234"), ["img", "1234"]);
    assert_eq!(
        words("MyCat_2019-07.JPG"),
        ["my", "cat", "2019", "07", "jpg"]
    );
    // The seed splits on lower→upper only: an acronym stays whole.
    assert_eq!(words("HTMLFile"), ["htmlfile"]);
    let t = tokenize("a b c");
    assert_eq!(t.iter().map(|t| t.position).collect::<Vec<_>>(), [0, 1, 2]);
}

#[test]
fn folding_makes_case_accents_and_normal_forms_equal() {
    assert_eq!(fold("Café"), "cafe");
    assert_eq!(fold("CAFE\u{301}"), "cafe");
    // Letters NFD leaves whole are spelt as readers type them.
    assert_eq!(fold("Sacré-Cœur"), "sacre-coeur");
    assert_eq!(fold("ŒUVRE Æsir"), "oeuvre aesir");
    assert_eq!(fold("Smørrebrød Øresund"), "smorrebrod oresund");
    assert_eq!(fold("Łódź Ŀa"), "lodz la");
    assert_eq!(fold("Đakovo Ðór"), "dakovo dor");
    assert_eq!(fold("Þingvellir þorp"), "thingvellir thorp");
    assert_eq!(
        fold("Kırıkkale ſtraße STRASSE ẞ"),
        "kirikkale strasse strasse ss"
    );
    assert_eq!(fold("Ħamrun Ŧ"), "hamrun t");
    assert_eq!(fold("Straße"), "strasse");
    // NFC and NFD names split and fold the same.
    assert_eq!(words("caf\u{e9}Bar"), words("cafe\u{301}Bar"));
    assert_eq!(words("caf\u{e9}Bar"), ["cafe", "bar"]);
    let q = parse("é").unwrap();
    assert!(q.matches(&["resume.txt"]) && q.matches(&["résumé"]));
}

fn hits(query: &str, docs: &[&str]) -> Vec<usize> {
    let q = parse(query).unwrap();
    docs.iter()
        .enumerate()
        .filter(|(_, d)| q.matches(&[d]))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn seed_query_examples() {
    let docs = [
        "CuteKittenPicture.jpg", // 0
        "kitten.png",            // 1
        "dog drooly.jpg",        // 2
        "cat cute.gif",          // 3
        "cat.jpg",               // 4
        "dog.png",               // 5
    ];
    assert_eq!(hits("kitten -jpg", &docs), [1]);
    assert_eq!(hits("cat OR dog", &docs), [2, 3, 4, 5]);
    // AND binds tighter than OR: (cat AND cute) OR (dog AND drooly).
    assert_eq!(hits("cat cute OR dog drooly", &docs), [2, 3]);
    // A query word is split like a name: a phrase of its parts.
    assert_eq!(hits("CuteKitten", &docs), [0]);
    assert_eq!(hits("KittenCute", &docs), Vec::<usize>::new());
    // Substrings of tokens match (the seed's LIKE '%term%' on tokens)...
    assert_eq!(hits("itte", &docs), [0, 1]);
    // ...but not across token boundaries in this mode.
    assert_eq!(hits("tek", &docs), Vec::<usize>::new());
    // Only exclusions: everything except.
    assert_eq!(hits("-jpg", &docs), [1, 3, 5]);
    assert_eq!(hits("", &docs), [0, 1, 2, 3, 4, 5]);
    // Phrases and groups.
    assert_eq!(hits("\"dog drooly\"", &docs), [2]);
    assert_eq!(hits("\"drooly dog\"", &docs), Vec::<usize>::new());
    assert_eq!(hits("(cat OR dog) -png", &docs), [2, 3, 4]);
    // Fuzzy: one typo for a short word, two for a long one.
    assert_eq!(hits("kiten~", &docs), [0, 1]);
    assert_eq!(hits("kiten", &docs), Vec::<usize>::new());
    assert_eq!(hits("pictre~", &docs), [0]);
}

#[test]
fn errors_point_at_the_character() {
    for (q, at, what) in [
        ("cat (dog", 4, "never closed"),
        ("cat dog)", 7, "never opened"),
        ("\"red car", 0, "never closed"),
        ("cat OR", 6, "OR needs"),
        ("OR cat", 0, "OR needs"),
        ("cat OR OR dog", 7, "OR needs"),
        ("cat - dog", 4, "'-' needs"),
        ("a ()", 2, "empty parentheses"),
        ("a \"  \"", 2, "no words"),
        // Words of no letter or digit: what each is, not "OR needs".
        ("😀", 0, "has no letter or digit"),
        ("\\", 0, "has no letter or digit"),
        ("cat OR 😀", 7, "has no letter or digit"),
        (":", 0, "makes a field filter"),
        ("*", 0, "no wildcards"),
        ("cat *", 4, "no wildcards"),
        ("~", 0, "allows a typo"),
        // Dates that do not exist, and ranges that end before they start.
        ("date:2019-13-45", 0, "there is no month 13"),
        ("date:2019-02-30", 0, "February 2019 has 28 days"),
        ("date:2020-02-30", 0, "February 2020 has 29 days"),
        ("date:2019..2018", 0, "ends before it starts"),
        ("date:2019-07-02..2019-07-01", 0, "ends before it starts"),
        ("date:abc", 0, "a date looks like"),
        ("date:19-01", 0, "a date looks like"),
        // A lone parenthesis says what it is (issue 45 item 16).
        ("(", 0, "never closed"),
        (")", 0, "never opened"),
        ("cat (", 4, "never closed"),
        (") cat", 0, "never opened"),
        ("(cat OR)", 7, "OR needs"),
    ] {
        let e = parse(q).unwrap_err();
        assert_eq!(e.position, at, "{q:?}: {e}");
        assert!(e.message.contains(what), "{q:?}: {e}");
        assert!(e.to_string().contains(&format!("character {at}")));
    }
}

/// A repeated term or alternative is kept once; real dates and ranges
/// parse.
#[test]
fn repeats_are_kept_once_and_real_dates_parse() {
    assert_eq!(
        parse("b b b b b b b b b b b b b b").unwrap(),
        parse("b").unwrap()
    );
    assert_eq!(
        parse("beach rome beach rome OR rome OR rome").unwrap(),
        parse("beach rome OR rome").unwrap()
    );
    for ok in [
        "date:2019",
        "date:2020-02-29",
        "date:2019-06..2019-08",
        "date:2019..2019",
        "date:2019-06..2019",
        "kitten , cat",
    ] {
        assert!(parse(ok).is_ok(), "{ok}");
    }
}

proptest! {
    /// Any text parses or gives an error inside it; never a panic.
    #[test]
    fn parsing_never_panics(q in "[a-zA-Zé0-9 ()\"~\\-OR.]{0,40}") {
        match parse(&q) {
            Ok(query) => { let _ = query.matches(&["some file name.jpg", "a caption"]); }
            Err(e) => prop_assert!(e.position <= q.chars().count()),
        }
    }

    /// Excluding a term is the complement of including it.
    #[test]
    fn exclusion_is_the_complement(word in "[a-z]{1,4}", doc in "[a-zA-Z ._0-9]{0,30}") {
        let yes = parse(&word).unwrap().matches(&[&doc]);
        let no = parse(&format!("-{word}")).unwrap().matches(&[&doc]);
        prop_assert_ne!(yes, no);
    }

    /// OR is the union and AND the intersection of single terms.
    #[test]
    fn or_and_and_combine(a in "[a-z]{1,3}", b in "[a-z]{1,3}", doc in "[a-zA-Z ._]{0,30}") {
        let one = |q: &str| parse(q).unwrap().matches(&[&doc]);
        prop_assert_eq!(one(&format!("{a} OR {b}")), one(&a) || one(&b));
        prop_assert_eq!(one(&format!("{a} {b}")), one(&a) && one(&b));
    }
}

proptest! {
    /// ASCII names take a byte-wise fast path in the tokenizer; it must
    /// split exactly as the general path does (a non-ASCII word appended
    /// sends the same text down the general path).
    #[test]
    fn ascii_fast_path_splits_as_the_general_one(text in "[a-zA-Z0-9 ._/-]{0,40}") {
        let fast: Vec<String> = words(&text);
        let mut general = words(&format!("{text} \u{e9}t\u{e9}"));
        prop_assert_eq!(general.pop(), Some("ete".to_owned()));
        prop_assert_eq!(fast, general);
    }

    /// Each word as written folds to the tokenizer's word in its place.
    #[test]
    fn words_as_written_fold_to_the_tokens(text in "[a-zA-Z0-9 ._/éÉœŒßøÅ\u{301}ǅ日本-]{0,40}") {
        let written: Vec<String> = catalog::words_as_written(&text)
            .iter()
            .map(|w| catalog::fold(w))
            .collect();
        prop_assert_eq!(written, words(&text));
    }
}

proptest! {
    /// The literal form of ASCII text is the text lower-cased, without the
    /// punctuation before its first word and after its last; the general
    /// (non-ASCII) path agrees, a letter with an accent put in front.
    #[test]
    fn literal_form_is_the_lowered_text(text in "[a-zA-Z0-9 ._/'-]{0,40}") {
        let outer = |c: char| !c.is_ascii_alphanumeric();
        let lowered = text.to_ascii_lowercase();
        prop_assert_eq!(catalog::literal(&text), lowered.trim_matches(outer));
        let accented = format!("e{lowered}");
        prop_assert_eq!(catalog::literal(&format!("\u{e9}{text}")), accented.trim_end_matches(outer));
    }

    /// In the default mode a word with inner punctuation matches exactly
    /// the files whose lower-cased name holds it; an exclusion removes
    /// exactly those.
    #[test]
    fn punctuated_words_match_their_literal_text(
        word in "[a-z0-9]{1,3}[._'/-][a-z0-9]{1,3}",
        name in "[a-zA-Z0-9 ._'-]{0,30}",
    ) {
        let holds = name.to_ascii_lowercase().contains(&word);
        let mode = catalog::Mode::Default;
        prop_assert_eq!(parse(&word).unwrap().matches_in(mode, &[&name]), holds);
        prop_assert_eq!(parse(&format!("-{word}")).unwrap().matches_in(mode, &[&name]), !holds);
    }
}

/// Everything's and fsearch's rule: `ssl.h` is those five characters, not
/// a phrase of `ssl` and `h`; the seed mode keeps the phrase.
#[test]
fn punctuation_inside_a_word_is_literal() {
    let docs = [
        "include/openssl.h",         // 0
        "include/opensslv.h",        // 1
        "ssl h notes.txt",           // 2
        "IMG_1234.JPG",              // 3
        "IMG 1234.JPG",              // 4
        "2019-06-14 Rome.jpg",       // 5
        "2019_06_14.jpg",            // 6
        "L\u{2019}Amour.jpg",        // 7
        "Sacr\u{e9}-C\u{153}ur.jpg", // 8
        "Sacr\u{e9} C\u{153}ur.jpg", // 9
        "Paul.JPG",                  // 10
        "Paul Jones.jpg",            // 11
    ];
    let found = |q: &str| -> Vec<usize> {
        let q = parse(q).unwrap();
        (0..docs.len())
            .filter(|&i| q.matches_in(catalog::Mode::Default, &[docs[i]]))
            .collect()
    };
    assert_eq!(
        catalog::literal("L\u{2019}Amour \u{2013} Caf\u{e9}_2019.JPG"),
        "l'amour - cafe_2019.jpg"
    );
    assert_eq!(found("ssl.h"), [0]);
    assert_eq!(found("SSL.H"), [0]);
    assert_eq!(found("l.j"), [10]);
    assert_eq!(
        found("-l.j"),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11],
        "only files holding l.j go"
    );
    assert_eq!(found("img_12"), [3]);
    assert_eq!(found("2019-06"), [5]);
    assert_eq!(
        found("l'amour"),
        [7],
        "a typographic apostrophe is the typed one"
    );
    assert_eq!(found("sacre-coeur"), [8]);
    assert_eq!(found("include/openssl.h"), [0]);
    assert_eq!(found("include/openssl"), [0, 1]);
    // A word of one part, and a quoted phrase, are as before.
    assert_eq!(found("coeur"), [8, 9]);
    assert_eq!(found("\"sacre coeur\""), [8, 9]);
    // The seed's meaning: a phrase of the parts.
    let seed = parse("ssl.h").unwrap();
    assert!(
        seed.matches(&[docs[1]]),
        "seed mode: opensslv.h holds ssl then h"
    );
}

/// A field filter's value may be quoted: a phrase in that field.
#[test]
fn quoted_field_values_are_phrases() {
    let d = catalog::Document::with_meta("a.jpg", "", "Canon EOS 5D", "");
    let other = catalog::Document::with_meta("canon eos.jpg", "", "NIKON D750", "");
    let q = parse("camera:\"canon eos\"").unwrap();
    assert!(q.matches_document(catalog::Mode::Default, &d));
    assert!(!q.matches_document(catalog::Mode::Default, &other));
    assert!(
        !parse("camera:\"eos canon\"")
            .unwrap()
            .matches_document(catalog::Mode::Default, &d)
    );
    let e = parse("camera:\"canon").unwrap_err();
    assert!(e.message.contains("never closed"), "{e}");
}

/// `--fuzzy` makes every word fuzzy, exclusions included; `ext:` and
/// `date:` stay exact.
#[test]
fn fuzzy_query_tolerates_typos_everywhere() {
    let q = parse("kiten holidy -dgg ext:jpg").unwrap().fuzzy();
    assert!(q.matches(&["Holiday/Kitten.jpg"]));
    assert!(
        !q.matches(&["Holiday/Kitten dog.jpg"]),
        "the exclusion is fuzzy too"
    );
    assert!(!q.matches(&["Holiday/Kitten.jpe"]), "ext: stays exact");
    assert!(!parse("kiten").unwrap().matches(&["Kitten.jpg"]));
}

/// A stored date with stray non-ASCII never panics the date filter.
#[test]
fn odd_dates_do_not_panic() {
    let d = catalog::Document::with_meta("a.jpg", "", "", "2019-0\u{e9}-14");
    let _ = parse("date:2019-07-14")
        .unwrap()
        .matches_document(catalog::Mode::Default, &d);
    // Half a month, a day of eleven digits: refused, saying why.
    for q in ["date:2019-0", "date:2019..2020-01-01-01"] {
        assert!(
            parse(q).unwrap_err().message.contains("a date looks like"),
            "{q}"
        );
    }
    let ok = catalog::Document::with_meta("a.jpg", "", "", "2019-07-14 10:00:00");
    assert!(
        parse("date:2019-07")
            .unwrap()
            .matches_document(catalog::Mode::Default, &ok)
    );
    assert!(
        !parse("date:2019-08..2020")
            .unwrap()
            .matches_document(catalog::Mode::Default, &ok)
    );
}

/// Issue 45 item 12: nesting is bounded (a stack overflow once killed the
/// window at 3,000 `(`), the error names the limit at the parenthesis
/// that passes it, and the limit itself parses and searches.
#[test]
fn nesting_deeper_than_the_limit_is_an_error_not_a_crash() {
    use catalog::{MAX_DEPTH, Mode, SearchIndex, Source};
    for depth in [MAX_DEPTH + 1, 3_000, 12_000, 200_000] {
        let q = format!("{}cat{}", "(".repeat(depth), ")".repeat(depth));
        let e = parse(&q).unwrap_err();
        assert_eq!(e.position, MAX_DEPTH, "{depth}: {e}");
        assert!(
            e.message
                .contains(&format!("nested deeper than {MAX_DEPTH}")),
            "{e}"
        );
        // Unclosed, the same.
        let e = parse(&"(".repeat(depth)).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{e}");
    }
    // At the limit: parsed and searched, on a thread's default 2 MiB stack (every walk
    // over the query recurses once a level).
    let q = format!(
        "{}cat OR -dog{}",
        "(-(".repeat(MAX_DEPTH / 2),
        "))".repeat(MAX_DEPTH / 2)
    );
    let hits = std::thread::Builder::new()
        .stack_size(1 << 21)
        .spawn(move || {
            let q = parse(&q).unwrap();
            let index = SearchIndex::build([Source {
                id: 1,
                path: "/a/cat.jpg",
                caption: "",
                camera: "",
                date: "",
            }])
            .unwrap();
            let hits = index.search(&q, Mode::Default, 10, true);
            drop(q);
            hits
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert!(hits.len() <= 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Random long and deep queries of every piece of the language:
    /// never a panic or a stack overflow (on a thread's default 2 MiB stack), and an error
    /// always points inside the query.
    #[test]
    fn any_query_parses_or_errors_inside_it(
        pieces in proptest::collection::vec(
            prop_oneof![
                Just("(".to_owned()), Just(")".to_owned()), Just("-".to_owned()),
                Just(" OR ".to_owned()), Just("\"".to_owned()), Just(" ".to_owned()),
                Just("~".to_owned()), Just("name:".to_owned()), Just("date:2019..".to_owned()),
                "[a-zé0-9]{1,6}", "\\PC{1,3}",
            ],
            0..3000,
        ),
        deep in 0usize..400,
    ) {
        let q = format!("{}{}", "(".repeat(deep), pieces.concat());
        let len = q.chars().count();
        let got = std::thread::Builder::new()
            .stack_size(1 << 21)
            .spawn(move || parse(&q).map(|_| ()))
            .unwrap()
            .join();
        match got {
            Ok(Ok(())) => {}
            Ok(Err(e)) => prop_assert!(e.position <= len, "{e} in {len} characters"),
            Err(_) => prop_assert!(false, "the parser panicked"),
        }
    }
}
