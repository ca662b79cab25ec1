//! Salvaging a damaged catalogue: SQLite's recovery extension
//! (`sqlite3_recover`, vendored in `sqlite-recover/`) reads every page that
//! can still be read, table by table and, where the schema or a tree's
//! upper pages are lost, page by page into a lost-and-found table; the rows
//! are then copied into a fresh catalogue, those found loose placed in the
//! table whose shape they have.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags, params_from_iter};

use crate::LABELS;
use crate::store::{Catalog, CatalogError, bump};

#[repr(C)]
struct RecoverHandle {
    _opaque: [u8; 0],
}

const SQLITE_RECOVER_LOST_AND_FOUND: c_int = 1;
const SQLITE_OK: c_int = 0;

unsafe extern "C" {
    fn sqlite3_recover_init(
        db: *mut rusqlite::ffi::sqlite3,
        z_db: *const c_char,
        z_uri: *const c_char,
    ) -> *mut RecoverHandle;
    fn sqlite3_recover_config(p: *mut RecoverHandle, op: c_int, arg: *mut c_void) -> c_int;
    fn sqlite3_recover_step(p: *mut RecoverHandle) -> c_int;
    fn sqlite3_recover_errmsg(p: *mut RecoverHandle) -> *const c_char;
    fn sqlite3_recover_finish(p: *mut RecoverHandle) -> c_int;
}

/// The tables that hold the user's work, in the order they are reported.
pub const RECOVERED_TABLES: [&str; 4] = ["files", "marks", "placements", "settings"];

/// What a recovery kept of one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableReport {
    /// The table's name.
    pub table: &'static str,
    /// Rows copied into the new catalogue.
    pub kept: usize,
    /// Rows the damaged file held, where it could still count them (a
    /// damaged tree often cannot be counted: then how many were lost is
    /// not known).
    pub before: Option<usize>,
}

impl TableReport {
    /// Rows lost, where the damaged file could be counted.
    pub fn lost(&self) -> Option<usize> {
        Some(self.before?.saturating_sub(self.kept))
    }
}

/// What [`Catalog::recover_into`] and [`recover_file`] copied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// File records copied.
    pub files: usize,
    /// Of them, records with a caption the user wrote.
    pub captions: usize,
    /// Light-table placements copied.
    pub placements: usize,
    /// Ratings and labels copied.
    pub marks: usize,
    /// Settings copied.
    pub settings: usize,
    /// Each table of [`RECOVERED_TABLES`]: kept and, where known, held.
    pub tables: Vec<TableReport>,
    /// Rows found loose on pages no table could claim that have the shape
    /// of none of the catalogue's tables (left out).
    pub unplaced: usize,
    /// What could not be read, in words (each table whose count is lost,
    /// each step of the recovery that failed).
    pub unreadable: Vec<String>,
}

impl Catalog {
    /// Copies what can still be read of this catalogue (one that failed
    /// [`Catalog::check`], say) into a new catalogue at `dest`, which must
    /// not exist yet. As [`recover_file`].
    pub fn recover_into(&self, dest: &Path) -> Result<Recovered, CatalogError> {
        salvage(&self.conn, dest)
    }
}

