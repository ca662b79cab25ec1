//! The window's file operations as the catalogue thread carries them out:
//! the file first ([`crate::fileops`]), then its record, and if the record
//! cannot be written, the file goes back. Each operation that happened
//! comes with the operation that takes it back, for the window's undo.
//!
//! A photo moved to the Trash keeps its record (path in the Trash, kept as
//! missing), so putting it back brings its caption and placements back; a
//! copy gets a record of its own with the original's caption.

use std::path::{Path, PathBuf};

use catalog::{Catalog, FileId, NewFile};

use crate::fileops::{self, Fs, Trash, Trashed};
use crate::library::{Library, path_from_bytes};

/// A change to the user's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileOp {
    /// Move these photos to the Trash.
    Trash(Vec<FileId>),
    /// Put trashed photos back where they were.
    Restore(Vec<(FileId, Trashed)>),
    /// Give a photo a new name in its folder.
    Rename {
        /// The photo.
        id: FileId,
        /// Its new name.
        name: String,
    },
    /// Move photos into a folder.
    Move {
        /// The photos.
        ids: Vec<FileId>,
        /// The folder.
        to: PathBuf,
    },
    /// Copy photos into a folder.
    Copy {
        /// The photos.
        ids: Vec<FileId>,
        /// The folder.
        to: PathBuf,
    },
    /// Turn photos by quarter turns, clockwise (JPEG, losslessly).
    Rotate {
        /// The photos.
        ids: Vec<FileId>,
        /// Quarter turns (negative: anticlockwise).
        quarters: i32,
    },
    /// Set photos' orientation back (undoing a rotation).
    SetOrientation(Vec<(FileId, u16)>),
    /// Put photos back at these paths (undoing a rename or a move).
    MoveBack(Vec<(FileId, PathBuf)>),
    /// Rate and/or label photos (`None` leaves that mark as it is; an
    /// empty label takes it off).
    Mark {
        /// The photos.
        ids: Vec<FileId>,
        /// 0 (none) to 5 stars.
        rating: Option<u8>,
        /// A colour label, or empty.
        label: Option<String>,
    },
    /// Give photos these ratings and labels back (undoing marks).
    Unmark(Vec<(FileId, u8, String)>),
    /// Add a keyword (a path, levels joined with `|`) to photos, or take
    /// one off (and every keyword below it).
    Keyword {
        /// The photos.
        ids: Vec<FileId>,
        /// The keyword path.
        path: String,
        /// Take it off rather than add it.
        remove: bool,
    },
    /// Give photos these keywords back (undoing a keyword change).
    SetKeywords(Vec<(FileId, Vec<String>)>),
}

/// A photo's keyword paths with `path` added (when not there) or taken
/// off (with the paths below it), compared folded.
pub fn keywords_with(current: &[String], path: &str, remove: bool) -> Vec<String> {
    let key = catalog::fold(path.trim());
    let folded = |p: &str| catalog::fold(p.trim());
    if remove {
        current
            .iter()
            .filter(|p| {
                let f = folded(p);
                f != key
                    && !f
                        .strip_prefix(key.as_str())
                        .is_some_and(|r| r.starts_with('|'))
            })
            .cloned()
            .collect()
    } else if current.iter().any(|p| folded(p) == key) {
        current.to_vec()
    } else {
        let mut out = current.to_vec();
        out.push(path.trim().to_owned());
        out
    }
}

/// Sets photos' keywords in the catalogue and writes them where the
/// setting says; (photos changed, lines for those not written).
fn set_keywords(
    cat: &mut Catalog,
    library: &Library,
    list: &[(FileId, Vec<String>)],
) -> (usize, Vec<String>) {
    let mut errors = Vec::new();
    let mut changed = 0;
    for (id, paths) in list {
        let people = library
            .index_of(*id)
            .and_then(|i| {
                library.photos[i as usize]
                    .words
                    .as_ref()
                    .map(|w| w.people.clone())
            })
            .unwrap_or_default();
        let words = catalog::FileWords {
            keywords: paths.clone(),
            people,
        };
        if let Err(e) = cat.set_file_words(&[(*id, &words)]) {
            errors.push(format!("the keywords were not kept: {e}"));
            continue;
        }
        changed += 1;
        let changes = photo::meta::Changes {
            keywords: Some(
                paths
                    .iter()
                    .map(|p| p.split('|').map(|l| l.trim().to_owned()).collect())
                    .collect(),
            ),
            ..Default::default()
        };
        errors.extend(crate::write_back::write(cat, &[*id], &changes));
    }
    (changed, errors)
}

