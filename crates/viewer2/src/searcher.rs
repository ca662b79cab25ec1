//! The window's background thread for everything that touches the
//! catalogue: loading the library, searching as the user types, saving
//! caption edits, and indexing the folders the window was opened on (on a
//! thread of its own). The window only sends requests and picks up
//! answers, never blocking, so a slow disk or a big query never stalls a
//! frame.
//!
//! Searches are debounced here: a request waits [`DEBOUNCE`] for a newer
//! one, and only the newest of those waiting runs. A search overtaken by a
//! newer one while it runs stops before sorting and counting tags, and its
//! answer is not sent. Every answer carries its request's sequence number,
//! so the window can also drop any that arrives late.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use catalog::{Catalog, Clause, FileId, Mode, Query, parse, tokenize};

use crate::edits::{self, Done, FileOp};
use crate::fileops::{RealFs, Trash};
use crate::indexer::{self, Progress, Report};
use crate::library::{Group, Grouping, Library, Sort};
use crate::table::{Changes, Saved, UserGroup};
use crate::tags::CloudTag;

/// How long a search waits for a newer keystroke before it runs.
pub const DEBOUNCE: Duration = Duration::from_millis(60);

/// How many tags a result's cloud shows.
pub const CLOUD_TAGS: usize = 80;

/// What the window asks.
#[derive(Clone, Debug)]
enum Request {
    Search(SearchRequest),
    SetCaption {
        id: FileId,
        caption: String,
    },
    /// A background index run ended: read the catalogue again, then pass
    /// the news on.
    Indexed(Result<Report, String>),
    /// The catalogue changed: read it again.
    Reload,
    /// The light table moved: save where its cards lie.
    SaveTable(Changes, Option<[f32; 3]>),
    /// Keep a setting.
    SaveSetting(&'static str, String),
    /// The window is closing: finish the saves asked before this, answer
    /// [`Answer::Closed`] and end.
    Quit,
    /// Change the user's files (the Trash, rename, move, copy, rotate).
    Edit(FileOp),
    /// Move a photo's file into a folder (dropped onto its stack, and the
    /// user said yes).
    MoveFile {
        id: FileId,
        to_dir: PathBuf,
    },
}

#[derive(Clone, Debug)]
struct SearchRequest {
    seq: u64,
    text: String,
    sort: Sort,
    /// Newest, largest, Z first (not for relevance).
    descending: bool,
    fuzzy: bool,
    /// Only the photos of this folder (and, `true`, its subfolders).
    folder: Option<(String, bool)>,
    grouping: Grouping,
}

/// A search's answer.
#[derive(Clone, Debug)]
pub struct Found {
    /// The request's sequence number.
    pub seq: u64,
    /// The query as typed.
    pub text: String,
    /// The library the rows index.
    pub library: Arc<Library>,
    /// The matching photos, in the order asked (group by group).
    pub rows: Arc<Vec<u32>>,
    /// The groups the rows fall into; none when ungrouped.
    pub groups: Arc<Vec<Group>>,
    /// The result's tag cloud.
    pub cloud: Vec<CloudTag>,
    /// Why the query did not parse (the rows are then the whole library).
    pub error: Option<String>,
    /// Nothing matched the query as typed, and the rows are what matches
    /// it with typos tolerated.
    pub typo: Option<TypoHint>,
    /// How long the search took, debounce excluded.
    pub took: Duration,
}

/// What a search that found nothing found with typos tolerated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypoHint {
    /// How many photos match with typos.
    pub count: usize,
    /// The words found for the words typed, most common first: (typed,
    /// found), folded.
    pub words: Vec<(String, String)>,
    /// The most typos any of those words needed.
    pub edits: usize,
}

impl TypoHint {
    /// What the window says: "No photo matches kiten · 3 with one typo:
    /// kitten".
    pub fn message(&self, query: &str) -> String {
        let typos = if self.edits <= 1 { "one typo" } else { "typos" };
        let words: Vec<&str> = self.words.iter().map(|(_, f)| f.as_str()).collect();
        let mut out = format!(
            "No photo matches {} · {} with {typos}",
            query.trim(),
            self.count
        );
        if !words.is_empty() {
            out.push_str(": ");
            out.push_str(&words.join(" "));
        }
        out
    }
}

