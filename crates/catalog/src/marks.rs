//! The user's marks on a photo: a rating (0–5 stars) and a colour label.
//! Kept beside the files in a table made on open when missing (so older
//! catalogues gain it without a schema change), keyed as the light table's
//! placements are ([`crate::file_key`]): a mark follows its file across
//! moves and merges, keeps the record of a vanished file (it is the
//! user's work), and goes when the record is removed. Setting a mark does
//! not change the search index (marks are not searched text).

use rusqlite::params;

use crate::store::{Catalog, CatalogError, FileId, file_key};

/// The colour labels, in the order peers (Lightroom, digiKam) offer them.
pub const LABELS: [&str; 5] = ["red", "yellow", "green", "blue", "purple"];

/// A photo's marks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// 0 (none) to 5 stars.
    pub rating: u8,
    /// One of [`LABELS`], or empty.
    pub label: String,
}

/// The table, made when missing.
pub(crate) const MARK_TABLE: &str = "
    CREATE TABLE IF NOT EXISTS marks (
        key TEXT PRIMARY KEY,
        rating INTEGER NOT NULL DEFAULT 0,
        label TEXT NOT NULL DEFAULT ''
    ) WITHOUT ROWID;
";

impl Catalog {
    /// Sets files' ratings and/or labels (`None` leaves that mark as it
    /// is), in one transaction.
    ///
    /// # Errors
    /// [`CatalogError::BadMark`] for a rating over 5 or a label not in
    /// [`LABELS`] (nothing is written), or SQLite's error.
    pub fn set_marks(
        &mut self,
        ids: &[FileId],
        rating: Option<u8>,
        label: Option<&str>,
    ) -> Result<(), CatalogError> {
        if let Some(r) = rating.filter(|&r| r > 5) {
            return Err(CatalogError::BadMark(format!("{r} stars (0 to 5)")));
        }
        if let Some(l) = label.filter(|l| !l.is_empty() && !LABELS.contains(l)) {
            return Err(CatalogError::BadMark(format!(
                "the label {l:?} (one of {})",
                LABELS.join(", ")
            )));
        }
        let each: Vec<(FileId, Option<u8>, Option<&str>)> =
            ids.iter().map(|&id| (id, rating, label)).collect();
        self.set_marks_each(&each)
    }

    /// Sets each file's own rating and/or label (as read from its file:
    /// `None` leaves that mark as it is), in one transaction. A rating
    /// over 5 is 5; a label not in [`LABELS`] leaves the label as it is.
    pub fn set_marks_each(
        &mut self,
        marks: &[(FileId, Option<u8>, Option<&str>)],
    ) -> Result<(), CatalogError> {
        if marks.is_empty() {
            return Ok(());
        }
        self.writable()?;
        let tx = crate::store::write_tx(&self.conn)?;
        {
            let mut put = tx.prepare_cached(
                "INSERT INTO marks (key, rating, label) VALUES (?1, coalesce(?2, 0), coalesce(?3, '')) \
                 ON CONFLICT(key) DO UPDATE SET rating = coalesce(?2, rating), \
                 label = coalesce(?3, label)",
            )?;
            let mut tidy = tx
                .prepare_cached("DELETE FROM marks WHERE key = ?1 AND rating = 0 AND label = ''")?;
            for &(id, rating, label) in marks {
                let label = label.filter(|l| l.is_empty() || LABELS.contains(l));
                if rating.is_none() && label.is_none() {
                    continue;
                }
                let key = file_key(id);
                put.execute(params![key, rating.map(|r| r.min(5)), label])?;
                tidy.execute(params![key])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every file's marks that has any: (id, marks).
    pub fn marks(&self) -> Result<Vec<(FileId, Marks)>, CatalogError> {
        let mut st = self
            .conn
            .prepare("SELECT key, rating, label FROM marks ORDER BY key")?;
        let rows = st.query_map([], |r| {
            let key: String = r.get(0)?;
            let rating: i64 = r.get(1)?;
            Ok((key, rating, r.get::<_, String>(2)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (key, rating, label) = row?;
            if let Some(id) = key.strip_prefix("f:").and_then(|k| k.parse().ok()) {
                out.push((
                    id,
                    Marks {
                        rating: rating.clamp(0, 5) as u8,
                        label,
                    },
                ));
            }
        }
        Ok(out)
    }
}