/// Copies every row that can still be read of the catalogue at `src`
/// (which need not open as a catalogue at all: its first page may be
/// damaged, or the file cut short) into a new catalogue at `dest`, which
/// must not exist yet: the file records with their captions, inodes,
/// hashes and presence, the ratings and labels, the light table's
/// placements and the settings. The search index and the seed's tables are
/// built afresh from the records. `src` is only read. The new file is
/// checkpointed and synced before this returns, and nothing else is left
/// beside it.
pub fn recover_file(src: &Path, dest: &Path) -> Result<Recovered, CatalogError> {
    let patched = side_file(dest, ".salvage-input");
    let _ = std::fs::remove_file(&patched);
    let header_damaged = header_is_damaged(src).map_err(|_| CatalogError::BadFile {
        path: src.to_string_lossy().into_owned(),
        problem: "the damaged catalogue cannot be read",
    })?;
    let input = if header_damaged {
        // The recovery extension mends most of a damaged header as it
        // reads, but keeps the version bytes and the free-list and
        // vacuum fields as they are: garbage there makes SQLite refuse
        // the file. A copy with those set to what a catalogue has.
        copy_with_sound_header(src, &patched).map_err(|_| CatalogError::BadFile {
            path: patched.to_string_lossy().into_owned(),
            problem: "a copy of the damaged catalogue could not be written beside the new one",
        })?;
        patched.as_path()
    } else {
        src
    };
    let result = Connection::open_with_flags(
        input,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(CatalogError::from)
    .and_then(|conn| salvage(&conn, dest));
    if header_damaged {
        let _ = std::fs::remove_file(&patched);
    }
    result
}

const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether the file's 100-byte header is not one SQLite would open.
fn header_is_damaged(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let mut head = [0u8; 100];
    let mut f = std::fs::File::open(path)?;
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    if got < head.len() {
        return Ok(true);
    }
    let page = u32::from(u16::from_be_bytes([head[16], head[17]]));
    let page = if page == 1 { 65536 } else { page };
    Ok(&head[..16] != MAGIC
        || !(512..=65536).contains(&page)
        || !page.is_power_of_two()
        || !(1..=2).contains(&head[18])
        || !(1..=2).contains(&head[19]))
}

/// Copies `src` to `to` with the header fields the recovery keeps set to
/// a plain catalogue's (the page size and the rest it finds itself).
fn copy_with_sound_header(src: &Path, to: &Path) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    std::fs::copy(src, to)?;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(to)?;
    let mut head = [0u8; 100];
    {
        use std::io::Read;
        let _ = f.read(&mut head)?;
    }
    head[..16].copy_from_slice(MAGIC);
    // Legacy (rollback) versions: the WAL is not read for a damaged file.
    head[18] = 1;
    head[19] = 1;
    // No free list (its pages are read as loose pages), no auto-vacuum.
    for at in [32, 36, 52, 64, 68] {
        head[at..at + 4].fill(0);
    }
    f.seek(SeekFrom::Start(0))?;
    f.write_all(&head)?;
    f.sync_all()
}

fn side_file(dest: &Path, suffix: &str) -> PathBuf {
    let mut name = dest.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn remove_salvage(salvage: &Path) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(side_file(salvage, suffix));
    }
}

fn salvage(conn: &Connection, dest: &Path) -> Result<Recovered, CatalogError> {
    if dest.exists() {
        return Err(CatalogError::BadFile {
            path: dest.to_string_lossy().into_owned(),
            problem: "the file to recover into exists already",
        });
    }
    let mut out = Recovered::default();
    let before: Vec<Option<usize>> = RECOVERED_TABLES
        .iter()
        .map(|t| {
            conn.query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| {
                r.get::<_, i64>(0)
            })
            .ok()
            .and_then(|n| usize::try_from(n).ok())
        })
        .collect();
    let salvage = side_file(dest, ".salvage");
    remove_salvage(&salvage);
    let result = run_recovery(conn, &salvage, &mut out)
        .and_then(|()| copy_into_catalogue(&salvage, dest, &mut out));
    remove_salvage(&salvage);
    if result.is_err() {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(side_file(dest, suffix));
        }
    }
    result?;
    for (table, before) in RECOVERED_TABLES.iter().zip(before) {
        let kept = match *table {
            "files" => out.files,
            "marks" => out.marks,
            "placements" => out.placements,
            _ => out.settings,
        };
        let report = TableReport {
            table,
            kept,
            before,
        };
        match report.lost() {
            Some(0) => {}
            Some(lost) => out
                .unreadable
                .push(format!("{table}: {lost} of {} rows lost", before.unwrap_or(0))),
            None => out.unreadable.push(format!(
                "{table}: the damaged file cannot count its rows, so how many were lost is not known"
            )),
        }
        out.tables.push(report);
    }
    Ok(out)
}

