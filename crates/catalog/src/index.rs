//! The search index: every file's folded words in memory, with trigram
//! posting lists to find the few worth checking. The default mode's
//! search, and the fast path for the seed mode's meaning too.
//!
//! - A file is a *document*, numbered 0.. in file-id order.
//! - Its name and caption are kept in marked form
//!   ([`crate::token::marked_into`]): folded words joined by the
//!   separators that split them (ASCII punctuation kept, for literal
//!   words like `ssl.h`) and by [`JOIN`] where the case or kind changed.
//!   Its folder, camera model and extension are interned: folders repeat
//!   for every photo in them.
//! - Every byte trigram of those strings (`JOIN` taken out, none across a
//!   separator) has a posting list of the documents holding it
//!   ([`crate::postings`]).
//! - A query becomes a *stream* of candidate documents: for each word that
//!   must occur, the documents holding all of its rarest trigrams (words of
//!   three bytes or more), or a scan for the word (shorter ones). Each
//!   candidate is then checked against the query's exact meaning
//!   ([`crate::query::View`]), in id order, so the first page of a huge
//!   result is found without reading the rest.

use std::collections::{BinaryHeap, HashMap};

use memchr::memmem;

use crate::postings::{ListIter, ListWriter};
use crate::query::{Clause, Mode, Part, Query, Scope, Term, View, contradicts_itself, split_path};
use crate::rank::{self, PLACES, Ranker};
use crate::store::FileId;
use crate::token::{JOIN, is_separator, marked_into};

/// One file as the index is built from it.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The file's id; sources come in increasing id order.
    pub id: FileId,
    /// Its path.
    pub path: &'a str,
    /// Its caption.
    pub caption: &'a str,
    /// The camera model, or empty.
    pub camera: &'a str,
    /// The date taken, or empty.
    pub date: &'a str,
}

/// Interned strings (folders, camera models, extensions), each with the
/// documents that use it.
#[derive(Default, Clone)]
struct Strings {
    /// Where each string starts in `bytes`; one more entry than strings.
    starts: Vec<u32>,
    bytes: Vec<u8>,
    /// Where each string's document list starts in `docs`.
    doc_starts: Vec<u32>,
    docs: Vec<u8>,
}

impl Strings {
    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    fn get(&self, i: u32) -> &[u8] {
        let i = i as usize;
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => self.bytes.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    fn docs(&self, i: u32) -> ListIter<'_> {
        let i = i as usize;
        let list = match (self.doc_starts.get(i), self.doc_starts.get(i + 1)) {
            (Some(&a), Some(&b)) => self.docs.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        ListIter::new(list)
    }

    /// The strings holding `word` as it stands in their marked form
    /// (within a word, or across a case change only where no `JOIN` falls
    /// inside it): one SIMD pass over the whole table.
    fn holding(&self, finder: &memmem::Finder<'_>, mut each: impl FnMut(u32)) {
        let (mut from, mut s) = (0usize, 0usize);
        while let Some(found) = self.bytes.get(from..).and_then(|b| finder.find(b)) {
            let at = from + found;
            // The string holding byte `at` (strings ascend with `at`).
            while self
                .starts
                .get(s + 1)
                .is_some_and(|&end| end as usize <= at)
            {
                s += 1;
            }
            let Some(&end) = self.starts.get(s + 1) else {
                return;
            };
            // An occurrence must lie inside one string; after a hit, the
            // rest of that string does not matter.
            if at + finder.needle().len() <= end as usize {
                each(s as u32);
                from = end as usize;
            } else {
                from = at + 1;
            }
        }
    }

    fn bytes_used(&self) -> usize {
        self.bytes.len() + self.docs.len() + 4 * (self.starts.len() + self.doc_starts.len())
    }

    /// The table with its strings' document lists, one per string.
    fn with_lists(mut self, lists: Vec<ListWriter>) -> Strings {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.doc_starts.push(0);
        for list in lists {
            self.docs.extend_from_slice(&list.finish());
            self.doc_starts.push(self.docs.len() as u32);
        }
        self
    }
}

/// The search index over a catalogue's files.
#[derive(Default, Clone)]
pub struct SearchIndex {
    ids: Vec<FileId>,
    /// Where each document's record starts in `records`; one more entry
    /// than documents. A record is `name 0 caption 0 date`, the name and
    /// caption marked.
    starts: Vec<u32>,
    records: Vec<u8>,
    /// Each document's folder, camera model and extension, in the string
    /// tables below.
    dir: Vec<u32>,
    camera: Vec<u32>,
    ext: Vec<u32>,
    dirs: Strings,
    cameras: Strings,
    exts: Strings,
    /// Trigrams (three bytes, big-endian in the low 24 bits), sorted, with
    /// their document counts and where their lists start in `postings`.
    grams: Vec<u32>,
    gram_counts: Vec<u32>,
    gram_starts: Vec<u32>,
    postings: Vec<u8>,
    /// Per word of `name_vocab`, the folders whose files' names hold it,
    /// each once with the indexes it has in those names, as a bit set
    /// (bit 7 for 7 and above): `folder << 8 | set`, in folder order.
    /// Numbers all count as one word, [`NUMBERS`]. An empty set marks a
    /// [`RUN`]. Ranking bounds a folder's files from this without reading
    /// them: a query looks its words up in the vocabulary, then reads
    /// their lists once into a byte per folder.
    name_word_starts: Vec<u32>,
    name_words: Vec<u32>,
    /// Every word (or run) of names, once (no document lists).
    name_vocab: Strings,
    /// The documents with a caption.
    captioned: Vec<u8>,
    /// The words of captions (split at spaces, `JOIN`s taken out: what a
    /// search word can match in), each with the documents whose caption
    /// holds it. Ranking bounds a captioned file from these bits rather
    /// than reading its caption.
    caption_words: Strings,
    /// Folders with fewer files are ranked file by file, without a bound
    /// (not stored; tests lower it to reach the bound on small corpora).
    bound_min_folder: u32,
    /// Every run of consecutive documents in one folder, `(start, end,
    /// folder)`, in document order (not stored: made from the folders'
    /// lists). A ranked search walks it as its documents rise, so finding
    /// a document's folder and run touches a small table, not `dir`.
    folder_runs: Vec<(u32, u32, u32)>,
}

/// In place of a set of indexes (an empty one): the entry is a *run*,
/// words with a letter that a case change joined (`cutekittenpicture`),
/// kept so the ranking knows where a search word may stand across words.
const RUN: u8 = 0;

/// The name vocabulary's word 0, standing for every number (a word of
/// ASCII digits: a name's own, `IMG_1234`, are too many to list). A digit
/// search word can only lie in a word of digits, so where a folder's names
/// have numbers bounds where it can be. No search word holds its byte.
const NUMBERS: &[u8] = b"\0";

/// See [`SearchIndex::set_bound_min_folder`].
const BOUND_MIN_FOLDER: u32 = 4;

/// How big an index is, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexSize {
    /// Trigram posting lists and their table.
    pub postings: usize,
    /// The folded, marked text (records and interned strings) with the
    /// per-file tables.
    pub text: usize,
}

impl IndexSize {
    /// Everything.
    pub fn total(&self) -> usize {
        self.postings + self.text
    }
}

/// Trigrams of a marked string: bytes with `JOIN` taken out, none across a
/// separator (a literal's pieces are looked up one by one).
fn trigrams_of(marked: &[u8], out: &mut Vec<u32>) {
    let mut window = 0u32;
    let mut have = 0;
    for &b in marked {
        if b == JOIN {
            continue;
        }
        if is_separator(b) {
            have = 0;
            continue;
        }
        window = ((window << 8) | u32::from(b)) & 0x00ff_ffff;
        have += 1;
        if have >= 3 {
            out.push(window);
        }
    }
}

/// Builds a string table, remembering each string's trigrams.
#[derive(Default)]
struct Interner {
    ids: HashMap<String, u32, FastHash>,
    /// The last key and its id: consecutive files share their folder.
    last: Option<(String, u32)>,
    table: Strings,
    lists: Vec<ListWriter>,
    trigrams: Vec<Vec<u32>>,
}

/// A quick multiply-and-rotate hash for the builder's maps (keys come from
/// the catalogue, and a slow map only slows the build).
#[derive(Default, Clone, Copy)]
struct FastHash;

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
}

impl Interner {
    fn intern(&mut self, key: &str, marked: bool) -> u32 {
        if let Some((last, id)) = &self.last
            && last == key
        {
            return *id;
        }
        if let Some(&id) = self.ids.get(key) {
            self.last = Some((key.to_owned(), id));
            return id;
        }
        let id = self.lists.len() as u32;
        if self.table.starts.is_empty() {
            self.table.starts.push(0);
        }
        let from = self.table.bytes.len();
        if marked {
            marked_into(key, &mut self.table.bytes);
        } else {
            // Extensions: the text after the name's last dot, folded.
            self.table
                .bytes
                .extend_from_slice(crate::fold::fold(key).as_bytes());
        }
        self.table.starts.push(self.table.bytes.len() as u32);
        let mut tris = Vec::new();
        if marked {
            trigrams_of(&self.table.bytes[from..], &mut tris);
            tris.sort_unstable();
            tris.dedup();
        }
        self.trigrams.push(tris);
        self.lists.push(ListWriter::default());
        self.ids.insert(key.to_owned(), id);
        self.last = Some((key.to_owned(), id));
        id
    }

    fn finish(self) -> Strings {
        self.table.with_lists(self.lists)
    }
}

/// Why an index could not be built or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// More text than the index's 32-bit offsets address.
    #[error("the search index would pass 4 GiB of text; split the catalogue")]
    TooBig,
    /// The sources were not in increasing id order.
    #[error("file ids must increase (file {0} came after a larger one)")]
    Order(FileId),
    /// A stored index that does not read back.
    #[error("the stored search index is damaged: {0}")]
    Damaged(&'static str),
}

