//! What the files say about themselves beyond a caption: keywords (each
//! a path from the top of its hierarchy, `Places|Italy|Rome`) and the
//! people named in them, read by the index run; and which files hold a
//! change the user made that has not yet been written to the file's
//! sidecar. Keyed as the marks are ([`crate::file_key`]), so they follow
//! a file across moves and merges and go with its record.

use std::collections::HashMap;

use rusqlite::params;

use crate::store::{Catalog, CatalogError, FileId, file_key};

/// The tables, made when missing.
pub(crate) const KEYWORD_TABLES: &str = "
    CREATE TABLE IF NOT EXISTS file_words (
        key TEXT NOT NULL,
        -- 0: a keyword path, levels joined with '|'; 1: a person.
        kind INTEGER NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (key, kind, value)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS unwritten (
        key TEXT PRIMARY KEY,
        -- Why the last write failed.
        reason TEXT NOT NULL DEFAULT ''
    ) WITHOUT ROWID;
";

/// A file's keywords and people.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileWords {
    /// Keyword paths, levels joined with `|`.
    pub keywords: Vec<String>,
    /// People's names.
    pub people: Vec<String>,
}

impl Catalog {
    /// Replaces these files' keywords and people, in one transaction.
    pub fn set_file_words(&mut self, files: &[(FileId, &FileWords)]) -> Result<(), CatalogError> {
        if files.is_empty() {
            return Ok(());
        }
        self.writable()?;
        let tx = crate::store::write_tx(&self.conn)?;
        {
            let mut clear = tx.prepare_cached("DELETE FROM file_words WHERE key = ?1")?;
            let mut put = tx.prepare_cached(
                "INSERT OR IGNORE INTO file_words (key, kind, value) VALUES (?1, ?2, ?3)",
            )?;
            for (id, words) in files {
                let key = file_key(*id);
                clear.execute(params![key])?;
                for k in &words.keywords {
                    put.execute(params![key, 0, k])?;
                }
                for p in &words.people {
                    put.execute(params![key, 1, p])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every file's keywords and people that has any.
    pub fn file_words(&self) -> Result<HashMap<FileId, FileWords>, CatalogError> {
        let mut out: HashMap<FileId, FileWords> = HashMap::new();
        // A catalogue opened read-only from before these tables has none.
        if !self.has_table("file_words")? {
            return Ok(out);
        }
        let mut st = self
            .conn
            .prepare("SELECT key, kind, value FROM file_words ORDER BY key, kind, value")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (key, kind, value) = row?;
            let Some(id) = key.strip_prefix("f:").and_then(|k| k.parse().ok()) else {
                continue;
            };
            let w = out.entry(id).or_default();
            if kind == 0 {
                w.keywords.push(value);
            } else {
                w.people.push(value);
            }
        }
        Ok(out)
    }

    /// Marks files as holding a change not yet written to their sidecar
    /// (`Some(reason)`), or as written (`None`).
    pub fn set_unwritten(
        &mut self,
        ids: &[FileId],
        reason: Option<&str>,
    ) -> Result<(), CatalogError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.writable()?;
        let tx = crate::store::write_tx(&self.conn)?;
        {
            let mut put = tx.prepare_cached(
                "INSERT INTO unwritten (key, reason) VALUES (?1, ?2) \
                 ON CONFLICT(key) DO UPDATE SET reason = ?2",
            )?;
            let mut clear = tx.prepare_cached("DELETE FROM unwritten WHERE key = ?1")?;
            for &id in ids {
                match reason {
                    Some(r) => put.execute(params![file_key(id), r])?,
                    None => clear.execute(params![file_key(id)])?,
                };
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The files holding a change not yet written, with why.
    pub fn unwritten(&self) -> Result<HashMap<FileId, String>, CatalogError> {
        let mut out = HashMap::new();
        if !self.has_table("unwritten")? {
            return Ok(out);
        }
        let mut st = self.conn.prepare("SELECT key, reason FROM unwritten")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (key, reason) = row?;
            if let Some(id) = key.strip_prefix("f:").and_then(|k| k.parse().ok()) {
                out.insert(id, reason);
            }
        }
        Ok(out)
    }

    fn has_table(&self, name: &str) -> Result<bool, CatalogError> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            params![name],
            |r| r.get(0),
        )?;
        Ok(n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_their_file_and_go_with_it() {
        let mut cat = Catalog::in_memory().unwrap();
        let ids = cat
            .add_files(&[("/p/a.jpg", ""), ("/p/b.jpg", "")])
            .unwrap();
        let w = FileWords {
            keywords: vec!["Places|Italy|Rome".into(), "Tiber".into()],
            people: vec!["Anna".into()],
        };
        cat.set_file_words(&[(ids[0], &w)]).unwrap();
        assert_eq!(cat.file_words().unwrap().get(&ids[0]), Some(&w));
        cat.set_unwritten(&[ids[1]], Some("read-only folder"))
            .unwrap();
        assert_eq!(
            cat.unwritten().unwrap().get(&ids[1]).map(String::as_str),
            Some("read-only folder")
        );
        cat.remove(&ids).unwrap();
        assert!(cat.file_words().unwrap().is_empty());
        assert!(cat.unwritten().unwrap().is_empty());
    }
}
