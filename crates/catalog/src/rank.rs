//! [`Query::rank`] for the index's documents, without allocating: the
//! search ranks every file it offers before the page fills, so the plain
//! definition (which splits the path into a vector of words per file) was
//! most of a ranked query's time.
//!
//! Only queries of plain words take this path (no phrase, no fuzzy term);
//! the others are ranked by the definition itself. The differential test
//! holds both to the same pages.

use memchr::memmem;

use crate::query::{Query, Term};
use crate::token::{JOIN, is_separator};

/// How many places of a term the ranking looks at (see `rank_terms`).
pub(crate) const PLACES: usize = 8;

/// A term's first places (word indexes) in a string.
#[derive(Clone, Copy, Default)]
pub(crate) struct Places {
    at: [u32; PLACES],
    len: usize,
}

impl Places {
    pub(crate) fn push(&mut self, w: u32) {
        if self.len < PLACES && (self.len == 0 || self.at[self.len - 1] != w) {
            self.at[self.len] = w;
            self.len += 1;
        }
    }

    pub(crate) fn get(&self) -> &[u32] {
        &self.at[..self.len]
    }
}

/// The ranking's terms: at most this many per alternative take the fast
/// path.
const TERMS: usize = 6;

/// One alternative of the query, as the ranking sees it: searchers for
/// its wanted terms' words, in query order.
struct Alternative<'q> {
    finders: Vec<memmem::Finder<'q>>,
}

/// Ranks documents as [`Query::rank`] does, for a query whose wanted
/// terms are all plain single words.
pub(crate) struct Ranker<'q> {
    alternatives: Vec<Alternative<'q>>,
    /// The folder last ranked (its text's address and length), its word
    /// count and each term's places in it, alternative by alternative:
    /// files come folder by folder.
    folder: (usize, usize),
    folder_words: u32,
    folder_places: Vec<[Places; TERMS]>,
}