/// Builds a [`SearchIndex`] one file at a time.
pub struct IndexBuilder {
    ix: SearchIndex,
    dirs: Interner,
    cameras: Interner,
    exts: Interner,
    /// Trigram → its list's slot + 1, straight from the 24 bits.
    slot_of: Vec<u32>,
    lists: Vec<(u32, ListWriter)>,
    trigrams: Vec<u32>,
    /// Per folder: each name word (with a letter) and its lowest index,
    /// and the runs (see [`RUN`]).
    name_words: Vec<HashMap<Vec<u8>, u8, FastHash>>,
    /// A run being gathered (kept to reuse its allocation).
    run: Vec<u8>,
    captioned: ListWriter,
    caption_words: WordTable,
}

/// Builds [`SearchIndex::caption_words`].
#[derive(Default)]
struct WordTable {
    ids: HashMap<Vec<u8>, u32, FastHash>,
    table: Strings,
    lists: Vec<ListWriter>,
    /// A word being gathered (kept to reuse its allocation).
    word: Vec<u8>,
}

impl WordTable {
    /// Records that document `doc`'s marked text `marked` holds its words.
    fn add(&mut self, marked: &[u8], doc: u32) -> Result<(), IndexError> {
        let mut word = std::mem::take(&mut self.word);
        for piece in marked.split(|&b| is_separator(b)).filter(|p| !p.is_empty()) {
            word.clear();
            word.extend(piece.iter().copied().filter(|&b| b != JOIN));
            let id = self.intern(&word)?;
            // A word twice in one caption: the list ignores the repeat.
            self.lists[id as usize].push(doc);
        }
        self.word = word;
        Ok(())
    }

    /// The word's number, given it the first time it is seen.
    fn intern(&mut self, word: &[u8]) -> Result<u32, IndexError> {
        if let Some(&id) = self.ids.get(word) {
            return Ok(id);
        }
        let id = u32::try_from(self.lists.len()).map_err(|_| IndexError::TooBig)?;
        if self.table.starts.is_empty() {
            self.table.starts.push(0);
        }
        self.table.bytes.extend_from_slice(word);
        let end = u32::try_from(self.table.bytes.len()).map_err(|_| IndexError::TooBig)?;
        self.table.starts.push(end);
        self.lists.push(ListWriter::default());
        self.ids.insert(word.to_vec(), id);
        Ok(id)
    }

    fn finish(self) -> Strings {
        self.table.with_lists(self.lists)
    }
}

impl Default for IndexBuilder {
    fn default() -> Self {
        IndexBuilder::new()
    }
}

impl IndexBuilder {
    /// An empty builder.
    pub fn new() -> IndexBuilder {
        IndexBuilder {
            ix: SearchIndex {
                starts: vec![0],
                bound_min_folder: BOUND_MIN_FOLDER,
                folder_runs: Vec::new(),
                ..SearchIndex::default()
            },
            dirs: Interner::default(),
            cameras: Interner::default(),
            exts: Interner::default(),
            slot_of: vec![0u32; 1 << 24],
            lists: Vec::new(),
            trigrams: Vec::new(),
            name_words: Vec::new(),
            run: Vec::new(),
            captioned: ListWriter::default(),
            caption_words: WordTable::default(),
        }
    }

    /// Adds a file; files come in increasing id order.
    pub fn push(&mut self, s: Source<'_>) -> Result<(), IndexError> {
        let ix = &mut self.ix;
        if ix.ids.last().is_some_and(|&last| last >= s.id) {
            return Err(IndexError::Order(s.id));
        }
        let doc = u32::try_from(ix.ids.len()).map_err(|_| IndexError::TooBig)?;
        ix.ids.push(s.id);
        let (dir, name) = split_path(s.path);
        let d = self.dirs.intern(dir, true);
        let c = self.cameras.intern(s.camera, true);
        // Interned by the raw text after the last dot (folded once per
        // distinct one): `query::extension` of the name.
        let e = self
            .exts
            .intern(name.rfind('.').map_or("", |i| &name[i + 1..]), false);
        ix.dir.push(d);
        ix.camera.push(c);
        ix.ext.push(e);
        self.dirs.lists[d as usize].push(doc);
        self.cameras.lists[c as usize].push(doc);
        self.exts.lists[e as usize].push(doc);
        let tris = &mut self.trigrams;
        tris.clear();
        // Camera models stay out: only `camera:` looks at them, through
        // their own table, so a 3-byte word's list is exactly the files
        // whose path or caption holds it.
        tris.extend_from_slice(&self.dirs.trigrams[d as usize]);
        let from = ix.records.len();
        marked_into(name, &mut ix.records);
        trigrams_of(&ix.records[from..], tris);
        if self.name_words.len() <= d as usize {
            self.name_words
                .resize_with(d as usize + 1, HashMap::default);
        }
        let words = &mut self.name_words[d as usize];
        let name_marked = &ix.records[from..];
        for (i, w) in name_marked
            .split(|&b| is_separator(b) || b == JOIN)
            .filter(|w| !w.is_empty())
            .enumerate()
        {
            let bit = 1u8 << i.min(7);
            let w = if w.iter().all(u8::is_ascii_digit) {
                NUMBERS
            } else {
                w
            };
            // Allocating only for a word the folder has not had yet.
            match words.get_mut(w) {
                Some(set) => *set |= bit,
                None => {
                    words.insert(w.to_vec(), bit);
                }
            }
        }
        // Runs: words with a letter joined by case changes.
        if memchr::memchr(JOIN, name_marked).is_some() {
            let run = &mut self.run;
            for piece in name_marked.split(|&b| is_separator(b)) {
                let mut count = 0;
                run.clear();
                for w in piece.split(|&b| b == JOIN).chain([&[][..]]) {
                    if w.is_empty() || w.iter().all(u8::is_ascii_digit) {
                        if count >= 2 && !words.contains_key(run.as_slice()) {
                            words.insert(run.clone(), RUN);
                        }
                        run.clear();
                        count = 0;
                    } else {
                        run.extend_from_slice(w);
                        count += 1;
                    }
                }
            }
        }
        ix.records.push(0);
        let from = ix.records.len();
        marked_into(s.caption, &mut ix.records);
        if ix.records.len() > from {
            self.captioned.push(doc);
            self.caption_words.add(&ix.records[from..], doc)?;
        }
        trigrams_of(&ix.records[from..], tris);
        ix.records.push(0);
        ix.records.extend_from_slice(s.date.as_bytes());
        let end = u32::try_from(ix.records.len()).map_err(|_| IndexError::TooBig)?;
        ix.starts.push(end);
        tris.sort_unstable();
        tris.dedup();
        for &t in tris.iter() {
            let slot = &mut self.slot_of[t as usize];
            if *slot == 0 {
                self.lists.push((t, ListWriter::default()));
                *slot = self.lists.len() as u32;
            }
            self.lists[*slot as usize - 1].1.push(doc);
        }
        Ok(())
    }

    /// The finished index.
    pub fn finish(self) -> Result<SearchIndex, IndexError> {
        let ix = self.assemble()?;
        Ok(ix.compacted())
    }

    /// The index's tables, the builder's scratch dropped.
    fn assemble(mut self) -> Result<SearchIndex, IndexError> {
        let mut ix = self.ix;
        let mut lists = self.lists;
        lists.sort_unstable_by_key(|(t, _)| *t);
        ix.gram_starts.push(0);
        for (t, list) in lists {
            ix.grams.push(t);
            ix.gram_counts.push(list.count);
            ix.postings.extend_from_slice(&list.finish());
            let end = u32::try_from(ix.postings.len()).map_err(|_| IndexError::TooBig)?;
            ix.gram_starts.push(end);
        }
        ix.dirs = self.dirs.finish();
        ix.cameras = self.cameras.finish();
        ix.exts = self.exts.finish();
        // The name vocabulary: a word table whose lists stay empty, with
        // NUMBERS first; each word's folders, by word then folder.
        let mut vocab = WordTable::default();
        vocab.intern(NUMBERS)?;
        let mut entries: Vec<(u32, u32)> = Vec::new();
        for d in 0..ix.dirs.len() {
            let words = self
                .name_words
                .get_mut(d)
                .map(std::mem::take)
                .unwrap_or_default();
            let folder = u32::try_from(d)
                .ok()
                .filter(|&d| d < 1 << 24)
                .ok_or(IndexError::TooBig)?;
            entries
                .try_reserve(words.len())
                .map_err(|_| IndexError::TooBig)?;
            for (w, set) in words {
                entries.push((vocab.intern(&w)?, folder << 8 | u32::from(set)));
            }
        }
        entries.sort_unstable();
        ix.name_vocab = vocab.finish();
        ix.name_word_starts.push(0);
        let mut entries = entries.into_iter().peekable();
        for w in 0..ix.name_vocab.len() as u32 {
            while let Some((_, e)) = entries.next_if(|&(id, _)| id == w) {
                ix.name_words.push(e);
            }
            let end = u32::try_from(ix.name_words.len()).map_err(|_| IndexError::TooBig)?;
            ix.name_word_starts.push(end);
        }
        ix.captioned = self.captioned.finish();
        ix.caption_words = self.caption_words.finish();
        ix.folder_runs = ix.runs_of_folders()?;
        Ok(ix)
    }
}