/// What an operation did.
#[derive(Clone, Debug, Default)]
pub struct Done {
    /// What happened, in words ("Moved 3 photos to the Trash").
    pub message: String,
    /// What takes it back, when something happened.
    pub undo: Option<(String, FileOp)>,
    /// Why some files were left as they were, one line each.
    pub errors: Vec<String>,
    /// Photos whose file changed in place (their thumbnails are redone).
    pub changed: Vec<FileId>,
    /// Photos whose metadata (sidecar or file) was written: their details
    /// are read again.
    pub reread: Vec<FileId>,
}

/// The path to open for a record.
pub(crate) fn path_of(cat: &Catalog, id: FileId) -> Result<PathBuf, String> {
    let Some((path, _)) = cat.file(id).map_err(|e| e.to_string())? else {
        return Err("this photo is no longer in the catalogue".to_owned());
    };
    Ok(match cat.raw_path(id).map_err(|e| e.to_string())? {
        Some(raw) => path_from_bytes(&raw),
        None => PathBuf::from(path),
    })
}

/// A path as the catalogue keeps it: text, and the exact bytes where the
/// text is lossy.
fn record_path(p: &Path) -> (String, Option<Vec<u8>>) {
    use std::os::unix::ffi::OsStrExt;
    let text = p.to_string_lossy().into_owned();
    let bytes = p.as_os_str().as_bytes();
    let raw = (text.as_bytes() != bytes).then(|| bytes.to_vec());
    (text, raw)
}

/// "1 photo", "3 photos".
fn photos(n: usize) -> String {
    if n == 1 {
        "1 photo".to_owned()
    } else {
        format!("{n} photos")
    }
}