impl<'q> Ranker<'q> {
    /// `None` where a wanted term is a phrase, fuzzy, empty, holds a
    /// separator, an alternative has more than [`TERMS`] of them, or the
    /// query more than 64 alternatives.
    pub(crate) fn new(q: &'q Query) -> Option<Ranker<'q>> {
        if q.alternatives.len() > 64 {
            return None;
        }
        let mut alternatives = Vec::with_capacity(q.alternatives.len());
        for wanted in q.wanted_by_alternative() {
            if wanted.len() > TERMS || !wanted.iter().all(|t| plain(t)) {
                return None;
            }
            alternatives.push(Alternative {
                finders: wanted
                    .iter()
                    .map(|t| memmem::Finder::new(t.words[0].as_bytes()))
                    .collect(),
            });
        }
        let n = alternatives.len();
        Some(Ranker {
            alternatives,
            folder: (0, usize::MAX),
            folder_words: 0,
            folder_places: vec![[Places::default(); TERMS]; n],
        })
    }

    /// The document's score (see [`Query::rank`]), given the alternatives
    /// it matches (see [`Query::matching_alternatives`]) and its marked
    /// regions.
    pub(crate) fn rank(&mut self, matching: u64, dir: &[u8], name: &[u8], caption: &[u8]) -> u32 {
        let key = (dir.as_ptr() as usize, dir.len());
        if self.folder != key {
            self.folder = key;
            self.folder_words = words_in(dir);
            for (alt, places) in self.alternatives.iter().zip(&mut self.folder_places) {
                for (finder, p) in alt.finders.iter().zip(places.iter_mut()) {
                    *p = Places::default();
                    places_in(finder, dir, 0, p);
                }
            }
        }
        let mut best = u32::MAX;
        for (i, (alt, in_folder)) in self
            .alternatives
            .iter()
            .zip(&self.folder_places)
            .enumerate()
        {
            if matching & (1 << i) == 0 {
                continue;
            }
            let n = alt.finders.len();
            if n < 2 {
                // One plain word scores 0, the least there is.
                return 0;
            }
            // The path: the folder's places, then the name's.
            let mut path = [Places::default(); TERMS];
            for ((finder, p), folder) in alt.finders.iter().zip(&mut path).zip(in_folder) {
                *p = *folder;
                if p.len < PLACES {
                    places_in(finder, name, self.folder_words, p);
                }
            }
            best = best.min(score(&path[..n]));
            // The caption, where there is one (an empty one lacks every
            // term).
            if caption.is_empty() {
                best = best.min(8 * n as u32);
            } else {
                let mut words = [Places::default(); TERMS];
                for (finder, p) in alt.finders.iter().zip(&mut words) {
                    places_in(finder, caption, 0, p);
                }
                best = best.min(score(&words[..n]));
            }
        }
        if best == u32::MAX { 0 } else { best }
    }
}

/// Whether the fast path ranks term `t` as the definition does: one word,
/// exact, that no separator can stand inside.
fn plain(t: &Term) -> bool {
    !t.fuzzy
        && t.words.len() == 1
        && !t.words[0].is_empty()
        && !t.words[0].bytes().any(|b| is_separator(b) || b == JOIN)
}

/// Whether byte `b` of marked text belongs to a word (a word is a run of
/// bytes other than separators and [`JOIN`]).
fn in_word(b: u8) -> bool {
    !is_separator(b) && b != JOIN
}

/// How many words marked `text` holds.
pub(crate) fn words_in(text: &[u8]) -> u32 {
    let mut words = 0;
    let mut after_separator = true;
    for &b in text {
        words += u32::from(in_word(b) && after_separator);
        after_separator = !in_word(b);
    }
    words
}

/// Adds to `places` the indexes (counted from `first`) of the words of
/// marked `text` that hold `finder`'s word. The word holds no separator,
/// so each hit lies inside one word.
pub(crate) fn places_in(finder: &memmem::Finder<'_>, text: &[u8], first: u32, places: &mut Places) {
    // Words started in text[..scanned].
    let mut words = 0u32;
    let mut scanned = 0usize;
    let mut after_separator = true;
    for hit in finder.find_iter(text) {
        if places.len == PLACES {
            break;
        }
        for &b in text.get(scanned..=hit).unwrap_or(&[]) {
            words += u32::from(in_word(b) && after_separator);
            after_separator = !in_word(b);
        }
        scanned = hit + 1;
        places.push(first + words.saturating_sub(1));
    }
}

/// A string's score for terms with these places: 8 for each term it lacks,
/// plus the best `extra distance + 3 × inversions` of the others (see
/// [`Query::rank`]).
fn score(terms: &[Places]) -> u32 {
    let mut present = [&[][..]; TERMS];
    let mut n = 0;
    for p in terms {
        if p.len > 0 {
            present[n] = p.get();
            n += 1;
        }
    }
    let missing = (terms.len() - n) as u32;
    8 * missing + best_arrangement(&present[..n])
}

/// How many places one arrangement search may try before it settles for
/// the best found so far: enough for every choice of five terms at eight
/// places each, and for six in all but contrived cases.
pub const ARRANGE_STEPS: u64 = 1 << 15;

/// The lowest `extra distance + 3 × inversions` over one place per term
/// (terms in query order, places ascending), as [`Query::rank`] defines
/// it.
pub(crate) fn best_arrangement(places: &[&[u32]]) -> u32 {
    best_arrangement_counted(places, &mut 0)
}

/// [`best_arrangement`], adding the places it tried to `work`: two terms
/// exactly; up to [`TERMS`] by a depth-first search that starts from the
/// in-order choice and drops a partial choice once it cannot win, for at
/// most [`ARRANGE_STEPS`] steps; more terms take the in-order choice (each
/// term at its first place after the previous term's, else its last).
pub(crate) fn best_arrangement_counted(places: &[&[u32]], work: &mut u64) -> u32 {
    let n = places.len();
    if n < 2 {
        return 0;
    }
    if n == 2 {
        let mut best = u32::MAX;
        for &a in places[0] {
            for &b in places[1] {
                // extra = |a - b| - 1, floored at 0; an out-of-order pair
                // adds 3.
                best = best.min(a.abs_diff(b).saturating_sub(1) + 3 * u32::from(a > b));
            }
        }
        *work += (places[0].len() * places[1].len()) as u64;
        return best;
    }
    let in_order = in_order(places, work);
    if n > TERMS {
        return in_order;
    }
    let mut picked = [0u32; TERMS];
    let mut best = in_order;
    let mut steps = 0u64;
    arrange(places, &mut picked, 0, 0, &mut best, &mut steps);
    *work += steps;
    best
}

/// The in-order choice's score: each term at its first place at or after
/// the previous term's (else its last place).
fn in_order(places: &[&[u32]], work: &mut u64) -> u32 {
    let mut picked = Vec::with_capacity(places.len());
    let mut at = 0u32;
    for p in places {
        let i = p.partition_point(|&x| x < at);
        let here = p.get(i).or(p.last()).copied().unwrap_or(0);
        picked.push(here);
        at = here;
    }
    *work += places.len() as u64;
    let (lo, hi) = picked
        .iter()
        .fold((u32::MAX, 0), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let inversions = inversions(&mut picked, work);
    (hi - lo).saturating_sub(places.len() as u32 - 1) + 3 * inversions
}

/// The pairs out of order in `v` (which it sorts), by merging: n log n.
fn inversions(v: &mut [u32], work: &mut u64) -> u32 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let (a, b) = v.split_at_mut(n / 2);
    let mut count = inversions(a, work).saturating_add(inversions(b, work));
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if b[j] < a[i] {
            count = count.saturating_add((a.len() - i) as u32);
            merged.push(b[j]);
            j += 1;
        } else {
            merged.push(a[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&a[i..]);
    merged.extend_from_slice(&b[j..]);
    v.copy_from_slice(&merged);
    *work += n as u64;
    count
}

/// Tries each place of term `k` after `picked[..k]`, whose inversions are
/// `inversions`; keeps the best full choice in `best`. Stops trying once
/// `steps` reaches [`ARRANGE_STEPS`].
fn arrange(
    places: &[&[u32]],
    picked: &mut [u32; TERMS],
    k: usize,
    inversions: u32,
    best: &mut u32,
    steps: &mut u64,
) {
    let n = places.len();
    let Some(&here) = places.get(k) else {
        let (lo, hi) = picked[..n]
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        *best = (*best).min((hi - lo).saturating_sub(n as u32 - 1) + 3 * inversions);
        return;
    };
    for &p in here {
        if *steps >= ARRANGE_STEPS {
            return;
        }
        *steps += 1;
        let inversions = inversions + picked[..k].iter().filter(|&&q| q > p).count() as u32;
        // The span only grows and at most n - 1 of it is free: a lower
        // bound on any completion.
        let (lo, hi) = picked[..k]
            .iter()
            .fold((p, p), |(lo, hi), &q| (lo.min(q), hi.max(q)));
        if (hi - lo).saturating_sub(n as u32 - 1) + 3 * inversions >= *best {
            continue;
        }
        picked[k] = p;
        arrange(places, picked, k + 1, inversions, best, steps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{Document, Mode, parse, split_path};
    use crate::token::marked_into;
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "cat", "cute", "kitten", "dog", "beach", "2019", "07", "jpg", "café", "Cat", "img",
    ];

    fn text(seps: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop::collection::vec(
            (prop::sample::select(WORDS), prop::sample::select(seps)),
            0..9,
        )
        .prop_map(|ws| ws.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
    }

    /// A plain word of the query: a whole word or a piece of one.
    fn term() -> impl Strategy<Value = String> {
        (prop::sample::select(WORDS), 0usize..3, 1usize..5)
            .prop_map(|(w, a, n)| w.chars().skip(a).take(n).collect::<String>())
            .prop_filter("a word", |t| t.chars().any(char::is_alphanumeric))
    }

    fn query() -> impl Strategy<Value = String> {
        let and =
            prop::collection::vec((term(), prop::bool::weighted(0.15)), 1..6).prop_map(|ts| {
                ts.into_iter()
                    .map(|(t, neg)| if neg { format!("-{t}") } else { t })
                    .collect::<Vec<_>>()
                    .join(" ")
            });
        prop::collection::vec(and, 1..4).prop_map(|v| v.join(" OR "))
    }

    proptest! {
        /// Long queries of repeated and overlapping words (up to 1,000)
        /// rank with work linear in their length: every place tried is
        /// counted, never timed. Each alternative's two strings cost at
        /// most one bounded search (six distinct terms or fewer) or the
        /// in-order choice with its merge count (more).
        #[test]
        fn long_queries_rank_in_bounded_work(
            path in text(&["/", "_", " ", "", "-", "/"]),
            caption in text(&[" ", "", ", "]),
            words in prop::collection::vec(term(), 1..1000),
            alternatives in 1usize..4,
        ) {
            let doc = Document::with_meta(&path, &caption, "", "");
            let per = words.len().div_ceil(alternatives);
            let text = words
                .chunks(per)
                .map(|c| c.join(" "))
                .collect::<Vec<_>>()
                .join(" OR ");
            let Ok(q) = parse(&text) else { return Ok(()) };
            for mode in [Mode::Default, Mode::Seed] {
                let mut work = 0u64;
                let score = q.rank_counted(mode, &doc, &mut work);
                let n = words.len() as u64;
                let bound = 2 * q.alternatives.len() as u64 * (ARRANGE_STEPS + 64 + 20 * n);
                prop_assert!(work <= bound, "{} steps for {} words", work, n);
                prop_assert_eq!(score, q.rank(mode, &doc));
            }
        }

        /// The fast ranking scores every matching file exactly as the
        /// definition does.
        #[test]
        fn ranks_as_the_definition(
            path in text(&["/", "_", " ", "", "-", "/"]),
            caption in prop_oneof![Just(String::new()), text(&[" ", "", ", "])],
            queries in prop::collection::vec(query(), 1..6),
        ) {
            let doc = Document::with_meta(&path, &caption, "", "");
            let (dir, name) = split_path(&path);
            let mut marked = [Vec::new(), Vec::new(), Vec::new()];
            for (text, out) in [dir, name, &caption].into_iter().zip(&mut marked) {
                marked_into(text, out);
            }
            for text in &queries {
                let Ok(q) = parse(text) else { continue };
                for mode in [Mode::Default, Mode::Seed] {
                    if !q.matches_document(mode, &doc) {
                        continue;
                    }
                    let mut ranker = Ranker::new(&q).unwrap();
                    let matching = q.matching_alternatives(mode, &doc);
                    prop_assert_eq!(
                        ranker.rank(matching, &marked[0], &marked[1], &marked[2]),
                        q.rank(mode, &doc),
                        "query {:?} on {:?} / {:?}", text, path, caption
                    );
                }
            }
        }
    }
}
