//! Changing the user's files, the safe way: to the freedesktop Trash and
//! back, rename, move and copy to a folder, and rotating a JPEG by
//! rewriting its EXIF orientation (lossless: no pixel is decoded).
//!
//! - Nothing is ever unlinked but a copy this module made; no name is ever
//!   replaced (`renameat2(RENAME_NOREPLACE)`, or a hard link where the file
//!   system lacks it).
//! - A file rewritten (a rotation) is written anew beside the old one,
//!   synced, then renamed over it: the old bytes or the new, never half.
//! - A step that fails undoes the steps before it, so the original file
//!   stays where and as it was, and the error names the file and the
//!   reason.
//!
//! Every call to the file system goes through [`Fs`], so tests make any
//! step fail (a full disk, a refused permission, a name taken meanwhile)
//! and check that nothing was lost.
//!
//! The Trash follows the freedesktop.org Trash specification 1.0: a file
//! goes to `$XDG_DATA_HOME/Trash` when it is on the same file system, else
//! to `$topdir/.Trash/$uid` (when the administrator made `.Trash` with the
//! sticky bit) or `$topdir/.Trash-$uid`; `info/NAME.trashinfo` (made
//! first, with `O_EXCL`, which reserves the name) says where it came from
//! and when.

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A file operation that did not happen: what, on which file, and why.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct OpError(pub String);

fn fail(what: &str, path: &Path, e: &io::Error) -> OpError {
    let why = match e.kind() {
        io::ErrorKind::AlreadyExists => "a file of that name is already there".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::StorageFull => "the disk is full".to_owned(),
        io::ErrorKind::NotFound => "it is not there any more".to_owned(),
        _ => e.to_string(),
    };
    OpError(format!("cannot {what} “{}”: {why}", path.display()))
}

/// The file system calls this module makes.
pub trait Fs: Send + Sync {
    /// Renames `from` to `to`, failing with `AlreadyExists` if `to` exists.
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Renames `from` over `to` (a synced new version of it).
    fn rename_over(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Creates `path` (failing if it exists), writes `bytes` and syncs it.
    fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Copies `from` to the new file `to` (failing if it exists), synced.
    fn copy_new(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Reads a whole file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Removes a file.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// Makes a folder and its parents (mode 0700 for the ones made).
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// The device a path is on.
    fn device(&self, path: &Path) -> io::Result<u64>;
}

/// The real file system.
pub struct RealFs;

impl Fs for RealFs {
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        rename_noreplace(from, to)
    }

    fn rename_over(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)?;
        sync_parent(to)
    }

    fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let written = f.write_all(bytes).and_then(|()| f.sync_all());
        if written.is_err() {
            let _ = std::fs::remove_file(path);
        }
        written
    }

    fn copy_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut src = std::fs::File::open(from)?;
        let mut dst = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(to)?;
        let copied = io::copy(&mut src, &mut dst).and_then(|_| dst.sync_all());
        if copied.is_err() {
            let _ = std::fs::remove_file(to);
        }
        copied
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)
    }

    fn device(&self, path: &Path) -> io::Result<u64> {
        Ok(std::fs::symlink_metadata(path)?.dev())
    }
}

/// `rename` that never replaces: `renameat2(RENAME_NOREPLACE)`, else (a
/// file system without it) a hard link then unlinking the old name.
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (f, t) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths for the call's duration.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            f.as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if r == 0 {
        return sync_parent(to);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::ENOTSUP) => {
            std::fs::hard_link(from, to)?;
            if let Err(e) = std::fs::remove_file(from) {
                // Both names lead to the file: keep the old one only.
                let _ = std::fs::remove_file(to);
                return Err(e);
            }
            sync_parent(to)
        }
        _ => Err(e),
    }
}

/// Syncs the folder holding `path`, so a rename survives a crash.
fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::File::open(dir)?.sync_all(),
        _ => Ok(()),
    }
}

/// Where trashed files go.
#[derive(Clone, Debug)]
pub struct Trash {
    /// The home trash, `$XDG_DATA_HOME/Trash`.
    home: PathBuf,
}

/// A file in the Trash, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trashed {
    /// Where it was.
    pub original: PathBuf,
    /// Where it is now (`…/Trash/files/NAME`).
    pub file: PathBuf,
    /// Its `…/Trash/info/NAME.trashinfo`.
    pub info: PathBuf,
    /// Its XMP sidecars, trashed with it (each put back with it).
    pub sidecars: Vec<Trashed>,
}