impl SearchIndex {
    /// Builds the index from files in increasing id order.
    pub fn build<'a>(sources: impl IntoIterator<Item = Source<'a>>) -> Result<Self, IndexError> {
        let mut b = IndexBuilder::new();
        for s in sources {
            b.push(s)?;
        }
        b.finish()
    }

    /// Folders with fewer files than this are ranked file by file rather
    /// than bounded first (default 4: a bound costs about as much as
    /// scoring three files). For tests.
    #[doc(hidden)]
    pub fn set_bound_min_folder(&mut self, files: u32) {
        self.bound_min_folder = files;
    }

    /// How many files the index holds.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the index holds no file.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// How big the index is.
    pub fn size(&self) -> IndexSize {
        IndexSize {
            postings: self.postings.len() + 12 * self.grams.len(),
            // The ranking's folder summaries count as text.
            text: self.records.len()
                + 4 * self.starts.len()
                + 8 * self.ids.len()
                + 12 * self.dir.len()
                + self.dirs.bytes_used()
                + self.cameras.bytes_used()
                + self.exts.bytes_used()
                + 4 * self.name_words.len()
                + 4 * self.name_word_starts.len()
                + self.name_vocab.bytes_used()
                + self.captioned.len()
                + self.caption_words.bytes_used()
                + 12 * self.folder_runs.len(),
        }
    }

    fn view<'a>(&'a self, doc: u32, finders: Option<&'a Finders<'a>>) -> DocView<'a> {
        let d = doc as usize;
        let record = match (self.starts.get(d), self.starts.get(d + 1)) {
            (Some(&a), Some(&b)) => self.records.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        };
        let mut fields = record.splitn(3, |&b| b == 0);
        let name = fields.next().unwrap_or(&[]);
        let caption = fields.next().unwrap_or(&[]);
        let date = fields.next().unwrap_or(&[]);
        DocView {
            finders,
            dir: self.dirs.get(self.dir.get(d).copied().unwrap_or(u32::MAX)),
            name,
            caption,
            date,
            meta: Some((self, doc)),
            ..DocView::default()
        }
    }

    /// The posting list of one trigram, with its count.
    fn gram(&self, t: u32) -> Option<(u32, ListIter<'_>)> {
        let i = self.grams.binary_search(&t).ok()?;
        let (a, b) = (*self.gram_starts.get(i)?, *self.gram_starts.get(i + 1)?);
        let list = self.postings.get(a as usize..b as usize)?;
        Some((*self.gram_counts.get(i)?, ListIter::new(list)))
    }

    /// The documents that may hold `word` somewhere (folder, name, caption
    /// or camera model).
    fn word_stream<'a>(&'a self, word: &'a str) -> Stream<'a> {
        let n = self.len() as u32;
        let bytes = word.as_bytes();
        if bytes.is_empty() {
            return Stream::All(n);
        }
        if bytes.len() < 3 {
            return Stream::Short(Box::new(ShortScan::new(self, bytes)));
        }
        let mut grams: Vec<u32> = bytes
            .windows(3)
            .map(|w| (u32::from(w[0]) << 16) | (u32::from(w[1]) << 8) | u32::from(w[2]))
            .collect();
        grams.sort_unstable();
        grams.dedup();
        let mut lists = Vec::new();
        for t in grams {
            match self.gram(t) {
                Some((count, list)) => lists.push(Stream::List(count, list)),
                None => return Stream::Empty,
            }
        }
        Stream::and(lists, n)
    }

    /// Candidates for a fuzzy word: a word within `k` typos of a token
    /// keeps one of `k + 1` pieces intact, so documents holding any piece.
    fn fuzzy_stream<'a>(&'a self, word: &'a str) -> Stream<'a> {
        let k = Term::tolerance(word);
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() <= k {
            return Stream::All(self.len() as u32);
        }
        let pieces = k + 1;
        let mut streams = Vec::new();
        for p in 0..pieces {
            let (a, b) = (p * chars.len() / pieces, (p + 1) * chars.len() / pieces);
            let from = chars[a].0;
            let to = chars.get(b).map_or(word.len(), |c| c.0);
            streams.push(self.word_stream(&word[from..to]));
        }
        Stream::or(streams, self.len() as u32)
    }

    /// Candidates for a literal (`ssl.h`): the documents holding each of
    /// its pieces of three bytes or more (a marked string holds a piece
    /// with `JOIN`s in it, and its trigrams without). Where every piece is
    /// one character no `JOIN` can stand inside, so the records hold the
    /// literal as it is (within a folder or a name: one with `/` may span
    /// both, and is checked on every document).
    fn literal_stream<'a>(&'a self, literal: &'a str) -> Stream<'a> {
        let n = self.len() as u32;
        let pieces: Vec<&str> = literal
            .split(|c: char| c.is_ascii() && is_separator(c as u8))
            .filter(|p| !p.is_empty())
            .collect();
        let long: Vec<Stream<'a>> = pieces
            .iter()
            .filter(|p| p.len() >= 3)
            .map(|p| self.word_stream(p))
            .collect();
        if !long.is_empty() {
            return Stream::and(long, n);
        }
        if pieces.iter().all(|p| p.chars().count() == 1) && !literal.contains('/') {
            return Stream::Short(Box::new(ShortScan::new(self, literal.as_bytes())));
        }
        Stream::All(n)
    }

    /// The documents whose folder (or, with `camera`, camera model) alone
    /// satisfies the term: it is asked once per string of the table.
    fn docs_by_table(&self, t: &Term, mode: Mode, camera: bool) -> Bits {
        let table = if camera { &self.cameras } else { &self.dirs };
        let mut bits = Bits::new(self.len());
        for s in 0..table.len() as u32 {
            let text = table.get(s);
            let mut v = DocView::default();
            if camera {
                v.camera = text;
            } else {
                v.dir = text;
            }
            if t.matches_view(mode, &v) {
                bits.add_list(table.docs(s));
            }
        }
        bits
    }

    /// The documents with exactly this extension.
    fn docs_by_ext(&self, t: &Term) -> Bits {
        let word = t.words.first().map_or("", String::as_str).as_bytes();
        let mut bits = Bits::new(self.len());
        for e in 0..self.exts.len() as u32 {
            if self.exts.get(e) == word {
                bits.add_list(self.exts.docs(e));
            }
        }
        bits
    }

    /// Candidates for a term; `All` where the term narrows nothing.
    /// Folder, camera and extension filters are answered exactly, from
    /// their tables.
    fn term_stream<'a>(&'a self, t: &'a Term, mode: Mode) -> Stream<'a> {
        let n = self.len() as u32;
        match t.scope {
            Some(Scope::Date) => Stream::All(n),
            Some(Scope::Ext) => Stream::Bits(self.docs_by_ext(t)),
            Some(Scope::Dir) => Stream::Bits(self.docs_by_table(t, mode, false)),
            Some(Scope::Camera) => Stream::Bits(self.docs_by_table(t, mode, true)),
            _ if mode == Mode::Default && t.literal.is_some() => {
                self.literal_stream(t.literal.as_deref().unwrap_or(""))
            }
            _ => Stream::and(
                t.words
                    .iter()
                    .map(|w| {
                        if t.fuzzy {
                            self.fuzzy_stream(w)
                        } else {
                            self.word_stream(w)
                        }
                    })
                    .collect(),
                n,
            ),
        }
    }

    /// Documents that certainly match `q` (a subset, found without looking
    /// at each document): where an alternative is one term, the documents
    /// whose folder alone satisfies it, exact filters, and a three-byte
    /// word's trigram list (exactly the files whose path or caption holds
    /// it). `None` when nothing is certain.
    fn certain(&self, q: &Query, mode: Mode) -> Option<Bits> {
        let mut out: Option<Bits> = None;
        for clauses in &q.alternatives {
            let [Clause::Term(t)] = clauses.as_slice() else {
                continue;
            };
            let bits = match t.scope {
                None if !t.fuzzy && t.words.len() == 1 => {
                    // Folders holding the word as written certainly match
                    // (a subset is enough here: fewer files skipped).
                    let mut bits = Bits::new(self.len());
                    let finder = memmem::Finder::new(t.words[0].as_bytes());
                    self.dirs
                        .holding(&finder, |d| bits.add_list(self.dirs.docs(d)));
                    let word = t.words[0].as_bytes();
                    if mode == Mode::Default && t.is_substring() && word.len() == 3 {
                        let tri = (u32::from(word[0]) << 16)
                            | (u32::from(word[1]) << 8)
                            | u32::from(word[2]);
                        if let Some((_, list)) = self.gram(tri) {
                            bits.add_list(list);
                        }
                    }
                    bits
                }
                Some(Scope::Dir) => self.docs_by_table(t, mode, false),
                Some(Scope::Camera) => self.docs_by_table(t, mode, true),
                Some(Scope::Ext) => self.docs_by_ext(t),
                _ => continue,
            };
            match &mut out {
                Some(o) => o.union(&bits),
                None => out = Some(bits),
            }
        }
        out
    }

    /// Candidates for a query: any alternative's, each narrowed by its
    /// terms and with the documents its exclusions certainly remove taken
    /// out.
    fn query_stream<'a>(&'a self, q: &'a Query, mode: Mode) -> Stream<'a> {
        Stream::or(self.alternative_streams(q, mode), self.len() as u32)
    }

    /// Each alternative's candidates.
    fn alternative_streams<'a>(&'a self, q: &'a Query, mode: Mode) -> Vec<Stream<'a>> {
        let n = self.len() as u32;
        q.alternatives
            .iter()
            .map(|clauses| {
                if contradicts_itself(clauses, mode) {
                    return Stream::Empty;
                }
                let mut parts: Vec<Stream<'a>> = Vec::new();
                let mut excluded: Option<Bits> = None;
                for c in clauses {
                    match c {
                        Clause::Term(t) => parts.push(self.term_stream(t, mode)),
                        Clause::Group(g) => parts.push(self.query_stream(g, mode)),
                        Clause::Not(inner) => {
                            if let Some(bits) = self.certain(inner, mode) {
                                match &mut excluded {
                                    Some(e) => e.union(&bits),
                                    None => excluded = Some(bits),
                                }
                            }
                        }
                    }
                }
                let stream = if parts.is_empty() {
                    Stream::All(n)
                } else {
                    Stream::and(parts, n)
                };
                match excluded {
                    Some(bits) => Stream::Minus(Box::new(stream), bits),
                    None => stream,
                }
            })
            .collect()
    }

    /// The files a query matches in `mode`, at most `limit` of them: best
    /// first when `ranked` (see [`Query::rank`]; ties in id order),
    /// otherwise in id order. Stops as soon as nothing later can make the
    /// page, so a query matching half the catalogue answers its first page
    /// as fast as one matching a few files.
    pub fn search(&self, q: &Query, mode: Mode, limit: usize, ranked: bool) -> Vec<FileId> {
        if limit == 0 {
            return Vec::new();
        }
        // Only alternatives of two terms or more, or with a fuzzy one, score
        // above 0.
        let scored = ranked
            && q.wanted_by_alternative()
                .iter()
                .any(|terms| terms.len() >= 2 || terms.iter().any(|t| t.fuzzy));
        let alternatives = self.alternative_streams(q, mode);
        // An alternative no file can match does not count in the bound.
        let possible: Vec<bool> = alternatives
            .iter()
            .map(|s| !matches!(s, Stream::Empty))
            .collect();
        let possible_mask = possible
            .iter()
            .take(64)
            .enumerate()
            .fold(0u64, |m, (i, &p)| m | u64::from(p) << i);
        let mut stream = Stream::or(alternatives, self.len() as u32);
        let finders = Finders::new(q);
        let mut ranker = if scored { Ranker::new(q) } else { None };
        let mut page: BinaryHeap<(u32, u32)> = BinaryHeap::new();
        // Once the page is full, files that cannot beat its worst are
        // passed over unread: a folder's bound covers its files, whole runs
        // at a time, and which captions hold which wanted terms (from the
        // caption words' lists) bounds a captioned file without reading
        // its caption. Both are made when the page first fills: most
        // queries end before.
        let mut bounding: Option<Option<(RankBound<'_>, Holders)>> = None;
        let mut folder_bounds = FolderBounds::default();
        let mut run_cursor = RunCursor {
            runs: &self.folder_runs,
            at: 0,
        };
        let mut captioned = ListIter::new(&self.captioned);
        let mut next = 0;
        while let Some(doc) = stream.next_geq(next) {
            if let Some(&(worst, _)) = page.peek()
                && scored
                && page.len() == limit
                && let Some((bound, holders)) = bounding
                    .get_or_insert_with(|| {
                        RankBound::new(self, q, &possible, mode).map(|b| {
                            let holders = b.holders(self);
                            (b, holders)
                        })
                    })
                    .as_mut()
            {
                let (d, end) = run_cursor.find(doc).unwrap_or_else(|| {
                    let d = self.dir.get(doc as usize).copied().unwrap_or(0);
                    (d, self.folder_run_end(d, doc))
                });
                let (tables, quiet) = folder_bounds.get(self, bound, holders, d);
                if !tables.is_empty() {
                    // The first file from `doc` on, up to the folder's run
                    // end, that may make the page: `doc` itself when quiet
                    // files may, else the first file whose caption lowers
                    // its bound enough.
                    let mut from = doc;
                    let target = loop {
                        let c = holders.next_loud(&mut captioned, from).filter(|&c| c < end);
                        if quiet < worst && c != Some(doc) {
                            break doc;
                        }
                        match c {
                            None => break end,
                            Some(c)
                                if bound.file(tables, true, |a, i| holders.holds(a, i, c))
                                    < worst =>
                            {
                                break c;
                            }
                            Some(c) if quiet < worst => break c + 1,
                            Some(c) => from = c + 1,
                        }
                    };
                    if target != doc {
                        next = target.max(doc + 1);
                        continue;
                    }
                }
            }
            let v = self.view(doc, Some(&finders));
            // With the page full, a file that would not beat it even if it
            // matched every alternative that any file can is passed over
            // unmatched (scoring costs less than matching). That score is
            // the file's own when it matches them all.
            let mut scored_as_possible = None;
            if let (Some(r), Some(&(worst, _))) = (&mut ranker, page.peek())
                && page.len() == limit
            {
                let least = r.rank(possible_mask, v.dir, v.name, v.caption);
                if least >= worst {
                    next = doc.saturating_add(1);
                    if doc == u32::MAX {
                        break;
                    }
                    continue;
                }
                scored_as_possible = Some(least);
            }
            // The ranking scores each alternative the file matches.
            let matching = match ranker {
                Some(_) if q.alternatives.len() > 1 => q.matching_alternatives(mode, &v),
                _ => u64::from(q.matches_view(mode, &v)),
            };
            if matching != 0 {
                let score = match (&mut ranker, scored) {
                    (_, false) => 0,
                    (Some(r), true) => match scored_as_possible {
                        Some(least) if matching == possible_mask => least,
                        _ => r.rank(matching, v.dir, v.name, v.caption),
                    },
                    (None, true) => q.rank_view(mode, &v),
                };
                if page.len() < limit {
                    page.push((score, doc));
                } else if page.peek().is_some_and(|&worst| (score, doc) < worst) {
                    page.pop();
                    page.push((score, doc));
                }
                // Later documents have larger ids and no better score than 0.
                if page.len() == limit && page.peek().is_some_and(|&(s, _)| s == 0) {
                    break;
                }
            }
            match doc.checked_add(1) {
                Some(d) => next = d,
                None => break,
            }
        }
        let mut page = page.into_vec();
        page.sort_unstable();
        page.into_iter()
            .filter_map(|(_, doc)| self.ids.get(doc as usize).copied())
            .collect()
    }

    /// The files whose caption holds `t`'s word (as `folded_contains`
    /// finds it: within a space-separated piece, `JOIN`s taken out), or
    /// `None` where any caption may: a fuzzy term, or a piece of so many
    /// caption words that listing them costs more than it saves.
    fn caption_holders(&self, t: &Term) -> Option<Bits> {
        let word = t.words.first()?.as_bytes();
        if t.fuzzy
            || word.is_empty()
            || word.iter().any(|&b| is_separator(b))
            || word.contains(&JOIN)
        {
            return None;
        }
        let table = &self.caption_words;
        let mut found = Vec::new();
        table.holding(&memmem::Finder::new(word), |s| found.push(s));
        let list_bytes = |s: u32| {
            let s = s as usize;
            match (table.doc_starts.get(s), table.doc_starts.get(s + 1)) {
                (Some(&a), Some(&b)) => (b - a) as usize,
                _ => 0,
            }
        };
        if found.iter().map(|&s| list_bytes(s)).sum::<usize>() > table.docs.len() / 4 + 4096 {
            return None;
        }
        let mut bits = Bits::new(self.len());
        for s in found {
            bits.add_list(table.docs(s));
        }
        Some(bits)
    }

    /// How many documents folder `d` holds.
    fn folder_size(&self, d: u32) -> u32 {
        let mut runs = self.dirs.docs(d);
        let mut n = 0;
        while let Some((start, end)) = runs.next_run() {
            n += end - start;
        }
        n
    }

    /// Where the run of folder `d`'s documents that holds `doc` ends.
    fn folder_run_end(&self, d: u32, doc: u32) -> u32 {
        let mut runs = self.dirs.docs(d);
        while let Some((start, end)) = runs.next_run() {
            if start <= doc && doc < end {
                return end;
            }
            if start > doc {
                break;
            }
        }
        doc + 1
    }

    /// Where the names of each folder hold `word` (and any number, where
    /// `numbers`), from the words of the name vocabulary that contain it:
    /// see [`NamePlaces`].
    fn name_places(&self, word: &memmem::Finder<'_>, numbers: bool) -> NamePlaces {
        let mut places = NamePlaces {
            by_folder: vec![0; self.dirs.len()],
        };
        let mut add = |w: u32| {
            let w = w as usize;
            let (Some(&a), Some(&b)) = (
                self.name_word_starts.get(w),
                self.name_word_starts.get(w + 1),
            ) else {
                return;
            };
            for &e in self.name_words.get(a as usize..b as usize).unwrap_or(&[]) {
                if let Some(p) = places.by_folder.get_mut((e >> 8) as usize) {
                    let set = e as u8;
                    *p |= if set == RUN {
                        NamePlaces::RUN
                    } else {
                        u16::from(set)
                    };
                }
            }
        };
        if numbers {
            add(0);
        }
        self.name_vocab.holding(word, add);
        places
    }

    /// How many documents the query's stream offers and how many of them
    /// match: how much checking the index leaves for a query.
    pub fn explain(&self, q: &Query, mode: Mode) -> (usize, usize) {
        let mut stream = self.query_stream(q, mode);
        let finders = Finders::new(q);
        let (mut next, mut offered, mut matched) = (0u32, 0, 0);
        while let Some(doc) = stream.next_geq(next) {
            offered += 1;
            matched += usize::from(q.matches_view(mode, &self.view(doc, Some(&finders))));
            match doc.checked_add(1) {
                Some(d) => next = d,
                None => break,
            }
        }
        (offered, matched)
    }

    /// How many files a query matches.
    pub fn count(&self, q: &Query, mode: Mode) -> usize {
        self.explain(q, mode).1
    }
}

