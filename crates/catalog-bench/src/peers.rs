//! Each peer: build its index from the corpus, then answer the queries.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use catalog::{Catalog, Mode, parse};
use rusqlite::{Connection, params_from_iter};

use crate::queries::{Alt, BenchQuery};
use crate::{PAGE, Report};

/// Runs one peer.
pub fn run(
    name: &str,
    work: &Path,
    corpus: &[(String, String)],
    queries: &[BenchQuery],
    reps: usize,
) -> Result<Report> {
    match name {
        "ours" => ours(work, corpus, queries, reps, true),
        "ours-id-order" => ours(work, corpus, queries, reps, false),
        "seed" => seed(work, corpus, queries),
        "like" => like(work, corpus, queries),
        "fts5" => fts5(work, corpus, queries, reps),
        "plocate" => plocate(work, corpus, queries, reps),
        _ => bail!("no peer named {name}"),
    }
}

/// Times `f` `reps` times; the samples in microseconds, and the last
/// answer's size.
fn time(reps: usize, mut f: impl FnMut() -> Result<usize>) -> Result<(Vec<f64>, usize)> {
    let mut samples = Vec::with_capacity(reps);
    let mut size = 0;
    for _ in 0..reps {
        let t = Instant::now();
        size = f()?;
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Ok((samples, size))
}

/// The corpus into a catalogue, in batches of 10,000.
fn add_corpus(cat: &mut Catalog, corpus: &[(String, String)]) -> Result<()> {
    for chunk in corpus.chunks(10_000) {
        let files: Vec<(&str, &str)> = chunk
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str()))
            .collect();
        cat.add_files(&files)?;
    }
    Ok(())
}

/// The slow peers' share of the queries: the first 20 of each class.
fn first_of_each_class(queries: &[BenchQuery]) -> impl Iterator<Item = (usize, &BenchQuery)> {
    let mut asked = [0usize; 2];
    queries.iter().enumerate().filter(move |(_, q)| {
        let class = q.class as usize;
        asked[class] += 1;
        asked[class] <= 20
    })
}

/// Runs a query and counts its rows; an error is an error, not a row
/// (`query_map(..).count()` would count it as one).
fn count_rows(st: &mut rusqlite::Statement<'_>, args: &[String]) -> Result<usize> {
    let mut rows = st.query(params_from_iter(args.iter()))?;
    let mut n = 0;
    while rows.next()?.is_some() {
        n += 1;
    }
    Ok(n)
}

fn fresh(path: &Path) {
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

/// The catalogue: rows into SQLite, then the search index built from them
/// and stored; queries on the index, ranked (or in id order).
fn ours(
    work: &Path,
    corpus: &[(String, String)],
    queries: &[BenchQuery],
    reps: usize,
    ranked: bool,
) -> Result<Report> {
    let db = work.join("ours.sqlite");
    fresh(&db);
    let mut cat = Catalog::open(&db)?;
    let t = Instant::now();
    add_corpus(&mut cat, corpus)?;
    let rows_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    cat.refresh_index()?;
    let build_s = t.elapsed().as_secs_f64();
    let index = cat.search_index()?;
    let size = index.size();
    let mut report = Report {
        build_s,
        rows_s,
        index_bytes: size.total() as u64,
        index_note: format!(
            "index = trigram postings {:.1} B/name + folded marked text and tables {:.1} B/name",
            size.postings as f64 / corpus.len() as f64,
            size.text as f64 / corpus.len() as f64
        ),
        ..Report::default()
    };
    for (i, q) in queries.iter().enumerate() {
        let parsed = parse(&q.text())?;
        let s = time(reps, || {
            Ok(index.search(&parsed, Mode::Default, PAGE, ranked).len())
        })?;
        report.samples.insert(i, s);
    }
    let mut slow: Vec<(f64, usize)> = report
        .samples
        .iter()
        .map(|(&i, (s, _))| (s.iter().copied().fold(f64::INFINITY, f64::min), i))
        .collect();
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (us, i) in slow.iter().take(3) {
        report
            .notes
            .push(format!("slow: [{}] {:.2} ms", queries[*i].text(), us / 1e3));
    }
    if ranked {
        report.notes.push(format!(
            "rows into SQLite took {rows_s:.1} s before the index build (not in the rate)"
        ));
    }
    Ok(report)
}

/// The seed's design as written: its token tables, each term `LIKE`d
/// against the small tokens table, joined to the files; every match.
fn seed(work: &Path, corpus: &[(String, String)], queries: &[BenchQuery]) -> Result<Report> {
    let db = work.join("seed.sqlite");
    fresh(&db);
    let mut cat = Catalog::open(&db)?;
    add_corpus(&mut cat, corpus)?;
    let pages_before = pages(&db)?;
    let t = Instant::now();
    // The first seed search fills the tables.
    cat.search_seed(&parse("x")?)?;
    let build_s = t.elapsed().as_secs_f64();
    let mut report = Report {
        build_s,
        index_bytes: pages(&db)?.saturating_sub(pages_before),
        index_note: "index = the tokens and links tables with their indexes; every match is returned (the seed has no limit)".to_owned(),
        ..Report::default()
    };
    for (i, q) in first_of_each_class(queries) {
        let parsed = parse(&q.text())?;
        let s = time(1, || Ok(cat.search_seed(&parsed)?.len().min(PAGE)))?;
        report.samples.insert(i, s);
    }
    report
        .notes
        .push("asked the first 20 queries of each class once (slow)".to_owned());
    Ok(report)
}

/// Bytes in use by a database file (pages × page size).
fn pages(db: &Path) -> Result<u64> {
    let c = Connection::open(db)?;
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    let n: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    let free: i64 = c.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0))?;
    Ok(((n - free) * size) as u64)
}