impl Trash {
    /// The user's trash: `$XDG_DATA_HOME/Trash`, else
    /// `~/.local/share/Trash`.
    pub fn for_user() -> Option<Trash> {
        let data = std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
        Some(Trash::at(data.join("Trash")))
    }

    /// A trash whose home is `home` (tests use a folder of their own).
    pub fn at(home: PathBuf) -> Trash {
        Trash { home }
    }

    /// The trash for a file: the home trash on its file system, else the
    /// top folder's.
    fn dir_for(&self, fs: &dyn Fs, path: &Path) -> io::Result<PathBuf> {
        let parent = path.parent().unwrap_or(Path::new("/"));
        let dev = fs.device(parent)?;
        fs.create_dir_all(&self.home.join("files"))?;
        fs.create_dir_all(&self.home.join("info"))?;
        if fs.device(&self.home)? == dev {
            return Ok(self.home.clone());
        }
        // The mount point: the highest folder on the same device.
        let mut top = parent.to_path_buf();
        while let Some(up) = top.parent() {
            if up.as_os_str().is_empty() || fs.device(up)? != dev {
                break;
            }
            top = up.to_path_buf();
        }
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        let shared = top.join(".Trash");
        let admin_made =
            std::fs::symlink_metadata(&shared).is_ok_and(|m| m.is_dir() && m.mode() & 0o1000 != 0);
        let dir = if admin_made {
            shared.join(uid.to_string())
        } else {
            top.join(format!(".Trash-{uid}"))
        };
        fs.create_dir_all(&dir.join("files"))?;
        fs.create_dir_all(&dir.join("info"))?;
        Ok(dir)
    }
}

/// `%`-escapes a path as the Trash spec asks (as URIs do).
fn escaped(path: &Path) -> String {
    let uri = crate::freedesktop::file_uri(path.as_os_str().as_bytes());
    uri.trim_start_matches("file://").to_owned()
}

/// Moves `path` to the Trash with its XMP sidecars (a `name.xmp` that
/// another photo of the name shares stays). The name in the trash is the
/// file's own, or `NAME.2`, `NAME.3`, … when taken.
pub fn trash(fs: &dyn Fs, trash: &Trash, path: &Path) -> Result<Trashed, OpError> {
    let mut t = trash_one(fs, trash, path)?;
    for (side, shared) in sidecars_of(path) {
        if shared {
            continue;
        }
        match trash_one(fs, trash, &side) {
            Ok(s) => t.sidecars.push(s),
            Err(e) => {
                // The photo comes back rather than lose its metadata.
                let back = restore(fs, &t);
                return Err(OpError(format!(
                    "{}; {}",
                    e.0,
                    match back {
                        Ok(()) => "nothing was moved to the Trash".to_owned(),
                        Err(b) => format!("and putting the photo back failed: {}", b.0),
                    }
                )));
            }
        }
    }
    Ok(t)
}

/// The XMP sidecars a photo has (`name.ext.xmp`, `name.xmp`, either
/// case), each with whether another photo of the same name shares it
/// (`IMG_1.xmp` beside `IMG_1.jpg` and `IMG_1.cr2`): a shared one is
/// copied where the photo goes, never taken from the other.
pub fn sidecars_of(path: &Path) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    let mut full = path.as_os_str().to_owned();
    full.push(".xmp");
    let full = PathBuf::from(full);
    for candidate in [
        full.clone(),
        full.with_extension("XMP"),
        path.with_extension("xmp"),
        path.with_extension("XMP"),
    ] {
        if candidate == path || out.iter().any(|(c, _)| *c == candidate) {
            continue;
        }
        if std::fs::symlink_metadata(&candidate).is_ok_and(|m| m.is_file()) {
            let plain =
                candidate.file_stem() == path.file_stem() && candidate.parent() == path.parent();
            let shared = plain && shares_plain_sidecar(path);
            out.push((candidate, shared));
        }
    }
    out
}

/// Whether another photo in the folder has the same name but for its
/// extension.
fn shares_plain_sidecar(path: &Path) -> bool {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return false;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let p = e.path();
        p.file_name() != path.file_name()
            && p.file_stem() == Some(stem)
            && crate::indexer::is_image(&p)
    })
}