/// One document as the matcher sees it, straight from the index.
#[derive(Default)]
struct DocView<'a> {
    /// The query's words, ready to search for.
    finders: Option<&'a Finders<'a>>,
    dir: &'a [u8],
    name: &'a [u8],
    caption: &'a [u8],
    date: &'a [u8],
    /// Where the camera model and extension are looked up, only when a
    /// term asks (two more arrays to touch per file otherwise); without
    /// it, the two fields below.
    meta: Option<(&'a SearchIndex, u32)>,
    camera: &'a [u8],
    ext: &'a [u8],
}

impl<'a> DocView<'a> {
    fn camera(&self) -> &'a [u8] {
        match self.meta {
            Some((ix, doc)) => ix
                .cameras
                .get(ix.camera.get(doc as usize).copied().unwrap_or(u32::MAX)),
            None => self.camera,
        }
    }
}

/// The marked regions a part covers.
fn regions<'a>(v: &DocView<'a>, part: Part) -> ([&'a [u8]; 2], usize) {
    match part {
        Part::Path => ([v.dir, v.name], 2),
        Part::Name => ([v.name, &[]], 1),
        Part::Dir => ([v.dir, &[]], 1),
        Part::Caption => ([v.caption, &[]], 1),
        Part::Camera => ([v.camera(), &[]], 1),
    }
}

/// Searchers for a query's words, built once per search (building one
/// costs more than running it on a short name).
struct Finders<'q> {
    words: Vec<(&'q str, memmem::Finder<'q>)>,
}

