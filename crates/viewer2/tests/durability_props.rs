#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The catalogue never loses what the user made: random edit sequences
//! (files made, renamed, moved, copied elsewhere and deleted, folders
//! renamed, deleted files restored, captions and placements made) with
//! index runs stopped at random points between them. An index run writes
//! in transactions, so a run killed anywhere leaves the state of one of
//! its stopping points: stopping after the k-th reaches every state a
//! SIGKILL can.
//!
//! After every run, interrupted or not, every caption and placement the
//! user made is still in the catalogue; after a last full run, each lies
//! on the record of its own file, wherever that file went, and every file
//! on disk has exactly one record.
//!
//! Case count: `PROPTEST_CASES`, default 24.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use catalog::{Catalog, Placement, Presence, file_key};
use proptest::prelude::*;
use viewer2::indexer;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

#[derive(Clone, Debug)]
enum Op {
    New {
        folder: u8,
        name: u8,
        size: u8,
    },
    RenameFile {
        file: u16,
        name: u8,
    },
    MoveFile {
        file: u16,
        folder: u8,
    },
    /// Copied to another folder with its bytes and time, then deleted (a
    /// move across file systems: a new inode).
    CopyMove {
        file: u16,
        folder: u8,
    },
    RenameFolder {
        folder: u8,
    },
    Delete {
        file: u16,
    },
    /// A deleted file written back (from a backup: a new inode).
    Restore {
        file: u16,
        folder: u8,
    },
    Caption {
        file: u16,
    },
    Place {
        file: u16,
    },
    /// An index run, stopped at its `k`-th stopping point (never: `None`).
    Index {
        stop_after: Option<u8>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u8>(), any::<u8>(), any::<u8>())
            .prop_map(|(folder, name, size)| Op::New { folder, name, size }),
        2 => (any::<u16>(), any::<u8>()).prop_map(|(file, name)| Op::RenameFile { file, name }),
        2 => (any::<u16>(), any::<u8>()).prop_map(|(file, folder)| Op::MoveFile { file, folder }),
        1 => (any::<u16>(), any::<u8>()).prop_map(|(file, folder)| Op::CopyMove { file, folder }),
        2 => any::<u8>().prop_map(|folder| Op::RenameFolder { folder }),
        1 => any::<u16>().prop_map(|file| Op::Delete { file }),
        1 => (any::<u16>(), any::<u8>()).prop_map(|(file, folder)| Op::Restore { file, folder }),
        3 => any::<u16>().prop_map(|file| Op::Caption { file }),
        2 => any::<u16>().prop_map(|file| Op::Place { file }),
        3 => proptest::option::weighted(0.7, 0u8..6).prop_map(|stop_after| Op::Index { stop_after }),
    ]
}

/// A photo in the model: its own bytes (unique), where it is, its time.
#[derive(Clone, Debug)]
struct File {
    token: u32,
    path: PathBuf,
    bytes: Vec<u8>,
}

struct World {
    root: PathBuf,
    catalog: PathBuf,
    folders: Vec<PathBuf>,
    live: Vec<File>,
    trash: Vec<File>,
    captions: HashMap<u32, String>,
    placements: HashMap<u32, f64>,
    next: u32,
    /// Every file has this time: sizes come from three values, so many
    /// files share a size and time, and names repeat across folders.
    time: SystemTime,
}