/// Where a sidecar of `old_photo` goes when the photo becomes
/// `new_photo`: `name.ext.xmp` after the new full name, `name.xmp` after
/// the new stem, in the sidecar's own case.
fn sidecar_for_new(old_photo: &Path, side: &Path, new_photo: &Path) -> PathBuf {
    let ext = side
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| "xmp".to_owned());
    if side.file_stem() == old_photo.file_name() {
        let mut full = new_photo.as_os_str().to_owned();
        full.push(".");
        full.push(&ext);
        PathBuf::from(full)
    } else {
        new_photo.with_extension(ext)
    }
}

/// Carries a photo's sidecars to its new path (renamed, or copied where
/// `copy` or shared); on a failure, what was carried goes back and the
/// error says which sidecar.
fn carry_sidecars(
    fs: &dyn Fs,
    old_photo: &Path,
    new_photo: &Path,
    copy: bool,
) -> Result<(), OpError> {
    let mut done: Vec<(PathBuf, PathBuf, bool)> = Vec::new();
    for (side, shared) in sidecars_of(old_photo) {
        let to = sidecar_for_new(old_photo, &side, new_photo);
        let copied = copy || shared;
        let r = if copied {
            fs.copy_new(&side, &to)
        } else {
            fs.rename_noreplace(&side, &to)
        };
        match r {
            Ok(()) => done.push((side, to, copied)),
            Err(e) => {
                for (from, to, copied) in done.into_iter().rev() {
                    let _ = if copied {
                        fs.remove_file(&to)
                    } else {
                        fs.rename_noreplace(&to, &from)
                    };
                }
                return Err(OpError(format!(
                    "its sidecar “{}” could not go to “{}”: {}",
                    side.display(),
                    to.display(),
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        "a file of that name is there".to_owned()
                    } else {
                        e.to_string()
                    }
                )));
            }
        }
    }
    Ok(())
}

fn trash_one(fs: &dyn Fs, trash: &Trash, path: &Path) -> Result<Trashed, OpError> {
    let what = "move to the Trash";
    let dir = trash.dir_for(fs, path).map_err(|e| fail(what, path, &e))?;
    let Some(name) = path.file_name() else {
        return Err(OpError(format!(
            "cannot {what} “{}”: no file name",
            path.display()
        )));
    };
    let when = jiff::ZonedDateTime::now()
        .strftime("%Y-%m-%dT%H:%M:%S")
        .to_string();
    let info_text = format!(
        "[Trash Info]\nPath={}\nDeletionDate={when}\n",
        escaped(path)
    );
    for k in 1..10_000u32 {
        let mut n = OsString::from(name);
        if k > 1 {
            n.push(format!(".{k}"));
        }
        let file = dir.join("files").join(&n);
        let mut info_name = n.clone();
        info_name.push(".trashinfo");
        let info = dir.join("info").join(info_name);
        // The info file reserves the name (O_EXCL), then the file moves.
        match fs.write_new(&info, info_text.as_bytes()) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fail(what, path, &e)),
        }
        match fs.rename_noreplace(path, &file) {
            Ok(()) => {
                return Ok(Trashed {
                    original: path.to_owned(),
                    file,
                    info,
                    sidecars: Vec::new(),
                });
            }
            Err(e) => {
                let _ = fs.remove_file(&info);
                // A stray file of that name in files/: the next name.
                if e.kind() == io::ErrorKind::AlreadyExists {
                    continue;
                }
                return Err(fail(what, path, &e));
            }
        }
    }
    Err(OpError(format!(
        "cannot {what} “{}”: too many files of that name in the Trash",
        path.display()
    )))
}

/// Puts a trashed file back where it was (never over a file that took its
/// name meanwhile).
pub fn restore(fs: &dyn Fs, t: &Trashed) -> Result<(), OpError> {
    fs.rename_noreplace(&t.file, &t.original)
        .map_err(|e| fail("put back", &t.original, &e))?;
    if let Err(e) = fs.remove_file(&t.info) {
        // The file is back; a stale info file only shows in the trash.
        tracing::warn!("{}: {e}", t.info.display());
    }
    for side in &t.sidecars {
        // A sidecar that cannot come back stays in the Trash, where the
        // file manager shows it; the photo is back.
        if let Err(e) = restore(fs, side) {
            tracing::warn!("{}", e.0);
        }
    }
    Ok(())
}

