//! `catalog-bench`: the catalogue's search side by side with a plain
//! `LIKE '%q%'` scan, the seed's token tables as written, SQLite FTS5 with
//! the trigram tokenizer (`detail='none'`, all three through the same
//! bundled SQLite), and plocate, on the same corpus and queries.
//!
//! Each peer runs in its own child process (so its peak RSS is its own):
//! it builds its index from the corpus, then answers every query a few
//! times, asking for the first page (100 results), and prints what it
//! measured as JSON. The parent prints the table the README carries.
//!
//! ```sh
//! cargo run --release -p catalog-bench              # 1M generated paths, then this machine's
//! cargo run --release -p catalog-bench -- --files 100000 --no-real
//! ```

mod corpus;
mod peers;
mod queries;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use crate::queries::{BenchQuery, Class};

#[derive(Parser)]
#[command(
    about = "The catalogue's search against LIKE, the seed's tables, FTS5 trigram and plocate"
)]
struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Generated paths in the first corpus.
    #[arg(long, default_value_t = 1_000_000)]
    files: usize,
    /// Queries per class.
    #[arg(long, default_value_t = 100)]
    queries: usize,
    /// Times each query is asked (warm).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Skip the second corpus (this machine's `find / -xdev`).
    #[arg(long)]
    no_real: bool,
    /// Peers to run (default: all).
    #[arg(long, value_delimiter = ',')]
    peers: Vec<String>,
    /// Where corpora, indexes and results go.
    #[arg(long, default_value = "target/catalog-bench")]
    work: PathBuf,
}

#[derive(Subcommand)]
enum Sub {
    /// One peer, in its own process (the parent runs these).
    Peer {
        name: String,
        #[arg(long)]
        work: PathBuf,
        #[arg(long, default_value_t = 5)]
        reps: usize,
    },
    /// Times one query on a built catalogue (`ours.sqlite` in WORK) and
    /// says how many files the index offered and how many matched.
    Probe {
        #[arg(long)]
        work: PathBuf,
        /// Ask it this many more times (for a profiler), and say the
        /// median and fastest time.
        #[arg(long, default_value_t = 0)]
        repeat: usize,
        /// Repeat it ranked rather than in id order.
        #[arg(long)]
        ranked: bool,
        query: Vec<String>,
    },
}

/// What a peer measured.
#[derive(serde::Serialize, serde::Deserialize, Default)]
pub struct Report {
    /// Seconds to build the search structure from loaded rows.
    pub build_s: f64,
    /// Seconds to load the rows (shared by the SQLite peers).
    pub rows_s: f64,
    /// Bytes of the search structure.
    pub index_bytes: u64,
    /// A note on what the bytes count.
    pub index_note: String,
    /// Peak resident memory of the process, KiB.
    pub peak_rss_kib: u64,
    /// Resident memory once the corpus and queries were loaded, KiB (the
    /// harness, not the peer).
    pub harness_kib: u64,
    /// Peak resident memory of the peer's own child processes, KiB
    /// (plocate), or 0.
    pub children_peak_kib: u64,
    /// Per query (by index): the latencies in microseconds, and how many
    /// results the first page had.
    pub samples: BTreeMap<usize, (Vec<f64>, usize)>,
    /// Extra lines for the notes.
    pub notes: Vec<String>,
}

/// Every peer, in the order they run.
pub const PEERS: &[&str] = &["ours", "ours-id-order", "like", "seed", "fts5", "plocate"];

/// The first page every peer is asked for.
pub const PAGE: usize = 100;