impl<'q> Finders<'q> {
    fn new(q: &'q Query) -> Finders<'q> {
        let mut f = Finders { words: Vec::new() };
        f.collect(q);
        f
    }

    fn collect(&mut self, q: &'q Query) {
        for clauses in &q.alternatives {
            for c in clauses {
                match c {
                    Clause::Term(t) => {
                        for w in &t.words {
                            self.words.push((w, memmem::Finder::new(w.as_bytes())));
                        }
                    }
                    Clause::Not(inner) | Clause::Group(inner) => self.collect(inner),
                }
            }
        }
    }

    /// Whether `hay` contains `word` (by the query's own searcher for it
    /// when `word` is one of the query's words).
    fn contains(this: Option<&Self>, hay: &[u8], word: &str) -> bool {
        let finder = this.and_then(|f| {
            f.words
                .iter()
                .find(|(w, _)| std::ptr::eq(w.as_ptr(), word.as_ptr()) && w.len() == word.len())
        });
        match finder {
            Some((_, f)) => f.find(hay).is_some(),
            None => memmem::find(hay, word.as_bytes()).is_some(),
        }
    }
}

/// Whether a marked region, `JOIN`s taken out, contains `word`.
fn folded_contains(finders: Option<&Finders<'_>>, region: &[u8], word: &str) -> bool {
    if Finders::contains(finders, region, word) {
        return true;
    }
    memchr::memchr(JOIN, region).is_some()
        && with_joined(region, |joined| Finders::contains(finders, joined, word))
}

/// Calls `f` with marked `region`, `JOIN`s taken out. Most regions are
/// short: they are joined on the stack, not allocated per file.
fn with_joined<R>(region: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    let (mut here, mut heap) = ([0u8; 512], Vec::new());
    let joined: &[u8] = if region.len() <= here.len() {
        let mut n = 0;
        for &b in region.iter().filter(|&&b| b != JOIN) {
            here[n] = b;
            n += 1;
        }
        &here[..n]
    } else {
        heap.extend(region.iter().copied().filter(|&b| b != JOIN));
        &heap
    };
    f(joined)
}

impl View for DocView<'_> {
    fn words(&self, part: Part) -> Vec<&str> {
        let (regions, n) = regions(self, part);
        regions[..n]
            .iter()
            .flat_map(|r| r.split(|&b| is_separator(b) || b == JOIN))
            .filter(|w| !w.is_empty())
            .filter_map(|w| std::str::from_utf8(w).ok())
            .collect()
    }

    fn folded_contains(&self, part: Part, word: &str) -> bool {
        let (regions, n) = regions(self, part);
        regions[..n]
            .iter()
            .any(|r| folded_contains(self.finders, r, word))
    }

    fn word_contains(&self, part: Part, word: &str) -> bool {
        // The word holds no space or JOIN, so a match lies within one word.
        let (regions, n) = regions(self, part);
        regions[..n]
            .iter()
            .any(|r| Finders::contains(self.finders, r, word))
    }

    fn literal_contains(&self, part: Part, literal: &str) -> bool {
        let (regions, n) = regions(self, part);
        if regions[..n].iter().any(|r| {
            with_joined(r, |joined| {
                memmem::find(joined, literal.as_bytes()).is_some()
            })
        }) {
            return true;
        }
        // Across the folders and the name, where the literal holds a `/`.
        part == Part::Path
            && !self.dir.is_empty()
            && literal.contains('/')
            && with_joined(self.dir, |dir| {
                with_joined(self.name, |name| {
                    let mut path = Vec::with_capacity(dir.len() + 1 + name.len());
                    path.extend_from_slice(dir);
                    path.push(b'/');
                    path.extend_from_slice(name);
                    memmem::find(&path, literal.as_bytes()).is_some()
                })
            })
    }

    fn ext(&self) -> &[u8] {
        match self.meta {
            Some((ix, doc)) => ix
                .exts
                .get(ix.ext.get(doc as usize).copied().unwrap_or(u32::MAX)),
            None => self.ext,
        }
    }

    fn date(&self) -> &[u8] {
        self.date
    }
}