impl World {
    fn write(&self, f: &File) {
        let abs = self.root.join(&f.path);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(&abs, &f.bytes).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&abs)
            .unwrap()
            .set_modified(self.time)
            .unwrap();
    }

    /// A free name in `folder`.
    fn free(&self, folder: &Path, name: u8) -> PathBuf {
        let mut p = folder.join(format!("IMG_{}.jpg", name % 4));
        let mut n = 0;
        while self.root.join(&p).exists() {
            n += 1;
            p = folder.join(format!("IMG_{}_{n}.jpg", name % 4));
        }
        p
    }

    /// The id of the present record at a live file's path, if it is this
    /// file's (its inode and birth time): what the window shows the
    /// file's own picture for, so a caption typed there is meant for it.
    /// (A stale record at the path is another file's, or a deleted one's:
    /// what the user meant by editing it is not the model's to say.)
    fn record(&self, f: &File) -> Option<i64> {
        use std::os::unix::fs::MetadataExt;
        let cat = Catalog::open(&self.catalog).unwrap();
        let abs = self.root.join(&f.path);
        let meta = std::fs::metadata(&abs).unwrap();
        let born = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64);
        // A record kept for a missing file may share the path.
        let mut st = cat.stamps_at(abs.to_str().unwrap()).unwrap();
        st.retain(|s| s.presence != Presence::Missing);
        match st.as_slice() {
            [one]
                if one.presence == Presence::Present
                    && one.identity.inode.map(|i| i.1) == Some(meta.ino())
                    && one.identity.born == born =>
            {
                Some(one.id)
            }
            _ => None,
        }
    }

    fn apply(&mut self, op: &Op) {
        let pick = |n: usize, i: u16| (n > 0).then(|| i as usize % n);
        match *op {
            Op::New { folder, name, size } => {
                let folder = self.folders[folder as usize % self.folders.len()].clone();
                let token = self.next;
                self.next += 1;
                let mut bytes = format!("photo {token} ").into_bytes();
                bytes.resize([40, 40, 90][size as usize % 3], b'.');
                let f = File {
                    token,
                    path: self.free(&folder, name),
                    bytes,
                };
                self.write(&f);
                self.live.push(f);
            }
            Op::RenameFile { file, name } => {
                if let Some(i) = pick(self.live.len(), file) {
                    let folder = self.live[i].path.parent().unwrap().to_owned();
                    let to = self.free(&folder, name);
                    std::fs::rename(self.root.join(&self.live[i].path), self.root.join(&to))
                        .unwrap();
                    self.live[i].path = to;
                }
            }
            Op::MoveFile { file, folder } | Op::CopyMove { file, folder } => {
                if let Some(i) = pick(self.live.len(), file) {
                    let folder = self.folders[folder as usize % self.folders.len()].clone();
                    let name = self.live[i].path.file_name().unwrap().to_owned();
                    let mut to = folder.join(&name);
                    if self.root.join(&to).exists() {
                        to = self.free(&folder, self.live[i].token as u8);
                    }
                    let from = self.live[i].path.clone();
                    if matches!(op, Op::MoveFile { .. }) {
                        std::fs::rename(self.root.join(&from), self.root.join(&to)).unwrap();
                        self.live[i].path = to;
                    } else {
                        let mut f = self.live[i].clone();
                        f.path = to;
                        self.write(&f);
                        std::fs::remove_file(self.root.join(&from)).unwrap();
                        self.live[i] = f;
                    }
                }
            }
            Op::RenameFolder { folder } => {
                let k = folder as usize % self.folders.len();
                let from = self.folders[k].clone();
                let to = from.with_file_name(format!("renamed {}", self.next));
                self.next += 1;
                if self.root.join(&from).exists() && !self.root.join(&to).exists() {
                    std::fs::rename(self.root.join(&from), self.root.join(&to)).unwrap();
                    let moved = |p: &mut PathBuf| {
                        if let Ok(rest) = p.strip_prefix(&from) {
                            *p = to.join(rest);
                        }
                    };
                    self.folders.iter_mut().for_each(moved);
                    self.live.iter_mut().for_each(|f| moved(&mut f.path));
                }
            }
            Op::Delete { file } => {
                if let Some(i) = pick(self.live.len(), file) {
                    let f = self.live.swap_remove(i);
                    std::fs::remove_file(self.root.join(&f.path)).unwrap();
                    self.trash.push(f);
                }
            }
            Op::Restore { file, folder } => {
                if let Some(i) = pick(self.trash.len(), file) {
                    let mut f = self.trash.swap_remove(i);
                    if self.root.join(&f.path).exists() || folder % 2 == 0 {
                        let folder = self.folders[folder as usize % self.folders.len()].clone();
                        f.path = self.free(&folder, f.token as u8);
                    }
                    self.write(&f);
                    self.live.push(f);
                }
            }
            Op::Caption { file } => {
                if let Some(i) = pick(self.live.len(), file)
                    && let Some(id) = self.record(&self.live[i])
                {
                    let text = format!("caption of {} #{}", self.live[i].token, self.next);
                    self.next += 1;
                    let mut cat = Catalog::open(&self.catalog).unwrap();
                    assert!(cat.set_caption(id, &text).unwrap());
                    self.captions.insert(self.live[i].token, text);
                }
            }
            Op::Place { file } => {
                if let Some(i) = pick(self.live.len(), file)
                    && let Some(id) = self.record(&self.live[i])
                {
                    let x = f64::from(self.live[i].token);
                    let mut cat = Catalog::open(&self.catalog).unwrap();
                    cat.save_placements(
                        &[Placement {
                            key: file_key(id),
                            x,
                            y: 1.0,
                            angle: 0.0,
                            group: String::new(),
                        }],
                        &[],
                    )
                    .unwrap();
                    self.placements.insert(self.live[i].token, x);
                }
            }
            Op::Index { stop_after } => {
                let calls = std::cell::Cell::new(0u8);
                let stop = || {
                    calls.set(calls.get().saturating_add(1));
                    stop_after.is_some_and(|k| calls.get() > k)
                };
                indexer::index_until(
                    &self.catalog,
                    std::slice::from_ref(&self.root),
                    &mut |_| {},
                    &stop,
                )
                .unwrap();
                self.nothing_lost();
            }
        }
    }

    /// Every caption and placement the user made is in some record (at
    /// any path, present or kept for a missing file).
    fn nothing_lost(&self) {
        let cat = Catalog::open(&self.catalog).unwrap();
        let records = cat.stamps_under("/").unwrap();
        let captions: Vec<String> = records
            .iter()
            .map(|st| cat.file(st.id).unwrap().unwrap().1)
            .collect();
        for (token, text) in &self.captions {
            assert!(
                captions.contains(text),
                "the caption of photo {token} is lost: {text:?}"
            );
        }
        let ids: HashMap<String, i64> = records.iter().map(|st| (file_key(st.id), st.id)).collect();
        let placed: Vec<f64> = cat
            .placements()
            .unwrap()
            .into_iter()
            .filter(|p| ids.contains_key(&p.key))
            .map(|p| p.x)
            .collect();
        for (token, x) in &self.placements {
            assert!(placed.contains(x), "the placement of photo {token} is lost");
        }
    }

    /// After a full run: each file on disk has one present record, and
    /// what the user made for it is on that record.
    fn each_on_its_own(&self) {
        let cat = Catalog::open(&self.catalog).unwrap();
        assert_eq!(cat.len().unwrap(), self.live.len() as u64);
        let placements: HashMap<String, f64> = cat
            .placements()
            .unwrap()
            .into_iter()
            .map(|p| (p.key, p.x))
            .collect();
        for f in &self.live {
            let id = self
                .record(f)
                .unwrap_or_else(|| panic!("no single present record for {f:?}"));
            if let Some(text) = self.captions.get(&f.token) {
                assert_eq!(&cat.file(id).unwrap().unwrap().1, text, "{f:?}");
            }
            if let Some(x) = self.placements.get(&f.token) {
                assert_eq!(placements.get(&file_key(id)), Some(x), "{f:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn nothing_the_user_made_is_ever_lost(ops in prop::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("photos");
        std::fs::create_dir_all(&root).unwrap();
        let mut world = World {
            catalog: dir.path().join("cat.sqlite"),
            folders: ["a", "b", "b/sub", "c"].iter().map(PathBuf::from).collect(),
            root,
            live: Vec::new(),
            trash: Vec::new(),
            captions: HashMap::new(),
            placements: HashMap::new(),
            next: 0,
            time: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
        };
        for f in world.folders.clone() {
            std::fs::create_dir_all(world.root.join(f)).unwrap();
        }
        // A start with photos, indexed, before the edits.
        for i in 0..6u8 {
            world.apply(&Op::New { folder: i, name: i, size: i });
        }
        world.apply(&Op::Index { stop_after: None });
        for op in &ops {
            world.apply(op);
        }
        world.apply(&Op::Index { stop_after: None });
        world.each_on_its_own();
    }
}