/// Carries out `op`, on `fs`, with `trash`; `library` gives what a copy's
/// record needs.
pub fn apply(
    fs: &dyn Fs,
    cat: &mut Catalog,
    library: &Library,
    trash: Option<&Trash>,
    op: &FileOp,
) -> Done {
    let mut done = Done::default();
    match op {
        FileOp::Trash(ids) => {
            let Some(trash) = trash else {
                done.errors.push(
                    "there is no Trash folder (neither XDG_DATA_HOME nor HOME is set)".into(),
                );
                return done;
            };
            let mut put = Vec::new();
            for &id in ids {
                let r = path_of(cat, id).and_then(|p| {
                    let t = fileops::trash(fs, trash, &p).map_err(|e| e.0)?;
                    let (text, raw) = record_path(&t.file);
                    if let Err(e) = cat.put_away(id, &text, raw.as_deref()) {
                        // The catalogue refused: the file goes back.
                        return Err(match fileops::restore(fs, &t) {
                            Ok(()) => format!(
                                "{}: the catalogue refused the change ({e}); the file is back",
                                p.display()
                            ),
                            Err(b) => format!(
                                "{}: the catalogue refused the change ({e}) and {b}",
                                p.display()
                            ),
                        });
                    }
                    Ok(t)
                });
                match r {
                    Ok(t) => put.push((id, t)),
                    Err(e) => done.errors.push(e),
                }
            }
            if !put.is_empty() {
                done.message = format!(
                    "Moved {} to the Trash · Ctrl+Z puts {} back",
                    photos(put.len()),
                    if put.len() == 1 { "it" } else { "them" }
                );
                done.undo = Some((
                    format!("put back {}", photos(put.len())),
                    FileOp::Restore(put),
                ));
            }
        }
        FileOp::Restore(list) => {
            let mut n = 0;
            for (id, t) in list {
                let r = fileops::restore(fs, t).map_err(|e| e.0).and_then(|()| {
                    let (text, raw) = record_path(&t.original);
                    cat.rename(&[(*id, &text, raw.as_deref())]).map_err(|e| {
                        format!(
                            "{}: put back, but the catalogue refused it ({e}); the next index run finds it",
                            t.original.display()
                        )
                    })
                });
                match r {
                    Ok(()) => n += 1,
                    Err(e) => done.errors.push(e),
                }
            }
            if n > 0 {
                done.message = format!("Put back {}", photos(n));
            }
        }
        FileOp::Rename { id, name } => match path_of(cat, *id) {
            Ok(from) => match fileops::rename(fs, &from, name) {
                Ok(to) => match record(fs, cat, *id, &from, &to) {
                    Ok(()) => {
                        done.message = format!("Renamed to {name}");
                        done.undo =
                            Some(("the rename".to_owned(), FileOp::MoveBack(vec![(*id, from)])));
                    }
                    Err(e) => done.errors.push(e),
                },
                Err(e) => done.errors.push(e.0),
            },
            Err(e) => done.errors.push(e),
        },
        FileOp::Move { ids, to } => {
            let mut back = Vec::new();
            for &id in ids {
                let r = path_of(cat, id).and_then(|from| {
                    let moved = fileops::move_to(fs, &from, to).map_err(|e| e.0)?;
                    record(fs, cat, id, &from, &moved)?;
                    Ok(from)
                });
                match r {
                    Ok(from) => back.push((id, from)),
                    Err(e) => done.errors.push(e),
                }
            }
            if !back.is_empty() {
                done.message = format!("Moved {} to {}", photos(back.len()), to.display());
                done.undo = Some((
                    format!("the move of {}", photos(back.len())),
                    FileOp::MoveBack(back),
                ));
            }
        }
        FileOp::MoveBack(list) => {
            let mut n = 0;
            for (id, original) in list {
                let r = path_of(cat, *id).and_then(|now| {
                    let moved = if now.parent() == original.parent() {
                        let name = original
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        fileops::rename(fs, &now, &name)
                    } else {
                        fileops::move_to(fs, &now, original.parent().unwrap_or(Path::new("/")))
                    }
                    .map_err(|e| e.0)?;
                    record(fs, cat, *id, &now, &moved)
                });
                match r {
                    Ok(()) => n += 1,
                    Err(e) => done.errors.push(e),
                }
            }
            if n > 0 {
                done.message = format!("Put {} back", photos(n));
            }
        }
        FileOp::Copy { ids, to } => {
            let mut made = Vec::new();
            for &id in ids {
                let r = path_of(cat, id).and_then(|from| {
                    let copy = fileops::copy_to(fs, &from, to).map_err(|e| e.0)?;
                    match add_copy(cat, library, id, &copy) {
                        Ok(new_id) => Ok(new_id),
                        Err(e) => {
                            // Ours to remove (the copy and the sidecars
                            // copied with it): nothing of the user's is lost.
                            for (side, _) in fileops::sidecars_of(&copy) {
                                let _ = fs.remove_file(&side);
                            }
                            let _ = fs.remove_file(&copy);
                            Err(format!(
                                "{}: the catalogue refused the copy ({e}); no copy was left",
                                from.display()
                            ))
                        }
                    }
                });
                match r {
                    Ok(new_id) => made.push(new_id),
                    Err(e) => done.errors.push(e),
                }
            }
            if !made.is_empty() {
                done.message = format!("Copied {} to {}", photos(made.len()), to.display());
                done.undo = Some((
                    format!("the copy of {}", photos(made.len())),
                    FileOp::Trash(made),
                ));
            }
        }
        FileOp::Rotate { ids, quarters } => {
            let mut before = Vec::new();
            for &id in ids {
                let r = path_of(cat, id)
                    .and_then(|p| fileops::rotate(fs, &p, *quarters).map_err(|e| e.0));
                match r {
                    Ok((old, _)) => {
                        before.push((id, old));
                        done.changed.push(id);
                    }
                    Err(e) => done.errors.push(e),
                }
            }
            if !before.is_empty() {
                done.message = format!(
                    "Turned {} {}",
                    photos(before.len()),
                    if *quarters < 0 { "left" } else { "right" }
                );
                done.undo = Some((
                    format!("the turn of {}", photos(before.len())),
                    FileOp::SetOrientation(before),
                ));
            }
        }
        FileOp::Mark { ids, rating, label } => {
            let before: Vec<(FileId, u8, String)> = ids
                .iter()
                .filter_map(|&id| {
                    let p = &library.photos[library.index_of(id)? as usize];
                    Some((id, p.rating, p.label.clone()))
                })
                .collect();
            match cat.set_marks(ids, *rating, label.as_deref()) {
                Ok(()) => {
                    done.errors.extend(crate::write_back::write(
                        cat,
                        ids,
                        &crate::write_back::marks(*rating, label.as_deref()),
                    ));
                    done.reread.extend(ids);
                    let n = photos(ids.len());
                    done.message = match (rating, label.as_deref()) {
                        (Some(0), _) => format!("Took the stars off {n}"),
                        (Some(r), _) => {
                            format!("Gave {n} {r} star{}", if *r == 1 { "" } else { "s" })
                        }
                        (None, Some("")) => format!("Took the label off {n}"),
                        (None, Some(l)) => format!("Labelled {n} {l}"),
                        (None, None) => format!(
                            "Left {n} as {}",
                            if ids.len() == 1 {
                                "it was"
                            } else {
                                "they were"
                            }
                        ),
                    };
                    done.undo = Some((
                        format!("the marks of {}", photos(ids.len())),
                        FileOp::Unmark(before),
                    ));
                }
                Err(e) => done.errors.push(format!("the marks were not kept: {e}")),
            }
        }
        FileOp::Unmark(list) => {
            for (id, rating, label) in list {
                if let Err(e) = cat.set_marks(&[*id], Some(*rating), Some(label)) {
                    done.errors
                        .push(format!("the marks were not put back: {e}"));
                    continue;
                }
                done.errors.extend(crate::write_back::write(
                    cat,
                    &[*id],
                    &crate::write_back::marks(Some(*rating), Some(label)),
                ));
                done.reread.push(*id);
            }
            if done.errors.is_empty() {
                done.message = format!("Put the marks of {} back", photos(list.len()));
            }
        }
        FileOp::Keyword { ids, path, remove } => {
            let before: Vec<(FileId, Vec<String>)> = ids
                .iter()
                .filter_map(|&id| {
                    let p = &library.photos[library.index_of(id)? as usize];
                    Some((
                        id,
                        p.words
                            .as_ref()
                            .map(|w| w.keywords.clone())
                            .unwrap_or_default(),
                    ))
                })
                .collect();
            let after: Vec<(FileId, Vec<String>)> = before
                .iter()
                .map(|(id, k)| (*id, keywords_with(k, path, *remove)))
                .filter(|(id, k)| before.iter().any(|(b, old)| b == id && old != k))
                .collect();
            let (n, errors) = set_keywords(cat, library, &after);
            done.errors.extend(errors);
            done.reread.extend(after.iter().map(|(id, _)| *id));
            if n > 0 {
                done.message = if *remove {
                    format!("Took “{path}” off {}", photos(n))
                } else {
                    format!("Gave {} the keyword “{path}”", photos(n))
                };
                let undo: Vec<(FileId, Vec<String>)> = before
                    .into_iter()
                    .filter(|(id, _)| after.iter().any(|(a, _)| a == id))
                    .collect();
                done.undo = Some((
                    format!("the keywords of {}", photos(n)),
                    FileOp::SetKeywords(undo),
                ));
            } else if done.errors.is_empty() {
                done.message = if *remove {
                    format!("No photo had “{path}”")
                } else {
                    format!("Every photo had “{path}” already")
                };
            }
        }
        FileOp::SetKeywords(list) => {
            let (n, errors) = set_keywords(cat, library, list);
            done.errors.extend(errors);
            done.reread.extend(list.iter().map(|(id, _)| *id));
            if n > 0 {
                done.message = format!("Put the keywords of {} back", photos(n));
            }
        }
        FileOp::SetOrientation(list) => {
            for (id, value) in list {
                match path_of(cat, *id)
                    .and_then(|p| fileops::set_orientation(fs, &p, *value).map_err(|e| e.0))
                {
                    Ok(_) => done.changed.push(*id),
                    Err(e) => done.errors.push(e),
                }
            }
            if !done.changed.is_empty() {
                done.message = format!("Turned {} back", photos(done.changed.len()));
            }
        }
    }
    done
}

