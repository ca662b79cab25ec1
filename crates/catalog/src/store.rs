//! The catalogue in SQLite, with the seed's token tables, and its search.
//!
//! - `files`: one row per photo (path, caption, size, time, camera, date).
//! - The seed's tables: `tokens` (each folded word once, `UNIQUE`) and
//!   `links` (token, file, which string of the file, and the token's
//!   position in it). A term is looked up in the small `tokens` table (the
//!   seed's `LIKE '%term%'`, here `instr`, exact on folded text), then
//!   joined to the files; AND, OR and NOT are set operations on file ids.
//!   They are filled when the seed's search is first asked for after a
//!   change ([`Catalog::search_seed`]), since only it reads them.
//! - `search_index`: the [`SearchIndex`] the default search uses, stored as
//!   bytes so a new process loads it instead of building it.
//! - `meta`: a generation number that every change raises; the seed tables
//!   and the stored index each record the generation they were made from,
//!   so a stale one (after a crash, or a change by another process) is
//!   never used.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use thiserror::Error;

use crate::index::{IndexBuilder, IndexError, SearchIndex, Source};
use crate::query::{Clause, Document, Mode, Query, Scope, Term, extension, split_path};
use crate::token::tokenize;

/// What went wrong with the catalogue.
#[derive(Debug, Error)]
pub enum CatalogError {
    /// SQLite said no.
    #[error("catalogue database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// A stored value of the wrong type (a damaged or foreign row).
    #[error("catalogue database: {0}")]
    Value(#[from] rusqlite::types::FromSqlError),
    /// The file is a catalogue from a newer version of this program.
    #[error("the catalogue has schema version {found}; this program knows up to {known}")]
    NewerSchema {
        /// The file's version.
        found: i64,
        /// The newest this program knows.
        known: i64,
    },
    /// The file is an SQLite database of something else.
    #[error("this SQLite file is not a catalogue (it has other tables and no catalogue version)")]
    NotACatalogue,
    /// The search index could not be built.
    #[error("search index: {0}")]
    Index(#[from] IndexError),
    /// A file given to [`Catalog::add`] or [`Catalog::update`] is not
    /// acceptable.
    #[error("file {path:?}: {problem}")]
    BadFile {
        /// The file's path.
        path: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// A mark given to [`Catalog::set_marks`] is not acceptable.
    #[error("not a mark: {0}")]
    BadMark(String),
    /// A placement given to [`Catalog::save_placements`] is not acceptable.
    #[error("placement {key:?}: {problem}")]
    BadPlacement {
        /// The card's key.
        key: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// The file failed SQLite's own check ([`Catalog::check`]): nothing is
    /// written to it ([`Catalog::recover_into`] copies what is readable).
    #[error(
        "the catalogue file is damaged, so nothing was written to it (SQLite's check: {detail})"
    )]
    Damaged {
        /// What the check reported (its first lines).
        detail: String,
    },
    /// SQLite's recovery extension could not salvage the file.
    #[error("recovering the catalogue: {0}")]
    Recovery(String),
    /// Opened read-only ([`Catalog::open_read_only`]): nothing is written.
    #[error("the catalogue is open read-only ({reason}), so nothing can be written to it")]
    ReadOnly {
        /// Why it was opened so.
        reason: String,
    },
}

/// A file's id in the catalogue.
pub type FileId = i64;

/// The schema version this code writes.
const SCHEMA: i64 = 3;

/// The stored index is written in parts of this many bytes, so it is never
/// copied whole (SQLite's largest value is 1 GB).
const INDEX_PART: usize = 8 << 20;

/// The catalogue.
pub struct Catalog {
    pub(crate) conn: Connection,
    /// The search index last used, with the generation it was made from.
    index: RefCell<Option<(i64, Arc<SearchIndex>)>>,
    /// Set when [`Catalog::check`] failed: every write is refused.
    damaged: Option<String>,
    /// Set when opened read-only, with the reason: every write is refused.
    read_only: Option<String>,
}

/// The key a file's card has in the light table's saved placements: the
/// catalogue treats a placement under this key as something the user made
/// for that file (it follows the file across moves and goes with it).
pub fn file_key(id: FileId) -> String {
    format!("f:{id}")
}

/// Whether a file is on disk as the last index run saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(i64)]
pub enum Presence {
    /// Seen by the last run that looked.
    Present = 0,
    /// Its folder could not be read by the last run: kept as it was, and
    /// still searched.
    Unavailable = 1,
    /// Gone from disk, but kept for what the user made for it (an edited
    /// caption, a light-table placement), so it comes back if the file
    /// does, or is found moved. Not searched or listed;
    /// [`Catalog::forget`] drops it.
    Missing = 2,
}

impl Presence {
    fn from_i64(v: i64) -> Presence {
        match v {
            1 => Presence::Unavailable,
            2 => Presence::Missing,
            _ => Presence::Present,
        }
    }
}

/// Who a file is on disk, beyond its path: what carries its record across
/// a move or rename.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The device and inode number (Unix), which a rename or a move within
    /// one file system keeps.
    pub inode: Option<(u64, u64)>,
    /// When the inode was made (nanoseconds since the epoch, where the
    /// file system keeps it): a file that reuses a deleted one's inode
    /// number was born later.
    pub born: Option<i64>,
    /// A hash of the file's size, first and last 16 KB: the same for a
    /// copy, different for different photos of the same size and time.
    pub hash: Option<[u8; 16]>,
}

/// A file to add: its path and caption, and the size and modification
/// time an index run compares to notice changes.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewFile<'a> {
    /// The path.
    pub path: &'a str,
    /// The caption.
    pub caption: &'a str,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// The path's exact bytes, when they are not valid UTF-8 (then `path`
    /// is their lossy form).
    pub raw_path: Option<&'a [u8]>,
    /// The camera model, or empty.
    pub camera: &'a str,
    /// When the photo was taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    pub date: &'a str,
    /// Its inode and content hash, where known.
    pub identity: Identity,
}

/// What an index run compares against the disk for one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The file's id.
    pub id: FileId,
    /// Its exact path bytes.
    pub path: Vec<u8>,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// Its inode and content hash, where recorded.
    pub identity: Identity,
    /// Whether it was on disk at the last run.
    pub presence: Presence,
    /// Whether the user made something for it: an edited caption or a
    /// light-table placement (what must never be lost).
    pub made_by_user: bool,
    /// When the photo was taken (`YYYY-MM-DD HH:MM:SS`), or empty: an
    /// edited photo keeps it, another photo put in its place has its own.
    pub date: String,
}

/// A record outside the folders an index run walks, as
/// [`Catalog::identities_outside`] lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outside {
    /// The record's id.
    pub id: FileId,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// Device and inode, where recorded.
    pub inode: Option<(u64, u64)>,
}

/// A recorded file's new place on disk (an index run found it moved).
#[derive(Clone, Debug)]
pub struct Moved {
    /// The file's id (kept).
    pub id: FileId,
    /// The new path as text (lossy where not UTF-8).
    pub path: String,
    /// The new path's exact bytes, where they differ from `path`.
    pub raw_path: Option<Vec<u8>>,
    /// Its identity at the new place.
    pub identity: Identity,
}