/// What the thread answers.
#[derive(Debug)]
pub enum Answer {
    /// A new library (at start, after an index run, after an edit).
    Loaded(Arc<Library>),
    /// A search's result.
    Found(Found),
    /// An index run's progress.
    Indexing(Progress),
    /// An index run ended.
    Indexed(Result<Report, String>),
    /// A caption edit was saved (or not: the error).
    CaptionSaved {
        /// The photo.
        id: FileId,
        /// Why it was not saved.
        error: Option<String>,
    },
    /// The catalogue could not be opened or read: nothing to browse.
    Failed(String),
    /// The light table as last saved (sent once, after the first library).
    TableLoaded(Saved),
    /// A table save failed: why.
    TableNotSaved(String),
    /// A photo's file was moved into a folder (its new path), or why not.
    FileMoved(Result<String, String>),
    /// A file operation is over: what it did, and what takes it back.
    Edited(Done),
    /// Every save asked before [`Searcher::shut_down`] is written; the
    /// thread has ended.
    Closed,
    /// What clicking each tag of a result's cloud gives (in the cloud's
    /// order; `None` for a tag already in the query), sent after the
    /// result.
    TagCounts {
        /// The search's sequence number.
        seq: u64,
        /// One per tag.
        counts: Vec<Option<u32>>,
    },
    /// The grid's order as last kept (sent before the first library).
    SortLoaded {
        /// The order.
        sort: Sort,
        /// Turned around.
        descending: bool,
        /// The grouping.
        grouping: Grouping,
    },
}

/// The thread's handle.
pub struct Searcher {
    requests: Sender<Request>,
    answers: Receiver<Answer>,
    seq: u64,
    /// Tells a background index run to stop at its next transaction.
    stop: Arc<AtomicBool>,
    grouping: Grouping,
}