/// A plain table of paths and captions.
fn rows(db: &Path, corpus: &[(String, String)]) -> Result<(Connection, f64)> {
    fresh(db);
    let mut c = Connection::open(db)?;
    c.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL, caption TEXT NOT NULL);",
    )?;
    let t = Instant::now();
    let tx = c.transaction()?;
    {
        let mut st = tx.prepare("INSERT INTO files (path, caption) VALUES (?1, ?2)")?;
        for (p, cap) in corpus {
            st.execute([p, cap])?;
        }
    }
    tx.commit()?;
    Ok((c, t.elapsed().as_secs_f64()))
}

/// `(path LIKE ?n OR caption LIKE ?n)` per term, with the parameters.
fn like_where(alts: &[Alt], args: &mut Vec<String>) -> String {
    let mut term = |t: &str| {
        args.push(format!("%{t}%"));
        let n = args.len();
        format!("(path LIKE ?{n} OR caption LIKE ?{n})")
    };
    alts.iter()
        .map(|a| {
            let mut parts: Vec<String> = a.pos.iter().map(|t| term(t)).collect();
            parts.extend(a.neg.iter().map(|t| format!("NOT {}", term(t))));
            format!("({})", parts.join(" AND "))
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// No index: `LIKE '%q%'` on every row, first page only.
fn like(work: &Path, corpus: &[(String, String)], queries: &[BenchQuery]) -> Result<Report> {
    let (c, rows_s) = rows(&work.join("like.sqlite"), corpus)?;
    let mut report = Report {
        rows_s,
        index_note: "no index (a full scan per query)".to_owned(),
        ..Report::default()
    };
    // A full scan per query: the first 20 of each class, once.
    for (i, q) in first_of_each_class(queries) {
        let mut args = Vec::new();
        let sql = format!(
            "SELECT id FROM files WHERE {} LIMIT {PAGE}",
            like_where(&q.alts, &mut args)
        );
        let mut st = c.prepare(&sql)?;
        let s = time(1, || count_rows(&mut st, &args))?;
        report.samples.insert(i, s);
    }
    report
        .notes
        .push("asked the first 20 queries of each class once (a full scan each)".to_owned());
    Ok(report)
}

/// SQLite FTS5, trigram tokenizer, `detail='none'`, external content (the
/// text is kept once, in `files`).
fn fts5(
    work: &Path,
    corpus: &[(String, String)],
    queries: &[BenchQuery],
    reps: usize,
) -> Result<Report> {
    let db = work.join("fts5.sqlite");
    let (c, rows_s) = rows(&db, corpus)?;
    let before = pages(&db)?;
    let t = Instant::now();
    c.execute_batch(
        "CREATE VIEW files_text AS SELECT id, path || char(10) || caption AS text FROM files;
         CREATE VIRTUAL TABLE fts USING fts5(text, content='files_text', content_rowid='id', tokenize='trigram', detail='none');
         INSERT INTO fts(fts) VALUES ('rebuild');",
    )
    .context("FTS5 with the trigram tokenizer")?;
    let build_s = t.elapsed().as_secs_f64();
    let mut report = Report {
        build_s,
        rows_s,
        index_bytes: pages(&db)?.saturating_sub(before),
        index_note: "index = FTS5's shadow tables (external content: the text stays in `files`)"
            .to_owned(),
        ..Report::default()
    };
    for (i, q) in queries.iter().enumerate() {
        // LIKE on the one indexed column (the trigram index serves LIKE
        // with three or more characters; MATCH would need detail=full for
        // terms longer than a trigram); OR as a UNION so each branch can
        // use the index.
        let mut args: Vec<String> = Vec::new();
        let branches: Vec<String> = q
            .alts
            .iter()
            .map(|a| {
                let mut conds = Vec::new();
                for t in &a.pos {
                    args.push(format!("%{t}%"));
                    conds.push(format!("text LIKE ?{}", args.len()));
                }
                for t in &a.neg {
                    args.push(format!("%{t}%"));
                    conds.push(format!("text NOT LIKE ?{}", args.len()));
                }
                format!("SELECT rowid FROM fts WHERE {}", conds.join(" AND "))
            })
            .collect();
        let sql = format!("{} LIMIT {PAGE}", branches.join(" UNION "));
        let mut st = c.prepare(&sql)?;
        let s = time(reps, || count_rows(&mut st, &args))?;
        report.samples.insert(i, s);
    }
    report.notes.push(
        "one indexed column (path, newline, caption) through a view; terms as `LIKE`, which the trigram index serves from three characters; OR as UNION".to_owned(),
    );
    Ok(report)
}

/// plocate, its database built from the same paths (no captions: it
/// indexes paths only); AND-only queries (it has no OR or NOT), `-i`.
fn plocate(
    work: &Path,
    corpus: &[(String, String)],
    queries: &[BenchQuery],
    reps: usize,
) -> Result<Report> {
    let list = work.join("plocate.txt");
    let db = work.join("plocate.db");
    let mut text = String::new();
    for (p, _) in corpus {
        text.push_str(p);
        text.push('\n');
    }
    std::fs::write(&list, text)?;
    let _ = std::fs::remove_file(&db);
    let t = Instant::now();
    let status = std::process::Command::new("plocate-build")
        .args(["--plaintext", "-l", "no"])
        .arg(&list)
        .arg(&db)
        .status()
        .context("plocate-build (Debian package plocate) is not installed")?;
    if !status.success() {
        bail!("plocate-build failed");
    }
    let build_s = t.elapsed().as_secs_f64();
    let ask = |terms: &[String]| -> Result<usize> {
        let out = std::process::Command::new("plocate")
            .arg("-d")
            .arg(&db)
            .args(["-i", "-l", &PAGE.to_string()])
            .args(terms)
            .output()?;
        Ok(out.stdout.iter().filter(|&&b| b == b'\n').count())
    };
    let mut report = Report {
        build_s,
        index_bytes: std::fs::metadata(&db)?.len(),
        index_note:
            "index = its database file; latency is a whole `plocate` process, start included"
                .to_owned(),
        ..Report::default()
    };
    let (start, _) = time(20, || ask(&["qqqqzzzzxxxx".to_owned()]))?;
    let mut start = start;
    start.sort_by(f64::total_cmp);
    report.notes.push(format!(
        "a run that finds nothing takes {:.2} ms (process start and open): part of every figure",
        start[start.len() / 2] / 1e3
    ));
    for (i, q) in queries.iter().enumerate() {
        if !q.plocate_can() {
            continue;
        }
        let s = time(reps, || ask(&q.alts[0].pos))?;
        report.samples.insert(i, s);
    }
    Ok(report)
}
