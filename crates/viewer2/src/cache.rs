//! The thumbnail cache on disk: one packed file of entries and one index
//! file, not one PNG per photo (at 100,000 photos that is 100,000 inodes
//! and as many opens).
//!
//! An entry is keyed by the photo's path, size and modification time and
//! the thumbnail size, so an edited photo simply misses and is made again.
//! Entries are appended: first the data (`thumbs.pack`: key, the photo's
//! own width and height, then the thumbnail as JPEG, or PNG when it has
//! transparency), then a 20-byte
//! record in `thumbs.idx` (key hash, offset, length). Opening reads the
//! index into memory; a record that points past the pack's end, or whose
//! entry does not carry the same key, is ignored, so a crash mid-write
//! costs at most the last entry. Superseded entries stay until
//! [`ThumbCache::clear`].

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Cursor, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::thumbnail::{Source, Thumbnail};

/// What identifies a cached thumbnail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// The photo's path, as bytes.
    pub path: Vec<u8>,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// The thumbnail's size (the long side).
    pub thumb: u32,
}

impl Key {
    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.path.len() + 26);
        // The entry format's version: entries of an older format never
        // match (their hash and key differ). v3: colours converted to sRGB
        // from the file's ICC profile.
        b.extend_from_slice(b"v3");
        b.extend_from_slice(&(self.path.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.path);
        b.extend_from_slice(&self.size.to_le_bytes());
        b.extend_from_slice(&self.mtime_ns.to_le_bytes());
        b.extend_from_slice(&self.thumb.to_le_bytes());
        b
    }

    /// FNV-1a over the key's bytes.
    fn hash(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in self.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h
    }
}

/// Where the loader's workers look for a thumbnail before making it, and
/// keep it after: this crate's packed cache ([`ThumbCache`]) or the one
/// shared with other programs ([`crate::freedesktop::FreedesktopCache`]).
pub trait ThumbStore: Send {
    /// The stored thumbnail for `key`, if there is a sound one.
    fn get(&mut self, key: &Key) -> Option<Thumbnail>;
    /// Stores `thumb` under `key`.
    fn put(&mut self, key: &Key, thumb: &Thumbnail) -> Result<(), CacheError>;
}

impl ThumbStore for ThumbCache {
    fn get(&mut self, key: &Key) -> Option<Thumbnail> {
        ThumbCache::get(self, key)
    }

    fn put(&mut self, key: &Key, thumb: &Thumbnail) -> Result<(), CacheError> {
        ThumbCache::put(self, key, thumb)
    }
}

/// Why the cache failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// Reading or writing its files failed.
    #[error("thumbnail cache {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A thumbnail could not be encoded for storing.
    #[error("cannot encode a thumbnail for the cache: {0}")]
    Encode(String),
}

/// The cache: its two files and the index in memory.
pub struct ThumbCache {
    dir: PathBuf,
    pack: File,
    index: File,
    entries: HashMap<u64, (u64, u32)>,
}

const RECORD: usize = 20;

