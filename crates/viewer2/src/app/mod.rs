//! The window: a search box over a thumbnail grid, a tag cloud beside it,
//! the photo's metadata on the other side, and the loupe.
//!
//! Nothing here reads a file or the catalogue: the catalogue thread
//! ([`crate::searcher`]) and the thumbnail loaders ([`crate::loader`])
//! do, and each frame only picks up what they finished. So the window
//! keeps drawing at full rate whatever the disk does.
//!
//! - `chrome`: the menu, the keyboard shortcuts, About, full screen and
//!   hiding the panels.
//! - `files`: Delete to the Trash, rename, move and copy to a folder,
//!   turn, open with, show in the file manager; undo.
//! - `folders`: the folder tree beside the tag cloud, the breadcrumb, and
//!   going up a folder.
//! - `grid`: the thumbnail grid (only visible rows exist), selection and
//!   keyboard, what to load next, and the atlas pages thumbnails live in.
//! - `indexing`: a background index run's progress, with the rate and
//!   the time left.
//! - `loupe`: one photo fitted to the window, zoom and pan, neighbours
//!   decoding ahead.
//! - `side`: the tag cloud and the metadata panel with the caption editor.
//! - `table`: the light table's camera, drawing and input over the model
//!   in [`crate::table`], and its saves.

mod chrome;
mod files;
mod folders;
mod grid;
mod indexing;
mod keywords;
mod loupe;
mod side;
mod table;
mod table_history;

pub use chrome::SHORTCUTS;
pub use table::TableView;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use catalog::FileId;
use eframe::egui;

use crate::atlas::Atlas;
use crate::cache::{ThumbCache, ThumbStore};
use crate::details::Reader as DetailsReader;
use crate::fileops::Trash;
use crate::freedesktop::FreedesktopCache;
use crate::grid_layout::GridLayout;
use crate::launch::{Desktop, Launch};
use crate::library::{Group, Grouping, Library, Sort};
use crate::loader::{Files, Loader, Source};
use crate::searcher::{Answer, Extras, IndexWatch, Searcher, TypoHint};
use crate::tags::CloudTag;
use crate::thumbnail::Limits;
use indexing::IndexStatus;

/// The search box's id, so `/` can focus it.
const SEARCH_ID: &str = "viewer2-search";

/// The side of the thumbnails the loader makes (the grid shows them at
/// any size up to this).
pub const THUMB_SIZE: u32 = 256;

/// How the window starts.
pub struct Options {
    /// The catalogue file.
    pub catalog: PathBuf,
    /// Folders to browse (and index in the background); empty for the
    /// whole catalogue.
    pub dirs: Vec<PathBuf>,
    /// Where thumbnails are cached on disk; `None` for no cache.
    pub thumb_cache: Option<PathBuf>,
    /// Share thumbnails with other programs through the freedesktop.org
    /// thumbnail folders (`~/.cache/thumbnails`) instead of `thumb_cache`.
    pub share_thumbnails: bool,
    /// GPU memory for thumbnails, in bytes.
    pub gpu_budget: u64,
    /// Worker threads making thumbnails.
    pub threads: usize,
    /// Opens the photos (the file system; tests put slow readers here).
    pub source: Arc<dyn Source>,
    /// The loupe's decode limits; `None` measures the available memory
    /// (tests set a small one to see the out-of-memory view).
    pub loupe_limits: Option<Limits>,
    /// Bytes the loupe's decodes in flight may hold together; `None` is
    /// half the memory available when its loader starts (tests set a small
    /// one).
    pub loupe_budget: Option<u64>,
    /// A photo to open in the loupe once the catalogue holds it (the
    /// window was started on a file, as a file manager's "Open with"
    /// does).
    pub open: Option<PathBuf>,
    /// The zone times are shown in (the system's).
    pub time_zone: jiff::tz::TimeZone,
    /// Where links, "Open with" and "Show in folder" go (the desktop;
    /// tests record them).
    pub launch: Arc<dyn Launch>,
    /// Called on the index thread with each step of a background run
    /// (tests hold the run there).
    pub index_watch: Option<IndexWatch>,
    /// How long the slideshow shows each photo at first (the loupe's bar
    /// changes it).
    pub slide_interval: Duration,
    /// Where deleted photos go: the user's Trash (tests give their own).
    pub trash: Option<Trash>,
}