impl Searcher {
    /// Starts the thread on the catalogue at `catalog_path` (made if
    /// missing). With `dirs`, the library is the photos under them, and
    /// they are indexed in the background; without, it is the whole
    /// catalogue. `wake` is called after each answer (the window asks for
    /// a repaint there).
    pub fn start(
        catalog_path: PathBuf,
        dirs: Vec<PathBuf>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Searcher> {
        Searcher::start_with(
            catalog_path,
            dirs,
            wake,
            Extras {
                watch: None,
                trash: Trash::for_user(),
            },
        )
    }

    /// [`Searcher::start`] with a watch on index runs and a Trash of the
    /// caller's choosing.
    pub fn start_with(
        catalog_path: PathBuf,
        dirs: Vec<PathBuf>,
        wake: Arc<dyn Fn() + Send + Sync>,
        extras: Extras,
    ) -> std::io::Result<Searcher> {
        let (requests, inbox) = channel();
        let (outbox, answers) = channel();
        let again = requests.clone();
        let out = Outbox { tx: outbox, wake };
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("catalogue".into())
            // Queries are walked once a level of parentheses (at most
            // catalog::MAX_DEPTH): room for that even in a debug build.
            .stack_size(16 << 20)
            .spawn(move || run(&catalog_path, &dirs, &inbox, again, &out, stopped, extras))?;
        Ok(Searcher {
            requests,
            answers,
            seq: 0,
            grouping: Grouping::None,
            stop,
        })
    }

    /// Asks for the photos matching `text` (the catalogue's query
    /// language; empty for all), in `sort` order; `fuzzy` tolerates typos
    /// in every word. Returns the request's sequence number.
    pub fn search(&mut self, text: &str, sort: Sort, fuzzy: bool) -> u64 {
        self.search_in_order(text, sort, false, fuzzy)
    }

    /// [`Searcher::search`], the order turned around when `descending`
    /// (photos without a date stay last).
    pub fn search_in_order(
        &mut self,
        text: &str,
        sort: Sort,
        descending: bool,
        fuzzy: bool,
    ) -> u64 {
        self.search_within(text, sort, descending, fuzzy, None)
    }

    /// [`Searcher::search_in_order`] within a folder: `(path, subfolders)`
    /// keeps the photos of that folder (and of the folders below it).
    pub fn search_within(
        &mut self,
        text: &str,
        sort: Sort,
        descending: bool,
        fuzzy: bool,
        folder: Option<(String, bool)>,
    ) -> u64 {
        self.seq += 1;
        let _ = self.requests.send(Request::Search(SearchRequest {
            seq: self.seq,
            text: text.to_owned(),
            sort,
            descending,
            fuzzy,
            folder,
            grouping: self.grouping,
        }));
        self.seq
    }

    /// How later searches group their rows (see [`Library::group`]).
    pub fn set_grouping(&mut self, grouping: Grouping) {
        self.grouping = grouping;
    }

    /// Keeps the grid's order in the catalogue, for the next start.
    pub fn save_sort(&self, sort: Sort, descending: bool, grouping: Grouping) {
        let value = format!(
            "{}{} {}",
            sort.key(),
            if descending { " desc" } else { "" },
            grouping.key()
        );
        let _ = self
            .requests
            .send(Request::SaveSetting(SORT_SETTING, value));
    }

    /// The sequence number of the newest search asked.
    pub fn latest(&self) -> u64 {
        self.seq
    }

    /// Saves a caption the user wrote; a [`Answer::CaptionSaved`] and a
    /// new library follow, and the newest search runs again.
    pub fn set_caption(&self, id: FileId, caption: &str) {
        let _ = self.requests.send(Request::SetCaption {
            id,
            caption: caption.to_owned(),
        });
    }

    /// Saves what changed on the light table, and its view (centre and
    /// zoom).
    pub fn save_table(&self, changes: Changes, view: Option<[f32; 3]>) {
        let _ = self.requests.send(Request::SaveTable(changes, view));
    }

    /// Moves a photo's file into `to_dir` (never over another file), and
    /// records the new path; a [`Answer::FileMoved`] and a new library
    /// follow.
    pub fn move_file(&self, id: FileId, to_dir: PathBuf) {
        let _ = self.requests.send(Request::MoveFile { id, to_dir });
    }

    /// Changes the user's files; an [`Answer::Edited`] and, when something
    /// changed, a new library follow.
    pub fn edit(&self, op: FileOp) {
        let _ = self.requests.send(Request::Edit(op));
    }

    /// An answer, if one is ready; never blocks.
    pub fn try_recv(&self) -> Option<Answer> {
        self.answers.try_recv().ok()
    }

    /// The window is closing: a background index run is told to stop at
    /// its next transaction (what it wrote stays consistent; the next run
    /// finishes the work), and the saves asked so far are written. Waits
    /// for that at most `wait`; returns whether it was done in time.
    pub fn shut_down(&self, wait: Duration) -> bool {
        self.stop.store(true, Ordering::Relaxed);
        if self.requests.send(Request::Quit).is_err() {
            return true;
        }
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(Answer::Closed) | Err(RecvTimeoutError::Disconnected) => return true,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
    }

    /// Waits up to `timeout` for an answer (tests, the benchmark).
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Answer> {
        self.answers.recv_timeout(timeout).ok()
    }
}

/// Where answers go: the channel, and a call that wakes the window.
#[derive(Clone)]
struct Outbox {
    tx: Sender<Answer>,
    wake: Arc<dyn Fn() + Send + Sync>,
}

impl Outbox {
    /// Sends an answer; false once the window is gone.
    fn send(&self, a: Answer) -> bool {
        let ok = self.tx.send(a).is_ok();
        (self.wake)();
        ok
    }
}

/// The folders as path prefixes ending in a separator, resolved like the
/// index run resolves them (so they match the recorded paths).
fn scope_of(dirs: &[PathBuf]) -> Vec<String> {
    dirs.iter()
        .map(|d| {
            let root = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
            let mut s = root.to_string_lossy().into_owned();
            if !s.ends_with(std::path::MAIN_SEPARATOR) {
                s.push(std::path::MAIN_SEPARATOR);
            }
            s
        })
        .collect()
}

/// The window's message for a catalogue that cannot be opened or read:
/// where SQLite calls the file damaged, the command that salvages it.
fn with_repair_hint(catalog_path: &Path, error: &str) -> String {
    let damaged = ["malformed", "not a database", "damaged", "corrupt"]
        .iter()
        .any(|w| error.contains(w));
    if damaged {
        format!(
            "{}: {error}. `viewer2 repair --catalog {}` copies what it still holds into a new \
             file, keeping this one",
            catalog_path.display(),
            catalog_path.display()
        )
    } else {
        format!("{}: {error}", catalog_path.display())
    }
}

fn run(
    catalog_path: &Path,
    dirs: &[PathBuf],
    inbox: &Receiver<Request>,
    again: Sender<Request>,
    out: &Outbox,
    stop: Arc<AtomicBool>,
    extras: Extras,
) {
    let Extras { watch, trash } = extras;
    let send = |a| out.send(a);
    if let Some(parent) = catalog_path.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        send(Answer::Failed(format!("{}: {e}", parent.display())));
        return;
    }
    let mut cat = match Catalog::open_for_search(catalog_path) {
        Ok(c) => c,
        Err(e) => {
            send(Answer::Failed(with_repair_hint(
                catalog_path,
                &e.to_string(),
            )));
            return;
        }
    };
    // Before the library loads, so no caption box shows the old text.
    if let Err(e) = crate::metadata::drop_camera_from_captions(&mut cat) {
        tracing::warn!("{}: cleaning old captions: {e}", catalog_path.display());
    }
    let scope = scope_of(dirs);
    let load = |cat: &Catalog| -> Result<Arc<Library>, String> {
        let files = cat.files().map_err(|e| e.to_string())?;
        let marks = cat.marks().map_err(|e| e.to_string())?;
        let words = cat.file_words().map_err(|e| e.to_string())?;
        let user_captions = cat.user_captioned().map_err(|e| e.to_string())?;
        let unwritten = cat.unwritten().map_err(|e| e.to_string())?;
        Ok(Arc::new(
            Library::new(files, &scope)
                .with_marks(marks)
                .with_words(words)
                .with_user_captions(user_captions)
                .with_unwritten(unwritten),
        ))
    };
    let mut library = match load(&cat) {
        Ok(l) => l,
        Err(e) => {
            send(Answer::Failed(with_repair_hint(catalog_path, &e)));
            return;
        }
    };
    if let Ok(Some(saved)) = cat.setting(SORT_SETTING) {
        let mut words = saved.split_whitespace();
        if let Some(sort) = words.next().and_then(Sort::from_key) {
            let rest: Vec<&str> = words.collect();
            send(Answer::SortLoaded {
                sort,
                descending: rest.contains(&"desc"),
                grouping: rest
                    .iter()
                    .find_map(|w| Grouping::from_key(w))
                    .unwrap_or_default(),
            });
        }
    }
    if !send(Answer::Loaded(Arc::clone(&library))) {
        return;
    }
    match read_table(&cat) {
        Ok(saved) => {
            send(Answer::TableLoaded(saved));
        }
        Err(e) => {
            // The browser works without it; the table starts afresh.
            send(Answer::TableNotSaved(format!(
                "cannot read the saved table: {e}"
            )));
            send(Answer::TableLoaded(Saved::default()));
        }
    }
    if !dirs.is_empty() {
        let (path, dirs, out) = (catalog_path.to_owned(), dirs.to_vec(), out.clone());
        let spawned = std::thread::Builder::new()
            .name("index".into())
            .spawn(move || index_in_background(&path, &dirs, &again, &out, &stop, watch));
        if let Err(e) = spawned {
            send(Answer::Indexed(Err(format!("cannot start indexing: {e}"))));
        }
    }
    let mut last: Option<SearchRequest> = None;
    let mut term_counts = TermCounts::default();
    let mut pending: std::collections::VecDeque<Request> = std::collections::VecDeque::new();
    loop {
        let request = match pending.pop_front() {
            Some(r) => r,
            None => match inbox.recv() {
                Ok(r) => r,
                Err(_) => return,
            },
        };
        match request {
            Request::Search(mut s) => {
                // The debounce: newer searches replace this one; other
                // requests keep their turn.
                let deadline = Instant::now() + DEBOUNCE;
                loop {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match inbox.recv_timeout(left) {
                        Ok(Request::Search(newer)) => s = newer,
                        Ok(other) => pending.push_back(other),
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                last = Some(s.clone());
                let mut overtaken = || {
                    // A newer search waiting in the channel.
                    while let Ok(r) = inbox.try_recv() {
                        pending.push_back(r);
                    }
                    pending.iter().any(|r| matches!(r, Request::Search(_)))
                };
                if !answer(&cat, &library, &s, &mut term_counts, &mut overtaken, out) {
                    return;
                }
            }
            Request::SetCaption { id, caption } => {
                let error = match cat.set_caption(id, &caption) {
                    Ok(true) => {
                        Arc::make_mut(&mut library).set_caption(id, &caption);
                        let changes = photo::meta::Changes {
                            description: Some(caption.clone()),
                            ..Default::default()
                        };
                        for line in crate::write_back::write(&mut cat, &[id], &changes) {
                            tracing::warn!("the caption of photo {id}: {line}");
                        }
                        None
                    }
                    Ok(false) => Some("this photo is no longer in the catalogue".to_owned()),
                    Err(e) => Some(e.to_string()),
                };
                let saved = error.is_none();
                if !send(Answer::CaptionSaved { id, error }) {
                    return;
                }
                if saved {
                    if !send(Answer::Loaded(Arc::clone(&library))) {
                        return;
                    }
                    if let Some(s) = &last {
                        pending.push_back(Request::Search(s.clone()));
                    }
                }
            }
            Request::SaveTable(changes, view) => {
                if let Err(e) = write_table(&mut cat, &changes, view)
                    && !send(Answer::TableNotSaved(e.to_string()))
                {
                    return;
                }
            }
            Request::MoveFile { id, to_dir } => {
                let moved = move_file(&mut cat, &library, id, &to_dir);
                let ok = moved.is_ok();
                if !send(Answer::FileMoved(moved)) {
                    return;
                }
                if ok {
                    pending.push_back(Request::Reload);
                }
            }
            Request::Edit(op) => {
                let done = edits::apply(&RealFs, &mut cat, &library, trash.as_ref(), &op);
                // The library and result as changed go out first, so a
                // window told the operation is over shows its effect.
                if !done.message.is_empty()
                    && !reload_and_answer(
                        &cat,
                        &load,
                        &mut library,
                        last.as_ref(),
                        &mut term_counts,
                        out,
                    )
                {
                    return;
                }
                if !send(Answer::Edited(done)) {
                    return;
                }
            }
            Request::SaveSetting(key, value) => {
                if let Err(e) = cat.set_setting(key, &value) {
                    tracing::warn!("keeping {key}: {e}");
                }
            }
            Request::Quit => {
                // Saves waiting behind the debounce still count; searches
                // and moves are dropped.
                for r in pending.drain(..) {
                    match r {
                        Request::SaveSetting(key, value) => {
                            let _ = cat.set_setting(key, &value);
                        }
                        Request::SetCaption { id, caption } => {
                            if let Ok(true) = cat.set_caption(id, &caption) {
                                let changes = photo::meta::Changes {
                                    description: Some(caption.clone()),
                                    ..Default::default()
                                };
                                let _ = crate::write_back::write(&mut cat, &[id], &changes);
                            }
                        }
                        Request::SaveTable(changes, view) => {
                            let _ = write_table(&mut cat, &changes, view);
                        }
                        _ => {}
                    }
                }
                send(Answer::Closed);
                return;
            }
            Request::Reload => {
                match load(&cat) {
                    Ok(l) => library = l,
                    Err(e) => {
                        send(Answer::Failed(e));
                        return;
                    }
                }
                if !send(Answer::Loaded(Arc::clone(&library))) {
                    return;
                }
                if let Some(s) = &last {
                    pending.push_back(Request::Search(s.clone()));
                }
            }
            Request::Indexed(report) => {
                // The new library and its result go out before the news
                // that the run ended, so a window that sees the run over
                // already shows everything it found.
                if report.is_ok()
                    && !reload_and_answer(
                        &cat,
                        &load,
                        &mut library,
                        last.as_ref(),
                        &mut term_counts,
                        out,
                    )
                {
                    return;
                }
                if !send(Answer::Indexed(report)) {
                    return;
                }
            }
        }
    }
}

/// The light table's saved state.
fn read_table(cat: &Catalog) -> Result<Saved, catalog::CatalogError> {
    let open = cat.setting(TABLE_OPEN)?.unwrap_or_default();
    let groups = cat.setting(TABLE_GROUPS)?.unwrap_or_default();
    let view = cat.setting(TABLE_VIEW)?.and_then(|v| {
        let n: Vec<f32> = v.split(' ').filter_map(|x| x.parse().ok()).collect();
        match n[..] {
            [x, y, z] if x.is_finite() && y.is_finite() && z.is_finite() && z > 0.0 => {
                Some([x, y, z])
            }
            _ => None,
        }
    });
    Ok(Saved {
        placements: cat
            .placements()?
            .into_iter()
            .map(|p| (p.key.clone(), p))
            .collect(),
        open: open
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        user_groups: groups
            .lines()
            .filter_map(|l| {
                let mut parts = l.splitn(3, '\t');
                Some(UserGroup {
                    key: parts.next()?.to_owned(),
                    name: parts.next()?.to_owned(),
                    parent: parts.next().unwrap_or_default().to_owned(),
                })
            })
            .collect(),
        view,
    })
}

fn write_table(
    cat: &mut Catalog,
    changes: &Changes,
    view: Option<[f32; 3]>,
) -> Result<(), catalog::CatalogError> {
    cat.save_placements(&changes.placements, &[])?;
    if let Some(open) = &changes.open {
        cat.set_setting(TABLE_OPEN, &open.join("\n"))?;
    }
    if let Some(groups) = &changes.user_groups {
        let lines: Vec<String> = groups
            .iter()
            .map(|g| {
                // Tabs and line breaks would split the record.
                let clean = |s: &str| s.replace(['\t', '\n'], " ");
                format!(
                    "{}\t{}\t{}",
                    clean(&g.key),
                    clean(&g.name),
                    clean(&g.parent)
                )
            })
            .collect();
        cat.set_setting(TABLE_GROUPS, &lines.join("\n"))?;
    }
    if let Some([x, y, z]) = view {
        cat.set_setting(TABLE_VIEW, &format!("{x} {y} {z}"))?;
    }
    Ok(())
}

/// Moves photo `id`'s file into `to_dir` and records its new path. Never
/// replaces a file; if the catalogue cannot record the move, the file is
/// moved back.
fn move_file(
    cat: &mut Catalog,
    library: &Library,
    id: FileId,
    to_dir: &Path,
) -> Result<String, String> {
    let op = FileOp::Move {
        ids: vec![id],
        to: to_dir.to_owned(),
    };
    let done = edits::apply(&RealFs, cat, library, None, &op);
    if let Some(e) = done.errors.into_iter().next() {
        return Err(e);
    }
    match cat.file(id) {
        Ok(Some((path, _))) => Ok(path),
        Ok(None) => Err("this photo is no longer in the catalogue".to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

/// Settings keys of the light table.
const TABLE_OPEN: &str = "table.open";
const TABLE_GROUPS: &str = "table.groups";
/// The grid's order: a `Sort::key`, then ` desc` when turned around.
const SORT_SETTING: &str = "grid.sort";
const TABLE_VIEW: &str = "table.view";

/// Called on the index thread with each step of a run.
pub type IndexWatch = Arc<dyn Fn(&Progress) + Send + Sync>;

/// What a catalogue thread may be given beyond the catalogue and folders.
#[derive(Default)]
pub struct Extras {
    /// Called on the index thread with each step of a background run
    /// (after the window was told; tests hold the run there).
    pub watch: Option<IndexWatch>,
    /// Where deleted photos go (`None`: deleting is refused, and says
    /// why).
    pub trash: Option<Trash>,
}

/// How often a first run's library is read again while files come in, so
/// the grid fills as they do.
const RELOAD_EVERY: Duration = Duration::from_secs(2);

/// Indexes the folders (on a thread of its own), passing its progress on
/// at most every 100 ms, then asks the catalogue thread to reload. New
/// files show while the run goes on: the library is read again after the
/// first batch and every [`RELOAD_EVERY`].
fn index_in_background(
    catalog_path: &Path,
    dirs: &[PathBuf],
    again: &Sender<Request>,
    out: &Outbox,
    stop: &AtomicBool,
    watch: Option<IndexWatch>,
) {
    let mut last = Instant::now() - Duration::from_secs(1);
    let mut reloaded: Option<Instant> = None;
    let progress = &mut |p: Progress| {
        let first = matches!(p, Progress::Reading { done: 0, .. });
        let reload = matches!(p, Progress::Reading { done, total } if done > 0 && done < total)
            && reloaded.is_none_or(|t| t.elapsed() >= RELOAD_EVERY);
        // The count that goes with the photos about to show is always
        // told.
        if first
            || reload
            || matches!(p, Progress::BuildingIndex)
            || last.elapsed() >= Duration::from_millis(100)
        {
            last = Instant::now();
            out.send(Answer::Indexing(p));
        }
        if reload {
            reloaded = Some(Instant::now());
            let _ = again.send(Request::Reload);
        }
        if let Some(w) = &watch {
            w(&p);
        }
    };
    let report = indexer::index_until(catalog_path, dirs, progress, &|| {
        stop.load(Ordering::Relaxed)
    });
    let report = report.map_err(|e| e.to_string());
    // The catalogue thread reloads, then tells the window.
    if let Err(e) = again.send(Request::Indexed(report)) {
        let Request::Indexed(report) = e.0 else {
            return;
        };
        out.send(Answer::Indexed(report));
    }
}

/// Reads the library again and sends it, then the last search's result
/// on it, before the caller announces what changed (so the window shows
/// the change when told). Returns false once the window is gone or the
/// catalogue cannot be read (said with [`Answer::Failed`]).
fn reload_and_answer(
    cat: &Catalog,
    load: &dyn Fn(&Catalog) -> Result<Arc<Library>, String>,
    library: &mut Arc<Library>,
    last: Option<&SearchRequest>,
    term_counts: &mut TermCounts,
    out: &Outbox,
) -> bool {
    match load(cat) {
        Ok(l) => *library = l,
        Err(e) => {
            out.send(Answer::Failed(e));
            return false;
        }
    }
    if !out.send(Answer::Loaded(Arc::clone(library))) {
        return false;
    }
    match last {
        Some(s) => answer(cat, library, s, term_counts, &mut || false, out),
        None => true,
    }
}

/// Runs a search and sends its result, then its tags' counts. Returns
/// false once the window is gone.
fn answer(
    cat: &Catalog,
    library: &Arc<Library>,
    s: &SearchRequest,
    term_counts: &mut TermCounts,
    overtaken: &mut impl FnMut() -> bool,
    out: &Outbox,
) -> bool {
    let Some(found) = search(cat, library, s, overtaken) else {
        return true;
    };
    let (rows, cloud) = (Arc::clone(&found.rows), found.cloud.clone());
    let fuzzy = s.fuzzy || found.typo.is_some();
    if !out.send(Answer::Found(found)) {
        return false;
    }
    match term_counts.count(cat, library, &s.text, fuzzy, &rows, &cloud, overtaken) {
        Some(counts) => out.send(Answer::TagCounts { seq: s.seq, counts }),
        None => true,
    }
}

/// Runs one search; `None` when a newer one overtook it.
fn search(
    cat: &Catalog,
    library: &Arc<Library>,
    s: &SearchRequest,
    overtaken: &mut impl FnMut() -> bool,
) -> Option<Found> {
    let started = Instant::now();
    // The user's marks filter the result; the rest is the catalogue's.
    let (text, marks, mark_error) = match crate::marks::split(s.text.trim()) {
        Ok((rest, marks)) => (rest, marks, None),
        Err(e) => (String::new(), Vec::new(), Some(e)),
    };
    let text = text.as_str();
    let mut typo = None;
    let (ids, error): (Option<Vec<FileId>>, Option<String>) = if mark_error.is_some() {
        (None, mark_error)
    } else if text.is_empty() {
        (None, None)
    } else {
        match parse(text) {
            Ok(q) => {
                let ranked = s.sort == Sort::Relevance;
                let run = |q: &Query| {
                    if ranked {
                        cat.search_ranked(q, Mode::Default, usize::MAX)
                    } else {
                        cat.search(q, Mode::Default)
                    }
                };
                let found = if s.fuzzy {
                    run(&q.clone().fuzzy())
                } else {
                    run(&q)
                };
                match found {
                    // Nothing as typed: what a typo away finds, in place,
                    // said so (Everything and Spotlight show nothing; a
                    // user who typed `kiten` wants the kittens).
                    Ok(ids) if ids.is_empty() && !s.fuzzy && !overtaken() => {
                        let loose = q.clone().fuzzy();
                        match run(&loose) {
                            Ok(near) if !near.is_empty() => {
                                typo = Some(typo_hint(&q, &near, library));
                                (Some(near), None)
                            }
                            _ => (Some(ids), None),
                        }
                    }
                    Ok(ids) => (Some(ids), None),
                    Err(e) => (None, Some(e.to_string())),
                }
            }
            Err(e) => (None, Some(format!("{e}"))),
        }
    };
    if overtaken() {
        return None;
    }
    let mut rows = match &ids {
        Some(ids) => library.rows_of(ids, s.sort),
        None => library.all(s.sort),
    };
    if !marks.is_empty() {
        rows.retain(|&r| {
            let p = &library.photos[r as usize];
            marks.iter().all(|m| m.passes(p))
        });
    }
    if let Some((folder, subfolders)) = &s.folder {
        rows.retain(|&r| {
            crate::folders::contains(folder, &library.photos[r as usize].text_path, *subfolders)
        });
    }
    if s.descending && s.sort != Sort::Relevance {
        library.reverse(&mut rows, s.sort);
    }
    let groups = library.group(
        &mut rows,
        s.grouping,
        s.descending && s.sort != Sort::Relevance,
    );
    if overtaken() {
        return None;
    }
    let cloud = library.tags.cloud(&rows, CLOUD_TAGS);
    Some(Found {
        seq: s.seq,
        text: s.text.clone(),
        library: Arc::clone(library),
        rows: Arc::new(rows),
        groups: Arc::new(groups),
        cloud,
        error,
        typo,
        took: started.elapsed(),
    })
}

/// The photos each tag's term finds on its own, kept while the library
/// stays the same, so typing a query costs one search per new tag.
#[derive(Default)]
struct TermCounts {
    library: Option<Arc<Library>>,
    /// (term, fuzzy) → the places in the library of the photos it finds.
    found: HashMap<(String, bool), Vec<u32>>,
}

impl TermCounts {
    /// For each tag of `cloud`, how many photos the query gives with the
    /// tag's term added: the result (`rows`) less what the term does not
    /// find (adding a term ANDs it with the whole query, fuzzy with it).
    /// `None` for a tag already in the query, or for all when a newer
    /// search overtook this one.
    #[allow(clippy::too_many_arguments)]
    fn count(
        &mut self,
        cat: &Catalog,
        library: &Arc<Library>,
        query: &str,
        fuzzy: bool,
        rows: &[u32],
        cloud: &[CloudTag],
        overtaken: &mut impl FnMut() -> bool,
    ) -> Option<Vec<Option<u32>>> {
        if !self
            .library
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(l, library))
        {
            self.library = Some(Arc::clone(library));
            self.found.clear();
        }
        let mut shown = vec![false; library.len()];
        for &r in rows {
            shown[r as usize] = true;
        }
        let mut counts = Vec::with_capacity(cloud.len());
        for tag in cloud {
            if crate::tags::has_term(query, &tag.term) {
                counts.push(None);
                continue;
            }
            let key = (tag.term.clone(), fuzzy);
            if !self.found.contains_key(&key) {
                if overtaken() {
                    return None;
                }
                let places = match parse(&tag.term) {
                    Ok(q) => {
                        let q = if fuzzy { q.fuzzy() } else { q };
                        cat.search(&q, Mode::Default)
                            .map(|ids| {
                                ids.into_iter()
                                    .filter_map(|id| library.index_of(id))
                                    .collect()
                            })
                            .unwrap_or_default()
                    }
                    Err(_) => Vec::new(),
                };
                self.found.insert(key.clone(), places);
            }
            let n = self.found[&key]
                .iter()
                .filter(|&&i| shown.get(i as usize).copied().unwrap_or(false))
                .count();
            counts.push(Some(n as u32));
        }
        Some(counts)
    }
}

/// For each plain word of the query that no photo holds, the word of the
/// first photos found with typos it is nearest to (fewest edits, then the
/// most common).
fn typo_hint(q: &Query, found: &[FileId], library: &Library) -> TypoHint {
    let mut typed: Vec<String> = Vec::new();
    for alt in &q.alternatives {
        for c in alt {
            if let Clause::Term(t) = c {
                for w in &t.words {
                    if !typed.contains(w) {
                        typed.push(w.clone());
                    }
                }
            }
        }
    }
    // The words of the first photos found (enough to see the common
    // spelling, few enough to stay quick).
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for id in found.iter().take(200) {
        let Some(i) = library.index_of(*id) else {
            continue;
        };
        let p = &library.photos[i as usize];
        for text in [p.text_path.as_str(), p.caption.as_str()] {
            for t in tokenize(text) {
                *counts.entry(t.word).or_default() += 1;
            }
        }
    }
    let mut words = Vec::new();
    let mut edits = 0;
    for w in typed {
        if counts.keys().any(|t| t.contains(w.as_str())) {
            continue;
        }
        let limit = catalog::Term::tolerance(&w);
        let best = counts
            .iter()
            .filter_map(|(t, &n)| {
                let d = edit_distance(&w, t);
                (d <= limit).then_some((d, std::cmp::Reverse(n), t))
            })
            .min();
        if let Some((d, _, t)) = best {
            edits = edits.max(d);
            words.push((w, t.clone()));
        }
    }
    TypoHint {
        count: found.len(),
        words,
        edits: edits.max(1),
    }
}

/// The edits (insertions, deletions, substitutions and swaps of two
/// neighbours) between two words, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edits_count_swaps_once() {
        assert_eq!(edit_distance("kiten", "kitten"), 1);
        assert_eq!(edit_distance("kitetn", "kitten"), 1);
        assert_eq!(edit_distance("cœur", "coeur"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("beach", "beach"), 0);
    }
}