/// Candidate documents, in increasing order.
enum Stream<'a> {
    /// None.
    Empty,
    /// Every document below the count.
    All(u32),
    /// One posting list, with its length (0 where unknown).
    List(u32, ListIter<'a>),
    /// Documents in every sub-stream.
    And(Vec<Stream<'a>>),
    /// Documents in any sub-stream.
    Or(Vec<Stream<'a>>),
    /// A scan for a short word.
    Short(Box<ShortScan<'a>>),
    /// A set of documents, exact.
    Bits(Bits),
    /// The stream's documents not in the set.
    Minus(Box<Stream<'a>>, Bits),
}

impl<'a> Stream<'a> {
    /// About how many documents the stream gives (for picking the
    /// narrowest).
    fn estimate(&self) -> u64 {
        match self {
            Stream::Empty => 0,
            Stream::All(n) => u64::from(*n) + 1,
            Stream::List(count, _) => u64::from(*count),
            Stream::And(s) => s.iter().map(Stream::estimate).min().unwrap_or(0),
            Stream::Or(s) => s.iter().map(Stream::estimate).sum(),
            Stream::Short(s) => u64::from(s.n),
            Stream::Bits(b) => u64::from(b.count),
            Stream::Minus(s, _) => s.estimate(),
        }
    }

    /// All of `parts`, keeping each part's narrowest stream, then the
    /// narrowest of the rest while fewer than six are kept (the check does
    /// the rest).
    /// A word's trigrams must not crowd out another word: `img festival`
    /// keeps `img`'s list beside `festival`'s six.
    fn and(parts: Vec<Stream<'a>>, n: u32) -> Stream<'a> {
        let mut kept: Vec<Stream<'a>> = Vec::new();
        let mut rest: Vec<Stream<'a>> = Vec::new();
        for part in parts {
            let mut inner = match part {
                Stream::And(inner) => inner,
                s => vec![s],
            };
            inner.retain(|s| !matches!(s, Stream::All(_)));
            inner.sort_by_key(Stream::estimate);
            let mut inner = inner.into_iter();
            kept.extend(inner.next());
            rest.extend(inner);
        }
        if kept.iter().any(|s| matches!(s, Stream::Empty)) {
            return Stream::Empty;
        }
        rest.sort_by_key(Stream::estimate);
        let room = 6usize.saturating_sub(kept.len());
        kept.extend(rest.into_iter().take(room));
        let mut parts = kept;
        parts.sort_by_key(Stream::estimate);
        // Behind a narrower stream, a short word checks the documents it
        // is offered rather than scanning ahead for its next one.
        for p in parts.iter_mut().skip(1) {
            if let Stream::Short(scan) = p {
                scan.checks_only = true;
            }
        }
        match parts.len() {
            0 => Stream::All(n),
            1 => parts.pop().unwrap_or(Stream::Empty),
            _ => Stream::And(parts),
        }
    }

    /// Any of `parts`.
    fn or(parts: Vec<Stream<'a>>, n: u32) -> Stream<'a> {
        let mut parts: Vec<Stream<'a>> = parts
            .into_iter()
            .filter(|s| !matches!(s, Stream::Empty))
            .collect();
        if parts.iter().any(|s| matches!(s, Stream::All(_))) {
            return Stream::All(n);
        }
        match parts.len() {
            0 => Stream::Empty,
            1 => parts.pop().unwrap_or(Stream::Empty),
            _ => Stream::Or(parts),
        }
    }

    /// The first document at or above `target`. Asking again with the same
    /// or a larger target is always allowed.
    fn next_geq(&mut self, target: u32) -> Option<u32> {
        match self {
            Stream::Empty => None,
            Stream::All(n) => (target < *n).then_some(target),
            Stream::List(_, list) => list.next_geq(target),
            Stream::And(parts) => {
                let mut x = target;
                'agree: loop {
                    for p in parts.iter_mut() {
                        let y = p.next_geq(x)?;
                        if y != x {
                            x = y;
                            continue 'agree;
                        }
                    }
                    return Some(x);
                }
            }
            Stream::Or(parts) => parts.iter_mut().filter_map(|p| p.next_geq(target)).min(),
            Stream::Short(scan) => scan.next_geq(target),
            Stream::Bits(bits) => bits.next_one(target),
            Stream::Minus(inner, bits) => {
                let mut t = target;
                loop {
                    let x = inner.next_geq(t)?;
                    if !bits.contains(x) {
                        return Some(x);
                    }
                    t = bits.next_zero(x)?;
                }
            }
        }
    }
}

/// Documents that may hold a short word (one or two bytes): those whose
/// folder holds it (found in the small folder table), and
/// those whose record holds it (a SIMD scan over all records, from the
/// target on).
struct ShortScan<'a> {
    n: u32,
    /// Documents whose folder holds the word.
    marked: Bits,
    finder: memmem::Finder<'a>,
    records: &'a [u8],
    starts: &'a [u32],
    /// The last record scan: from which document, and what it found.
    scanned_from: u32,
    found: Option<Option<u32>>,
    /// Answer for the target alone: the target where it may hold the
    /// word, else the next document, a lower bound on the next one that
    /// does (for an `And` whose other parts lead: every stream only
    /// offers candidates, checked after).
    checks_only: bool,
}

impl<'a> ShortScan<'a> {
    fn new(ix: &'a SearchIndex, word: &'a [u8]) -> ShortScan<'a> {
        let n = ix.len() as u32;
        // Camera models are left to `camera:` (see `term_stream`).
        let mut marked = Bits::new(ix.len());
        let finder = memmem::Finder::new(word);
        ix.dirs
            .holding(&finder, |d| marked.add_list(ix.dirs.docs(d)));
        ShortScan {
            n,
            marked,
            finder,
            records: &ix.records,
            starts: &ix.starts,
            scanned_from: 0,
            found: None,
            checks_only: false,
        }
    }

    fn next_in_records(&mut self, target: u32) -> Option<u32> {
        if let Some(found) = still_answers(self.found.map(|f| (self.scanned_from, f)), target) {
            return found;
        }
        let from = *self.starts.get(target as usize)? as usize;
        let found = self
            .finder
            .find(self.records.get(from..).unwrap_or(&[]))
            .map(|at| {
                let at = (from + at) as u32;
                // The record holding byte `at`.
                (self.starts.partition_point(|&s| s <= at) as u32).saturating_sub(1)
            });
        self.scanned_from = target;
        self.found = Some(found);
        found
    }

    fn next_geq(&mut self, target: u32) -> Option<u32> {
        if target >= self.n {
            return None;
        }
        if self.checks_only {
            let t = target as usize;
            let record = match (self.starts.get(t), self.starts.get(t + 1)) {
                (Some(&a), Some(&b)) => self.records.get(a as usize..b as usize).unwrap_or(&[]),
                _ => &[],
            };
            if self.marked.contains(target) || self.finder.find(record).is_some() {
                return Some(target);
            }
            return target.checked_add(1).filter(|&t| t < self.n);
        }
        match (self.marked.next_one(target), self.next_in_records(target)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The stored form's first bytes (and its version).
// Raised with the format, and with `fold::FOLD_VERSION` (the index holds
// folded text): an index of another magic is rebuilt.
const MAGIC: &[u8; 8] = b"v2indexB";

/// Writes one array: its length, then its little-endian elements.
fn put_array<const N: usize, T: Copy, E>(
    out: &mut Parts<'_, E>,
    items: &[T],
    bytes: fn(T) -> [u8; N],
) {
    out.put(&(items.len() as u64).to_le_bytes());
    for block in items.chunks(4096) {
        let mut buf = [0u8; 4096 * 8];
        for (i, &x) in block.iter().enumerate() {
            buf[i * N..(i + 1) * N].copy_from_slice(&bytes(x));
        }
        out.put(&buf[..block.len() * N]);
    }
}

/// The stored form on its way out, handed on in parts of a fixed size so
/// it never exists whole in memory.
struct Parts<'f, E> {
    buf: Vec<u8>,
    part: usize,
    flush: &'f mut dyn FnMut(&[u8]) -> Result<(), E>,
    /// The first error the receiver gave; later writes are dropped.
    failed: Option<E>,
}

impl<E> Parts<'_, E> {
    fn put(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && self.failed.is_none() {
            let take = (self.part - self.buf.len()).min(bytes.len());
            self.buf.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.buf.len() == self.part {
                self.hand_on();
            }
        }
    }

    fn hand_on(&mut self) {
        if let Err(e) = (self.flush)(&self.buf) {
            self.failed = Some(e);
        }
        self.buf.clear();
    }
}

/// Reads arrays written by [`put_array`], checking every length.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn array<const N: usize, T>(&mut self, from: fn([u8; N]) -> T) -> Result<Vec<T>, IndexError> {
        let damaged = IndexError::Damaged("an array runs past the end");
        let (len, rest) = self.bytes.split_first_chunk::<8>().ok_or(damaged.clone())?;
        let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| damaged.clone())?;
        let size = len.checked_mul(N).ok_or(damaged.clone())?;
        if size > rest.len() {
            return Err(damaged);
        }
        let (data, rest) = rest.split_at(size);
        self.bytes = rest;
        let mut out = Vec::new();
        out.try_reserve_exact(len)
            .map_err(|_| IndexError::Damaged("too big to load"))?;
        out.extend(
            data.chunks_exact(N)
                .map(|c| from(c.try_into().unwrap_or([0; N]))),
        );
        Ok(out)
    }

    fn u32s(&mut self) -> Result<Vec<u32>, IndexError> {
        self.array(u32::from_le_bytes)
    }

    fn u8s(&mut self) -> Result<Vec<u8>, IndexError> {
        self.array(|[b]: [u8; 1]| b)
    }
}

/// Whether `starts` are offsets into `len` bytes: from 0, never falling,
/// ending at `len`.
fn offsets_ok(starts: &[u32], len: usize) -> bool {
    starts.first() == Some(&0)
        && starts.windows(2).all(|w| w[0] <= w[1])
        && starts.last().is_some_and(|&l| l as usize == len)
}

impl Strings {
    fn write<E>(&self, out: &mut Parts<'_, E>) {
        put_array(out, &self.starts, u32::to_le_bytes);
        put_array(out, &self.bytes, |b| [b]);
        put_array(out, &self.doc_starts, u32::to_le_bytes);
        put_array(out, &self.docs, |b| [b]);
    }

    fn read(r: &mut Reader<'_>) -> Result<Strings, IndexError> {
        let s = Strings {
            starts: r.u32s()?,
            bytes: r.u8s()?,
            doc_starts: r.u32s()?,
            docs: r.u8s()?,
        };
        if !offsets_ok(&s.starts, s.bytes.len())
            || !offsets_ok(&s.doc_starts, s.docs.len())
            || s.doc_starts.len() != s.starts.len()
        {
            return Err(IndexError::Damaged("a string table's offsets"));
        }
        Ok(s)
    }
}

impl SearchIndex {
    /// The index as bytes, to store beside the catalogue.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size().total() + 256);
        let _ = self.write_parts(1 << 20, &mut |part: &[u8]| -> Result<(), ()> {
            out.extend_from_slice(part);
            Ok(())
        });
        out
    }

    /// Hands the stored form to `flush` in parts of `part` bytes (the last
    /// one shorter), stopping at the first error it returns.
    pub fn write_parts<E>(
        &self,
        part: usize,
        flush: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut out = Parts {
            buf: Vec::with_capacity(part.min(1 << 24)),
            part: part.max(1),
            flush,
            failed: None,
        };
        out.put(MAGIC);
        put_array(&mut out, &self.ids, i64::to_le_bytes);
        put_array(&mut out, &self.starts, u32::to_le_bytes);
        put_array(&mut out, &self.records, |b| [b]);
        for table in [&self.dir, &self.camera, &self.ext] {
            put_array(&mut out, table, u32::to_le_bytes);
        }
        for strings in [&self.dirs, &self.cameras, &self.exts, &self.caption_words] {
            strings.write(&mut out);
        }
        put_array(&mut out, &self.grams, u32::to_le_bytes);
        put_array(&mut out, &self.gram_counts, u32::to_le_bytes);
        put_array(&mut out, &self.gram_starts, u32::to_le_bytes);
        put_array(&mut out, &self.postings, |b| [b]);
        put_array(&mut out, &self.name_word_starts, u32::to_le_bytes);
        put_array(&mut out, &self.name_words, u32::to_le_bytes);
        self.name_vocab.write(&mut out);
        put_array(&mut out, &self.captioned, |b| [b]);
        if !out.buf.is_empty() {
            out.hand_on();
        }
        match out.failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Reads an index written by [`SearchIndex::to_bytes`], checking every
    /// offset, so a damaged one is an error and never a wrong slice.
    pub fn from_bytes(bytes: &[u8]) -> Result<SearchIndex, IndexError> {
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or(IndexError::Damaged("not a search index of this version"))?;
        let mut r = Reader { bytes: rest };
        let ix = SearchIndex {
            ids: r.array(i64::from_le_bytes)?,
            starts: r.u32s()?,
            records: r.u8s()?,
            dir: r.u32s()?,
            camera: r.u32s()?,
            ext: r.u32s()?,
            dirs: Strings::read(&mut r)?,
            cameras: Strings::read(&mut r)?,
            exts: Strings::read(&mut r)?,
            caption_words: Strings::read(&mut r)?,
            grams: r.u32s()?,
            gram_counts: r.u32s()?,
            gram_starts: r.u32s()?,
            postings: r.u8s()?,
            name_word_starts: r.u32s()?,
            name_words: r.u32s()?,
            name_vocab: Strings::read(&mut r)?,
            captioned: r.u8s()?,
            bound_min_folder: BOUND_MIN_FOLDER,
            folder_runs: Vec::new(),
        };
        let n = ix.ids.len();
        let within = |table: &[u32], strings: &Strings| {
            table.len() == n && table.iter().all(|&i| (i as usize) < strings.len())
        };
        if !r.bytes.is_empty()
            || !ix.ids.windows(2).all(|w| w[0] < w[1])
            || ix.starts.len() != n + 1
            || !offsets_ok(&ix.starts, ix.records.len())
            || !within(&ix.dir, &ix.dirs)
            || !within(&ix.camera, &ix.cameras)
            || !within(&ix.ext, &ix.exts)
            || !ix.grams.windows(2).all(|w| w[0] < w[1])
            || ix.gram_counts.len() != ix.grams.len()
            || ix.gram_starts.len() != ix.grams.len() + 1
            || !offsets_ok(&ix.gram_starts, ix.postings.len())
            || ix.name_word_starts.len() != ix.name_vocab.len() + 1
            || !offsets_ok(&ix.name_word_starts, ix.name_words.len())
            || ix
                .name_words
                .iter()
                .any(|&e| (e >> 8) as usize >= ix.dirs.len())
        {
            return Err(IndexError::Damaged("its tables do not fit together"));
        }
        let mut ix = ix;
        ix.folder_runs = ix.runs_of_folders()?;
        Ok(ix)
    }

    /// See [`SearchIndex::folder_runs`].
    fn runs_of_folders(&self) -> Result<Vec<(u32, u32, u32)>, IndexError> {
        let mut runs = Vec::new();
        for d in 0..self.dirs.len() as u32 {
            let mut list = self.dirs.docs(d);
            while let Some((start, end)) = list.next_run() {
                runs.try_reserve(1).map_err(|_| IndexError::TooBig)?;
                runs.push((start, end, d));
            }
        }
        runs.sort_unstable();
        Ok(runs)
    }
}

/// Copies `v` once more at its exact size, dropping the old one.
fn fresh<T: Clone>(v: &mut Vec<T>) {
    *v = v.to_vec();
}

impl Strings {
    fn compact(&mut self) {
        fresh(&mut self.starts);
        fresh(&mut self.bytes);
        fresh(&mut self.doc_starts);
        fresh(&mut self.docs);
    }
}

impl SearchIndex {
    /// The same index with every table copied once more, one at a time, at
    /// its exact size. Grown piecemeal among the builder's scratch, the
    /// tables lay scattered, and ranked searches ran a quarter slower on
    /// them than on an index read back from its bytes; fresh copies lie
    /// like those.
    fn compacted(mut self) -> SearchIndex {
        fresh(&mut self.ids);
        fresh(&mut self.starts);
        fresh(&mut self.records);
        fresh(&mut self.dir);
        fresh(&mut self.camera);
        fresh(&mut self.ext);
        self.dirs.compact();
        self.cameras.compact();
        self.exts.compact();
        fresh(&mut self.grams);
        fresh(&mut self.gram_counts);
        fresh(&mut self.gram_starts);
        fresh(&mut self.postings);
        fresh(&mut self.name_word_starts);
        fresh(&mut self.name_words);
        self.name_vocab.compact();
        fresh(&mut self.captioned);
        self.caption_words.compact();
        fresh(&mut self.folder_runs);
        self
    }
}

/// Walks [`SearchIndex::folder_runs`] as a search's documents rise.
struct RunCursor<'a> {
    runs: &'a [(u32, u32, u32)],
    at: usize,
}

