//! Step 2 of a run: the records against the walk. What changed, what is
//! new, what vanished, and which vanished record is which new file (a
//! move), decided without writing; [`catalog::Catalog::reconcile`] then
//! writes it in one transaction.

use std::collections::{HashMap, HashSet};

use catalog::{Catalog, CatalogError, Identity, Moved, Presence, Reconcile, Stamp};

use super::walk::{Found, Walk, os_path};
use super::{Report, Root};

/// What step 2 decided.
pub(super) struct Plan {
    pub(super) reconcile: Reconcile,
    /// Found files recorded with another size or time: (found, id).
    pub(super) changed: Vec<(usize, i64)>,
    /// Found files new to the catalogue (not moves).
    pub(super) new: Vec<usize>,
}

/// A record whose file the walk did not find where it was recorded: a
/// candidate for a move.
struct Old {
    stamp: Stamp,
    /// Under the roots walked (unmatched, it vanished); else found by a
    /// new file's inode or stamp with its own path gone.
    local: bool,
    /// The file found at the record's own path, when that file has another
    /// inode: if the record's file turns up elsewhere, this one is new;
    /// if not, the record keeps its path and takes this file (an editor
    /// that saves by writing a new file and renaming it over the old).
    /// (found, the record's place in `known`.)
    at_path: Option<(usize, usize)>,
}

/// A present record that holds nothing the user made: (found, id).
type Plain = (usize, i64);

/// What step 2 builds as it goes.
#[derive(Default)]
struct Plans<'k> {
    r: Reconcile,
    changed: Vec<(usize, i64)>,
    /// Present records that hold nothing the user made, by inode (and,
    /// for old records written before inodes were kept, by size, time and
    /// name): where an old record's file turns out to be one of them, the
    /// two merge.
    plain_by_inode: HashMap<(u64, u64), Vec<Plain>>,
    plain_by_name: HashMap<(i64, i64, &'k [u8]), Vec<Plain>>,
}

impl<'k> Plans<'k> {
    /// Record `st` is file `i`, found at its path: unchanged (its presence
    /// and inode brought up to date) or changed (read again).
    fn same_place(&mut self, st: &'k Stamp, i: usize, f: &Found) {
        if st.size != f.size || st.mtime != f.mtime {
            self.changed.push((i, st.id));
            return;
        }
        if st.presence != Presence::Present {
            self.r.presence.push((st.id, Presence::Present));
        }
        if f.inode.is_some() && (st.identity.inode != f.inode || st.identity.born != f.born) {
            self.r.identities.push((
                st.id,
                Identity {
                    inode: f.inode,
                    born: f.born,
                    hash: None,
                },
            ));
        }
        if !st.made_by_user {
            if let Some(inode) = f.inode {
                self.plain_by_inode
                    .entry(inode)
                    .or_default()
                    .push((i, st.id));
            }
            self.plain_by_name
                .entry((f.size, f.mtime, split(&st.path).1))
                .or_default()
                .push((i, st.id));
        }
    }
}