/// `sqlite3_recover` from `conn` into a plain database at `salvage`.
fn run_recovery(
    conn: &Connection,
    salvage: &Path,
    out: &mut Recovered,
) -> Result<(), CatalogError> {
    let uri = CString::new(salvage.as_os_str().as_encoded_bytes()).map_err(|_| {
        CatalogError::BadFile {
            path: salvage.to_string_lossy().into_owned(),
            problem: "the path holds a NUL byte",
        }
    })?;
    let lost_and_found = c"lost_and_found";
    // SAFETY: the handle is the live connection's, used on this thread
    // only while `conn` is borrowed; the recovery object is finished
    // before this returns, and the strings outlive it.
    unsafe {
        let p = sqlite3_recover_init(conn.handle(), c"main".as_ptr(), uri.as_ptr());
        if p.is_null() {
            return Err(CatalogError::Recovery("out of memory starting it".into()));
        }
        sqlite3_recover_config(
            p,
            SQLITE_RECOVER_LOST_AND_FOUND,
            lost_and_found.as_ptr() as *mut c_void,
        );
        while sqlite3_recover_step(p) == SQLITE_OK {}
        let message = {
            let m = sqlite3_recover_errmsg(p);
            (!m.is_null()).then(|| CStr::from_ptr(m).to_string_lossy().into_owned())
        };
        let rc = sqlite3_recover_finish(p);
        if rc != SQLITE_OK {
            let detail = message.unwrap_or_else(|| format!("SQLite error code {rc}"));
            // A recovery that wrote nothing usable fails; one that wrote
            // part goes on with what it has.
            if !salvage.exists() {
                return Err(CatalogError::Recovery(detail));
            }
            out.unreadable
                .push(format!("the recovery stopped early: {detail}"));
        }
    }
    Ok(())
}

/// The columns `table` has in the database `schema` (`main` or `s`).
fn columns(conn: &Connection, schema: &str, table: &str) -> Result<Vec<String>, CatalogError> {
    let mut st = conn.prepare(&format!("PRAGMA \"{schema}\".table_info(\"{table}\")"))?;
    let names = st.query_map([], |r| r.get::<_, String>(1))?;
    Ok(names.collect::<Result<_, _>>()?)
}

/// The checks a row must pass to be copied into `table` (what the
/// catalogue itself would have accepted).
fn row_filter(table: &str) -> String {
    match table {
        "files" => "typeof(path) = 'text'".to_owned(),
        "marks" => {
            let labels: Vec<String> = LABELS.iter().map(|l| format!("'{l}'")).collect();
            format!(
                "typeof(key) = 'text' AND rating BETWEEN 0 AND 5 AND label IN ('', {})",
                labels.join(", ")
            )
        }
        "placements" => "typeof(key) = 'text'".to_owned(),
        _ => "typeof(key) = 'text'".to_owned(),
    }
}

