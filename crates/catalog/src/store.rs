//! The catalogue in SQLite, with the seed's token tables, and its search.
//!
//! Tables as in the seed: `files`, `tokens` (each folded word once,
//! `UNIQUE`), and `links` (token, file, which string of the file, and the
//! token's position in it). A term is looked up in the small `tokens` table
//! (the seed's `LIKE '%term%'`, here `instr`, exact on folded text), then
//! joined to the files; AND, OR and NOT are set operations on file ids.

use std::collections::BTreeSet;
use std::path::Path;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, OptionalExtension, params};
use thiserror::Error;

use crate::fold::fold;
use crate::query::{Clause, Document, Mode, Query, Scope, Term, extension, split_path};
use crate::token::tokenize;

/// What went wrong with the catalogue.
#[derive(Debug, Error)]
pub enum CatalogError {
    /// SQLite said no.
    #[error("catalogue database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The file is a catalogue from a newer version of this program.
    #[error("the catalogue has schema version {found}; this program knows up to {known}")]
    NewerSchema {
        /// The file's version.
        found: i64,
        /// The newest this program knows.
        known: i64,
    },
}

/// A file's id in the catalogue.
pub type FileId = i64;

/// The schema version this code writes.
const SCHEMA: i64 = 1;

/// The catalogue.
pub struct Catalog {
    conn: Connection,
}

/// A file to add: its path and caption, and the size and modification
/// time an index run compares to notice changes.
#[derive(Clone, Copy, Debug)]
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