impl RunCursor<'_> {
    /// The folder of `doc` and the end of its run there (`doc` no lower
    /// than the last one asked).
    fn find(&mut self, doc: u32) -> Option<(u32, u32)> {
        while self
            .runs
            .get(self.at)
            .is_some_and(|&(_, end, _)| end <= doc)
        {
            self.at += 1;
        }
        let &(start, end, d) = self.runs.get(self.at)?;
        (start <= doc).then_some((d, end))
    }
}

/// A set of documents, one bit each.
struct Bits {
    words: Vec<u64>,
    /// Documents in the set (for picking the narrowest stream).
    count: u32,
    /// The last answers of `next_one` and `next_zero`: (target, answer).
    /// A leapfrog asks again and again with slowly rising targets; without
    /// these, a long empty stretch would be scanned each time.
    last_one: Option<(u32, Option<u32>)>,
    last_zero: Option<(u32, Option<u32>)>,
}

/// Whether a remembered answer for `from` still answers `target`: nothing
/// lies between them.
fn still_answers(last: Option<(u32, Option<u32>)>, target: u32) -> Option<Option<u32>> {
    let (from, found) = last?;
    (from <= target && found.is_none_or(|f| f >= target)).then_some(found)
}

impl Bits {
    fn new(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)],
            count: 0,
            last_one: None,
            last_zero: None,
        }
    }

    fn contains(&self, doc: u32) -> bool {
        self.words
            .get(doc as usize / 64)
            .is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }

    fn add(&mut self, doc: u32) {
        (self.last_one, self.last_zero) = (None, None);
        if let Some(w) = self.words.get_mut(doc as usize / 64) {
            let bit = 1 << (doc % 64);
            self.count += u32::from(*w & bit == 0);
            *w |= bit;
        }
    }

    fn add_list(&mut self, mut list: ListIter<'_>) {
        while let Some((start, end)) = list.next_run() {
            if end - start < 64 {
                for d in start..end {
                    self.add(d);
                }
            } else {
                self.add_range(start, end);
            }
        }
    }

    /// Adds documents `start..end`, a word at a time.
    fn add_range(&mut self, start: u32, end: u32) {
        (self.last_one, self.last_zero) = (None, None);
        let end = end.min((self.words.len() * 64) as u32);
        let mut d = start;
        while d < end {
            let (i, bit) = (d as usize / 64, d % 64);
            let take = (64 - bit).min(end - d);
            let mask = if take == 64 {
                !0
            } else {
                ((1u64 << take) - 1) << bit
            };
            let w = &mut self.words[i];
            self.count += (mask & !*w).count_ones();
            *w |= mask;
            d += take;
        }
    }

    fn union(&mut self, other: &Bits) {
        (self.last_one, self.last_zero) = (None, None);
        let mut count = 0;
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w |= o;
            count += w.count_ones();
        }
        self.count = count;
    }

    /// The first document at or above `target` in the set.
    fn next_one(&mut self, target: u32) -> Option<u32> {
        if let Some(found) = still_answers(self.last_one, target) {
            return found;
        }
        let found = self.next_where(target, |w| w);
        self.last_one = Some((target, found));
        found
    }

    /// The first document at or above `target` not in the set (documents
    /// past the last word count as not in it).
    fn next_zero(&mut self, target: u32) -> Option<u32> {
        let i = target as usize / 64;
        if i >= self.words.len() {
            return Some(target);
        }
        if let Some(found) = still_answers(self.last_zero, target) {
            return found;
        }
        let found = self
            .next_where(target, |w| !w)
            .or(Some((self.words.len() * 64) as u32));
        self.last_zero = Some((target, found));
        found
    }

    fn next_where(&self, target: u32, view: impl Fn(u64) -> u64) -> Option<u32> {
        let mut i = target as usize / 64;
        let mut word = view(*self.words.get(i)?) & (!0u64 << (target % 64));
        loop {
            if word != 0 {
                return u32::try_from(i * 64)
                    .ok()?
                    .checked_add(word.trailing_zeros());
            }
            i += 1;
            word = view(*self.words.get(i)?);
        }
    }
}

/// Lower bounds on [`Query::rank`] (see `SearchIndex::search`), for
/// queries whose alternatives all score, of single words, at most three
/// per alternative.
struct RankBound<'q> {
    /// Each alternative's wanted terms, and whether a group (an OR inside)
    /// lets any of them be absent.
    alternatives: Vec<(Vec<&'q Term>, bool)>,
    /// A searcher for each term's word, alternative by alternative (built
    /// once: building one costs more than a folder's search).
    finders: Vec<Vec<memmem::Finder<'q>>>,
    /// For each term, where it lies in each folder's names (see
    /// [`SearchIndex::name_places`]).
    in_names: Vec<Vec<NamePlaces>>,
    /// For each term, whether it may be missing from a path's words though
    /// the file matches it, whatever the folder: it lies outside the path
    /// (`caption:`, `camera:`, `ext:`), or is a substring with a digit
    /// (`g20` stands across a letter/digit change). And whether it is a
    /// substring at all (then a case change may hide it from the words).
    missable: Vec<Vec<(bool, bool)>>,
}