/// How many characters of a file name come before its extension (the
/// last `.`, where one stands after the first character): all of them
/// where there is none (`.bashrc`, `README`).
pub fn stem_chars(name: &str) -> usize {
    match name.rfind('.') {
        Some(i) if i > 0 => name[..i].chars().count(),
        _ => name.chars().count(),
    }
}

/// Checks a new file name: not empty, no `/`, not `.` or `..`, at most
/// 255 bytes.
pub fn check_name(name: &str) -> Result<(), OpError> {
    let why = if name.trim().is_empty() {
        "a name cannot be empty"
    } else if name.contains('/') || name.contains('\0') {
        "a name cannot hold “/”"
    } else if name == "." || name == ".." {
        "“.” and “..” are not names"
    } else if name.len() > 255 {
        "a name can be at most 255 bytes long"
    } else {
        return Ok(());
    };
    Err(OpError(why.to_owned()))
}

/// Renames a file within its folder; refuses a name that is taken.
/// Returns the new path.
pub fn rename(fs: &dyn Fs, path: &Path, new_name: &str) -> Result<PathBuf, OpError> {
    check_name(new_name)?;
    let to = path.with_file_name(new_name);
    if to == path {
        return Ok(to);
    }
    fs.rename_noreplace(path, &to).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            OpError(format!(
                "cannot rename “{}”: “{new_name}” is already there; nothing was renamed",
                path.display()
            ))
        } else {
            fail("rename", path, &e)
        }
    })?;
    if let Err(e) = carry_sidecars(fs, path, &to, false) {
        let back = fs.rename_noreplace(&to, path);
        return Err(OpError(format!(
            "cannot rename “{}”: {}; {}",
            path.display(),
            e.0,
            if back.is_ok() {
                "nothing was renamed"
            } else {
                "the photo has its new name, its sidecar the old"
            }
        )));
    }
    Ok(to)
}

/// A name beside `to` for a copy being written (hidden, so file managers
/// skip it while it grows).
fn part_name(to: &Path) -> PathBuf {
    let mut n = OsString::from(".");
    n.push(to.file_name().unwrap_or_default());
    n.push(".viewer2-part");
    to.with_file_name(n)
}

/// Copies `path` into `dir` under its own name (never over a file): the
/// copy is written beside, synced, then named. Returns the copy's path.
pub fn copy_to(fs: &dyn Fs, path: &Path, dir: &Path) -> Result<PathBuf, OpError> {
    let Some(name) = path.file_name() else {
        return Err(OpError(format!(
            "cannot copy “{}”: no file name",
            path.display()
        )));
    };
    let to = dir.join(name);
    let part = part_name(&to);
    fs.copy_new(path, &part)
        .map_err(|e| fail("copy", path, &e))?;
    if let Err(e) = fs.rename_noreplace(&part, &to) {
        let mut err = if e.kind() == io::ErrorKind::AlreadyExists {
            OpError(format!(
                "cannot copy “{}”: “{}” is already there; nothing was copied",
                path.display(),
                to.display()
            ))
        } else {
            fail("copy", path, &e)
        };
        left_behind(fs, &part, &mut err);
        return Err(err);
    }
    if let Err(e) = carry_sidecars(fs, path, &to, true) {
        let mut err = OpError(format!(
            "cannot copy “{}”: {}; nothing was copied",
            path.display(),
            e.0
        ));
        left_behind(fs, &to, &mut err);
        return Err(err);
    }
    Ok(to)
}

/// Removes a file this module made on the way to a failure; says so in
/// the error when even that fails.
fn left_behind(fs: &dyn Fs, part: &Path, err: &mut OpError) {
    if let Err(e) = fs.remove_file(part) {
        err.0.push_str(&format!(
            " (and the unfinished copy “{}” could not be removed: {e})",
            part.display()
        ));
    }
}

