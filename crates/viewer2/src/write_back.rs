//! What the user changes here (stars, labels, captions) written where
//! every other program sees it: the photo's XMP sidecar
//! ([`photo::meta::write_sidecar`]) by default, or into the file itself
//! (JPEG, PNG and TIFF, [`photo::meta::write_embedded`]), or both: the
//! catalogue's setting [`WRITE_TO`] (`viewer2 --write-to`). The catalogue holds the change
//! first; a file whose sidecar cannot be written (a read-only folder, no
//! rights, the photo missing) is marked "not yet written" and written by
//! the next index run or `viewer2 mark --flush`, so nothing is lost.

use catalog::{Catalog, FileId};
use photo::meta::{Changes, Label};

/// The catalogue's setting naming where changes are written.
pub const WRITE_TO: &str = "metadata.write_to";

/// Where changes are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum WriteTo {
    /// The XMP sidecar beside the photo (the photo is never touched).
    #[default]
    Sidecar,
    /// Into the photo file (JPEG, PNG and TIFF; other formats: the sidecar).
    File,
    /// Both.
    Both,
}

impl WriteTo {
    /// Its name in the setting.
    pub fn name(self) -> &'static str {
        match self {
            WriteTo::Sidecar => "sidecar",
            WriteTo::File => "file",
            WriteTo::Both => "both",
        }
    }

    /// The catalogue's choice (the sidecar when none is set).
    pub fn of(cat: &Catalog) -> WriteTo {
        match cat.setting(WRITE_TO).ok().flatten().as_deref() {
            Some("file") => WriteTo::File,
            Some("both") => WriteTo::Both,
            _ => WriteTo::Sidecar,
        }
    }
}

/// Writes `changes` where `to` says: the sidecar, the file (JPEG and
/// PNG; others get the sidecar), or both. Returns what was written, in
/// words, for the message.
pub fn write_one(
    photo: &std::path::Path,
    changes: &Changes,
    to: WriteTo,
) -> Result<String, photo::meta::MetaError> {
    let into_file = to != WriteTo::Sidecar && photo::meta::can_embed(photo);
    let mut done = Vec::new();
    if into_file {
        photo::meta::write_embedded(photo, changes)?;
        done.push("the file".to_owned());
    }
    if to != WriteTo::File || !into_file {
        let w = photo::meta::write_sidecar(photo, changes)?;
        done.push(w.path.display().to_string());
    }
    Ok(done.join(" and "))
}

/// Writes `changes` where the catalogue's setting says, for each photo;
/// returns one line for each that could not be written (it stays marked
/// unwritten). A photo not on disk is marked without a line: it is
/// written when it is back.
pub fn write(cat: &mut Catalog, ids: &[FileId], changes: &Changes) -> Vec<String> {
    let to = WriteTo::of(cat);
    let mut errors = Vec::new();
    let mut written = Vec::new();
    for &id in ids {
        let path = match crate::edits::path_of(cat, id) {
            Ok(p) => p,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if !path.is_file() {
            let _ = cat.set_unwritten(&[id], Some("the photo is not on disk"));
            continue;
        }
        match write_one(&path, changes, to) {
            Ok(_) => written.push(id),
            Err(e) => {
                let reason = e.to_string();
                let _ = cat.set_unwritten(&[id], Some(&reason));
                errors.push(format!(
                    "{}: not written to its {} ({reason}); kept in the catalogue and written when possible",
                    path.display(),
                    if to == WriteTo::Sidecar { "sidecar" } else { "file or sidecar" }
                ));
            }
        }
    }
    if let Err(e) = cat.set_unwritten(&written, None) {
        tracing::warn!("the written sidecars could not be noted: {e}");
    }
    errors
}

/// The change that puts a photo's marks as the catalogue holds them.
pub fn marks(rating: Option<u8>, label: Option<&str>) -> Changes {
    Changes {
        rating: rating.map(|r| r.min(5) as i8),
        label: label.map(Label::from_name),
        ..Changes::default()
    }
}

/// Writes every unwritten change (the catalogue's marks and the user's
/// captions) of the files marked so; returns (written, lines for those
/// that still could not be).
pub fn flush(cat: &mut Catalog) -> Result<(usize, Vec<String>), catalog::CatalogError> {
    let pending = cat.unwritten()?;
    let marks: std::collections::HashMap<FileId, catalog::Marks> =
        cat.marks()?.into_iter().collect();
    let mut done = 0;
    let mut errors = Vec::new();
    for (&id, _) in pending.iter() {
        let m = marks.get(&id).cloned().unwrap_or_default();
        let mut changes = self::marks(Some(m.rating), Some(&m.label));
        if let Some(caption) = cat.user_caption(id)? {
            changes.description = Some(caption);
        }
        let lines = write(cat, &[id], &changes);
        if lines.is_empty() && !cat.unwritten()?.contains_key(&id) {
            done += 1;
        }
        errors.extend(lines);
    }
    Ok((done, errors))
}