impl Options {
    /// The defaults for a catalogue and folders: a 64 MB thumbnail budget
    /// (256 thumbnails of 256 px), one loader thread per core.
    pub fn new(catalog: PathBuf, dirs: Vec<PathBuf>) -> Options {
        Options {
            catalog,
            dirs,
            thumb_cache: None,
            share_thumbnails: false,
            gpu_budget: 64 << 20,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            source: Arc::new(Files),
            loupe_limits: None,
            loupe_budget: None,
            open: None,
            time_zone: jiff::tz::TimeZone::system(),
            launch: Arc::new(Desktop),
            index_watch: None,
            slide_interval: Duration::from_secs(4),
            trash: Trash::for_user(),
        }
    }
}

/// A thumbnail in the atlas.
#[derive(Clone, Debug)]
struct Thumb {
    /// Its size in pixels.
    size: [u32; 2],
    /// The photo's size, after orientation.
    full: (u32, u32),
    /// Whether it is the embedded preview (a real one is coming).
    preview: bool,
    /// What is wrong with the file when the thumbnail is only part of it
    /// or its preview.
    problem: Option<String>,
}

/// The window's state.
pub struct ViewerApp {
    searcher: Searcher,
    library: Arc<Library>,
    /// The result: indexes into the library, in the order shown.
    rows: Arc<Vec<u32>>,
    /// Each library photo's place in `rows` (`u32::MAX` when not in it).
    place: Vec<u32>,
    cloud: Vec<CloudTag>,
    /// The cloud's counts (what clicking each tag gives) are on their way.
    counts_owed: bool,
    /// The search box's text.
    query: String,
    /// Why the shown query did not parse.
    query_error: Option<String>,
    /// The shown result is what the query finds with typos (nothing
    /// matched it as typed).
    typo: Option<TypoHint>,
    /// The sequence number of the result shown.
    shown_seq: u64,
    /// Whether a library has arrived (the first one is loading).
    loaded: bool,
    sort: Sort,
    /// The order turned around (newest, largest, Z first).
    descending: bool,
    /// How the grid groups the result, and the groups of the one shown.
    grouping: Grouping,
    groups: Arc<Vec<Group>>,
    /// The grid's lines, and what they were laid out for (groups, photos,
    /// columns, row height).
    layout: GridLayout,
    layout_key: Option<(usize, usize, usize, u32)>,
    /// The details panel's width in the last frame.
    details_width: f32,
    fuzzy: bool,
    /// The grid's cell side in points.
    cell: f32,
    /// The photo under the keyboard cursor (a place in `rows`).
    cursor: Option<usize>,
    /// Where a shift-range starts.
    anchor: Option<usize>,
    selected: HashSet<FileId>,
    /// Scroll the grid so the cursor shows (after a key moved it).
    reveal_cursor: bool,

    loader: Loader,
    atlas: Atlas,
    pages: Vec<Option<egui::TextureHandle>>,
    thumbs: HashMap<FileId, Thumb>,
    /// Photos that cannot be shown, and why.
    broken: HashMap<FileId, String>,
    /// What the loader was last asked for.
    wanted: Vec<FileId>,
    /// Wanted and not answered yet.
    waiting: HashSet<FileId>,
    /// The first and last visible places, and the scroll direction.
    visible: (usize, usize),
    scrolling_down: bool,

    loupe: Option<loupe::Loupe>,
    loupe_loader: Loader,
    /// The photo's metadata panel: the caption being edited.
    caption_draft: Option<(FileId, String)>,
    /// The keyword being typed under the details.
    keyword_draft: String,
    /// The keyword tree of the library it was built from.
    keyword_tree: Option<(
        *const crate::library::Library,
        std::sync::Arc<crate::keyword_tree::KeywordTree>,
    )>,
    /// The side panel shows the keyword tree.
    show_keywords: bool,
    /// The last caption save's word ("Saving…", "Saved", "Not saved: …")
    /// and the photo it is about: shown only beside that photo.
    caption_status: Option<(FileId, String)>,