fn main() -> Result<()> {
    let args = Args::parse();
    if let Some(Sub::Peer { name, work, reps }) = args.command {
        let corpus = read_corpus(&work.join("corpus.tsv"))?;
        let queries: Vec<BenchQuery> =
            serde_json::from_slice(&std::fs::read(work.join("queries.json"))?)?;
        let harness = rss_kib("VmRSS:");
        let mut report = peers::run(&name, &work, &corpus, &queries, reps)?;
        report.peak_rss_kib = rss_kib("VmHWM:");
        report.harness_kib = harness;
        report.children_peak_kib = children_peak_kib();
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    if let Some(Sub::Probe {
        work,
        repeat,
        ranked,
        query,
    }) = &args.command
    {
        let cat = catalog::Catalog::open(&work.join("ours.sqlite"))?;
        let index = cat.search_index()?;
        let q = catalog::parse(&query.join(" "))?;
        let mut times: Vec<f64> = (0..*repeat)
            .map(|_| {
                let t = Instant::now();
                index.search(&q, catalog::Mode::Default, PAGE, *ranked);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        // A closed pipe (`| head`) ends the output with an error, not a panic.
        let mut out = std::io::stdout().lock();
        if let (Some(low), Some(mid)) = (times.first(), times.get(times.len() / 2)) {
            writeln!(
                out,
                "{} repeated {repeat} times: median {mid:.3} ms, fastest {low:.3} ms",
                if *ranked { "ranked" } else { "id order" }
            )?;
        }
        for ranked in [false, true] {
            let t = Instant::now();
            let found = index.search(&q, catalog::Mode::Default, PAGE, ranked).len();
            writeln!(
                out,
                "{} {found} in {:.3} ms",
                if ranked { "ranked:" } else { "id order:" },
                t.elapsed().as_secs_f64() * 1e3
            )?;
        }
        let t = Instant::now();
        let (offered, matched) = index.explain(&q, catalog::Mode::Default);
        writeln!(
            out,
            "every match: {matched} of {offered} offered, {:.3} ms",
            t.elapsed().as_secs_f64() * 1e3
        )?;
        return Ok(());
    }
    let peers: Vec<String> = if args.peers.is_empty() {
        PEERS.iter().map(|s| (*s).to_owned()).collect()
    } else {
        args.peers.clone()
    };
    let mut corpora = vec![("generated", args.files)];
    if !args.no_real {
        corpora.push(("real", usize::MAX));
    }
    for (kind, n) in corpora {
        let work = args.work.join(kind);
        std::fs::create_dir_all(&work)?;
        let corpus = if kind == "generated" {
            eprintln!("generating {n} paths…");
            corpus::generate(n, 2026)
        } else {
            eprintln!("listing this machine's paths (find / -xdev)…");
            corpus::real_paths(n)?
        };
        write_corpus(&work.join("corpus.tsv"), &corpus)?;
        let queries = queries::generate(&corpus, args.queries, 7);
        std::fs::write(work.join("queries.json"), serde_json::to_vec(&queries)?)?;
        let mut reports = BTreeMap::new();
        for peer in &peers {
            let started = Instant::now();
            let spinner = ProgressBar::new_spinner().with_message(format!("{kind}: {peer}"));
            spinner.set_style(
                ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            spinner.enable_steady_tick(std::time::Duration::from_millis(200));
            let out = std::process::Command::new(std::env::current_exe()?)
                .args(["peer", peer, "--work"])
                .arg(&work)
                .args(["--reps", &args.reps.to_string()])
                .stderr(std::process::Stdio::inherit())
                .output()?;
            spinner.finish_and_clear();
            if !out.status.success() {
                eprintln!("{kind}: {peer} failed; left out of the table");
                continue;
            }
            let report: Report =
                serde_json::from_slice(&out.stdout).with_context(|| format!("{peer}'s report"))?;
            eprintln!(
                "{kind}: {peer} done in {:.0} s",
                started.elapsed().as_secs_f64()
            );
            reports.insert(peer.clone(), report);
        }
        std::fs::write(
            work.join("results.json"),
            serde_json::to_vec_pretty(&reports)?,
        )?;
        print_table(kind, corpus.len(), &queries, &reports)?;
    }
    Ok(())
}

fn write_corpus(path: &Path, corpus: &[(String, String)]) -> Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for (p, c) in corpus {
        if p.contains(['\t', '\n']) || c.contains(['\t', '\n']) {
            continue;
        }
        writeln!(f, "{p}\t{c}")?;
    }
    Ok(())
}

fn read_corpus(path: &Path) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| match l.split_once('\t') {
            Some((p, c)) => (p.to_owned(), c.to_owned()),
            None => (l.to_owned(), String::new()),
        })
        .collect())
}