/// Moves `path` into `dir` under its own name (never over a file); across
/// file systems, a synced copy first, and the original goes only once the
/// copy is whole. Returns the new path.
pub fn move_to(fs: &dyn Fs, path: &Path, dir: &Path) -> Result<PathBuf, OpError> {
    let Some(name) = path.file_name() else {
        return Err(OpError(format!(
            "cannot move “{}”: no file name",
            path.display()
        )));
    };
    let to = dir.join(name);
    match fs.rename_noreplace(path, &to) {
        Ok(()) => {
            if let Err(e) = carry_sidecars(fs, path, &to, false) {
                let back = fs.rename_noreplace(&to, path);
                return Err(OpError(format!(
                    "cannot move “{}”: {}; {}",
                    path.display(),
                    e.0,
                    if back.is_ok() {
                        "nothing was moved"
                    } else {
                        "the photo was moved, its sidecar was not"
                    }
                )));
            }
            Ok(to)
        }
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            // The copy carries the sidecars; the originals go once whole.
            let sides = sidecars_of(path);
            let copy = copy_to(fs, path, dir)?;
            if let Err(e) = fs.remove_file(path) {
                // The original stays; the copy goes (it is ours).
                let mut err = fail("move", path, &e);
                for (side, _) in &sides {
                    let _ = fs.remove_file(&sidecar_for_new(path, side, &copy));
                }
                left_behind(fs, &copy, &mut err);
                return Err(err);
            }
            for (side, shared) in sides {
                if !shared && let Err(e) = fs.remove_file(&side) {
                    tracing::warn!(
                        "{}: the moved photo's old sidecar stays: {e}",
                        side.display()
                    );
                }
            }
            Ok(copy)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(OpError(format!(
            "cannot move “{}”: “{}” is already there; nothing was moved",
            path.display(),
            to.display()
        ))),
        Err(e) => Err(fail("move", path, &e)),
    }
}

/// The orientation after turning a photo shown with orientation `o` by
/// `quarters` quarter turns clockwise (EXIF values 1–8).
pub fn turned(o: u16, quarters: i32) -> u16 {
    // Each cycle is the orientations a quarter turn clockwise apart.
    const PLAIN: [u16; 4] = [1, 6, 3, 8];
    const MIRRORED: [u16; 4] = [2, 7, 4, 5];
    let q = quarters.rem_euclid(4) as usize;
    for cycle in [PLAIN, MIRRORED] {
        if let Some(i) = cycle.iter().position(|&c| c == o) {
            return cycle[(i + q) % 4];
        }
    }
    PLAIN[q]
}

/// Turns a JPEG by `quarters` quarter turns clockwise, losslessly: its
/// EXIF orientation is rewritten (added, for a JPEG without EXIF), in a
/// new file renamed over the old. Returns the orientation before and
/// after.
pub fn rotate(fs: &dyn Fs, path: &Path, quarters: i32) -> Result<(u16, u16), OpError> {
    rewrite_orientation(fs, path, |o| turned(o, quarters))
}

/// Sets a JPEG's orientation to `value` (undoing a rotation).
pub fn set_orientation(fs: &dyn Fs, path: &Path, value: u16) -> Result<(u16, u16), OpError> {
    rewrite_orientation(fs, path, |_| value)
}

fn rewrite_orientation(
    fs: &dyn Fs,
    path: &Path,
    new: impl Fn(u16) -> u16,
) -> Result<(u16, u16), OpError> {
    let what = "rotate";
    let bytes = fs.read(path).map_err(|e| fail(what, path, &e))?;
    let (rewritten, old) = with_orientation(&bytes, &new).map_err(|why| {
        OpError(format!(
            "cannot {what} “{}”: {why}; nothing was written",
            path.display()
        ))
    })?;
    let part = part_name(path);
    fs.write_new(&part, &rewritten)
        .map_err(|e| fail(what, path, &e))?;
    if let Err(e) = fs.rename_over(&part, path) {
        let mut err = fail(what, path, &e);
        left_behind(fs, &part, &mut err);
        return Err(err);
    }
    Ok((old, new(old)))
}