    /// Opens photos for the loaders.
    source: Arc<dyn Source>,
    /// The loupe's limits when set by the caller.
    loupe_limits: Option<Limits>,
    /// The loupe's decode budget when set by the caller.
    loupe_budget: Option<u64>,
    /// What the grid's and the table's decodes in flight share.
    decode_budget: Arc<photo::MemoryBudget>,
    indexing: IndexStatus,
    /// Why there is nothing to browse.
    failed: Option<String>,
    focus_search: bool,

    /// Whether the light table shows instead of the grid.
    on_table: bool,
    table: Option<table::TableView>,
    /// The table as the catalogue holds it (with what this run saved).
    saved_table: Option<crate::table::Saved>,
    /// Why the table cannot be shown.
    table_error: Option<String>,
    /// The last save's or file move's trouble, or a move's success.
    table_status: Option<String>,
    /// Photos with transparency have a mask (`None`: opaque), so a click
    /// on the light table goes through their clear parts.
    masks: HashMap<FileId, Option<collide::mask::Mask>>,
    /// Ctrl+Q was pressed: the window is closing.
    quitting: bool,
    /// The photo to open in the loupe when it first shows.
    open: Option<PathBuf>,
    /// What the focused photo's file holds, read on a thread.
    details: DetailsReader,
    time_zone: jiff::tz::TimeZone,
    launch: Arc<dyn Launch>,
    /// Why the desktop could not open what was asked ("Open map"), and the
    /// photo it was for: shown only while that photo is in the panel.
    launch_error: Option<(FileId, String)>,
    chrome: chrome::Chrome,
    files: files::Files,
    /// The folder shown (its text path), or every photo.
    folder: Option<String>,
    /// With the folder's subfolders.
    subfolders: bool,
    /// The left panel shows the folders (else the tags).
    show_folders: bool,
    /// A folder was just chosen: the tree opens down to it.
    reveal_folder: bool,
    /// How long the slideshow shows each photo.
    slide_interval: Duration,
}

impl ViewerApp {
    /// Starts the catalogue thread and the loaders.
    pub fn new(ctx: &egui::Context, options: Options) -> std::io::Result<ViewerApp> {
        let repaint = ctx.clone();
        let indexing = IndexStatus::new(&options.dirs);
        let searcher = Searcher::start_with(
            options.catalog,
            options.dirs,
            Arc::new(move || repaint.request_repaint()),
            Extras {
                watch: options.index_watch,
                trash: options.trash,
            },
        )?;
        let shared = options
            .share_thumbnails
            .then(FreedesktopCache::default_root)
            .flatten();
        let cache: Option<Box<dyn ThumbStore>> = match (shared, &options.thumb_cache) {
            (Some(root), _) => Some(Box::new(FreedesktopCache::new(root))),
            (None, Some(dir)) => match ThumbCache::open(dir) {
                Ok(c) => Some(Box::new(c)),
                Err(e) => {
                    tracing::warn!("thumbnail cache off: {e}");
                    None
                }
            },
            (None, None) => None,
        };
        let decode_budget = Arc::new(photo::MemoryBudget::new(
            crate::loader::available_bytes() / 4,
        ));
        let loader = Loader::with_budget(
            options.threads,
            THUMB_SIZE,
            Limits::default(),
            Arc::clone(&options.source),
            cache,
            Arc::clone(&decode_budget),
        )?;
        let loupe_loader = Loader::with_budget(
            2,
            loupe::LOUPE_SIZE,
            options.loupe_limits.unwrap_or_default(),
            Arc::clone(&options.source),
            None,
            loupe::budget(options.loupe_budget),
        )?;
        let repaint = ctx.clone();
        let details = DetailsReader::start(
            Arc::clone(&options.source),
            options.time_zone.clone(),
            Arc::new(move || repaint.request_repaint()),
        )?;
        Ok(ViewerApp {
            searcher,
            library: Arc::new(Library::default()),
            rows: Arc::new(Vec::new()),
            place: Vec::new(),
            cloud: Vec::new(),
            counts_owed: false,
            query: String::new(),
            query_error: None,
            typo: None,
            shown_seq: 0,
            loaded: false,
            sort: Sort::default(),
            descending: false,
            grouping: Grouping::None,
            groups: Arc::new(Vec::new()),
            layout: GridLayout::default(),
            layout_key: None,
            details_width: 0.0,
            fuzzy: false,
            cell: 160.0,
            cursor: None,
            anchor: None,
            selected: HashSet::new(),
            reveal_cursor: false,
            loader,
            atlas: Atlas::new(options.gpu_budget, 2048, THUMB_SIZE + 2),
            pages: Vec::new(),
            thumbs: HashMap::new(),
            broken: HashMap::new(),
            wanted: Vec::new(),
            waiting: HashSet::new(),
            visible: (0, 0),
            scrolling_down: true,
            loupe: None,
            loupe_loader,
            caption_draft: None,
            keyword_draft: String::new(),
            keyword_tree: None,
            show_keywords: false,
            caption_status: None,
            source: options.source,
            loupe_limits: options.loupe_limits,
            loupe_budget: options.loupe_budget,
            decode_budget,
            indexing,
            failed: None,
            // The grid has the keys at start (arrows move, 0–5 rate), as in
            // digiKam and Lightroom; `/` or a click gives them to the search.
            focus_search: false,
            on_table: false,
            table: None,
            saved_table: None,
            table_error: None,
            table_status: None,
            masks: HashMap::new(),
            quitting: false,
            open: options.open,
            details,
            time_zone: options.time_zone,
            launch: options.launch,
            launch_error: None,
            chrome: chrome::Chrome::default(),
            files: files::Files::default(),
            folder: None,
            subfolders: true,
            show_folders: false,
            reveal_folder: false,
            slide_interval: options.slide_interval,
        })
    }