/// The largest peak resident memory among this process's finished
/// children, KiB.
fn children_peak_kib() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid
    // rusage.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) } == 0;
    if !ok {
        return 0;
    }
    // SAFETY: initialised (zeroed, then filled by a successful call).
    let usage = unsafe { usage.assume_init() };
    u64::try_from(usage.ru_maxrss).unwrap_or(0)
}

/// A memory figure of this process from /proc (`VmRSS:` now, `VmHWM:` the
/// peak), KiB.
fn rss_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn percentile(samples: &mut [f64], p: f64) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_by(f64::total_cmp);
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    Some(samples[i])
}

fn print_table(
    kind: &str,
    n: usize,
    queries: &[BenchQuery],
    reports: &BTreeMap<String, Report>,
) -> Result<()> {
    if reports.is_empty() {
        bail!("no peer finished");
    }
    type Pick = fn(&BenchQuery) -> bool;
    let classes: [(&str, Pick); 3] = [
        ("3+ chars, all", |q| q.class == Class::Long),
        ("3+ chars, AND only", |q| {
            q.class == Class::Long && q.plocate_can()
        }),
        ("1–2 chars", |q| q.class == Class::Short),
    ];
    println!("\n### {kind} corpus: {n} paths\n");
    print!("| peer | build (names/s) | index (bytes/name) | peak memory (MB) |");
    for (c, _) in &classes {
        print!(" {c}: p50 / p99 (ms) |");
    }
    println!();
    println!("|---|---|---|---|{}", "---|".repeat(classes.len()));
    let ours = reports.get("ours");
    for (peer, r) in reports {
        let rate = if r.build_s > 0.0 {
            format!("{:.0}k", n as f64 / r.build_s / 1e3)
        } else {
            "–".to_owned()
        };
        // The peer's own memory: its processes' peak for plocate, else the
        // harness's peak above what the corpus and queries took.
        let memory = if r.children_peak_kib > 0 {
            r.children_peak_kib
        } else {
            r.peak_rss_kib.saturating_sub(r.harness_kib)
        };
        print!(
            "| {peer} | {rate} | {:.1} | {:.0} |",
            r.index_bytes as f64 / n as f64,
            memory as f64 / 1024.0
        );
        for (_, pick) in &classes {
            let mut all: Vec<f64> = queries
                .iter()
                .enumerate()
                .filter(|(_, q)| pick(q))
                .filter_map(|(i, _)| r.samples.get(&i))
                .flat_map(|(s, _)| s.iter().copied())
                .collect();
            match (percentile(&mut all, 0.5), percentile(&mut all, 0.99)) {
                (Some(a), Some(b)) => print!(" {:.3} / {:.3} |", a / 1e3, b / 1e3),
                _ => print!(" – |"),
            }
        }
        println!();
    }
    println!();
    println!(
        "- build: names per second to build the search structure from rows already loaded (plocate: from the plain list). Peak memory: the peer's own, above the harness's copy of the corpus (plocate: its largest process)."
    );
    for (peer, r) in reports {
        if !r.index_note.is_empty() {
            println!("- {peer}: {}", r.index_note);
        }
        for note in &r.notes {
            println!("- {peer}: {note}");
        }
        if let Some(ours) = ours {
            // How often the first page had as many results as ours.
            let (mut same, mut asked) = (0, 0);
            for (i, (_, count)) in &r.samples {
                if let Some((_, mine)) = ours.samples.get(i) {
                    asked += 1;
                    same += usize::from(mine == count);
                }
            }
            if peer != "ours" && asked > 0 {
                println!("- {peer}: first page the same size as ours on {same} of {asked} queries");
            }
        }
    }
    Ok(())
}
