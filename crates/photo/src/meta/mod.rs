//! What people and their programs wrote about a photo, read from every
//! place those programs put it, and what is changed here written back
//! where they look: the XMP sidecar, by default.
//!
//! XMP is read and written with Adobe's XMP Toolkit (`xmp_toolkit`): its
//! parser reads the whole RDF data model (attribute and element forms,
//! any prefix for a namespace, `rdf:Alt`/`rdf:Bag`/`rdf:Seq`, structs,
//! qualifiers, escapes), and its file handlers find the embedded packet in
//! JPEG, TIFF (and DNG), PNG and others, reconciling IPTC-IIM and EXIF
//! into the same model as Lightroom and Bridge do, so IPTC keywords and
//! captions arrive as `dc:subject` and `dc:description`. Formats without
//! a handler (WebP, HEIF) are read by the toolkit's packet scanner.
//!
//! - [`read`]: a photo's [`Metadata`], the embedded values overlaid by its
//!   sidecar's ([`sidecar_for`]).
//! - [`write_sidecar`]: merges [`Changes`] into the sidecar (made when
//!   missing), keeping every other property, the safe way.

mod embedded;
mod model;
mod sidecar;

pub use embedded::{EMBEDDED_FORMATS, can_embed, image_data, write_embedded};
pub use model::{Label, Metadata, Region, label_from_written};
pub use sidecar::{
    Changes, SidecarWrite, apply, is_stale_temp, is_write_temp, sidecar_candidates, sidecar_for,
    write_sidecar,
};

use std::path::{Path, PathBuf};

use xmp_toolkit::{OpenFileOptions, XmpFile, XmpMeta};

/// The largest sidecar read (real ones are a few kilobytes; a history of
/// darktable edits can reach a few hundred).
pub const MAX_SIDECAR_BYTES: u64 = 16 << 20;

/// Why metadata could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MetaError {
    /// The file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The XMP in a file or sidecar is not XMP the toolkit can read.
    #[error("{path}: the XMP cannot be read: {detail}")]
    BadXmp {
        /// The file.
        path: PathBuf,
        /// What the toolkit said.
        detail: String,
    },
    /// A sidecar bigger than [`MAX_SIDECAR_BYTES`], or not a regular file.
    #[error("{path}: {detail}")]
    NotASidecar {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// A value that cannot be written (a rating outside -1..=5).
    #[error("{0}")]
    BadValue(String),
    /// The sidecar kept changing under the write (another program is
    /// writing it): nothing was written.
    #[error(
        "{path}: changed by another program while being written; tried {tries} times, left as it is"
    )]
    Busy {
        /// The sidecar.
        path: PathBuf,
        /// How many times the merge was tried.
        tries: u32,
    },
}

/// A photo's metadata from the file itself, overlaid by its XMP sidecar
/// where it has one (the sidecar is what darktable, digiKam and
/// Lightroom keep current; a value it does not hold comes from the file),
/// and the sources it came from.
///
/// # Errors
/// Only for a sidecar that exists and cannot be read or parsed; a photo
/// whose own metadata cannot be read is read as having none, with the
/// reason in [`Metadata::problems`].
pub fn read(photo: &Path) -> Result<Metadata, MetaError> {
    let mut meta = Metadata::default();
    match read_embedded(photo) {
        Ok(Some(xmp)) => meta.overlay_xmp(&xmp, model::Source::File),
        Ok(None) => {}
        Err(e) => meta.problems.push(e.to_string()),
    }
    if let Some(path) = sidecar_for(photo) {
        let xmp = read_sidecar_file(&path)?;
        meta.overlay_xmp(&xmp, model::Source::Sidecar);
        meta.sidecar = Some(path);
    }
    Ok(meta)
}

/// The XMP embedded in a photo (with IPTC-IIM and EXIF reconciled into it
/// where the toolkit's handler for the format does so), or `None`.
///
/// # Errors
/// [`MetaError::BadXmp`] when the file's format is known but its XMP
/// cannot be read.
pub fn read_embedded(photo: &Path) -> Result<Option<XmpMeta>, MetaError> {
    let bad = |e: xmp_toolkit::XmpError| MetaError::BadXmp {
        path: photo.to_owned(),
        detail: e.to_string(),
    };
    let mut file = XmpFile::new().map_err(bad)?;
    let smart = file.open_file(
        photo,
        OpenFileOptions::default().for_read().use_smart_handler(),
    );
    if smart.is_err() {
        // No handler for the format (WebP, HEIF): the packet scanner
        // finds an XMP packet wherever it lies.
        let mut scan = XmpFile::new().map_err(bad)?;
        if scan
            .open_file(
                photo,
                OpenFileOptions::default().for_read().use_packet_scanning(),
            )
            .is_err()
        {
            return Ok(None);
        }
        return Ok(scan.xmp());
    }
    Ok(file.xmp())
}

/// A sidecar's XMP.
///
/// # Errors
/// When it cannot be read, is not a regular file, is over
/// [`MAX_SIDECAR_BYTES`] or does not parse.
pub fn read_sidecar_file(path: &Path) -> Result<XmpMeta, MetaError> {
    let bytes = crate::read_regular(path, MAX_SIDECAR_BYTES).map_err(|e| match e {
        crate::PhotoError::Io(error) => MetaError::Io {
            path: path.to_owned(),
            error,
        },
        other => MetaError::NotASidecar {
            path: path.to_owned(),
            detail: other.to_string(),
        },
    })?;
    parse_xmp(path, &bytes)
}

/// XMP text (a sidecar's bytes) into the data model.
fn parse_xmp(path: &Path, bytes: &[u8]) -> Result<XmpMeta, MetaError> {
    let text = std::str::from_utf8(bytes).map_err(|e| MetaError::BadXmp {
        path: path.to_owned(),
        detail: format!("not UTF-8 text ({e})"),
    })?;
    if text.trim().is_empty() {
        return XmpMeta::new().map_err(|e| MetaError::BadXmp {
            path: path.to_owned(),
            detail: e.to_string(),
        });
    }
    // The toolkit reads a cut-off packet as far as it goes, without an
    // error; merging into that and writing it back would lose the rest.
    if !text.contains("</x:xmpmeta>") && !text.contains("</rdf:RDF>") {
        return Err(MetaError::BadXmp {
            path: path.to_owned(),
            detail: "it ends before its XMP does (no </x:xmpmeta> or </rdf:RDF>)".to_owned(),
        });
    }
    text.parse::<XmpMeta>().map_err(|e| MetaError::BadXmp {
        path: path.to_owned(),
        detail: e.to_string(),
    })
}
