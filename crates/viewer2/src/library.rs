//! The photos the window browses: the catalogue's records under the
//! folders it was opened on (or all of them), read once into memory, with
//! each sort order's rank precomputed so a result of 100,000 photos sorts
//! by one integer key.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use catalog::{FileId, FileRecord};

use crate::folders::FolderTree;
use crate::tags::TagIndex;

/// One photo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Photo {
    /// Its id in the catalogue.
    pub id: FileId,
    /// The path to open (the exact bytes where the name is not UTF-8).
    pub path: PathBuf,
    /// The path as text, for display and search.
    pub text_path: String,
    /// The file name (the part of `text_path` after the last separator).
    pub name: String,
    /// The caption.
    pub caption: String,
    /// The camera model, or empty.
    pub camera: String,
    /// When it was taken, `YYYY-MM-DD HH:MM:SS`, or empty.
    pub date: String,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// The user's rating, 0 (none) to 5 stars.
    pub rating: u8,
    /// The user's colour label ([`catalog::LABELS`]), or empty.
    pub label: String,
    /// The keywords (paths joined with `|`) and people its file names.
    pub words: Option<Arc<catalog::FileWords>>,
    /// Whether the caption is the user's (written here), not the file's
    /// words.
    pub caption_edited: bool,
    /// Why a change made here is not yet in the photo's sidecar or file.
    pub unwritten: Option<String>,
}

impl Photo {
    /// A photo from its catalogue record.
    pub fn from_record(r: FileRecord) -> Photo {
        let path = match &r.raw_path {
            Some(raw) => path_from_bytes(raw),
            None => PathBuf::from(&r.path),
        };
        let (_, name) = catalog::split_path(&r.path);
        Photo {
            id: r.id,
            name: name.to_owned(),
            path,
            text_path: r.path,
            caption: r.caption,
            camera: r.camera,
            date: r.date,
            size: r.size,
            mtime: r.mtime,
            rating: 0,
            label: String::new(),
            words: None,
            caption_edited: false,
            unwritten: None,
        }
    }
}

#[cfg(unix)]
pub(crate) fn path_from_bytes(raw: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(raw))
}

#[cfg(not(unix))]
pub(crate) fn path_from_bytes(raw: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(raw).into_owned())
}

/// The orders the grid offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Sort {
    /// The search's ranking (best first); by name without a query.
    #[default]
    Relevance,
    /// File name, case- and accent-insensitive, numbers by value
    /// (`IMG_2` before `IMG_10`), then the folder.
    Name,
    /// When taken, oldest first; photos without a date last.
    DateTaken,
    /// Modification time, oldest first.
    Modified,
    /// Size in bytes, smallest first.
    Size,
}

impl Sort {
    /// Every order, as the window lists them.
    pub const ALL: [Sort; 5] = [
        Sort::Relevance,
        Sort::Name,
        Sort::DateTaken,
        Sort::Modified,
        Sort::Size,
    ];

    /// The order's name where it is saved (the catalogue's settings).
    pub fn key(self) -> &'static str {
        match self {
            Sort::Relevance => "relevance",
            Sort::Name => "name",
            Sort::DateTaken => "date-taken",
            Sort::Modified => "modified",
            Sort::Size => "size",
        }
    }

    /// The order saved as `key`.
    pub fn from_key(key: &str) -> Option<Sort> {
        Sort::ALL.into_iter().find(|s| s.key() == key)
    }

    /// The order's name in the window.
    pub fn label(self) -> &'static str {
        match self {
            Sort::Relevance => "Relevance",
            Sort::Name => "Name",
            Sort::DateTaken => "Date taken",
            Sort::Modified => "Date modified",
            Sort::Size => "Size",
        }
    }
}

/// How the grid groups its photos under headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Grouping {
    /// One run of photos.
    #[default]
    None,
    /// By folder, folders by name (natural order).
    Folder,
    /// By the month taken; photos without a date last.
    Month,
}

impl Grouping {
    /// Every grouping, as the window lists them.
    pub const ALL: [Grouping; 3] = [Grouping::None, Grouping::Folder, Grouping::Month];

    /// The grouping's name where it is saved.
    pub fn key(self) -> &'static str {
        match self {
            Grouping::None => "ungrouped",
            Grouping::Folder => "by-folder",
            Grouping::Month => "by-month",
        }
    }

    /// The grouping saved as `key`.
    pub fn from_key(key: &str) -> Option<Grouping> {
        Grouping::ALL.into_iter().find(|g| g.key() == key)
    }

    /// The grouping's name in the window.
    pub fn label(self) -> &'static str {
        match self {
            Grouping::None => "None",
            Grouping::Folder => "Folder",
            Grouping::Month => "Month taken",
        }
    }
}

/// One group of a grouped result: its photos are `rows[start..]` up to the
/// next group's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The folder's path, or the month taken as `YYYY-MM` (empty: no
    /// date).
    pub key: String,
    /// Where its photos start in the rows.
    pub start: u32,
}