/// The JPEG `bytes` with their orientation set to `new(old)`, and the old
/// value (1 where there was none).
pub fn with_orientation(bytes: &[u8], new: &dyn Fn(u16) -> u16) -> Result<(Vec<u8>, u16), String> {
    if bytes.len() < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8 {
        return Err("only JPEG photos can be turned without loss".to_owned());
    }
    let mut at = 2;
    let mut insert_at = 2;
    while at + 4 <= bytes.len() && bytes[at] == 0xFF {
        let marker = bytes[at + 1];
        // Start of scan: no EXIF came before it.
        if marker == 0xDA {
            break;
        }
        let len = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
        let end = at + 2 + len;
        if len < 2 || end > bytes.len() {
            return Err("its segments are damaged".to_owned());
        }
        if marker == 0xE0 {
            // EXIF goes after JFIF's APP0.
            insert_at = end;
        }
        if marker == 0xE1 && bytes[at + 4..end].starts_with(b"Exif\0\0") {
            let tiff = at + 10;
            let mut out = bytes.to_vec();
            let old = set_in_tiff(&mut out[tiff..end], new)?;
            return Ok((out, old));
        }
        at = end;
    }
    // No EXIF: a segment holding only the orientation.
    let value = new(1);
    let mut seg = vec![0xFF, 0xE1, 0, 34];
    seg.extend_from_slice(b"Exif\0\0");
    seg.extend_from_slice(b"MM\0\x2a\0\0\0\x08");
    seg.extend_from_slice(&1u16.to_be_bytes());
    seg.extend_from_slice(&0x0112u16.to_be_bytes());
    seg.extend_from_slice(&3u16.to_be_bytes());
    seg.extend_from_slice(&1u32.to_be_bytes());
    seg.extend_from_slice(&value.to_be_bytes());
    seg.extend_from_slice(&[0, 0]);
    seg.extend_from_slice(&0u32.to_be_bytes());
    let mut out = bytes[..insert_at].to_vec();
    out.extend_from_slice(&seg);
    out.extend_from_slice(&bytes[insert_at..]);
    Ok((out, 1))
}

/// Sets the orientation entry of IFD0 in a TIFF block; returns the old
/// value.
fn set_in_tiff(tiff: &mut [u8], new: &dyn Fn(u16) -> u16) -> Result<u16, String> {
    let damaged = || "its EXIF is damaged".to_owned();
    if tiff.len() < 8 {
        return Err(damaged());
    }
    let big = match &tiff[..2] {
        b"MM" => true,
        b"II" => false,
        _ => return Err(damaged()),
    };
    let u16_at = |t: &[u8], i: usize| -> Option<u16> {
        let b = [*t.get(i)?, *t.get(i + 1)?];
        Some(if big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        })
    };
    let u32_at = |t: &[u8], i: usize| -> Option<u32> {
        let b = [*t.get(i)?, *t.get(i + 1)?, *t.get(i + 2)?, *t.get(i + 3)?];
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let ifd = u32_at(tiff, 4).ok_or_else(damaged)? as usize;
    let count = usize::from(u16_at(tiff, ifd).ok_or_else(damaged)?);
    for k in 0..count {
        let e = ifd + 2 + 12 * k;
        let tag = u16_at(tiff, e).ok_or_else(damaged)?;
        if tag == 0x0112 {
            let kind = u16_at(tiff, e + 2).ok_or_else(damaged)?;
            if kind != 3 {
                return Err(damaged());
            }
            let old = u16_at(tiff, e + 8).ok_or_else(damaged)?;
            let value = new(if (1..=8).contains(&old) { old } else { 1 });
            let bytes = if big {
                value.to_be_bytes()
            } else {
                value.to_le_bytes()
            };
            tiff[e + 8..e + 10].copy_from_slice(&bytes);
            return Ok(old);
        }
    }
    Err("its EXIF has no orientation to change".to_owned())
}

#[cfg(test)]
mod tests {
    use super::{check_name, turned};

    #[test]
    fn four_quarter_turns_come_back_and_mirrors_stay_mirrored() {
        for o in 1..=8u16 {
            assert_eq!(turned(turned(turned(turned(o, 1), 1), 1), 1), o);
            assert_eq!(turned(turned(o, 1), -1), o);
            let mirrored = [2, 4, 5, 7].contains(&o);
            assert_eq!([2, 4, 5, 7].contains(&turned(o, 1)), mirrored);
        }
        assert_eq!(turned(1, 1), 6);
        assert_eq!(turned(1, -1), 8);
        assert_eq!(turned(2, 1), 7);
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("a.jpg").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("a/b.jpg").is_err());
        assert!(check_name("..").is_err());
        assert!(check_name(&"x".repeat(256)).is_err());
    }
}