fn copy_into_catalogue(
    salvage: &Path,
    dest: &Path,
    out: &mut Recovered,
) -> Result<(), CatalogError> {
    let mut to = Catalog::open(dest)?;
    let conn = &mut to.conn;
    conn.execute(
        "ATTACH DATABASE ?1 AS s",
        [salvage.to_string_lossy().as_ref()],
    )?;
    let tx = conn.transaction()?;
    let salvaged: Vec<String> = {
        let mut st = tx.prepare("SELECT name FROM s.sqlite_schema WHERE type = 'table'")?;
        let names = st.query_map([], |r| r.get::<_, String>(0))?;
        names.collect::<Result<_, _>>()?
    };
    // The tables whose schema was recovered: column by column, by name.
    for table in RECOVERED_TABLES {
        if !salvaged.iter().any(|n| n == table) {
            continue;
        }
        let ours = columns(&tx, "main", table)?;
        let theirs = columns(&tx, "s", table)?;
        let shared: Vec<String> = ours
            .iter()
            .filter(|c| theirs.contains(c))
            .map(|c| format!("\"{c}\""))
            .collect();
        if shared.is_empty() {
            continue;
        }
        let list = shared.join(", ");
        tx.execute(
            &format!(
                "INSERT OR IGNORE INTO main.\"{table}\" ({list}) SELECT {list} FROM s.\"{table}\" \
                 WHERE {}",
                row_filter(table)
            ),
            [],
        )?;
    }
    // Rows found loose: placed by their shape.
    if salvaged.iter().any(|n| n == "lost_and_found") {
        place_loose_rows(&tx, out)?;
    }
    bump(&tx)?;
    let count = |sql: &str| -> Result<usize, CatalogError> {
        let n: i64 = tx.query_row(sql, [], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    };
    out.files = count("SELECT count(*) FROM main.files")?;
    out.captions = count("SELECT count(*) FROM main.files WHERE caption_edited != 0")?;
    out.marks = count("SELECT count(*) FROM main.marks")?;
    out.placements = count("SELECT count(*) FROM main.placements")?;
    out.settings = count("SELECT count(*) FROM main.settings")?;
    tx.commit()?;
    to.conn.execute("DETACH DATABASE s", [])?;
    to.refresh_index()?;
    // Everything into the main file, then onto the disk, before the
    // caller swaps the files.
    to.conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    drop(to);
    std::fs::File::open(dest)
        .and_then(|f| f.sync_all())
        .map_err(|e| CatalogError::BadFile {
            path: dest.to_string_lossy().into_owned(),
            problem: if e.kind() == std::io::ErrorKind::NotFound {
                "the recovered file vanished before it was synced"
            } else {
                "the recovered file could not be synced to the disk"
            },
        })?;
    Ok(())
}

/// The table a loose row belongs to, by its number of fields and their
/// types (each catalogue table's shape is distinct: see the schema).
fn shape_of(fields: &[Value], files_width: usize) -> Option<&'static str> {
    use Value::{Integer, Null, Real, Text};
    match fields {
        // files: the id is the rowid (its own field is NULL); the path is
        // text; older catalogues have fewer trailing columns.
        [Null, Text(_), Text(_), Integer(_), rest @ ..]
            if (8..=files_width.saturating_sub(4)).contains(&rest.len()) =>
        {
            Some("files")
        }
        [Text(_), Integer(_), Text(_)] => Some("marks"),
        [
            Text(_),
            Real(_) | Integer(_),
            Real(_) | Integer(_),
            Real(_) | Integer(_),
            Text(_),
        ] => Some("placements"),
        [Text(_), Text(_)] => Some("settings"),
        _ => None,
    }
}

fn place_loose_rows(tx: &Connection, out: &mut Recovered) -> Result<(), CatalogError> {
    let width = columns(tx, "s", "lost_and_found")?.len();
    let files_cols = columns(tx, "main", "files")?;
    let mut st = tx.prepare("SELECT * FROM s.lost_and_found")?;
    let mut rows = st.query([])?;
    while let Some(row) = rows.next()? {
        // rootpgno, pgno, nfield, id, c0, c1, …
        let nfield: i64 = row.get::<_, Option<i64>>(2)?.unwrap_or(0);
        let id: Option<i64> = row.get(3)?;
        let n = usize::try_from(nfield)
            .unwrap_or(0)
            .min(width.saturating_sub(4));
        let mut fields = Vec::with_capacity(n);
        for i in 0..n {
            fields.push(row.get::<_, Value>(4 + i)?);
        }
        let Some(table) = shape_of(&fields, files_cols.len()) else {
            out.unplaced += 1;
            continue;
        };
        let (names, mut values): (Vec<String>, Vec<Value>) = if table == "files" {
            let Some(id) = id else {
                out.unplaced += 1;
                continue;
            };
            fields[0] = Value::Integer(id);
            (files_cols[..fields.len()].to_vec(), fields)
        } else {
            (columns(tx, "main", table)?, fields)
        };
        values.truncate(names.len());
        insert_checked(tx, table, &names, &values)?;
    }
    Ok(())
}

fn insert_checked(
    tx: &Connection,
    table: &str,
    names: &[String],
    values: &[Value],
) -> Result<(), CatalogError> {
    let list: Vec<String> = names.iter().map(|c| format!("\"{c}\"")).collect();
    let select: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, c)| format!("?{} AS \"{c}\"", i + 1))
        .collect();
    let sql = format!(
        "INSERT OR IGNORE INTO main.\"{table}\" ({}) SELECT {} FROM (SELECT {}) WHERE {}",
        list.join(", "),
        list.join(", "),
        select.join(", "),
        row_filter(table)
    );
    tx.execute(&sql, params_from_iter(values.iter()))?;
    Ok(())
}
