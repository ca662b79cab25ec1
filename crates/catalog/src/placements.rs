//! What the viewer's light table remembers between runs: where each card
//! lies (a free-form key, a position, a rotation, the group it was put in)
//! and a few named settings (the view, the open stacks). Kept beside the
//! files in the same SQLite file, in tables made on open when missing, so
//! older catalogues gain them without a schema change.

use rusqlite::params;

use crate::store::{Catalog, CatalogError};

/// Where one card lies on the light table. A placement whose key is a
/// file's ([`crate::file_key`]) belongs to that file: it follows the file
/// across moves, keeps its record when the file vanishes, and goes when
/// the record is removed.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The card's key (the viewer's own naming: a photo's id, a folder).
    pub key: String,
    /// Position, in the table's units.
    pub x: f64,
    /// Position, in the table's units.
    pub y: f64,
    /// Rotation in radians.
    pub angle: f64,
    /// The group the user put it in (empty: where it belongs by default).
    pub group: String,
}

/// The tables, made when missing.
pub(crate) const PLACEMENT_TABLES: &str = "
    CREATE TABLE IF NOT EXISTS placements (
        key TEXT PRIMARY KEY,
        x REAL NOT NULL,
        y REAL NOT NULL,
        angle REAL NOT NULL,
        grp TEXT NOT NULL DEFAULT ''
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
";

impl Catalog {
    /// Records where cards lie (replacing what was recorded for the same
    /// keys) and forgets `removed`, in one transaction: a crash keeps
    /// either the whole save or the one before.
    ///
    /// # Errors
    /// [`CatalogError::BadPlacement`] for a position or angle that is NaN
    /// or infinite (nothing is written), or SQLite's error.
    pub fn save_placements(
        &mut self,
        placements: &[Placement],
        removed: &[String],
    ) -> Result<(), CatalogError> {
        if let Some(p) = placements
            .iter()
            .find(|p| !(p.x.is_finite() && p.y.is_finite() && p.angle.is_finite()))
        {
            return Err(CatalogError::BadPlacement {
                key: p.key.clone(),
                problem: "its position or angle is not a finite number",
            });
        }
        self.writable()?;
        let tx = crate::store::write_tx(&self.conn)?;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO placements (key, x, y, angle, grp)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for p in placements {
                put.execute(params![p.key, p.x, p.y, p.angle, p.group])?;
            }
            let mut forget = tx.prepare_cached("DELETE FROM placements WHERE key = ?1")?;
            for key in removed {
                forget.execute(params![key])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every recorded placement, by key.
    pub fn placements(&self) -> Result<Vec<Placement>, CatalogError> {
        let mut st = self
            .conn
            .prepare("SELECT key, x, y, angle, grp FROM placements ORDER BY key")?;
        let rows = st.query_map([], |r| {
            Ok(Placement {
                key: r.get(0)?,
                x: r.get(1)?,
                y: r.get(2)?,
                angle: r.get(3)?,
                group: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Sets a named setting.
    pub fn set_setting(&mut self, key: &str, value: &str) -> Result<(), CatalogError> {
        self.writable()?;
        self.conn.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
            params![key, value],
        )?;
        Ok(())
    }

    /// A named setting, if set.
    pub fn setting(&self, key: &str) -> Result<Option<String>, CatalogError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT value FROM settings WHERE key = ?1")?;
        let mut rows = st.query(params![key])?;
        Ok(match rows.next()? {
            Some(r) => Some(r.get(0)?),
            None => None,
        })
    }
}