impl Catalog {
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
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS files (
                 file_id INTEGER PRIMARY KEY,
                 path TEXT NOT NULL,
                 caption TEXT NOT NULL DEFAULT '',
                 path_folded TEXT NOT NULL DEFAULT '',
                 caption_folded TEXT NOT NULL DEFAULT '',
                 -- The name's first token among the path's (dir: before it).
                 name_start INTEGER NOT NULL DEFAULT 0,
                 dir_folded TEXT NOT NULL DEFAULT '',
                 name_folded TEXT NOT NULL DEFAULT '',
                 ext TEXT NOT NULL DEFAULT '',
                 size INTEGER NOT NULL DEFAULT 0,
                 mtime INTEGER NOT NULL DEFAULT 0,
                 -- The path's exact bytes when they are not UTF-8 (the text
                 -- columns hold the lossy form, for searching).
                 raw_path BLOB,
                 camera TEXT NOT NULL DEFAULT '',
                 camera_folded TEXT NOT NULL DEFAULT '',
                 -- When the photo was taken, YYYY-MM-DD HH:MM:SS, or ''.
                 date TEXT NOT NULL DEFAULT ''
             );
             CREATE INDEX IF NOT EXISTS files_by_path ON files (path);
             CREATE INDEX IF NOT EXISTS files_by_ext ON files (ext);
             CREATE TABLE IF NOT EXISTS trigrams (
                 tri INTEGER NOT NULL,
                 file_id INTEGER NOT NULL,
                 PRIMARY KEY (tri, file_id)
             ) WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS tokens (
                 token_id INTEGER PRIMARY KEY,
                 word TEXT UNIQUE NOT NULL
             );
             CREATE TABLE IF NOT EXISTS links (
                 token_id INTEGER NOT NULL,
                 file_id INTEGER NOT NULL,
                 field INTEGER NOT NULL,
                 position INTEGER NOT NULL
             );
             CREATE INDEX IF NOT EXISTS links_by_token ON links (token_id, file_id);
             CREATE INDEX IF NOT EXISTS links_by_file ON links (file_id, field, position);
             CREATE INDEX IF NOT EXISTS trigrams_by_file ON trigrams (file_id);
             PRAGMA user_version = 1;",
        )?;
        // Searches keep working while an index run writes.
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        // Fuzzy terms compare in Rust, with the reference meaning's rule.
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
                }
                .word_matches(&word, &token))
            },
        )?;
        Ok(Catalog { conn })
    }

    /// Adds files (path and caption each), in one transaction, and returns
    /// their ids in order.
    pub fn add_files(&mut self, files: &[(&str, &str)]) -> Result<Vec<FileId>, CatalogError> {
        let stamped: Vec<NewFile<'_>> = files
            .iter()
            .map(|&(path, caption)| NewFile {
                path,
                caption,
                size: 0,
                mtime: 0,
                raw_path: None,
                camera: "",
                date: "",
            })
            .collect();
        self.add(&stamped)
    }

    /// Adds files with their size and modification time, in one
    /// transaction, and returns their ids in order.
    pub fn add(&mut self, files: &[NewFile<'_>]) -> Result<Vec<FileId>, CatalogError> {
        let tx = self.conn.transaction()?;
        let mut ids = Vec::with_capacity(files.len());
        {
            let mut insert_file = tx.prepare_cached(
                "INSERT INTO files (path, caption, path_folded, caption_folded, name_start, dir_folded, name_folded, ext, size, mtime, raw_path, camera, camera_folded, date) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )?;
            let mut insert_trigram =
                tx.prepare_cached("INSERT OR IGNORE INTO trigrams (tri, file_id) VALUES (?1, ?2)")?;
            let mut insert_token =
                tx.prepare_cached("INSERT OR IGNORE INTO tokens (word) VALUES (?1)")?;
            let mut token_id = tx.prepare_cached("SELECT token_id FROM tokens WHERE word = ?1")?;
            let mut link = tx.prepare_cached(
                "INSERT INTO links (token_id, file_id, field, position) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for f in files {
                let (path, caption) = (f.path, f.caption);
                let (path_folded, caption_folded) = (fold(path), fold(caption));
                let (dir, name) = split_path(path);
                insert_file.execute(params![
                    path,
                    caption,
                    path_folded,
                    caption_folded,
                    tokenize(dir).len() as i64,
                    fold(dir),
                    fold(name),
                    extension(name),
                    f.size,
                    f.mtime,
                    f.raw_path,
                    f.camera,
                    fold(f.camera),
                    f.date
                ])?;
                let file = tx.last_insert_rowid();
                for text in [&path_folded, &caption_folded] {
                    for tri in trigrams(text) {
                        insert_trigram.execute(params![tri, file])?;
                    }
                }
                for (field, text) in [
                    (Field::Path, path),
                    (Field::Caption, caption),
                    (Field::Camera, f.camera),
                ] {
                    for t in tokenize(text) {
                        insert_token.execute(params![t.word])?;
                        let id: i64 = token_id.query_row(params![t.word], |r| r.get(0))?;
                        link.execute(params![id, file, field as i64, t.position])?;
                    }
                }
                ids.push(file);
            }
        }
        tx.commit()?;
        Ok(ids)
    }

    /// The files under a folder (by path prefix), with their size and
    /// modification time, for an index run to compare against the disk.
    pub fn stamps_under(&self, prefix: &str) -> Result<Vec<Stamp>, CatalogError> {
        // Each file's exact path bytes: the raw ones where stored.
        let mut st = self.conn.prepare_cached(
            "SELECT file_id, coalesce(raw_path, CAST(path AS BLOB)), size, mtime FROM files \
             WHERE substr(path, 1, length(?1)) = ?1",
        )?;
        let rows = st.query_map(params![prefix], |r| {
            Ok(Stamp {
                id: r.get(0)?,
                path: r.get(1)?,
                size: r.get(2)?,
                mtime: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Removes files and their links and trigrams, in one transaction.
    pub fn remove(&mut self, ids: &[FileId]) -> Result<(), CatalogError> {
        let tx = self.conn.transaction()?;
        {
            let mut del = [
                tx.prepare_cached("DELETE FROM links WHERE file_id = ?1")?,
                tx.prepare_cached("DELETE FROM trigrams WHERE file_id = ?1")?,
                tx.prepare_cached("DELETE FROM files WHERE file_id = ?1")?,
            ];
            for &id in ids {
                for st in &mut del {
                    st.execute(params![id])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// How many files the catalogue holds.
    pub fn len(&self) -> Result<u64, CatalogError> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0))? as u64)
    }

    /// Whether the catalogue holds no file.
    pub fn is_empty(&self) -> Result<bool, CatalogError> {
        Ok(self.len()? == 0)
    }

    /// Every file id.
    fn all(&self) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self.conn.prepare_cached("SELECT file_id FROM files")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The seed's search: the files a query matches, by id, in id order.
    pub fn search_seed(&self, q: &Query) -> Result<Vec<FileId>, CatalogError> {
        self.search(q, Mode::Seed)
    }

    /// The files a query matches in `mode`, by id, in id order.
    pub fn search(&self, q: &Query, mode: Mode) -> Result<Vec<FileId>, CatalogError> {
        Ok(self.eval(q, mode)?.into_iter().collect())
    }

    fn eval(&self, q: &Query, mode: Mode) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut out = BTreeSet::new();
        for clauses in &q.alternatives {
            let mut acc: Option<BTreeSet<FileId>> = None;
            let mut excluded = BTreeSet::new();
            for c in clauses {
                match c {
                    Clause::Not(inner) => excluded.extend(self.eval(inner, mode)?),
                    Clause::Term(t) if t.scope == Some(Scope::Ext) => {
                        acc = Some(intersect(acc, self.ext(&t.words[0])?));
                    }
                    Clause::Term(t)
                        if t.scope == Some(Scope::Camera)
                            && mode == Mode::Default
                            && t.is_substring() =>
                    {
                        acc = Some(intersect(acc, self.camera(&t.words[0])?));
                    }
                    Clause::Term(t) if t.scope == Some(Scope::Date) => {
                        acc = Some(intersect(acc, self.date(&t.words[0], &t.words[1])?));
                    }
                    Clause::Term(t) if mode == Mode::Default && t.is_substring() => {
                        acc = Some(intersect(acc, self.substring(&t.words[0], t.scope)?));
                    }
                    Clause::Term(t) => acc = Some(intersect(acc, self.term(t)?)),
                    Clause::Group(inner) => acc = Some(intersect(acc, self.eval(inner, mode)?)),
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

    /// Files whose folded path or caption contains `word`: candidates from
    /// the trigram index (files holding every trigram of the word, up to
    /// eight of them), then checked.
    fn substring(
        &self,
        word: &str,
        scope: Option<Scope>,
    ) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut tris: Vec<i64> = trigrams(word).collect();
        tris.sort_unstable();
        tris.dedup();
        tris.truncate(8);
        let candidates: Vec<String> = (0..tris.len())
            .map(|i| format!("SELECT file_id FROM trigrams WHERE tri = ?{}", i + 2))
            .collect();
        let check = match scope {
            Some(Scope::Name) => "instr(name_folded, ?1) > 0",
            Some(Scope::Dir) => "instr(dir_folded, ?1) > 0",
            Some(Scope::Caption) => "instr(caption_folded, ?1) > 0",
            _ => "(instr(path_folded, ?1) > 0 OR instr(caption_folded, ?1) > 0)",
        };
        let sql = format!(
            "SELECT file_id FROM files WHERE file_id IN ({}) AND {check}",
            candidates.join(" INTERSECT ")
        );
        let mut st = self.conn.prepare_cached(&sql)?;
        let mut args: Vec<rusqlite::types::Value> = vec![word.to_owned().into()];
        args.extend(tris.into_iter().map(rusqlite::types::Value::from));
        let rows = st.query_map(rusqlite::params_from_iter(args), |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files whose folded camera model contains `word` (a scan: models are
    /// short and the filter rare).
    fn camera(&self, word: &str) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT file_id FROM files WHERE instr(camera_folded, ?1) > 0")?;
        let rows = st.query_map(params![word], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files taken from `lo` to `hi`, both compared as prefixes.
    fn date(&self, lo: &str, hi: &str) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self.conn.prepare_cached(
            "SELECT file_id FROM files WHERE date != '' AND date >= ?1 AND substr(date, 1, length(?2)) <= ?2",
        )?;
        let rows = st.query_map(params![lo, hi], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files whose name's extension is `ext` (folded, whole).
    fn ext(&self, ext: &str) -> Result<BTreeSet<FileId>, CatalogError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT file_id FROM files WHERE ext = ?1")?;
        let rows = st.query_map(params![ext], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The files a query matches, best first (see [`Query::rank`]; ties in
    /// id order), at most `limit` of them.
    pub fn search_ranked(
        &self,
        q: &Query,
        mode: Mode,
        limit: usize,
    ) -> Result<Vec<FileId>, CatalogError> {
        let ids = self.search(q, mode)?;
        let mut scored = Vec::with_capacity(ids.len());
        let mut st = self
            .conn
            .prepare_cached("SELECT path, caption FROM files WHERE file_id = ?1")?;
        for id in ids {
            let (path, caption): (String, String) =
                st.query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            scored.push((q.rank(&Document::new(&path, &caption)), id));
        }
        scored.sort_unstable();
        Ok(scored.into_iter().take(limit).map(|(_, id)| id).collect())
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
}

fn intersect(acc: Option<BTreeSet<FileId>>, set: BTreeSet<FileId>) -> BTreeSet<FileId> {
    match acc {
        None => set,
        Some(a) => a.intersection(&set).copied().collect(),
    }
}

/// The trigrams of a folded string, each packed in one integer (three
/// 21-bit code points).
fn trigrams(text: &str) -> impl Iterator<Item = i64> + '_ {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len().saturating_sub(2)).map(move |i| {
        (i64::from(u32::from(chars[i])) << 42)
            | (i64::from(u32::from(chars[i + 1])) << 21)
            | i64::from(u32::from(chars[i + 2]))
    })
}