    /// The details panel's width in the last frame.
    pub fn details_width(&self) -> f32 {
        self.details_width
    }

    /// How many photos the grid shows.
    pub fn shown(&self) -> usize {
        self.rows.len()
    }

    /// The first and one past the last place the grid showed in its last
    /// frame.
    pub fn visible(&self) -> (usize, usize) {
        self.visible
    }

    /// Whether the loupe shows its photo decoded (not a placeholder or an
    /// error).
    pub fn loupe_ready(&self) -> bool {
        self.loupe.as_ref().is_some_and(|l| {
            let id = self
                .rows
                .get(l.place)
                .map(|&r| self.library.photos[r as usize].id);
            id.is_some_and(|id| l.is_ready(id))
        })
    }

    /// How many photos have their real thumbnail in the atlas.
    pub fn thumbnails_shown(&self) -> usize {
        self.thumbs.values().filter(|t| !t.preview).count()
    }

    /// The names of the photos shown, in the grid's order.
    pub fn shown_names(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|&r| self.library.photos[r as usize].name.clone())
            .collect()
    }

    /// The tag cloud shown.
    pub fn cloud(&self) -> &[CloudTag] {
        &self.cloud
    }

    /// The search box's text.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// The photo the loupe shows, by name.
    pub fn loupe_photo(&self) -> Option<&str> {
        let l = self.loupe.as_ref()?;
        let i = *self.rows.get(l.place)?;
        Some(&self.library.photos[i as usize].name)
    }

    /// Whether the catalogue thread or a loader still owes an answer
    /// (tests wait for this to settle).
    pub fn is_busy(&self) -> bool {
        !self.loaded
            || self.shown_seq < self.searcher.latest()
            || self.counts_owed
            || !self.waiting.is_empty()
            || self.indexing.is_running()
            || self.loupe.as_ref().is_some_and(|l| l.is_waiting())
            || self
                .caption_status
                .as_ref()
                .is_some_and(|(_, s)| s == SAVING)
            || self.details.is_waiting()
            || self.files.is_busy()
            || (self.on_table
                && (self.saved_table.is_none() || self.table.as_ref().is_some_and(|t| t.is_busy())))
    }

    /// Shows the light table (or the grid).
    pub fn show_table(&mut self, on: bool) {
        self.on_table = on;
    }

    /// Saves the table's changes now (the window closes).
    pub fn flush_table(&mut self) {
        self.save_table(true);
    }

    /// Whether Ctrl+Q asked the window to close.
    pub fn quit_requested(&self) -> bool {
        self.quitting
    }

    /// The window is closing: saves what is unsaved, tells a background
    /// index run to stop at its next transaction, and waits at most
    /// `wait` for the saves to be written. Returns whether they were.
    pub fn shut_down(&mut self, wait: Duration) -> bool {
        self.flush_table();
        if let Some((id, text)) = self.caption_draft.take() {
            self.searcher.set_caption(id, &text);
        }
        self.searcher.shut_down(wait)
    }

    /// Whether everything visible is painted: the library and the result
    /// are in, no index run is going, and no visible thumbnail is owed
    /// (the screenshot mode waits for this).
    pub fn is_settled(&self) -> bool {
        !self.is_busy()
    }

    /// Groups the grid's photos (and keeps the choice, with the order, for
    /// the next start); the caller searches again.
    fn set_grouping(&mut self, grouping: Grouping) {
        self.grouping = grouping;
        self.searcher.set_grouping(grouping);
        self.searcher
            .save_sort(self.sort, self.descending, self.grouping);
    }

    /// Groups the grid by folder or month (as the *Group* control does)
    /// and searches again.
    pub fn group_by(&mut self, grouping: Grouping) {
        self.set_grouping(grouping);
        self.search();
    }

    /// Sets the search box's text and searches.
    pub fn set_query(&mut self, text: &str) {
        self.query = text.to_owned();
        self.search();
    }

    fn search(&mut self) {
        tracing::debug!(query = %self.query, seq = self.searcher.latest() + 1, "search asked");
        let folder = self.folder.clone().map(|f| (f, self.subfolders));
        self.searcher
            .search_within(&self.query, self.sort, self.descending, self.fuzzy, folder);
    }

    /// Picks up the catalogue thread's answers.
    fn receive(&mut self) {
        while let Some(answer) = self.searcher.try_recv() {
            match answer {
                Answer::Loaded(library) => {
                    let first = !self.loaded;
                    self.loaded = true;
                    self.failed = None;
                    if first {
                        self.library = library;
                        self.search();
                    }
                    // Later libraries come with the search they cause.
                }
                Answer::Found(found) => {
                    tracing::debug!(
                        seq = found.seq,
                        latest = self.searcher.latest(),
                        rows = found.rows.len(),
                        "search answered"
                    );
                    // A late answer to a query already replaced.
                    if found.seq < self.searcher.latest() {
                        continue;
                    }
                    let focus = self.focused_id();
                    self.shown_seq = found.seq;
                    self.library = found.library;
                    self.rows = found.rows;
                    self.groups = found.groups;
                    self.cloud = found.cloud;
                    self.counts_owed = !self.cloud.is_empty();
                    self.query_error = found.error;
                    self.typo = found.typo;
                    self.place = vec![u32::MAX; self.library.len()];
                    for (k, &r) in self.rows.iter().enumerate() {
                        self.place[r as usize] = k as u32;
                    }
                    // The cursor stays on its photo if it is still shown.
                    self.cursor = focus.and_then(|id| {
                        let i = self.library.index_of(id)?;
                        let k = self.place[i as usize];
                        (k != u32::MAX).then_some(k as usize)
                    });
                    if let Some(l) = &mut self.loupe {
                        match self.cursor {
                            Some(c) => l.place = c,
                            None => self.loupe = None,
                        }
                    }
                    // The selection keeps only what is shown.
                    let (library, place) = (&self.library, &self.place);
                    self.selected.retain(|id| {
                        library
                            .index_of(*id)
                            .is_some_and(|i| place[i as usize] != u32::MAX)
                    });
                    self.wanted.clear();
                    self.open_asked();
                }
                Answer::Indexing(p) => self.indexing.progress(p),
                Answer::Indexed(report) => self.indexing.finished(report.map(|r| r.to_string())),
                Answer::CaptionSaved { id, error } => {
                    // The sidecar holds the caption now: its details are
                    // read again.
                    self.details.forget(id);
                    self.caption_status = Some((
                        id,
                        match error {
                            None => "Saved".to_owned(),
                            Some(e) => format!("Not saved: {e}"),
                        },
                    ));
                    if let Some((draft_id, _)) = &self.caption_draft
                        && *draft_id == id
                    {
                        self.caption_draft = None;
                    }
                }
                Answer::Failed(e) => {
                    self.loaded = true;
                    self.failed = Some(e);
                }
                Answer::TableLoaded(saved) => self.saved_table = Some(saved),
                Answer::TableNotSaved(e) => self.table_status = Some(format!("Not saved: {e}")),
                Answer::FileMoved(Ok(path)) => self.table_status = Some(format!("Moved to {path}")),
                Answer::FileMoved(Err(e)) => self.table_status = Some(format!("Not moved: {e}")),
                Answer::TagCounts { seq, counts } => {
                    if seq == self.shown_seq {
                        self.counts_owed = false;
                        let shown = self.rows.len() as u32;
                        let mut counts = counts.into_iter();
                        self.cloud.retain_mut(|tag| match counts.next().flatten() {
                            // A tag already in the query stays, to take out.
                            None => true,
                            Some(n) => {
                                tag.count = n;
                                tag.exact = true;
                                // Clicking it would narrow nothing.
                                n > 0 && n < shown
                            }
                        });
                    }
                }
                Answer::Edited(done) => self.edited(done),
                Answer::Closed => {}
                Answer::SortLoaded {
                    sort,
                    descending,
                    grouping,
                } => {
                    self.sort = sort;
                    self.descending = descending;
                    self.grouping = grouping;
                    self.searcher.set_grouping(grouping);
                }
            }
        }
    }

    /// Opens the photo the window was started on in the loupe, once the
    /// result shows it (a folder being indexed may not hold it at first).
    fn open_asked(&mut self) {
        let Some(want) = &self.open else {
            return;
        };
        let found = self.rows.iter().position(|&r| {
            let p = &self.library.photos[r as usize];
            p.path == *want
        });
        if let Some(place) = found {
            self.open = None;
            self.open_loupe(place);
        }
    }

    /// The photo under the cursor.
    fn focused_id(&self) -> Option<FileId> {
        let i = *self.rows.get(self.cursor?)?;
        Some(self.library.photos[i as usize].id)
    }

    /// Draws the window and applies what the user did.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.receive();
        self.details.receive();
        self.receive_thumbnails(ui.ctx());
        if ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::Q)) {
            // Closing costs no more than the saves: eframe calls
            // `on_exit`, which writes them and leaves an index run to stop
            // between transactions.
            self.quitting = true;
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        if ui.input(|i| i.key_pressed(egui::Key::Slash)) && !ui.ctx().egui_wants_keyboard_input() {
            self.focus_search = true;
        }
        self.chrome_keys(ui.ctx());
        self.file_keys(ui.ctx());
        self.folder_keys(ui.ctx());
        let hidden = self.chrome.panels_hidden;
        // The photo alone on black: no bar at all.
        let alone = hidden && self.loupe.is_some();
        if !alone {
            egui::Panel::top("search-bar").show(ui, |ui| self.search_bar(ui));
        }
        if !hidden {
            egui::Panel::bottom("status-bar").show(ui, |ui| self.status_bar(ui));
            egui::Panel::left("tag-cloud")
                .resizable(true)
                .default_size(220.0)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        let tags = !self.show_folders && !self.show_keywords;
                        if ui.selectable_label(tags, "Tags").clicked() {
                            self.show_folders = false;
                            self.show_keywords = false;
                        }
                        if ui.selectable_label(self.show_folders, "Folders").clicked() {
                            self.show_folders = true;
                            self.show_keywords = false;
                        }
                        if ui
                            .selectable_label(self.show_keywords && !self.show_folders, "Keywords")
                            .clicked()
                        {
                            self.show_folders = false;
                            self.show_keywords = true;
                        }
                    });
                    ui.separator();
                    if self.show_folders {
                        self.folder_tree(ui);
                    } else if self.show_keywords {
                        self.keyword_panel(ui);
                    } else {
                        self.tag_cloud(ui);
                    }
                });
            // A fixed width (the user can drag it): a panel that followed
            // its content would jump, and take a column of the grid, when a
            // photo with many details got the focus.
            let details = egui::Panel::right("metadata")
                .resizable(true)
                .default_size(200.0)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical()
                        .id_salt("details")
                        .auto_shrink([false, false])
                        .show(ui, |ui| self.metadata_panel(ui));
                });
            self.details_width = details.response.rect.width();
        }
        let central = if alone {
            egui::CentralPanel::default().frame(egui::Frame::NONE.fill(egui::Color32::BLACK))
        } else {
            egui::CentralPanel::default()
        };
        central.show(ui, |ui| {
            if let Some(e) = &self.failed {
                ui.colored_label(ui.visuals().error_fg_color, e);
            } else if self.loupe.is_some() {
                self.loupe_ui(ui);
            } else if self.on_table {
                self.table_ui(ui);
            } else {
                self.grid(ui);
            }
        });
        self.chrome_windows(ui.ctx());
        self.file_dialogs(ui.ctx());
        if self.is_busy() {
            // Loader answers do not wake the window: look again soon.
            ui.ctx().request_repaint_after(Duration::from_millis(30));
        }
    }

    fn search_bar(&mut self, ui: &mut egui::Ui) {
        // Wrapped: in a narrow window the last controls go to a second
        // line rather than past the edge.
        ui.horizontal_wrapped(|ui| {
            self.menu(ui);
            ui.selectable_value(&mut self.on_table, false, "Grid");
            ui.selectable_value(&mut self.on_table, true, "Light table");
            ui.separator();
            let label = ui.label("Search");
            // (A wrapped row's available width is the whole row's.)
            let edit = egui::TextEdit::singleline(&mut self.query)
                .id(egui::Id::unique(SEARCH_ID))
                .hint_text("words, OR, -not, \"phrases\", name: dir: caption: camera: date:  (/)")
                // What the rest of the bar needs stays free where the
                // window is wide enough.
                .desired_width((ui.max_rect().right() - ui.cursor().min.x - 690.0).max(140.0));
            let response = ui.add(edit).labelled_by(label.id);
            if self.focus_search {
                response.request_focus();
                self.focus_search = false;
            }
            if response.changed() {
                self.search();
            }
            let mut again = false;
            egui::ComboBox::from_label("Sort")
                .selected_text(self.sort.label())
                .show_ui(ui, |ui| {
                    for s in Sort::ALL {
                        again |= ui.selectable_value(&mut self.sort, s, s.label()).changed();
                    }
                });
            let mut order = ui
                .add_enabled(
                    self.sort != Sort::Relevance,
                    egui::Checkbox::new(&mut self.descending, "Descending"),
                )
                .on_hover_text("newest, largest or Z first")
                .changed();
            egui::ComboBox::from_label("Group")
                .selected_text(self.grouping.label())
                .show_ui(ui, |ui| {
                    for g in Grouping::ALL {
                        again |= ui
                            .selectable_value(&mut self.grouping, g, g.label())
                            .changed();
                    }
                });
            order |= again;
            if order {
                self.set_grouping(self.grouping);
            }
            again |= order;
            again |= ui
                .checkbox(&mut self.fuzzy, "Typos")
                .on_hover_text("tolerate typos in every word (exact matches first)")
                .changed();
            if again {
                self.search();
            }
            let size_label = ui.label("Size");
            ui.add(egui::Slider::new(&mut self.cell, 64.0..=THUMB_SIZE as f32).show_value(false))
                .labelled_by(size_label.id);
        });
        ui.horizontal(|ui| {
            let count = if !self.loaded {
                "Loading the catalogue…".to_owned()
            } else if let Some(hint) = &self.typo {
                hint.message(&self.query)
            } else if self.query.trim().is_empty() {
                format!("{} photos", self.rows.len())
            } else {
                format!("{} of {} photos", self.rows.len(), self.library.len())
            };
            self.breadcrumb(ui);
            ui.label(count);
            if let Some(e) = &self.query_error {
                ui.colored_label(ui.visuals().error_fg_color, format!("Query: {e}"));
            }
        });
    }

    fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            self.indexing.status(ui);
            if !self.waiting.is_empty() {
                ui.separator();
                ui.label(format!("{} thumbnails loading", self.waiting.len()));
            }
            // On the table, its selection (stacks too), as its bar says.
            let selected = match (self.on_table, self.table_view()) {
                (true, Some(view)) => view.table.selected().len(),
                _ => self.selected.len(),
            };
            if selected > 0 {
                ui.separator();
                ui.label(format!("{selected} selected"));
            }
            self.file_status(ui);
        });
    }
}

/// How long closing waits for the last saves.
const QUIT_WAIT: Duration = Duration::from_millis(150);

/// What the caption status says while a save is on its way.
const SAVING: &str = "Saving…";

/// The window for eframe.
pub struct Window(pub ViewerApp);

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.ui(ui);
    }

    fn on_exit(&mut self) {
        if !self.0.shut_down(QUIT_WAIT) {
            tracing::warn!("the catalogue was still busy on closing; unsaved changes may be lost");
        }
    }
}
