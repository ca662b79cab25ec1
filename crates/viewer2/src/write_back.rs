//! What the user changes here (stars, labels, captions) written where
//! every other program sees it: the photo's XMP sidecar
//! ([`photo::meta::write_sidecar`]). The catalogue holds the change
//! first; a file whose sidecar cannot be written (a read-only folder, no
//! rights, the photo missing) is marked "not yet written" and written by
//! the next index run or `viewer2 mark --flush`, so nothing is lost.

use catalog::{Catalog, FileId};
use photo::meta::{Changes, Label};

/// Writes `changes` into the sidecar of each photo; returns one line for
/// each that could not be written (it stays marked unwritten). A photo
/// not on disk is marked without a line: it is written when it is back.
pub fn write(cat: &mut Catalog, ids: &[FileId], changes: &Changes) -> Vec<String> {
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
        match photo::meta::write_sidecar(&path, changes) {
            Ok(_) => written.push(id),
            Err(e) => {
                let reason = e.to_string();
                let _ = cat.set_unwritten(&[id], Some(&reason));
                errors.push(format!(
                    "{}: not written to its sidecar ({reason}); kept in the catalogue and written when possible",
                    path.display()
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