/// A month key (`2019-06`) as people read it: `June 2019`; an empty one
/// is "No date", one that is no month is shown as it is.
pub fn month_title(key: &str) -> String {
    if key.is_empty() {
        return "No date".to_owned();
    }
    let parsed = key.get(..4).zip(key.get(5..7)).and_then(|(y, m)| {
        let date = jiff::civil::Date::new(y.parse().ok()?, m.parse().ok()?, 1).ok()?;
        Some(date.strftime("%B %Y").to_string())
    });
    parsed.unwrap_or_else(|| key.to_owned())
}

/// The photos, their sort ranks and their tags.
#[derive(Clone, Debug, Default)]
pub struct Library {
    /// The photos, in id order.
    pub photos: Vec<Photo>,
    by_id: HashMap<FileId, u32>,
    /// `ranks[s][i]`: photo `i`'s place in sort order `s` (Name, DateTaken,
    /// Modified, Size); ties broken by name, then id, so every order is
    /// total.
    ranks: [Vec<u32>; 4],
    /// The tags of every photo.
    pub tags: TagIndex,
    /// The photos' folders.
    pub folders: FolderTree,
}

impl Library {
    /// The library of `records`, keeping those whose path starts with one
    /// of `scope`'s prefixes (all of them when `scope` is empty).
    pub fn new(records: Vec<FileRecord>, scope: &[String]) -> Library {
        let mut photos: Vec<Photo> = records
            .into_iter()
            .filter(|r| scope.is_empty() || scope.iter().any(|p| r.path.starts_with(p.as_str())))
            .map(Photo::from_record)
            .collect();
        photos.sort_by_key(|p| p.id);
        let by_id = photos
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id, i as u32))
            .collect();
        let names: Vec<String> = photos
            .iter()
            .map(|p| {
                format!(
                    "{}\0{}",
                    natural_key(&catalog::fold(&p.name)),
                    catalog::fold(&p.text_path)
                )
            })
            .collect();
        let by_name = |i: usize, j: usize| {
            names[i]
                .cmp(&names[j])
                .then(photos[i].id.cmp(&photos[j].id))
        };
        let ranks = [
            ranks_of(photos.len(), by_name),
            ranks_of(photos.len(), |i, j| {
                let (a, b) = (&photos[i].date, &photos[j].date);
                // Undated photos go last.
                (a.is_empty().cmp(&b.is_empty()))
                    .then(a.cmp(b))
                    .then(by_name(i, j))
            }),
            ranks_of(photos.len(), |i, j| {
                photos[i].mtime.cmp(&photos[j].mtime).then(by_name(i, j))
            }),
            ranks_of(photos.len(), |i, j| {
                photos[i].size.cmp(&photos[j].size).then(by_name(i, j))
            }),
        ];
        let tags = TagIndex::new(&photos);
        let folders = FolderTree::new(&photos);
        Library {
            photos,
            by_id,
            ranks,
            tags,
            folders,
        }
    }

    /// How many photos.
    pub fn len(&self) -> usize {
        self.photos.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.photos.is_empty()
    }

    /// The index of the photo with this id, if it is in the library.
    pub fn index_of(&self, id: FileId) -> Option<u32> {
        self.by_id.get(&id).copied()
    }

    /// Every photo's index, in `sort` order (`Relevance` means by name
    /// here: there is no query to rank by).
    pub fn all(&self, sort: Sort) -> Vec<u32> {
        let mut rows: Vec<u32> = (0..self.photos.len() as u32).collect();
        let sort = if sort == Sort::Relevance {
            Sort::Name
        } else {
            sort
        };
        self.sort(&mut rows, sort);
        rows
    }

    /// The photos of a search result (ids best first; those outside the
    /// library dropped), as indexes in `sort` order.
    pub fn rows_of(&self, ids: &[FileId], sort: Sort) -> Vec<u32> {
        let mut rows: Vec<u32> = ids.iter().filter_map(|&id| self.index_of(id)).collect();
        self.sort(&mut rows, sort);
        rows
    }

    /// Turns rows sorted by `sort` around (newest, largest, Z first);
    /// photos without a date stay last.
    pub fn reverse(&self, rows: &mut [u32], sort: Sort) {
        let dated = if sort == Sort::DateTaken {
            rows.iter()
                .take_while(|&&i| !self.photos[i as usize].date.is_empty())
                .count()
        } else {
            rows.len()
        };
        rows[..dated].reverse();
    }

    /// Puts sorted rows into groups, keeping their order within each:
    /// folders by name, months oldest first (both turned around when
    /// `descending`; photos without a date stay last). Returns the groups,
    /// none for [`Grouping::None`].
    pub fn group(&self, rows: &mut [u32], grouping: Grouping, descending: bool) -> Vec<Group> {
        let key_of = |r: u32| -> &str {
            let p = &self.photos[r as usize];
            match grouping {
                Grouping::None => "",
                Grouping::Folder => crate::folders::folder_of(&p.text_path),
                Grouping::Month => p.date.get(..7).unwrap_or(""),
            }
        };
        if grouping == Grouping::None || rows.is_empty() {
            return Vec::new();
        }
        // Each distinct key ranked once (a library has far fewer folders
        // and months than photos).
        let mut keys: Vec<&str> = rows.iter().map(|&r| key_of(r)).collect();
        keys.sort_unstable();
        keys.dedup();
        match grouping {
            Grouping::Folder => keys.sort_by_cached_key(|k| natural_key(&catalog::fold(k))),
            _ => keys.sort_by_key(|k| (k.is_empty(), *k)),
        }
        if descending {
            let n = match grouping {
                Grouping::Month => keys.iter().filter(|k| !k.is_empty()).count(),
                _ => keys.len(),
            };
            keys[..n].reverse();
        }
        let rank: HashMap<&str, u32> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u32))
            .collect();
        // Stable, each row's key looked up once.
        rows.sort_by_cached_key(|&r| rank.get(key_of(r)).copied().unwrap_or(u32::MAX));
        let mut groups: Vec<Group> = Vec::new();
        for (i, &r) in rows.iter().enumerate() {
            let k = key_of(r);
            if groups.last().is_none_or(|g| g.key != k) {
                groups.push(Group {
                    key: k.to_owned(),
                    start: i as u32,
                });
            }
        }
        groups
    }

    /// Sorts indexes in place; `Relevance` keeps the order they have.
    pub fn sort(&self, rows: &mut [u32], sort: Sort) {
        let ranks = match sort {
            Sort::Relevance => return,
            Sort::Name => &self.ranks[0],
            Sort::DateTaken => &self.ranks[1],
            Sort::Modified => &self.ranks[2],
            Sort::Size => &self.ranks[3],
        };
        rows.sort_unstable_by_key(|&i| ranks[i as usize]);
    }

    /// Gives the photos their ratings and labels.
    pub fn with_marks(mut self, marks: Vec<(FileId, catalog::Marks)>) -> Library {
        for (id, m) in marks {
            self.set_marks(id, Some(m.rating), Some(&m.label));
        }
        self
    }

    /// Which captions the user wrote.
    pub fn with_user_captions(mut self, ids: Vec<FileId>) -> Library {
        for id in ids {
            if let Some(i) = self.index_of(id) {
                self.photos[i as usize].caption_edited = true;
            }
        }
        self
    }

    /// The photos holding a change not yet written, with why.
    pub fn with_unwritten(mut self, pending: std::collections::HashMap<FileId, String>) -> Library {
        for (id, why) in pending {
            if let Some(i) = self.index_of(id) {
                self.photos[i as usize].unwritten = Some(why);
            }
        }
        self
    }

    /// The keywords and people the files name.
    pub fn with_words(
        mut self,
        words: std::collections::HashMap<FileId, catalog::FileWords>,
    ) -> Library {
        for (id, w) in words {
            if let Some(i) = self.index_of(id) {
                self.photos[i as usize].words = Some(Arc::new(w));
            }
        }
        self
    }

    /// Sets one photo's rating and/or label (after the catalogue took
    /// them).
    pub fn set_marks(&mut self, id: FileId, rating: Option<u8>, label: Option<&str>) {
        if let Some(i) = self.index_of(id) {
            let p = &mut self.photos[i as usize];
            if let Some(r) = rating {
                p.rating = r;
            }
            if let Some(l) = label {
                p.label = l.to_owned();
            }
        }
    }

    /// Replaces one photo's caption (after the catalogue took it), and
    /// its tags with it.
    pub fn set_caption(&mut self, id: FileId, caption: &str) {
        if let Some(i) = self.index_of(id) {
            self.photos[i as usize].caption = caption.to_owned();
            self.photos[i as usize].caption_edited = true;
            self.tags.retag(i as usize, &self.photos[i as usize]);
        }
    }
}

/// `out[i]` = the place of `i` among `0..n` sorted by `cmp`.
fn ranks_of(n: usize, cmp: impl Fn(usize, usize) -> std::cmp::Ordering) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| cmp(a as usize, b as usize));
    let mut ranks = vec![0u32; n];
    for (place, &i) in order.iter().enumerate() {
        ranks[i as usize] = place as u32;
    }
    ranks
}

/// A key that sorts numbers inside a name by value: each run of ASCII
/// digits becomes a marker, its length in digits (without leading zeros),
/// then the digits, so `2` comes before `10`.
pub fn natural_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            out.push(c);
            continue;
        }
        let mut run = String::from(c);
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            run.push(d);
            chars.next();
        }
        let digits = run.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        // `\u{1}` sorts numbers before any letter; the fixed-width length
        // sorts shorter numbers first.
        out.push('\u{1}');
        out.push_str(&format!("{:04}", digits.len().min(9999)));
        out.push_str(digits);
    }
    out
}