/// What an index run learned about files already recorded, written in one
/// transaction by [`Catalog::reconcile`], before anything new is added: an
/// interrupted run leaves each file either at its old record or moved,
/// never dropped.
#[derive(Clone, Debug, Default)]
pub struct Reconcile {
    /// Records whose file was found at another path.
    pub moves: Vec<Moved>,
    /// `(keep, drop)`: two records of one file (an older version's
    /// interrupted run added the moved file as new); `keep` takes `drop`'s
    /// path and identity and keeps what the user made for either.
    pub merges: Vec<(FileId, FileId)>,
    /// Records whose presence changed (a folder that could not be read,
    /// a file that came back).
    pub presence: Vec<(FileId, Presence)>,
    /// Inodes learned for records that had none (catalogues written before
    /// they were kept).
    pub identities: Vec<(FileId, Identity)>,
    /// Records of files that are gone: removed, or kept as
    /// [`Presence::Missing`] when the user made something for them.
    pub vanished: Vec<FileId>,
}

/// What [`Catalog::reconcile`] did with the vanished files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vanished {
    /// Records removed (nothing the user made was in them).
    pub removed: usize,
    /// Records kept as missing, for the user's captions or placements.
    pub kept: usize,
}

/// What [`Catalog::forget`] dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Records dropped.
    pub files: usize,
    /// Of them, records that held an edited caption or a placement.
    pub made_by_user: usize,
}

/// One file with everything the catalogue records of it (what a browser
/// shows and sorts by).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileRecord {
    /// The file's id.
    pub id: FileId,
    /// The path as text (lossy where the name is not UTF-8).
    pub path: String,
    /// The path's exact bytes, where they differ from `path`.
    pub raw_path: Option<Vec<u8>>,
    /// The caption (the photo's own words, or the user's).
    pub caption: String,
    /// The camera model, or empty.
    pub camera: String,
    /// When the photo was taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    pub date: String,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
}

/// Which string of a file a token came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i64)]
pub enum Field {
    /// The file's path (or name).
    Path = 0,
    /// Its caption.
    Caption = 1,
    /// The camera model.
    Camera = 2,
}

/// A write transaction that takes the write lock up front (`BEGIN
/// IMMEDIATE`): a writer waits for another within the busy timeout, at
/// the start. A deferred one that reads first fails at once ("database is
/// locked") when its read turns into a write while another process
/// writes, which SQLite cannot wait for.
pub(crate) fn write_tx(conn: &Connection) -> Result<Transaction<'_>, rusqlite::Error> {
    Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
}

/// The SQL functions the seed's search uses: fuzzy terms compare in Rust,
/// with the reference meaning's rule.
fn add_functions(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.create_scalar_function(
        "fuzzy_match",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let (word, token): (String, String) = (ctx.get(0)?, ctx.get(1)?);
            Ok(Term {
                scope: None,
                words: vec![word.clone()],
                fuzzy: true,
                literal: None,
            }
            .word_matches(&word, &token))
        },
    )
}

/// `path` as an SQLite `file:` URI: every byte but letters, digits and
/// `/-._~` percent-encoded (`?`, `#` and `%` would otherwise be read as
/// the URI's own), so any file name works.
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

impl Catalog {
    /// Opens a catalogue to search it, read-only when it cannot be written
    /// (a read-only file system, a share mounted so, a write-protected
    /// file): [`Catalog::open`], and where that cannot open it for writing,
    /// [`Catalog::open_read_only`].
    pub fn open_for_search(path: &Path) -> Result<Catalog, CatalogError> {
        match Catalog::open(path) {
            Err(CatalogError::Sql(e))
                if path.exists()
                    && matches!(
                        e.sqlite_error_code(),
                        Some(
                            rusqlite::ErrorCode::CannotOpen
                                | rusqlite::ErrorCode::ReadOnly
                                | rusqlite::ErrorCode::PermissionDenied
                        )
                    ) =>
            {
                Catalog::open_read_only(path, "it cannot be written where it is")
            }
            other => other,
        }
    }