pub(super) fn plan(
    cat: &Catalog,
    roots: &[Root],
    walk: &mut Walk,
    known: &[Stamp],
    report: &mut Report,
) -> Result<Plan, CatalogError> {
    let mut p = Plans::default();
    let mut new = Vec::new();
    // Known records by path; a second record at one path (an older
    // version's single-file runs) is merged into the first. A record kept
    // for a missing file owns no path: another file may lie there now,
    // and its own file, if it comes back there, is matched below.
    let mut by_path: HashMap<&[u8], usize> = HashMap::with_capacity(known.len());
    for (k, st) in known.iter().enumerate() {
        if st.presence == Presence::Missing {
            continue;
        }
        match by_path.get(st.path.as_slice()) {
            None => {
                by_path.insert(&st.path, k);
            }
            Some(&first) => {
                let keep = &known[first];
                if !(keep.made_by_user && st.made_by_user) {
                    let (keep, drop) = if st.made_by_user {
                        (st.id, keep.id)
                    } else {
                        (keep.id, st.id)
                    };
                    p.r.merges.push((keep, drop));
                }
            }
        }
    }
    let merged: HashSet<i64> = p.r.merges.iter().map(|m| m.1).collect();
    // For each record, the file found at its path.
    let mut at_path: Vec<Option<usize>> = vec![None; known.len()];
    for (i, f) in walk.found.iter().enumerate() {
        match by_path.get(f.raw.as_slice()) {
            Some(&k) if same_inode(&known[k], f) => {
                at_path[k] = Some(i);
                p.same_place(&known[k], i, f);
            }
            Some(&k) => {
                // Another inode at the recorded path: decided after the
                // matching (see `Old::at_path`).
                at_path[k] = Some(i);
                new.push(i);
            }
            None => new.push(i),
        }
    }
    // Records the walk did not see at their path (or saw another inode
    // there).
    let mut olds: Vec<Old> = Vec::new();
    for (k, st) in known.iter().enumerate() {
        if merged.contains(&st.id) {
            continue;
        }
        let other = match at_path[k] {
            Some(i) if same_inode(st, &walk.found[i]) => continue,
            other => other,
        };
        if other.is_none() && walk.unread(&st.path) {
            report.unavailable += 1;
            if st.presence != Presence::Unavailable {
                p.r.presence.push((st.id, Presence::Unavailable));
            }
            continue;
        }
        olds.push(Old {
            stamp: st.clone(),
            local: true,
            at_path: other.map(|i| (i, k)),
        });
    }
    // Records elsewhere: kept for missing files, or outside the roots with
    // their own path gone (the indexed folder itself renamed), found from
    // the new files' side (by inode, or size and time).
    let outside = cat.len()? + cat.missing_len()? > known.len() as u64;
    if outside && !new.is_empty() {
        let folders: Vec<&str> = roots
            .iter()
            .filter(|r| !r.is_file)
            .map(|r| r.prefix.as_str())
            .collect();
        let files: Vec<&str> = roots
            .iter()
            .filter(|r| r.is_file)
            .map(|r| r.text.as_str())
            .collect();
        let elsewhere = cat.identities_outside(&folders, &files)?;
        let mut by_time: HashMap<(i64, i64), Vec<i64>> = HashMap::new();
        let mut by_inode: HashMap<(u64, u64), Vec<i64>> = HashMap::new();
        for o in &elsewhere {
            by_time.entry((o.size, o.mtime)).or_default().push(o.id);
            if let Some(inode) = o.inode {
                by_inode.entry(inode).or_default().push(o.id);
            }
        }
        // Each record is read and its path looked at once.
        let mut wanted: HashSet<i64> = HashSet::new();
        for &i in &new {
            let f = &walk.found[i];
            if let Some(ids) = f.inode.and_then(|n| by_inode.get(&n)) {
                wanted.extend(ids);
            }
            if let Some(ids) = by_time.remove(&(f.size, f.mtime)) {
                wanted.extend(ids);
            }
        }
        let mut wanted: Vec<i64> = wanted.into_iter().collect();
        wanted.sort_unstable();
        for st in cat.stamps_of(&wanted)? {
            let gone = st.presence == Presence::Missing
                || std::fs::symlink_metadata(os_path(&st.path))
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
            if gone {
                olds.push(Old {
                    stamp: st,
                    local: false,
                    at_path: None,
                });
            }
        }
    }
    let matches = find_moves(&mut olds, walk, &new);
    let matched_found: HashSet<usize> = matches.iter().map(|m| m.1).collect();
    let mut matched_old = vec![false; olds.len()];
    for &(o, i) in &matches {
        matched_old[o] = true;
        let f = &walk.found[i];
        p.r.moves.push(Moved {
            id: olds[o].stamp.id,
            path: f.path.clone(),
            raw_path: (f.raw != f.path.as_bytes()).then(|| f.raw.clone()),
            identity: f.identity(),
        });
    }
    // A record with another inode at its path whose own file turned up
    // nowhere keeps its path and takes that file (an editor saved the
    // photo as a new file), unless another record took it, or the record
    // holds what the user made and the file is not the same photo by its
    // date taken (the photo was deleted and another given its name: the
    // user's caption is not moved onto a stranger; the record is kept as
    // missing).
    let mut kept_in_place: HashSet<usize> = HashSet::new();
    for (o, old) in olds.iter().enumerate() {
        if let (false, Some((i, k))) = (matched_old[o], old.at_path)
            && !matched_found.contains(&i)
            && (!old.stamp.made_by_user || same_photo(&old.stamp, &walk.found[i]))
        {
            matched_old[o] = true;
            kept_in_place.insert(i);
            p.same_place(&known[k], i, &walk.found[i]);
        }
    }
    new.retain(|i| !matched_found.contains(i) && !kept_in_place.contains(i));
    // An old record whose inode is a present record's that holds nothing
    // the user made: one file with two records (an interrupted older
    // run). The old record takes the present one's place.
    let mut absorbed: HashSet<i64> = HashSet::new();
    for (o, old) in olds.iter().enumerate() {
        if matched_old[o] {
            continue;
        }
        let st = &old.stamp;
        let pick = match st.identity.inode {
            Some(inode) => match p.plain_by_inode.get(&inode) {
                Some(list) => {
                    let mut hit = None;
                    for &(i, id) in list {
                        if !absorbed.contains(&id) && same_life(st, &mut walk.found[i]) {
                            hit = Some(id);
                            break;
                        }
                    }
                    hit
                }
                None => None,
            },
            // Written before inodes were kept: the same size, time and
            // name, and the only such record.
            None => match p.plain_by_name.get(&(st.size, st.mtime, split(&st.path).1)) {
                Some(list) if list.len() == 1 && !absorbed.contains(&list[0].1) => Some(list[0].1),
                _ => None,
            },
        };
        if let Some(id) = pick {
            absorbed.insert(id);
            p.r.merges.push((st.id, id));
            matched_old[o] = true;
        }
    }
    for (o, old) in olds.iter().enumerate() {
        // Unmatched records outside the roots are not this run's to judge;
        // missing ones stay missing.
        if !matched_old[o] && old.local && old.stamp.presence != Presence::Missing {
            p.r.vanished.push(old.stamp.id);
        }
    }
    Ok(Plan {
        reconcile: p.r,
        changed: p.changed,
        new,
    })
}

