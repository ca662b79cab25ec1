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
    /// The rating and label the file (or its sidecar) gives.
    pub(super) rating: Option<u8>,
    pub(super) label: Option<String>,
    /// Its keywords and people.
    pub(super) words: catalog::FileWords,
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
    // One open for the metadata and the hash.
    let mut hash = f.hash.flatten();
    let read = std::fs::File::open(path)
        .map_err(|e| e.to_string())
        .and_then(|mut file| {
            let (meta, head) = metadata::read_from(path, &mut file)?;
            if hash.is_none() && std::env::var_os("XNOHASH").is_none() {
                hash = hash_open(&mut file, f.size, &head).ok();
            }
            Ok(meta)
        });
    let meta = match read {
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
    Entry {
        caption: meta.caption,
        camera: meta.camera,
        // Rejected (-1) has no mark of its own in the catalogue yet: it is
        // unrated there, and stays "rejected" in the file.
        rating: meta.rating.map(|r| r.clamp(0, 5) as u8),
        label: meta.label,
        words: meta.words,
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
    hash_open(&mut file, size, &[])
}

/// [`content_hash`] of an open file whose first bytes `head` holds
/// (any number of them: what it lacks is read).
fn hash_open(file: &mut std::fs::File, size: i64, head: &[u8]) -> std::io::Result<[u8; 16]> {
    let mut ctx = md5::Context::new();
    ctx.consume((size as u64).to_le_bytes());
    let end = HASH_END as usize;
    let mut buf = Vec::new();
    let first = if head.len() >= end || head.len() as i64 >= size {
        &head[..head.len().min(end)]
    } else {
        buf.resize(end, 0);
        file.seek(SeekFrom::Start(0))?;
        let n = read_up_to(file, &mut buf)?;
        &buf[..n]
    };
    ctx.consume(first);
    let size = size.max(0) as u64;
    if size > HASH_END {
        let from = size.saturating_sub(HASH_END).max(HASH_END);
        if size <= head.len() as u64 {
            ctx.consume(&head[from as usize..size as usize]);
        } else {
            let mut tail = vec![0u8; end];
            file.seek(SeekFrom::Start(from))?;
            let n = read_up_to(file, &mut tail)?;
            ctx.consume(&tail[..n]);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The hash from the metadata's open file (its first megabyte
        /// already read) is the hash of the file read afresh.
        #[test]
        fn hash_from_the_head_is_the_hash(size in 0usize..80_000, seed: u8) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x.jpg");
            let bytes: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
            std::fs::write(&path, &bytes).unwrap();
            let mut file = std::fs::File::open(&path).unwrap();
            let (_, head) = metadata::read_from(&path, &mut file).unwrap();
            for head in [&head[..], &head[..head.len().min(100)], &[][..]] {
                prop_assert_eq!(
                    hash_open(&mut file, size as i64, head).unwrap(),
                    content_hash(&path, size as i64).unwrap()
                );
            }
        }
    }
}