impl<'q> RankBound<'q> {
    /// `possible[i]`: whether any file can match alternative `i`.
    fn new(ix: &SearchIndex, q: &'q Query, possible: &[bool], mode: Mode) -> Option<RankBound<'q>> {
        let mut alternatives = Vec::new();
        for ((terms, clauses), _) in q
            .wanted_by_alternative()
            .into_iter()
            .zip(&q.alternatives)
            .zip(possible)
            .filter(|(_, p)| **p)
        {
            let grouped = clauses.iter().any(|c| matches!(c, Clause::Group(_)));
            let scores = terms.len() >= 2 || terms.iter().any(|t| t.fuzzy);
            // An alternative that scores 0 anywhere bounds nothing.
            if !scores || terms.len() > BOUND_TERMS || terms.iter().any(|t| t.words.len() != 1) {
                return None;
            }
            alternatives.push((terms, grouped));
        }
        let finders: Vec<Vec<memmem::Finder<'q>>> = alternatives
            .iter()
            .map(|(terms, _)| {
                terms
                    .iter()
                    .map(|t| memmem::Finder::new(t.words[0].as_bytes()))
                    .collect()
            })
            .collect();
        let in_names = alternatives
            .iter()
            .zip(&finders)
            .map(|((terms, _), f)| {
                terms
                    .iter()
                    .zip(f)
                    .map(|(t, f)| {
                        // Digits lie in numbers or in the words that hold
                        // them as written.
                        ix.name_places(f, t.words[0].bytes().all(|b| b.is_ascii_digit()))
                    })
                    .collect()
            })
            .collect();
        let missable = alternatives
            .iter()
            .map(|(terms, _)| {
                terms
                    .iter()
                    .map(|t| {
                        let substring = mode == Mode::Default && t.is_substring();
                        let outside =
                            matches!(t.scope, Some(Scope::Caption | Scope::Camera | Scope::Ext));
                        let digits = t.words[0].bytes().any(|b| b.is_ascii_digit());
                        (outside || (substring && digits), substring)
                    })
                    .collect()
            })
            .collect();
        Some(RankBound {
            alternatives,
            finders,
            in_names,
            missable,
        })
    }

    /// Bounds on the path's score for the files of folder `d`, per
    /// alternative and per set of its terms the file's caption holds (bit
    /// `i` for term `i`): each term at one of its places in the folder's
    /// words, or in a name at or after the lowest index any name of the
    /// folder has a word holding it, or missing from the path's words. A
    /// term the file matches must be in the path's words unless the caption
    /// holds it, it can stand across words there (a substring), it lies
    /// outside the path (`caption:`, `camera:`, `ext:`), or a group lets it
    /// be absent.
    fn folder(&self, ix: &SearchIndex, d: u32, tables: &mut Vec<Table>) {
        let folder = ix.dirs.get(d);
        let after = rank::words_in(folder);
        let mut words: Option<Vec<&str>> = None;
        for ((((terms, grouped), finders), in_names), missable) in self
            .alternatives
            .iter()
            .zip(&self.finders)
            .zip(&self.in_names)
            .zip(&self.missable)
        {
            // Each term's places: in the folder, then in names.
            let mut places = [[0u32; 2 * PLACES]; BOUND_TERMS];
            let mut counts = [0usize; BOUND_TERMS];
            // Whether each term may be missing (bit i for term i).
            let mut may_miss = 0usize;
            for (i, (((t, finder), named), &(missable, substring))) in terms
                .iter()
                .zip(finders)
                .zip(in_names)
                .zip(missable)
                .enumerate()
            {
                let (in_names, runs) = named.get(d);
                let word = &t.words[0];
                let mut at = rank::Places::default();
                if t.fuzzy {
                    let words = words.get_or_insert_with(|| {
                        folder
                            .split(|&b| is_separator(b) || b == JOIN)
                            .filter(|w| !w.is_empty())
                            .map(|w| std::str::from_utf8(w).unwrap_or(""))
                            .collect()
                    });
                    for (w, _) in words
                        .iter()
                        .enumerate()
                        .filter(|(_, w)| t.word_matches(word, w))
                    {
                        at.push(w as u32);
                    }
                } else {
                    rank::places_in(finder, folder, 0, &mut at);
                }
                let found = at.get().len();
                // The ranking looks at a term's first eight places only:
                // with eight in the folder, the name never counts.
                let set = if found == PLACES {
                    0
                } else if t.fuzzy {
                    // Typos are not in the summary: anywhere.
                    0xff
                } else {
                    in_names
                };
                // A term in a name sits at one of its indexes; at "7 and
                // above", 7 bounds it (moving places above 7 down to 7
                // lowers no score).
                let (p, n) = (&mut places[i], &mut counts[i]);
                for &w in at.get() {
                    p[*n] = w;
                    *n += 1;
                }
                for b in (0..8).filter(|b| set & (1 << b) != 0) {
                    p[*n] = after + b;
                    *n += 1;
                }
                p[..*n].sort_unstable();
                let kept = dedup_sorted(&mut p[..*n]);
                *n = kept;
                // Found nowhere as written, the word may still stand across
                // the folder's case changes.
                let across_folder = || {
                    memchr::memchr(JOIN, folder).is_some()
                        && with_joined(folder, |joined| finder.find(joined).is_some())
                };
                let across = substring && (runs || (found == 0 && across_folder()));
                if *grouped || missable || across {
                    may_miss |= 1 << i;
                }
            }
            let mut lists: [&[u32]; BOUND_TERMS] = [&[]; BOUND_TERMS];
            for ((l, p), &n) in lists.iter_mut().zip(&places).zip(&counts) {
                *l = &p[..n];
            }
            tables.push(least_scores(
                &lists[..terms.len().min(BOUND_TERMS)],
                may_miss,
            ));
        }
    }

    /// The bound for a file of a folder with these `tables`: with a
    /// caption or without, and `held(a, i)`, whether its caption may hold
    /// term `i` of alternative `a`.
    fn file(&self, tables: &[Table], captioned: bool, held: impl Fn(usize, usize) -> bool) -> u32 {
        if tables.len() != self.alternatives.len() {
            // No tables (a small folder): no bound.
            return 0;
        }
        let mut best = u32::MAX;
        for (a, ((terms, _), table)) in self.alternatives.iter().zip(tables).enumerate() {
            let mut mask = 0usize;
            if captioned {
                for i in 0..terms.len() {
                    if held(a, i) {
                        mask |= 1 << i;
                    }
                }
            }
            // The caption scores at least 8 for each term it lacks.
            let caption_bound = if captioned {
                8 * (terms.len() - mask.count_ones() as usize) as u32
            } else {
                u32::MAX
            };
            best = best.min(table[mask]).min(caption_bound);
        }
        best
    }

    /// Which captions hold which of the alternatives' terms.
    fn holders(&self, ix: &SearchIndex) -> Holders {
        let terms: Vec<Vec<Option<Bits>>> = self
            .alternatives
            .iter()
            .map(|(terms, _)| terms.iter().map(|t| ix.caption_holders(t)).collect())
            .collect();
        let mut any: Option<Bits> = Some(Bits::new(ix.len()));
        for bits in terms.iter().flatten() {
            match (&mut any, bits) {
                (Some(a), Some(b)) => a.union(b),
                _ => any = None,
            }
        }
        Holders { terms, any }
    }
}

/// Each folder's bound tables (see [`RankBound::folder`]) and the bound
/// for its *quiet* files, those whose caption cannot lower it (see
/// [`Holders`]), worked out when the search first meets the folder.
#[derive(Default)]
struct FolderBounds {
    /// Per folder: 0 before it is met, else 1 + its place in `met`.
    slot: Vec<u32>,
    /// Per folder met: where its tables start in `tables` (none for a
    /// folder too small to bound), and its quiet bound.
    met: Vec<(Option<usize>, u32)>,
    tables: Vec<Table>,
}

impl FolderBounds {
    /// Folder `d`'s tables (none: no bound) and quiet bound.
    fn get(
        &mut self,
        ix: &SearchIndex,
        bound: &RankBound<'_>,
        holders: &Holders,
        d: u32,
    ) -> (&[Table], u32) {
        if self.slot.is_empty() {
            self.slot = vec![0; ix.dirs.len()];
        }
        let known = self.slot.get(d as usize).copied().unwrap_or(0) as usize;
        let (start, quiet) = match self.met.get(known.wrapping_sub(1)) {
            Some(&met) => met,
            None => {
                // A bound costs about as much as scoring three files:
                // the smallest folders are ranked file by file.
                let met = if ix.folder_size(d) < ix.bound_min_folder {
                    (None, 0)
                } else {
                    let start = self.tables.len();
                    bound.folder(ix, d, &mut self.tables);
                    let quiet = bound.file(&self.tables[start..], holders.known(), |_, _| false);
                    (Some(start), quiet)
                };
                self.met.push(met);
                if let Some(s) = self.slot.get_mut(d as usize) {
                    *s = self.met.len() as u32;
                }
                met
            }
        };
        let n = bound.alternatives.len();
        let tables = start.and_then(|s| self.tables.get(s..s + n)).unwrap_or(&[]);
        (tables, quiet)
    }
}

/// Which captioned files may hold each wanted term. A file is *loud* when
/// its caption may lower its bound, *quiet* otherwise: when every term's
/// holders are known, the loud files are those whose caption holds one
/// of them; otherwise every captioned file is loud.
struct Holders {
    /// Per alternative, per term: the files whose caption holds it, or
    /// `None` where any caption may (a fuzzy term, or one too common to
    /// list).
    terms: Vec<Vec<Option<Bits>>>,
    /// Every term's holders together, when all are known.
    any: Option<Bits>,
}

impl Holders {
    /// Whether quiet files may have a caption (one that holds no term).
    fn known(&self) -> bool {
        self.any.is_some()
    }

    /// Whether file `doc`'s caption may hold term `i` of alternative `a`.
    fn holds(&self, a: usize, i: usize, doc: u32) -> bool {
        match self.terms.get(a).and_then(|t| t.get(i)) {
            Some(Some(bits)) => bits.contains(doc),
            _ => true,
        }
    }

    /// The first loud file at or after `from` (`captioned` walks the
    /// captioned files, asked with rising targets).
    fn next_loud(&mut self, captioned: &mut ListIter<'_>, from: u32) -> Option<u32> {
        match &mut self.any {
            Some(any) => any.next_one(from),
            None => captioned.next_geq(from),
        }
    }
}

/// Where one search word lies in each folder's names (see
/// [`SearchIndex::name_places`]).
struct NamePlaces {
    /// Per folder: the indexes in names of words holding it (bits 0 to 7,
    /// bit 7 for 7 and above), and [`NamePlaces::RUN`] where a run holds
    /// it, so that it may stand across words.
    by_folder: Vec<u16>,
}

impl NamePlaces {
    const RUN: u16 = 1 << 8;

    /// Folder `d`'s name indexes and whether a run holds the word.
    fn get(&self, d: u32) -> (u8, bool) {
        match self.by_folder.get(d as usize) {
            Some(&p) => (p as u8, p & NamePlaces::RUN != 0),
            None => (0xff, true),
        }
    }
}

/// The most terms an alternative may have for the ranking to bound it.
const BOUND_TERMS: usize = 4;

/// Keeps one of each value of sorted `values` at its front; returns how
/// many.
fn dedup_sorted(values: &mut [u32]) -> usize {
    let mut kept = 0;
    for i in 0..values.len() {
        if kept == 0 || values[i] != values[kept - 1] {
            values[kept] = values[i];
            kept += 1;
        }
    }
    kept
}

/// A folder's bounds: one per set of terms its file's caption holds.
type Table = [u32; 1 << BOUND_TERMS];

/// For each set of terms let off (bit `i` for term `i`), the least
/// `8 × missing + extra distance + 3 × inversions` over one choice per
/// term: one of its places, or missing where `may_miss` or let off; terms
/// in query order (at most [`BOUND_TERMS`]); `u32::MAX` where no choice is
/// left. Where the choices are too many to try, the arrangement counts 0
/// (a lower bound still).
fn least_scores(places: &[&[u32]], may_miss: usize) -> Table {
    let n = places.len().min(BOUND_TERMS);
    let choices = places[..n]
        .iter()
        .fold(1usize, |c, p| c.saturating_mul(p.len() + 1));
    // The best score per set of missing terms: 8 each, and the best
    // arrangement of the others (each needs a place).
    let mut by_missing: Table = [u32::MAX; 1 << BOUND_TERMS];
    for (m, slot) in by_missing.iter_mut().enumerate().take(1 << n) {
        let mut present: [&[u32]; BOUND_TERMS] = [&[]; BOUND_TERMS];
        let mut k = 0;
        for (i, p) in places[..n].iter().enumerate() {
            if m & (1 << i) == 0 {
                present[k] = p;
                k += 1;
            }
        }
        if present[..k].iter().any(|p| p.is_empty()) {
            continue;
        }
        let arrangement = if choices > 512 {
            0
        } else {
            rank::best_arrangement(&present[..k])
        };
        *slot = 8 * m.count_ones() + arrangement;
    }
    let free = may_miss & ((1 << n) - 1);
    let mut table: Table = [u32::MAX; 1 << BOUND_TERMS];
    for (mask, slot) in table.iter_mut().enumerate().take(1 << n) {
        let allowed = free | mask;
        for (m, &score) in by_missing.iter().enumerate().take(1 << n) {
            if m & !allowed == 0 {
                *slot = (*slot).min(score);
            }
        }
    }
    table
}