/// How many candidates of one name or folder a new file is compared with
/// one by one; beyond it, the match is ambiguous anyway.
const SCAN: usize = 64;

/// Pairs old records with new files: returns (old, found) pairs.
///
/// 1. The same device and inode, size and time (a move within one file
///    system); several new files with one inode (hard links) are told
///    apart by name, then folder.
/// 2. The same size and time, and then: the same content hash where both
///    have one (a copy to another file system), told apart by name, then
///    folder; else, for records without a hash, the same name (a move) or
///    folder (a rename), as the only fit or the only one of that name.
///
/// Every lookup is by hash key, and a key's candidates are compared only
/// while few, so renaming every folder of a large tree stays linear.
fn find_moves(olds: &mut [Old], walk: &mut Walk, new: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if olds.is_empty() || new.is_empty() {
        return out;
    }
    let mut old_used = vec![false; olds.len()];
    let mut new_used: HashSet<usize> = HashSet::new();
    // 1. Inodes.
    let mut new_by_inode: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for &i in new {
        if let Some(inode) = walk.found[i].inode {
            new_by_inode.entry(inode).or_default().push(i);
        }
    }
    for (o, old) in olds.iter().enumerate() {
        let Some(inode) = old.stamp.identity.inode else {
            continue;
        };
        let Some(list) = new_by_inode.get(&inode) else {
            continue;
        };
        let mut fits: Vec<usize> = Vec::new();
        for &i in list {
            if !new_used.contains(&i) && same_life(&old.stamp, &mut walk.found[i]) {
                fits.push(i);
            }
        }
        let (dir, name) = split(&old.stamp.path);
        let pick = if fits.len() == 1 {
            Some(fits[0])
        } else {
            unique(&fits, |&i| split(&walk.found[i].raw).1 == name)
                .or_else(|| unique(&fits, |&i| split(&walk.found[i].raw).0 == dir))
        };
        if let Some(i) = pick {
            old_used[o] = true;
            new_used.insert(i);
            out.push((o, i));
        }
    }
    // 2. Size and time, then content or name and folder.
    let new_paths: Vec<Vec<u8>> = new.iter().map(|&i| walk.found[i].raw.clone()).collect();
    type Key<'a> = (i64, i64, &'a [u8]);
    let mut by_hash: HashMap<(i64, i64, [u8; 16]), Vec<usize>> = HashMap::new();
    let mut by_name: HashMap<Key<'_>, Vec<usize>> = HashMap::new();
    let mut by_dir: HashMap<Key<'_>, Vec<usize>> = HashMap::new();
    let mut hashed_times: HashSet<(i64, i64)> = HashSet::new();
    let mut times: HashSet<(i64, i64)> = HashSet::new();
    for (o, old) in olds.iter().enumerate() {
        if old_used[o] {
            continue;
        }
        let st = &old.stamp;
        let (dir, name) = split(&st.path);
        times.insert((st.size, st.mtime));
        if let Some(h) = st.identity.hash {
            hashed_times.insert((st.size, st.mtime));
            by_hash.entry((st.size, st.mtime, h)).or_default().push(o);
        }
        by_name
            .entry((st.size, st.mtime, name))
            .or_default()
            .push(o);
        by_dir.entry((st.size, st.mtime, dir)).or_default().push(o);
    }
    for (&i, raw) in new.iter().zip(&new_paths) {
        if new_used.contains(&i) {
            continue;
        }
        let (size, mtime) = (walk.found[i].size, walk.found[i].mtime);
        if !times.contains(&(size, mtime)) {
            continue;
        }
        let hash = if hashed_times.contains(&(size, mtime)) {
            walk.found[i].hash()
        } else {
            None
        };
        let (dir, name) = split(raw);
        let name_of = |o: &usize| split(&olds[*o].stamp.path).1 == name;
        let dir_of = |o: &usize| split(&olds[*o].stamp.path).0 == dir;
        let mut pick = None;
        let mut same_content = false;
        if let Some(h) = hash
            && let Some(list) = by_hash.get_mut(&(size, mtime, h))
        {
            list.retain(|&o| !old_used[o]);
            same_content = !list.is_empty();
            if list.len() <= SCAN {
                pick = if list.len() == 1 {
                    Some(list[0])
                } else {
                    unique(list, name_of).or_else(|| unique(list, dir_of))
                };
            }
        }
        if pick.is_none() && !same_content {
            // A record whose hash differs from this file's is another photo.
            let fits = |o: &usize| {
                !old_used[*o]
                    && match (hash, olds[*o].stamp.identity.hash) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    }
            };
            let names = by_name.get_mut(&(size, mtime, name));
            let names: Vec<usize> = match names {
                Some(list) => {
                    list.retain(|&o| !old_used[o]);
                    list.iter().take(SCAN + 1).copied().filter(fits).collect()
                }
                None => Vec::new(),
            };
            let dirs = by_dir.get_mut(&(size, mtime, dir));
            let dirs: Vec<usize> = match dirs {
                Some(list) => {
                    list.retain(|&o| !old_used[o]);
                    list.iter().take(SCAN + 1).copied().filter(fits).collect()
                }
                None => Vec::new(),
            };
            if names.len() <= SCAN && dirs.len() <= SCAN {
                pick = match (names.len(), dirs.len()) {
                    (1, 0) => Some(names[0]),
                    (0, 1) => Some(dirs[0]),
                    (1, _) => Some(names[0]),
                    _ => None,
                };
            }
        }
        if let Some(o) = pick {
            old_used[o] = true;
            new_used.insert(i);
            out.push((o, i));
        }
    }
    out
}