impl ThumbCache {
    /// Opens (or creates) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<ThumbCache, CacheError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CacheError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let pack_path = dir.join("thumbs.pack");
        let index_path = dir.join("thumbs.idx");
        let pack = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&pack_path)
            .map_err(io(&pack_path))?;
        let mut index = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&index_path)
            .map_err(io(&index_path))?;
        let pack_len = pack.metadata().map_err(io(&pack_path))?.len();
        let mut raw = Vec::new();
        index.seek(SeekFrom::Start(0)).map_err(io(&index_path))?;
        index.read_to_end(&mut raw).map_err(io(&index_path))?;
        let mut entries = HashMap::new();
        for r in raw.chunks_exact(RECORD) {
            let hash = u64::from_le_bytes(r[0..8].try_into().unwrap_or_default());
            let offset = u64::from_le_bytes(r[8..16].try_into().unwrap_or_default());
            let len = u32::from_le_bytes(r[16..20].try_into().unwrap_or_default());
            // Records past the data (a crash between the two writes) are
            // ignored; later records win.
            if offset
                .checked_add(u64::from(len))
                .is_some_and(|end| end <= pack_len)
            {
                entries.insert(hash, (offset, len));
            }
        }
        Ok(ThumbCache {
            dir: dir.to_path_buf(),
            pack,
            index,
            entries,
        })
    }

    /// How many entries the index holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The cached thumbnail for `key`, if there is a sound one.
    pub fn get(&mut self, key: &Key) -> Option<Thumbnail> {
        let &(offset, len) = self.entries.get(&key.hash())?;
        let mut data = vec![0u8; len as usize];
        self.pack.seek(SeekFrom::Start(offset)).ok()?;
        self.pack.read_exact(&mut data).ok()?;
        let want = key.bytes();
        // The entry must carry the very same key (hashes can collide).
        let body = data.strip_prefix(want.as_slice())?;
        let (full, image) = body.split_at_checked(8)?;
        let full_w = u32::from_le_bytes(full[0..4].try_into().ok()?);
        let full_h = u32::from_le_bytes(full[4..8].try_into().ok()?);
        let img = image::load_from_memory(image).ok()?.into_rgba8();
        let (width, height) = img.dimensions();
        Some(Thumbnail {
            width,
            height,
            rgba: img.into_raw(),
            source: Source::Cached,
            full_size: (full_w, full_h),
            problem: None,
        })
    }

    /// Stores `thumb` under `key`.
    pub fn put(&mut self, key: &Key, thumb: &Thumbnail) -> Result<(), CacheError> {
        let mut entry = key.bytes();
        let opaque = thumb.rgba.chunks_exact(4).all(|p| p[3] == 255);
        let encoded = if opaque {
            thumb
                .to_jpeg(88)
                .map_err(|e| CacheError::Encode(e.to_string()))?
        } else {
            let img = image::RgbaImage::from_raw(thumb.width, thumb.height, thumb.rgba.clone())
                .ok_or_else(|| CacheError::Encode("the pixels do not fill the size".into()))?;
            let mut out = Vec::new();
            img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
                .map_err(|e| CacheError::Encode(e.to_string()))?;
            out
        };
        entry.extend_from_slice(&thumb.full_size.0.to_le_bytes());
        entry.extend_from_slice(&thumb.full_size.1.to_le_bytes());
        entry.extend_from_slice(&encoded);
        let len = u32::try_from(entry.len())
            .map_err(|_| CacheError::Encode("an entry over 4 GB".into()))?;
        // The pack's real length, not a count kept here: after a failed
        // (partial) write the next entry still records where it lands.
        let pack_path = self.dir.join("thumbs.pack");
        let io = |path: PathBuf| move |source| CacheError::Io { path, source };
        let offset = self.pack.metadata().map_err(io(pack_path.clone()))?.len();
        append(&mut self.pack, &entry).map_err(io(pack_path))?;
        let hash = key.hash();
        let mut record = [0u8; RECORD];
        record[0..8].copy_from_slice(&hash.to_le_bytes());
        record[8..16].copy_from_slice(&offset.to_le_bytes());
        record[16..20].copy_from_slice(&len.to_le_bytes());
        append(&mut self.index, &record).map_err(io(self.dir.join("thumbs.idx")))?;
        self.entries.insert(hash, (offset, len));
        Ok(())
    }

    /// Empties the cache (its files are truncated).
    pub fn clear(&mut self) -> Result<(), CacheError> {
        for (file, name) in [(&self.pack, "thumbs.pack"), (&self.index, "thumbs.idx")] {
            file.set_len(0).map_err(|source| CacheError::Io {
                path: self.dir.join(name),
                source,
            })?;
        }
        self.entries.clear();
        Ok(())
    }
}

/// Appends `bytes` to a file opened for appending, and flushes.
fn append(file: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    file.write_all(bytes)?;
    file.flush()
}