    /// Opens an existing catalogue read-only, for `reason` (said when a
    /// write is refused): SQLite's `mode=ro`, which still reads a journal
    /// another process is writing, or where even that cannot open (no
    /// shared-memory file can be made beside it), `immutable=1`, which
    /// reads the main file alone.
    pub fn open_read_only(path: &Path, reason: &str) -> Result<Catalog, CatalogError> {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
            | rusqlite::OpenFlags::SQLITE_OPEN_URI
            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let uri = file_uri(path);
        let mut last = None;
        for query in ["mode=ro", "immutable=1"] {
            let opened = Connection::open_with_flags(format!("{uri}?{query}"), flags)
                .map_err(CatalogError::from)
                .and_then(|conn| Catalog::setup_read_only(conn, reason));
            match opened {
                Ok(c) => return Ok(c),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(CatalogError::NotACatalogue))
    }

    fn setup_read_only(conn: Connection, reason: &str) -> Result<Catalog, CatalogError> {
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > SCHEMA {
            return Err(CatalogError::NewerSchema {
                found: version,
                known: SCHEMA,
            });
        }
        if version < SCHEMA {
            return Err(CatalogError::ReadOnly {
                reason: format!(
                    "{reason}; its schema version {version} needs upgrading to {SCHEMA} first"
                ),
            });
        }
        add_functions(&conn)?;
        Ok(Catalog {
            conn,
            index: RefCell::new(None),
            damaged: None,
            read_only: Some(reason.to_owned()),
        })
    }

    /// Whether the catalogue is open read-only, and why.
    pub fn read_only(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    /// Opens (creating if needed) a catalogue file.
    pub fn open(path: &Path) -> Result<Catalog, CatalogError> {
        Catalog::setup(Connection::open(path)?)
    }

    /// A catalogue in memory (tests, benchmarks).
    pub fn in_memory() -> Result<Catalog, CatalogError> {
        Catalog::setup(Connection::open_in_memory()?)
    }

    fn setup(conn: Connection) -> Result<Catalog, CatalogError> {
        // Reading the version first also checks that the file is a SQLite
        // database at all; nothing is written before that.
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > SCHEMA {
            return Err(CatalogError::NewerSchema {
                found: version,
                known: SCHEMA,
            });
        }
        if version == 0 {
            let tables: i64 =
                conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
            if tables > 0 {
                return Err(CatalogError::NotACatalogue);
            }
        }
        conn.busy_timeout(Duration::from_secs(5))?;
        // Searches keep working while an index run writes.
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        match version {
            0 => {
                let tx = write_tx(&conn)?;
                tx.execute_batch(SCHEMA_V2)?;
                tx.execute_batch(MIGRATE_V2_TO_V3)?;
                tx.commit()?;
            }
            1 => {
                migrate_from_v1(&conn)?;
                migrate_from_v2(&conn)?;
            }
            2 => migrate_from_v2(&conn)?,
            _ => {}
        }
        // The light table's tables came after version 2: made when missing
        // (only then: opening to search never writes, so it never waits
        // for an index run's lock).
        let have: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
             AND name IN ('placements', 'settings', 'marks', 'file_words', 'unwritten')",
            [],
            |r| r.get(0),
        )?;
        if have < 5 {
            conn.execute_batch(crate::placements::PLACEMENT_TABLES)?;
            conn.execute_batch(crate::marks::MARK_TABLE)?;
            conn.execute_batch(crate::keywords::KEYWORD_TABLES)?;
        }
        add_functions(&conn)?;
        Ok(Catalog {
            conn,
            index: RefCell::new(None),
            damaged: None,
            read_only: None,
        })
    }

    /// Runs SQLite's structural check over the whole file (every page,
    /// every b-tree; not the match of indexes to tables, which is slower
    /// and which [`Catalog::recover_into`] rebuilds anyway). A catalogue
    /// that fails it is never written to: every later write is refused with
    /// [`CatalogError::Damaged`], and so is this call.
    pub fn check(&mut self) -> Result<(), CatalogError> {
        let outcome = (|| -> Result<Vec<String>, rusqlite::Error> {
            let mut st = self.conn.prepare("PRAGMA quick_check(20)")?;
            let rows = st.query_map([], |r| r.get::<_, String>(0))?;
            rows.collect()
        })();
        let detail = match outcome {
            Ok(lines) if lines.len() == 1 && lines[0] == "ok" => return Ok(()),
            Ok(lines) => lines.join("; "),
            Err(e) => e.to_string(),
        };
        self.damaged = Some(detail.clone());
        Err(CatalogError::Damaged { detail })
    }

    /// Refuses writes to a catalogue that failed [`Catalog::check`] or is
    /// open read-only.
    pub(crate) fn writable(&self) -> Result<(), CatalogError> {
        if let Some(reason) = &self.read_only {
            return Err(CatalogError::ReadOnly {
                reason: reason.clone(),
            });
        }
        match &self.damaged {
            Some(detail) => Err(CatalogError::Damaged {
                detail: detail.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Adds files (path and caption each), in one transaction, and returns
    /// their ids in order.
    pub fn add_files(&mut self, files: &[(&str, &str)]) -> Result<Vec<FileId>, CatalogError> {
        let stamped: Vec<NewFile<'_>> = files
            .iter()
            .map(|&(path, caption)| NewFile {
                path,
                caption,
                ..NewFile::default()
            })
            .collect();
        self.add(&stamped)
    }

    /// Adds files with their size and modification time, in one
    /// transaction, and returns their ids in order.
    pub fn add(&mut self, files: &[NewFile<'_>]) -> Result<Vec<FileId>, CatalogError> {
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        let mut ids = Vec::new();
        ids.try_reserve_exact(files.len())
            .map_err(|_| CatalogError::BadFile {
                path: String::new(),
                problem: "too many files in one call for the memory left",
            })?;
        {
            // Ids are never given twice (not even the last one's after it
            // is removed): the window and the light table hold ids while
            // an index run works.
            let mut next: i64 = tx.query_row(
                "SELECT max(coalesce((SELECT max(file_id) FROM files), 0), \
                 coalesce((SELECT value FROM meta WHERE key = 'last_id'), 0)) + 1",
                [],
                |r| r.get(0),
            )?;
            let mut insert_file = tx.prepare_cached(
                "INSERT INTO files (path, caption, ext, size, mtime, raw_path, camera, date, \
                 dev, ino, hash, born, file_id) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            for f in files {
                check_date(f)?;
                let (_, name) = split_path(f.path);
                let (dev, ino, born) = inode_columns(&f.identity);
                insert_file.execute(params![
                    f.path,
                    f.caption,
                    extension(name),
                    f.size,
                    f.mtime,
                    f.raw_path,
                    f.camera,
                    f.date,
                    dev,
                    ino,
                    f.identity.hash.as_ref().map(|h| h.as_slice()),
                    born,
                    next,
                ])?;
                ids.push(next);
                next += 1;
            }
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_id', ?1)",
                params![next - 1],
            )?;
            bump(&tx)?;
        }
        tx.commit()?;
        Ok(ids)
    }

    /// Records new contents for files already in the catalogue (an index
    /// run found their size or time changed), keeping their ids. A caption
    /// the user edited ([`Catalog::set_caption`]) is kept; otherwise the
    /// new one replaces it.
    pub fn update(&mut self, files: &[(FileId, NewFile<'_>)]) -> Result<(), CatalogError> {
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        {
            let mut st = tx.prepare_cached(
                "UPDATE files SET path = ?2, ext = ?3, size = ?4, mtime = ?5, raw_path = ?6, \
                 camera = ?7, date = ?8, \
                 caption = CASE WHEN caption_edited THEN caption ELSE ?9 END, \
                 dev = ?10, ino = ?11, hash = ?12, born = ?13, status = 0 \
                 WHERE file_id = ?1",
            )?;
            for (id, f) in files {
                check_date(f)?;
                let (_, name) = split_path(f.path);
                let (dev, ino, born) = inode_columns(&f.identity);
                st.execute(params![
                    id,
                    f.path,
                    extension(name),
                    f.size,
                    f.mtime,
                    f.raw_path,
                    f.camera,
                    f.date,
                    f.caption,
                    dev,
                    ino,
                    f.identity.hash.as_ref().map(|h| h.as_slice()),
                    born,
                ])?;
            }
            bump(&tx)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Moves files to new paths (renamed or moved on disk), keeping their
    /// ids, captions and everything else recorded about them. Another
    /// record at a new path (an index run that met the moved file first
    /// added it as new) is replaced, in the same transaction.
    pub fn rename(&mut self, moves: &[(FileId, &str, Option<&[u8]>)]) -> Result<(), CatalogError> {
        if moves.is_empty() {
            return Ok(());
        }
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        for &(id, path, raw) in moves {
            move_record(&tx, id, path, raw)?;
        }
        bump(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// A file moved where the catalogue does not list it (the Trash): its
    /// record follows it there and is kept as [`Presence::Missing`], with
    /// its id, caption and placements, so [`Catalog::rename`] back (the
    /// file put back) brings everything back.
    pub fn put_away(
        &mut self,
        id: FileId,
        path: &str,
        raw: Option<&[u8]>,
    ) -> Result<(), CatalogError> {
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        move_record(&tx, id, path, raw)?;
        tx.execute(
            "UPDATE files SET status = 2 WHERE file_id = ?1",
            params![id],
        )?;
        bump(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// Sets a file's caption as the user wrote it: later index runs keep it
    /// even when the photo's own metadata changes. Returns whether the file
    /// exists.
    pub fn set_caption(&mut self, id: FileId, caption: &str) -> Result<bool, CatalogError> {
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        let n = tx.execute(
            "UPDATE files SET caption = ?2, caption_edited = 1 WHERE file_id = ?1",
            params![id, caption],
        )?;
        bump(&tx)?;
        tx.commit()?;
        Ok(n > 0)
    }

    /// Rewrites the captions that came from the files' own metadata (never
    /// one the user wrote) of files with a camera model:
    /// `rewrite(caption, camera)` gives the new text,
    /// or `None` to keep it. Done once per `setting`: the setting is set to
    /// `value` in the same transaction, and a catalogue where it already
    /// holds `value` is left alone. Returns how many captions changed.
    pub fn rewrite_file_captions(
        &mut self,
        setting: &str,
        value: &str,
        mut rewrite: impl FnMut(&str, &str) -> Option<String>,
    ) -> Result<usize, CatalogError> {
        if self.setting(setting)?.as_deref() == Some(value) {
            return Ok(0);
        }
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        let changes: Vec<(FileId, String)> = {
            let mut st = tx.prepare(
                "SELECT file_id, caption, camera FROM files \
                 WHERE caption_edited = 0 AND caption <> '' AND camera <> ''",
            )?;
            let mut rows = st.query([])?;
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                let caption = r.get_ref(1)?.as_str()?;
                let camera = r.get_ref(2)?.as_str()?;
                if let Some(new) = rewrite(caption, camera)
                    && new != caption
                {
                    out.push((r.get(0)?, new));
                }
            }
            out
        };
        {
            let mut st = tx.prepare("UPDATE files SET caption = ?2 WHERE file_id = ?1")?;
            for (id, caption) in &changes {
                st.execute(params![id, caption])?;
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
            params![setting, value],
        )?;
        if !changes.is_empty() {
            bump(&tx)?;
        }
        tx.commit()?;
        Ok(changes.len())
    }

    /// The files under a folder (by path prefix, which should end with a
    /// separator), with their size and modification time, for an index run
    /// to compare against the disk.
    pub fn stamps_under(&self, prefix: &str) -> Result<Vec<Stamp>, CatalogError> {
        // Each file's exact path bytes: the raw ones where stored. A range
        // on the path uses its index.
        self.stamps_where(
            "path >= ?1 AND path < ?1 || char(1114111) AND substr(path, 1, length(?1)) = ?1",
            params![prefix],
        )
    }

    /// The record of the file at exactly this path (an index run given one
    /// file rather than a folder).
    pub fn stamps_at(&self, path: &str) -> Result<Vec<Stamp>, CatalogError> {
        self.stamps_where("path = ?1", params![path])
    }

    /// The size, time and inode of every record outside these folders
    /// (each given as a prefix ending with a separator) and files, in one
    /// pass: what a run that found new files matches them against, to
    /// find records whose files moved in from elsewhere.
    pub fn identities_outside(
        &self,
        folders: &[&str],
        files: &[&str],
    ) -> Result<Vec<Outside>, CatalogError> {
        let mut st = self
            .conn
            .prepare("SELECT file_id, path, size, mtime, dev, ino FROM files")?;
        let mut rows = st.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let path = r.get_ref(1)?.as_str()?;
            if files.contains(&path) || folders.iter().any(|f| path.starts_with(f)) {
                continue;
            }
            let dev: Option<i64> = r.get(4)?;
            let ino: Option<i64> = r.get(5)?;
            out.push(Outside {
                id: r.get(0)?,
                size: r.get(2)?,
                mtime: r.get(3)?,
                inode: dev.zip(ino).map(|(d, i)| (d as u64, i as u64)),
            });
        }
        Ok(out)
    }

    /// The records with these ids.
    pub fn stamps_of(&self, ids: &[FileId]) -> Result<Vec<Stamp>, CatalogError> {
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            out.extend(self.stamps_where("file_id = ?1", params![id])?);
        }
        Ok(out)
    }

    /// Every record kept for a file that is gone ([`Presence::Missing`]).
    pub fn missing(&self) -> Result<Vec<Stamp>, CatalogError> {
        self.stamps_where("status = 2", params![])
    }

    fn stamps_where(
        &self,
        condition: &str,
        values: impl rusqlite::Params,
    ) -> Result<Vec<Stamp>, CatalogError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT file_id, coalesce(raw_path, CAST(path AS BLOB)), size, mtime, dev, ino, hash, \
             status, caption_edited OR EXISTS (SELECT 1 FROM placements \
             WHERE placements.key = 'f:' || files.file_id) OR EXISTS (SELECT 1 FROM marks \
             WHERE marks.key = 'f:' || files.file_id), born, date FROM files WHERE {condition}"
        ))?;
        let rows = st.query_map(values, |r| {
            let dev: Option<i64> = r.get(4)?;
            let ino: Option<i64> = r.get(5)?;
            let hash: Option<Vec<u8>> = r.get(6)?;
            Ok(Stamp {
                id: r.get(0)?,
                path: r.get(1)?,
                size: r.get(2)?,
                mtime: r.get(3)?,
                identity: Identity {
                    inode: dev.zip(ino).map(|(d, i)| (d as u64, i as u64)),
                    hash: hash.and_then(|h| <[u8; 16]>::try_from(h.as_slice()).ok()),
                    born: r.get(9)?,
                },
                presence: Presence::from_i64(r.get(7)?),
                made_by_user: r.get(8)?,
                date: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Writes what an index run learned about recorded files (see
    /// [`Reconcile`]), in one transaction.
    pub fn reconcile(&mut self, r: &Reconcile) -> Result<Vanished, CatalogError> {
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        for &(keep, drop) in &r.merges {
            merge_records(&tx, keep, drop)?;
        }
        // The plan accounts for every record at a destination (moving on,
        // vanished, or merged): none is folded into the moving one.
        for m in &r.moves {
            set_path(&tx, m.id, &m.path, m.raw_path.as_deref())?;
            set_identity(&tx, m.id, &m.identity)?;
        }
        {
            let mut presence =
                tx.prepare_cached("UPDATE files SET status = ?2 WHERE file_id = ?1")?;
            for &(id, p) in &r.presence {
                presence.execute(params![id, p as i64])?;
            }
            for (id, i) in &r.identities {
                set_identity(&tx, *id, i)?;
            }
        }
        let mut out = Vanished::default();
        {
            let mut keep = tx.prepare_cached(
                "UPDATE files SET status = 2 WHERE file_id = ?1 AND (caption_edited \
                 OR EXISTS (SELECT 1 FROM placements WHERE key = 'f:' || ?1) \
                 OR EXISTS (SELECT 1 FROM marks WHERE key = 'f:' || ?1))",
            )?;
            let mut del = tx.prepare_cached("DELETE FROM files WHERE file_id = ?1")?;
            for &id in &r.vanished {
                if keep.execute(params![id])? > 0 {
                    out.kept += 1;
                } else {
                    out.removed += del.execute(params![id])?;
                }
            }
        }
        bump(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Removes files, and their light-table placements, in one
    /// transaction.
    pub fn remove(&mut self, ids: &[FileId]) -> Result<(), CatalogError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        {
            let mut del = tx.prepare_cached("DELETE FROM files WHERE file_id = ?1")?;
            let mut unplace = tx.prepare_cached("DELETE FROM placements WHERE key = ?1")?;
            let mut unmark = tx.prepare_cached("DELETE FROM marks WHERE key = ?1")?;
            let mut unword = tx.prepare_cached("DELETE FROM file_words WHERE key = ?1")?;
            let mut unpend = tx.prepare_cached("DELETE FROM unwritten WHERE key = ?1")?;
            for &id in ids {
                del.execute(params![id])?;
                unplace.execute(params![file_key(id)])?;
                unmark.execute(params![file_key(id)])?;
                unword.execute(params![file_key(id)])?;
                unpend.execute(params![file_key(id)])?;
            }
            bump(&tx)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Drops every record under these paths (each a folder, by prefix, or
    /// one file), and every record kept for a missing file when `missing`
    /// is set, with their placements, in one transaction. Only when `dry`
    /// is false: a dry run counts what would go (what a careful command
    /// shows before asking).
    pub fn forget(
        &mut self,
        paths: &[&str],
        missing: bool,
        dry: bool,
    ) -> Result<Forgotten, CatalogError> {
        let mut ids: Vec<(FileId, bool)> = Vec::new();
        for p in paths {
            let folder = format!(
                "{}{}",
                p.trim_end_matches(['/', '\\']),
                std::path::MAIN_SEPARATOR
            );
            for st in self
                .stamps_at(p)?
                .into_iter()
                .chain(self.stamps_under(&folder)?)
            {
                ids.push((st.id, st.made_by_user));
            }
        }
        if missing {
            ids.extend(
                self.missing()?
                    .into_iter()
                    .map(|st| (st.id, st.made_by_user)),
            );
        }
        ids.sort_unstable();
        ids.dedup();
        let out = Forgotten {
            files: ids.len(),
            made_by_user: ids.iter().filter(|(_, u)| *u).count(),
        };
        if !dry {
            let ids: Vec<FileId> = ids.into_iter().map(|(id, _)| id).collect();
            self.remove(&ids)?;
        }
        Ok(out)
    }

    /// How many files the catalogue holds (not counting records kept for
    /// missing files).
    pub fn len(&self) -> Result<u64, CatalogError> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM files WHERE status < 2", [], |r| {
                r.get::<_, i64>(0)
            })? as u64)
    }

    /// How many records are kept for missing files ([`Presence::Missing`]).
    pub fn missing_len(&self) -> Result<u64, CatalogError> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM files WHERE status = 2", [], |r| {
                r.get::<_, i64>(0)
            })? as u64)
    }

    /// Whether the catalogue holds no file.
    pub fn is_empty(&self) -> Result<bool, CatalogError> {
        Ok(self.len()? == 0)
    }

    /// The generation: raised by every change.
    fn generation(&self) -> Result<i64, CatalogError> {
        meta(&self.conn, "generation")
    }

    /// The search index for the catalogue as it is now: the one in memory,
    /// else the stored one, else built from the files (and stored, when no
    /// other process is writing). The `Arc` lets another thread search it.
    pub fn search_index(&self) -> Result<Arc<SearchIndex>, CatalogError> {
        let generation = self.generation()?;
        if let Some((g, ix)) = &*self.index.borrow()
            && *g == generation
        {
            return Ok(Arc::clone(ix));
        }
        let ix = Arc::new(match self.stored_index(generation)? {
            Some(ix) => ix,
            None => {
                let (g, ix) = self.build_index()?;
                // Storing is only a cache: a busy or read-only file is fine.
                let _ = self.store_index(&ix, g);
                if g != generation {
                    return Ok(Arc::new(ix));
                }
                ix
            }
        });
        *self.index.borrow_mut() = Some((generation, Arc::clone(&ix)));
        Ok(ix)
    }

    /// Builds the index now and stores it (an index run ends with this, so
    /// the next search starts at once). Returns its size in bytes.
    pub fn refresh_index(&self) -> Result<usize, CatalogError> {
        let ix = self.search_index()?;
        Ok(ix.size().total())
    }

    /// The stored index, if it was made from this generation and reads
    /// back.
    fn stored_index(&self, generation: i64) -> Result<Option<SearchIndex>, CatalogError> {
        if meta(&self.conn, "index_generation")? != generation {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        let mut st = self
            .conn
            .prepare_cached("SELECT data FROM search_index ORDER BY part")?;
        let mut rows = st.query([])?;
        while let Some(row) = rows.next()? {
            let part = row.get_ref(0)?.as_blob()?;
            bytes
                .try_reserve(part.len())
                .map_err(|_| IndexError::Damaged("too big to load"))?;
            bytes.extend_from_slice(part);
        }
        // A damaged one is rebuilt: it holds nothing the files do not.
        // Bytes changed inside a page pass SQLite's checks and might pass
        // the index's own offset checks: the checksum catches them.
        let stored: Option<i64> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'index_checksum'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        if stored != Some(i64::from(crc32fast::hash(&bytes))) {
            return Ok(None);
        }
        Ok(SearchIndex::from_bytes(&bytes).ok())
    }

    /// The library's root folders: what is above them is not searched.
    pub fn roots(&self) -> Result<Vec<String>, CatalogError> {
        Ok(self
            .setting(ROOTS)?
            .map(|v| v.lines().map(str::to_owned).collect())
            .unwrap_or_default())
    }

    /// Adds root folders (paths as text, no trailing separator): the folders
    /// above a root (`/home/anna` above `/home/anna/Pictures`) are not
    /// searched, the root's own name neither, what is below it is. A root
    /// inside another adds nothing; one around others replaces them.
    /// Changing the roots raises the generation (the index is rebuilt).
    /// Returns whether they changed.
    pub fn add_roots(&mut self, new: &[&str]) -> Result<bool, CatalogError> {
        let mut roots = self.roots()?;
        let before = roots.clone();
        for &r in new {
            let r = r.trim_end_matches(['/', '\\']);
            if r.is_empty() || roots.iter().any(|o| o == r || is_below(r, o)) {
                continue;
            }
            roots.retain(|o| !is_below(o, r));
            roots.push(r.to_owned());
        }
        roots.sort();
        if roots == before {
            return Ok(false);
        }
        self.writable()?;
        let tx = write_tx(&self.conn)?;
        tx.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
            params![ROOTS, roots.join("\n")],
        )?;
        bump(&tx)?;
        tx.commit()?;
        Ok(true)
    }

    /// Builds the index from the files, in one read transaction, and
    /// returns it with the generation it was made from.
    fn build_index(&self) -> Result<(i64, SearchIndex), CatalogError> {
        let roots = self.roots()?;
        let tx = self.conn.unchecked_transaction()?;
        let generation = meta(&tx, "generation")?;
        let mut b = IndexBuilder::new();
        {
            let mut st = tx.prepare_cached(
                "SELECT file_id, path, caption, camera, date FROM files WHERE status < 2 \
                 ORDER BY file_id",
            )?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                b.push(Source {
                    id: r.get(0)?,
                    path: searchable(r.get_ref(1)?.as_str()?, &roots),
                    caption: r.get_ref(2)?.as_str()?,
                    camera: r.get_ref(3)?.as_str()?,
                    date: r.get_ref(4)?.as_str()?,
                })?;
            }
        }
        tx.commit()?;
        Ok((generation, b.finish()?))
    }

    /// Stores the index made from `generation`, unless the files changed
    /// since or another process holds the write lock.
    fn store_index(&self, ix: &SearchIndex, generation: i64) -> Result<(), CatalogError> {
        self.writable()?;
        self.conn.busy_timeout(Duration::ZERO)?;
        let result = (|| -> Result<(), CatalogError> {
            let tx = write_tx(&self.conn)?;
            tx.execute_batch("DELETE FROM search_index")?;
            if meta(&tx, "generation")? != generation {
                return Ok(());
            }
            let mut insert = tx.prepare("INSERT INTO search_index (part, data) VALUES (?1, ?2)")?;
            let mut i = 0i64;
            let mut sum = crc32fast::Hasher::new();
            ix.write_parts(INDEX_PART, &mut |part: &[u8]| -> Result<(), CatalogError> {
                sum.update(part);
                insert.execute(params![i, part])?;
                i += 1;
                Ok(())
            })?;
            drop(insert);
            tx.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'index_generation'",
                params![generation],
            )?;
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('index_checksum', ?1)",
                params![i64::from(sum.finalize())],
            )?;
            Ok(tx.commit()?)
        })();
        self.conn.busy_timeout(Duration::from_secs(5))?;
        result
    }

    /// Fills the seed's `tokens` and `links` tables (and each file's
    /// `name_start`) from the files, if a change made them stale.
    fn seed_tables(&self) -> Result<(), CatalogError> {
        let generation = self.generation()?;
        if meta(&self.conn, "seed_generation")? == generation
            && meta_or(&self.conn, "seed_fold", 1)? == crate::fold::FOLD_VERSION
        {
            return Ok(());
        }
        self.writable()?;
        let roots = self.roots()?;
        let tx = write_tx(&self.conn)?;
        tx.execute_batch("DELETE FROM links; DELETE FROM tokens;")?;
        {
            let mut files =
                tx.prepare("SELECT file_id, path, caption, camera FROM files WHERE status < 2")?;
            let mut rows = files.query([])?;
            let mut insert_token =
                tx.prepare_cached("INSERT OR IGNORE INTO tokens (word) VALUES (?1)")?;
            let mut token_id = tx.prepare_cached("SELECT token_id FROM tokens WHERE word = ?1")?;
            let mut link = tx.prepare_cached(
                "INSERT INTO links (token_id, file_id, field, position) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let mut name_start =
                tx.prepare_cached("UPDATE files SET name_start = ?2 WHERE file_id = ?1")?;
            while let Some(r) = rows.next()? {
                let file: FileId = r.get(0)?;
                let path = searchable(r.get_ref(1)?.as_str()?, &roots);
                let (dir, _) = split_path(path);
                name_start.execute(params![file, tokenize(dir).len() as i64])?;
                for (field, text) in [
                    (Field::Path, path),
                    (Field::Caption, r.get_ref(2)?.as_str()?),
                    (Field::Camera, r.get_ref(3)?.as_str()?),
                ] {
                    for t in tokenize(text) {
                        insert_token.execute(params![t.word])?;
                        let id: i64 = token_id.query_row(params![t.word], |r| r.get(0))?;
                        link.execute(params![id, file, field as i64, t.position])?;
                    }
                }
            }
        }
        tx.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'seed_generation'",
            params![generation],
        )?;
        // The tables hold folded words: made with other folding, remade.
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('seed_fold', ?1)",
            params![crate::fold::FOLD_VERSION],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Every file id.
    fn all(&self) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT file_id FROM files WHERE status < 2")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The seed's search, through its tables as the seed designs them: the
    /// files a query matches (in the seed mode), by id, in id order.
    pub fn search_seed(&self, q: &Query) -> Result<Vec<FileId>, CatalogError> {
        self.seed_tables()?;
        Ok(self.eval(q)?.into_iter().collect())
    }

    /// [`Catalog::search_seed`], best first (see [`Query::rank`]; ties in
    /// id order), at most `limit` of them.
    pub fn search_seed_ranked(&self, q: &Query, limit: usize) -> Result<Vec<FileId>, CatalogError> {
        let ids = self.search_seed(q)?;
        let mut scored = Vec::with_capacity(ids.len());
        let mut st = self
            .conn
            .prepare_cached("SELECT path, caption, camera, date FROM files WHERE file_id = ?1")?;
        for id in ids {
            let d = st.query_row(params![id], |r| {
                Ok(Document::with_meta(
                    r.get_ref(0)?.as_str()?,
                    r.get_ref(1)?.as_str()?,
                    r.get_ref(2)?.as_str()?,
                    r.get_ref(3)?.as_str()?,
                ))
            })?;
            scored.push((q.rank(Mode::Seed, &d), id));
        }
        scored.sort_unstable();
        Ok(scored.into_iter().take(limit).map(|(_, id)| id).collect())
    }

    /// The files a query matches in `mode`, by id, in id order (through the
    /// search index).
    pub fn search(&self, q: &Query, mode: Mode) -> Result<Vec<FileId>, CatalogError> {
        Ok(self.search_index()?.search(q, mode, usize::MAX, false))
    }

    /// The files a query matches, best first (see [`Query::rank`]; ties in
    /// id order), at most `limit` of them. The first page of a huge result
    /// comes as fast as a small result's (see [`SearchIndex::search`]).
    pub fn search_ranked(
        &self,
        q: &Query,
        mode: Mode,
        limit: usize,
    ) -> Result<Vec<FileId>, CatalogError> {
        Ok(self.search_index()?.search(q, mode, limit, true))
    }

    /// The seed mode's meaning through the SQL tables.
    fn eval(&self, q: &Query) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut out = BTreeSet::new();
        for clauses in &q.alternatives {
            let mut acc: Option<BTreeSet<FileId>> = None;
            let mut excluded = BTreeSet::new();
            for c in clauses {
                match c {
                    Clause::Not(inner) => excluded.extend(self.eval(inner)?),
                    Clause::Term(t) if t.scope == Some(Scope::Ext) => {
                        acc = Some(intersect(acc, self.ext(&t.words[0])?));
                    }
                    Clause::Term(t) if t.scope == Some(Scope::Date) => {
                        acc = Some(intersect(acc, self.date(&t.words[0], &t.words[1])?));
                    }
                    Clause::Term(t) => acc = Some(intersect(acc, self.term(t)?)),
                    Clause::Group(inner) => acc = Some(intersect(acc, self.eval(inner)?)),
                }
            }
            let base = match acc {
                Some(set) => set,
                None => self.all()?,
            };
            out.extend(base.difference(&excluded).copied());
        }
        Ok(out)
    }

    /// Files with the term: each word against the tokens table, and a
    /// phrase's words at consecutive positions of one string.
    fn term(&self, t: &Term) -> Result<BTreeSet<FileId>, CatalogError> {
        let test = if t.fuzzy {
            "fuzzy_match(?{n}, tk{i}.word)"
        } else {
            "instr(tk{i}.word, ?{n}) > 0"
        };
        let mut sql = String::from(
            "SELECT DISTINCT l0.file_id FROM links l0 JOIN tokens tk0 ON tk0.token_id = l0.token_id",
        );
        for i in 1..t.words.len() {
            sql.push_str(&format!(
                " JOIN links l{i} ON l{i}.file_id = l0.file_id AND l{i}.field = l0.field AND l{i}.position = l0.position + {i}
                  JOIN tokens tk{i} ON tk{i}.token_id = l{i}.token_id"
            ));
        }
        let last = t.words.len() - 1;
        // Scopes: the caption is field 1; the name and the folders are the
        // path's tokens from, or before, the name's first one.
        let scope = match t.scope {
            Some(Scope::Caption) => " AND l0.field = 1".to_owned(),
            Some(Scope::Camera) => " AND l0.field = 2".to_owned(),
            // Unscoped terms look in the path and the caption.
            None => " AND l0.field < 2".to_owned(),
            Some(Scope::Name) => " AND l0.field = 0 AND l0.position >= f.name_start".to_owned(),
            Some(Scope::Dir) => format!(" AND l0.field = 0 AND l{last}.position < f.name_start"),
            _ => String::new(),
        };
        if t.scope.is_some() {
            sql.push_str(" JOIN files f ON f.file_id = l0.file_id");
        }
        sql.push_str(" WHERE ");
        let tests: Vec<String> = (0..t.words.len())
            .map(|i| {
                test.replace("{i}", &i.to_string())
                    .replace("{n}", &(i + 1).to_string())
            })
            .collect();
        sql.push_str(&tests.join(" AND "));
        sql.push_str(&scope);
        let mut st = self.conn.prepare_cached(&sql)?;
        let rows = st.query_map(rusqlite::params_from_iter(t.words.iter()), |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files taken from `lo` to `hi`, both compared as prefixes.
    fn date(&self, lo: &str, hi: &str) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self.conn.prepare_cached(
            "SELECT file_id FROM files WHERE status < 2 AND date != '' AND date >= ?1 \
             AND substr(date, 1, length(?2)) <= ?2",
        )?;
        let rows = st.query_map(params![lo, hi], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files whose name's extension is `ext` (folded, whole).
    fn ext(&self, ext: &str) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT file_id FROM files WHERE ext = ?1 AND status < 2")?;
        let rows = st.query_map(params![ext], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A file's exact path bytes (the raw ones for a name that is not
    /// UTF-8), so a printed path opens the real file.
    pub fn raw_path(&self, id: FileId) -> Result<Option<Vec<u8>>, CatalogError> {
        Ok(self
            .conn
            .query_row(
                "SELECT coalesce(raw_path, CAST(path AS BLOB)) FROM files WHERE file_id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// A file's path and caption.
    pub fn file(&self, id: FileId) -> Result<Option<(String, String)>, CatalogError> {
        Ok(self
            .conn
            .query_row(
                "SELECT path, caption FROM files WHERE file_id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// The caption the user wrote on a file, if they wrote one.
    pub fn user_caption(&self, id: FileId) -> Result<Option<String>, CatalogError> {
        Ok(self
            .conn
            .query_row(
                "SELECT caption FROM files WHERE file_id = ?1 AND caption_edited",
                params![id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Every file whose caption the user wrote.
    pub fn user_captioned(&self) -> Result<Vec<FileId>, CatalogError> {
        let mut st = self
            .conn
            .prepare("SELECT file_id FROM files WHERE caption_edited ORDER BY file_id")?;
        let ids = st.query_map([], |r| r.get(0))?;
        Ok(ids.collect::<Result<_, _>>()?)
    }
}

impl Catalog {
    /// Drops the stored search index and builds it again from the file
    /// records (what `viewer2 repair` does to a catalogue that passes its
    /// check). Returns its size in bytes.
    pub fn rebuild_index(&mut self) -> Result<usize, CatalogError> {
        self.writable()?;
        self.conn.execute_batch(
            "BEGIN; DELETE FROM search_index; \
             UPDATE meta SET value = 0 WHERE key = 'index_generation'; COMMIT;",
        )?;
        *self.index.borrow_mut() = None;
        self.refresh_index()
    }
}

impl Catalog {
    /// Every file, in id order.
    pub fn files(&self) -> Result<Vec<FileRecord>, CatalogError> {
        let mut st = self.conn.prepare_cached(
            "SELECT file_id, path, raw_path, caption, camera, date, size, mtime FROM files \
             WHERE status < 2 ORDER BY file_id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(FileRecord {
                id: r.get(0)?,
                path: r.get(1)?,
                raw_path: r.get(2)?,
                caption: r.get(3)?,
                camera: r.get(4)?,
                date: r.get(5)?,
                size: r.get(6)?,
                mtime: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn intersect(acc: Option<BTreeSet<FileId>>, set: BTreeSet<FileId>) -> BTreeSet<FileId> {
    match acc {
        None => set,
        Some(a) => a.intersection(&set).copied().collect(),
    }
}

/// The schema, version 2.
const SCHEMA_V2: &str = "
    CREATE TABLE files (
        file_id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        caption TEXT NOT NULL DEFAULT '',
        -- 1 where the user wrote the caption: index runs keep it.
        caption_edited INTEGER NOT NULL DEFAULT 0,
        -- The name's first token among the path's (dir: before it); filled
        -- with the seed's tables.
        name_start INTEGER NOT NULL DEFAULT 0,
        ext TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL DEFAULT 0,
        mtime INTEGER NOT NULL DEFAULT 0,
        -- The path's exact bytes when they are not UTF-8 (the text column
        -- holds the lossy form, for searching).
        raw_path BLOB,
        camera TEXT NOT NULL DEFAULT '',
        -- When the photo was taken, YYYY-MM-DD HH:MM:SS, or ''.
        date TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX files_by_path ON files (path);
    CREATE TABLE tokens (
        token_id INTEGER PRIMARY KEY,
        word TEXT UNIQUE NOT NULL
    );
    CREATE TABLE links (
        token_id INTEGER NOT NULL,
        file_id INTEGER NOT NULL,
        field INTEGER NOT NULL,
        position INTEGER NOT NULL
    );
    CREATE INDEX links_by_token ON links (token_id, file_id);
    CREATE INDEX links_by_file ON links (file_id, field, position);
    CREATE TABLE search_index (part INTEGER PRIMARY KEY, data BLOB NOT NULL);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES
        ('generation', 1), ('seed_generation', 0), ('index_generation', 0);
";

/// Version 1 kept folded copies of every string and a trigram table in
/// SQLite; version 2 keeps them in the search index. The seed's tables
/// were filled eagerly in version 1, so they are current.
fn migrate_from_v1(conn: &Connection) -> Result<(), CatalogError> {
    let tx = write_tx(conn)?;
    tx.execute_batch(
        "DROP TABLE IF EXISTS trigrams;
         DROP INDEX IF EXISTS files_by_ext;
         ALTER TABLE files DROP COLUMN path_folded;
         ALTER TABLE files DROP COLUMN caption_folded;
         ALTER TABLE files DROP COLUMN dir_folded;
         ALTER TABLE files DROP COLUMN name_folded;
         ALTER TABLE files DROP COLUMN camera_folded;
         ALTER TABLE files ADD COLUMN caption_edited INTEGER NOT NULL DEFAULT 0;
         CREATE TABLE search_index (part INTEGER PRIMARY KEY, data BLOB NOT NULL);
         CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
         INSERT INTO meta (key, value) VALUES
             ('generation', 1), ('seed_generation', 1), ('index_generation', 0);
         PRAGMA user_version = 2;",
    )?;
    tx.commit()?;
    Ok(())
}

/// Version 3 keeps each file's inode and a content hash (what carries its
/// record across moves, [`Identity`]) and its presence on disk
/// ([`Presence`]). No index is kept on them: only a run that finds new
/// files while records lie outside its folders looks records up by them,
/// in one pass ([`Catalog::identities_outside`]), and every insert would
/// pay for the indexes.
const MIGRATE_V2_TO_V3: &str = "
    ALTER TABLE files ADD COLUMN dev INTEGER;
    ALTER TABLE files ADD COLUMN ino INTEGER;
    ALTER TABLE files ADD COLUMN hash BLOB;
    -- The inode's birth time, nanoseconds since the epoch, where known.
    ALTER TABLE files ADD COLUMN born INTEGER;
    -- 0 present, 1 unavailable (its folder could not be read), 2 missing
    -- (gone, kept for what the user made for it).
    ALTER TABLE files ADD COLUMN status INTEGER NOT NULL DEFAULT 0;
    INSERT OR IGNORE INTO meta (key, value) VALUES ('index_checksum', 0);
    PRAGMA user_version = 3;
";

fn migrate_from_v2(conn: &Connection) -> Result<(), CatalogError> {
    let tx = write_tx(conn)?;
    tx.execute_batch(MIGRATE_V2_TO_V3)?;
    tx.commit()?;
    Ok(())
}

/// The `dev`, `ino` and `born` columns of an identity (SQLite integers
/// are signed: the bits are kept).
fn inode_columns(i: &Identity) -> (Option<i64>, Option<i64>, Option<i64>) {
    match i.inode {
        Some((dev, ino)) => (Some(dev as i64), Some(ino as i64), i.born),
        None => (None, None, None),
    }
}

/// Records a file's identity (a hash already known stays when none is
/// given).
fn set_identity(tx: &Connection, id: FileId, i: &Identity) -> Result<(), CatalogError> {
    let (dev, ino, born) = inode_columns(i);
    tx.prepare_cached(
        "UPDATE files SET dev = ?2, ino = ?3, born = ?4, hash = coalesce(?5, hash) \
         WHERE file_id = ?1",
    )?
    .execute(params![
        id,
        dev,
        ino,
        born,
        i.hash.as_ref().map(|h| h.as_slice())
    ])?;
    Ok(())
}

/// Gives record `id` a new path, folding any other record still at that
/// path into it (a file moved by the window onto a path the catalogue
/// still gives a stale record).
fn move_record(
    tx: &Connection,
    id: FileId,
    path: &str,
    raw: Option<&[u8]>,
) -> Result<(), CatalogError> {
    let others: Vec<FileId> = {
        let mut st = tx.prepare_cached(
            "SELECT file_id FROM files WHERE path = ?2 AND raw_path IS ?3 AND file_id != ?1",
        )?;
        let rows = st.query_map(params![id, path, raw], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for other in others {
        merge_records(tx, id, other)?;
    }
    set_path(tx, id, path, raw)
}

/// Gives record `id` a new path; it is present there.
fn set_path(
    tx: &Connection,
    id: FileId,
    path: &str,
    raw: Option<&[u8]>,
) -> Result<(), CatalogError> {
    let (_, name) = split_path(path);
    tx.prepare_cached(
        "UPDATE files SET path = ?2, raw_path = ?3, ext = ?4, status = 0 WHERE file_id = ?1",
    )?
    .execute(params![id, path, raw, extension(name)])?;
    Ok(())
}

/// Folds record `drop` into record `keep` (two records of one file):
/// `keep` takes `drop`'s path, stamps and identity; the caption the user
/// wrote on either stays (`keep`'s first), else `drop`'s, which is the
/// newer reading; `drop`'s placement moves to `keep` if `keep` has none.
fn merge_records(tx: &Connection, keep: FileId, drop: FileId) -> Result<(), CatalogError> {
    tx.prepare_cached(
        "UPDATE files SET (path, raw_path, ext, size, mtime, dev, ino, born, hash, camera, \
         date, status) = (SELECT path, raw_path, ext, size, mtime, dev, ino, born, coalesce(hash, \
         (SELECT hash FROM files WHERE file_id = ?1)), camera, date, status FROM files \
         WHERE file_id = ?2), \
         caption = CASE WHEN caption_edited THEN caption \
         ELSE (SELECT caption FROM files WHERE file_id = ?2) END, \
         caption_edited = caption_edited OR (SELECT caption_edited FROM files WHERE file_id = ?2) \
         WHERE file_id = ?1 AND EXISTS (SELECT 1 FROM files WHERE file_id = ?2)",
    )?
    .execute(params![keep, drop])?;
    let (keep_key, drop_key) = (file_key(keep), file_key(drop));
    tx.prepare_cached(
        "UPDATE OR IGNORE placements SET key = ?1 WHERE key = ?2 \
         AND NOT EXISTS (SELECT 1 FROM placements WHERE key = ?1)",
    )?
    .execute(params![keep_key, drop_key])?;
    tx.prepare_cached("DELETE FROM placements WHERE key = ?1")?
        .execute(params![drop_key])?;
    tx.prepare_cached(
        "UPDATE OR IGNORE marks SET key = ?1 WHERE key = ?2 \
         AND NOT EXISTS (SELECT 1 FROM marks WHERE key = ?1)",
    )?
    .execute(params![keep_key, drop_key])?;
    tx.prepare_cached("DELETE FROM marks WHERE key = ?1")?
        .execute(params![drop_key])?;
    // The newer reading's words (the dropped record's), the user's
    // unwritten change from either.
    tx.prepare_cached(
        "DELETE FROM file_words WHERE key = ?1 AND EXISTS (SELECT 1 FROM file_words WHERE key = ?2)",
    )?
    .execute(params![keep_key, drop_key])?;
    tx.prepare_cached("UPDATE OR IGNORE file_words SET key = ?1 WHERE key = ?2")?
        .execute(params![keep_key, drop_key])?;
    tx.prepare_cached("DELETE FROM file_words WHERE key = ?1")?
        .execute(params![drop_key])?;
    tx.prepare_cached("UPDATE OR IGNORE unwritten SET key = ?1 WHERE key = ?2")?
        .execute(params![keep_key, drop_key])?;
    tx.prepare_cached("DELETE FROM unwritten WHERE key = ?1")?
        .execute(params![drop_key])?;
    tx.prepare_cached("DELETE FROM files WHERE file_id = ?1")?
        .execute(params![drop])?;
    Ok(())
}

/// The setting that holds the library's roots, one per line.
const ROOTS: &str = "library.roots";

/// Whether folder `a` lies below folder `b`.
fn is_below(a: &str, b: &str) -> bool {
    a.len() > b.len() && a.starts_with(b) && matches!(a.as_bytes()[b.len()], b'/' | b'\\')
}

/// The part of a path that is searched: below the outermost root that
/// holds it (all of it when none does).
pub(crate) fn searchable<'a>(path: &'a str, roots: &[String]) -> &'a str {
    for r in roots {
        if is_below(path, r) {
            return path[r.len()..].trim_start_matches(['/', '\\']);
        }
    }
    path
}

/// A value from the `meta` table.
fn meta(conn: &Connection, key: &str) -> Result<i64, CatalogError> {
    Ok(
        conn.query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
            r.get(0)
        })?,
    )
}

/// A value in `meta`, or `default` where the key is missing (written by a
/// later version than made the file).
fn meta_or(conn: &Connection, key: &str, default: i64) -> Result<i64, CatalogError> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
            r.get(0)
        })
        .optional()?
        .unwrap_or(default))
}

/// Raises the generation (inside the caller's transaction).
pub(crate) fn bump(conn: &Connection) -> Result<(), CatalogError> {
    conn.execute(
        "UPDATE meta SET value = value + 1 WHERE key = 'generation'",
        [],
    )?;
    Ok(())
}

/// A date is empty or short (a `YYYY-MM-DD HH:MM:SS` stamp), so no stray
/// text is compared as one.
fn check_date(f: &NewFile<'_>) -> Result<(), CatalogError> {
    if f.date.len() > 64 || f.date.contains('\0') {
        return Err(CatalogError::BadFile {
            path: f.path.to_owned(),
            problem: "its date taken is not a date (over 64 bytes, or a NUL in it)",
        });
    }
    Ok(())
}