/// Whether a file is the record's photo, edited: the same date taken (to
/// the second), which editors keep and another photo does not share.
fn same_photo(st: &Stamp, f: &Found) -> bool {
    let date = crate::metadata::read(std::path::Path::new(&os_path(&f.raw)))
        .map(|m| m.date)
        .unwrap_or_default();
    !date.is_empty() && date == st.date
}

/// Whether the file found at a record's path has the record's inode (the
/// number, and the birth time where both are known; the device may change
/// when a disk is mounted again). Unknown on either side counts as the
/// same: the path decides.
fn same_inode(st: &Stamp, f: &Found) -> bool {
    match (st.identity.inode, f.inode) {
        (Some((_, a)), Some((_, b))) => {
            a == b
                && match (st.identity.born, f.born) {
                    (Some(x), Some(y)) => x == y,
                    _ => true,
                }
        }
        _ => true,
    }
}

/// Whether a file with a record's inode is that record's file: the same
/// size and time, and the same birth time where both are known (an inode
/// number is reused once its file is deleted), else the same content
/// where the record has a hash.
fn same_life(old: &Stamp, f: &mut Found) -> bool {
    if f.size != old.size || f.mtime != old.mtime {
        return false;
    }
    match (old.identity.born, f.born) {
        (Some(a), Some(b)) => a == b,
        _ => match old.identity.hash {
            Some(h) => f.hash().is_none_or(|g| g == h),
            None => true,
        },
    }
}

/// The one item that passes `test`, if exactly one does.
fn unique<T: Copy>(items: &[T], test: impl Fn(&T) -> bool) -> Option<T> {
    let mut hits = items.iter().filter(|x| test(x));
    match (hits.next(), hits.next()) {
        (Some(&x), None) => Some(x),
        _ => None,
    }
}

/// (folder, name) of a path's bytes.
fn split(bytes: &[u8]) -> (&[u8], &[u8]) {
    let at = bytes
        .iter()
        .rposition(|&b| b == b'/' || b == b'\\')
        .map_or(0, |i| i + 1);
    bytes.split_at(at)
}
