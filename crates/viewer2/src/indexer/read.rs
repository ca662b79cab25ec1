//! Step 3 of a run: reading new and changed files (metadata, content
//! hash) into records.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use catalog::{Identity, NewFile};

use super::Report;
use super::walk::{Found, os_path};
use crate::metadata;

/// A file found on disk, read.
pub(super) struct Entry {
    /// The path as text (lossy where the name is not UTF-8).
    path: String,
    /// The metadata's words (EXIF, XMP).
    caption: String,
    /// The camera model.
    camera: String,
    /// When it was taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    date: String,
    /// The exact bytes, when they differ from `path`.
    raw: Option<Vec<u8>>,
    size: i64,
    mtime: i64,
    identity: Identity,
}

impl Entry {
    pub(super) fn as_new(&self) -> NewFile<'_> {
        NewFile {
            path: &self.path,
            caption: &self.caption,
            size: self.size,
            mtime: self.mtime,
            raw_path: self.raw.as_deref(),
            camera: &self.camera,
            date: &self.date,
            identity: self.identity,
        }
    }
}

/// Reads a found file's metadata (a broken block is a warning, and the
/// file is indexed by name) and its content hash.
pub(super) fn read_entry(f: &Found, report: &mut Report) -> Entry {
    let path = os_path(&f.raw);
    let path = Path::new(&path);
    let meta = match metadata::read(path) {
        Ok(m) => {
            if let Some(p) = &m.problem {
                report.bad_metadata += 1;
                report.warn(format!("{}: metadata partly skipped: {p}", path.display()));
            }
            m
        }
        Err(e) => {
            report.bad_metadata += 1;
            report.warn(format!("{}: metadata skipped: {e}", path.display()));
            metadata::Meta::default()
        }
    };
    let hash = match f.hash {
        Some(h) => h,
        None => content_hash(path, f.size).ok(),
    };
    Entry {
        caption: meta.caption,
        camera: meta.camera,
        date: meta.date,
        // Exact bytes are kept only where the lossy text differs.
        raw: (f.raw != f.path.as_bytes()).then(|| f.raw.clone()),
        path: f.path.clone(),
        size: f.size,
        mtime: f.mtime,
        identity: Identity {
            inode: f.inode,
            born: f.born,
            hash,
        },
    }
}

/// How much of each end of a file the content hash reads.
const HASH_END: u64 = 16 << 10;

/// MD5 of the size (8 bytes, little-endian), the first 16 KB and the last
/// 16 KB: what tells a moved photo from another of the same size and time
/// (the head holds the EXIF, with its time to the second and often a
/// serial number; the tail is entropy-coded pixels). Not a security hash.
pub fn content_hash(path: &Path, size: i64) -> std::io::Result<[u8; 16]> {
    let mut file = std::fs::File::open(path)?;
    let mut ctx = md5::Context::new();
    ctx.consume((size as u64).to_le_bytes());
    let mut buf = vec![0u8; HASH_END as usize];
    let n = read_up_to(&mut file, &mut buf)?;
    ctx.consume(&buf[..n]);
    let size = size.max(0) as u64;
    if size > HASH_END {
        file.seek(SeekFrom::Start(size.saturating_sub(HASH_END).max(HASH_END)))?;
        let n = read_up_to(&mut file, &mut buf)?;
        ctx.consume(&buf[..n]);
    }
    Ok(ctx.finalize().0)
}

fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
