//! Regular files only: what a photo file must be before it is read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::PhotoError;

/// What a non-regular file is, in words.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Opens `path` (following links) if it is a regular file. A folder, a
/// device such as `/dev/zero`, a FIFO or a socket is refused, naming what
/// it is, and a FIFO is looked at before it is opened, since opening one
/// waits for a writer.
pub fn open_regular(path: &Path) -> Result<File, PhotoError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(PhotoError::NotAFile { what: kind(&meta) });
    }
    let file = File::open(path)?;
    // The name may have been swapped between the look and the open.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(PhotoError::NotAFile { what: kind(&meta) });
    }
    Ok(file)
}

/// Reads a whole regular file of at most `limit` bytes.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, PhotoError> {
    let file = open_regular(path)?;
    let size = file.metadata()?.len();
    if size > limit {
        return Err(PhotoError::FileTooLarge { size, limit });
    }
    let mut bytes = Vec::new();
    // The file may grow while it is read: never past the limit.
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(PhotoError::FileTooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}