/// Records a file's new path; if the catalogue refuses, the file goes back
/// to `from`.
fn record(
    fs: &dyn Fs,
    cat: &mut Catalog,
    id: FileId,
    from: &Path,
    to: &Path,
) -> Result<(), String> {
    let (text, raw) = record_path(to);
    match cat.rename(&[(id, &text, raw.as_deref())]) {
        Ok(()) => Ok(()),
        Err(e) => {
            let back = if from.parent() == to.parent() {
                let name = from
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                fileops::rename(fs, to, &name).map(|_| ())
            } else {
                fileops::move_to(fs, to, from.parent().unwrap_or(Path::new("/"))).map(|_| ())
            };
            Err(match back {
                Ok(()) => format!(
                    "{}: the catalogue refused the change ({e}); the file is back",
                    from.display()
                ),
                Err(b) => format!(
                    "{}: the catalogue refused the change ({e}) and {b}",
                    from.display()
                ),
            })
        }
    }
}

/// A record for a copy: the original's caption, camera and date.
fn add_copy(
    cat: &mut Catalog,
    library: &Library,
    id: FileId,
    copy: &Path,
) -> Result<FileId, String> {
    let meta = std::fs::metadata(copy).map_err(|e| e.to_string())?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64);
    let photo = library.index_of(id).map(|i| &library.photos[i as usize]);
    let (text, raw) = record_path(copy);
    let new = NewFile {
        path: &text,
        caption: photo.map_or("", |p| p.caption.as_str()),
        size: meta.len() as i64,
        mtime,
        raw_path: raw.as_deref(),
        camera: photo.map_or("", |p| p.camera.as_str()),
        date: photo.map_or("", |p| p.date.as_str()),
        identity: Default::default(),
    };
    let ids = cat.add(&[new]).map_err(|e| e.to_string())?;
    ids.first()
        .copied()
        .ok_or_else(|| "no record was made".to_owned())
}
