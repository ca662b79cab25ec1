//! `collide-bench`: collide's broad phases side by side with the crates a
//! user would pick instead, in one run, on fixed seeds.
//!
//! ```text
//! cargo run --release -p collide-bench             # everything (tens of minutes)
//! cargo run --release -p collide-bench -- --quick  # 100k dense and mixed, all engines
//! cargo run --release -p collide-bench -- --json   # one JSON object per measurement
//! ```
//!
//! Every frame's pair count is checked against a reference (brute force up
//! to 10k objects, sweep and prune up to 100k, else the serial grid, itself
//! checked against brute force by the property tests); a mismatch is shown
//! in the `ok` column and makes the run fail.

mod alloc;
mod engines;
mod moertel;
mod workloads;

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Parser;
use collide::{BroadPhase, BruteForce, Grid, Pair, SweepAndPrune};
use indicatif::{ProgressBar, ProgressStyle};

use engines::{Spec, Track};
use workloads::{Family, World};

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

/// Broad-phase benchmark: collide against parry2d, broccoli, rstar and Box2D.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// A subset: 100k dense and mixed, every engine (under a minute).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object per measurement on stdout instead of tables.
    #[arg(long)]
    json: bool,
    /// Also write one JSON object per measurement to this file.
    #[arg(long)]
    json_out: Option<std::path::PathBuf>,
    /// Workloads to run (default: all).
    #[arg(long, value_enum)]
    workload: Vec<Family>,
    /// Object counts (default: 10000, 100000, 1000000).
    #[arg(long)]
    n: Vec<usize>,
    /// Only engines whose name contains one of these.
    #[arg(long)]
    engine: Vec<String>,
    /// Timed frames per measurement (default: 20 at 10k, 10 at 100k, 4 at
    /// 1M; 3 for an engine whose first frame takes over 200 ms).
    #[arg(long)]
    frames: Option<usize>,
    /// Threads for the parallel engines.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of every world.
    #[arg(long, default_value_t = 1994)]
    seed: u64,
    /// Seconds per cell of Moertel's table.
    #[arg(long, default_value_t = 1.0)]
    moertel_seconds: f64,
    /// Skip Moertel's experiment.
    #[arg(long)]
    no_moertel: bool,
    /// Measure every engine of a world this many times, the engines taking
    /// turns, and keep each engine's fastest round. On a shared machine a
    /// burst of load slows whichever engine runs during it; turns spread
    /// the bursts over all engines, and the fastest round is each one's
    /// time with the least load.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    rounds: u32,
}

/// One measurement: an engine on a world.
#[derive(Debug, serde::Serialize)]
struct Measurement {
    workload: &'static str,
    n: usize,
    engine: &'static str,
    mode: Track,
    threads: usize,
    median_ms: f64,
    p99_ms: f64,
    frames: usize,
    pairs: usize,
    tests: Option<u64>,
    tests_per_pair: Option<f64>,
    raw_duplicates: Option<u64>,
    bytes_per_object: f64,
    ok: bool,
    /// Every round's median, in the order they ran (`median_ms` is the
    /// fastest of them).
    round_medians_ms: Vec<f64>,
}

impl Measurement {
    /// Folds in another round of the same engine on the same world: keeps
    /// the faster round's times and counts, the larger peak memory, and
    /// fails if either round did.
    fn fold(mut self, other: Measurement) -> Measurement {
        let mut medians = std::mem::take(&mut self.round_medians_ms);
        medians.extend_from_slice(&other.round_medians_ms);
        let ok = self.ok && other.ok;
        let bytes = self.bytes_per_object.max(other.bytes_per_object);
        let mut best = if other.median_ms < self.median_ms {
            other
        } else {
            self
        };
        best.round_medians_ms = medians;
        best.ok = ok;
        best.bytes_per_object = bytes;
        best
    }
}

/// Per frame: (all pairs, pairs touching moved objects).
type References = Vec<(usize, usize)>;

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let families: Vec<Family> = if !args.workload.is_empty() {
        args.workload.clone()
    } else if args.quick {
        vec![Family::Dense, Family::Mixed]
    } else {
        Family::ALL.to_vec()
    };
    let sizes: Vec<usize> = if !args.n.is_empty() {
        args.n.clone()
    } else if args.quick {
        vec![100_000]
    } else {
        vec![10_000, 100_000, 1_000_000]
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("building the thread pool")?;

    let mut worlds: Vec<(Family, usize)> = Vec::new();
    for &f in &families {
        if f == Family::Bipartite {
            worlds.push((f, 51_500));
        } else {
            worlds.extend(sizes.iter().map(|&n| (f, n)));
        }
    }

    let progress = ProgressBar::new(worlds.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} worlds  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut all = Vec::new();
    let mut failures = 0usize;
    let stdout = std::io::stdout();
    let mut json_file = match &args.json_out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => None,
    };
    for (family, n) in worlds {
        progress.set_message(format!("{} n={n}", family.name()));
        let world = workloads::generate(family, n, args.seed);
        let frames = args.frames.unwrap_or(if n <= 10_000 {
            20
        } else if n <= 100_000 {
            10
        } else {
            4
        });
        // Untimed (but checked) frames first: caches, allocator, and cores
        // that wake up slowly once a parallel engine starts.
        let warmup = if n <= 100_000 { 10 } else { 2 };
        let (refs, reference) = references(&world, warmup + frames)?;
        let mut specs = Vec::new();
        let mut skipped = Vec::new();
        for spec in engines::for_world(&world) {
            match spec {
                Ok(s) => {
                    if args.engine.is_empty()
                        || args.engine.iter().any(|e| s.name.contains(e.as_str()))
                    {
                        specs.push(s);
                    }
                }
                Err((name, why)) => skipped.push(format!("{name}: {why}")),
            }
        }
        let mut rows: Vec<Option<Measurement>> = specs.iter().map(|_| None).collect();
        for round in 1..=args.rounds {
            if args.rounds > 1 {
                progress.set_message(format!(
                    "{} n={n}, round {round}/{}",
                    family.name(),
                    args.rounds
                ));
            }
            for (spec, row) in specs.iter().zip(&mut rows) {
                let threads = if spec.parallel { args.threads } else { 1 };
                let m = if spec.parallel {
                    pool.install(|| measure(spec, &world, &refs, warmup, frames, threads))
                } else {
                    measure(spec, &world, &refs, warmup, frames, threads)
                }
                .with_context(|| format!("{} on {} n={n}", spec.name, family.name()))?;
                *row = Some(match row.take() {
                    Some(before) => before.fold(m),
                    None => m,
                });
            }
        }
        let rows: Vec<Measurement> = rows.into_iter().flatten().collect();
        for m in &rows {
            if !m.ok {
                failures += 1;
            }
            if args.json {
                let mut lock = stdout.lock();
                serde_json::to_writer(&mut lock, m)?;
                writeln!(lock)?;
            }
            if let Some(f) = json_file.as_mut() {
                serde_json::to_writer(&mut *f, m)?;
                writeln!(f)?;
            }
        }
        if !args.json {
            progress.suspend(|| {
                print_table(family, n, &refs, reference, &rows, &skipped, args.rounds);
            });
        }
        all.extend(rows);
        progress.inc(1);
    }
    progress.finish_and_clear();
    if let Some(mut f) = json_file {
        f.flush()?;
    }

    if !args.no_moertel && !args.quick {
        run_moertel(&args)?;
    }
    if !args.json {
        print_goals(&all);
    }
    if failures > 0 {
        bail!("{failures} measurement(s) reported a pair count different from the reference");
    }
    Ok(())
}

/// The reference pair counts for every frame (frame 0 is the warm-up).
fn references(world: &World, frames: usize) -> anyhow::Result<(References, &'static str)> {
    let n = world.boxes.len();
    let mut out: Vec<Pair> = Vec::new();
    if world.family == Family::Bipartite {
        let mut count = 0usize;
        for a in &world.boxes {
            count += world.others.iter().filter(|b| a.intersects(b)).count();
        }
        return Ok((vec![(count, count); frames + 1], "brute force"));
    }
    let (mut oracle, name): (Box<dyn BroadPhase>, &'static str) = if n <= 10_000 {
        (Box::new(BruteForce::new()), "brute force")
    } else if n <= 100_000 {
        (Box::new(SweepAndPrune::new()), "sweep and prune")
    } else {
        (Box::new(Grid::new()), "grid (serial)")
    };
    let mut boxes = world.boxes.clone();
    let mut motion = world.motion.clone();
    let mut moved = Vec::new();
    let mut flags = vec![false; n];
    let mut refs = Vec::with_capacity(frames + 1);
    for f in 0..=frames {
        if let Some(m) = motion.as_mut() {
            m.step(&mut boxes, &mut moved);
        } else if f > 0 {
            refs.push(refs[0]);
            continue;
        }
        out.clear();
        oracle.find_pairs(&boxes, &mut out)?;
        for &i in &moved {
            flags[i as usize] = true;
        }
        let touching = out
            .iter()
            .filter(|p| flags[p.a as usize] || flags[p.b as usize])
            .count();
        for &i in &moved {
            flags[i as usize] = false;
        }
        refs.push((out.len(), touching));
    }
    Ok((refs, name))
}

fn measure(
    spec: &Spec,
    world: &World,
    refs: &References,
    warmup: usize,
    frames: usize,
    threads: usize,
) -> anyhow::Result<Measurement> {
    let n = world.boxes.len();
    let mut engine = (spec.make)();
    let mut boxes = world.boxes.clone();
    let mut motion = world.motion.clone();
    // The harness's own buffers are allocated before the baseline.
    let mut moved = Vec::with_capacity(n);
    let expect = refs.iter().map(|r| r.0).max().unwrap_or(0);
    // The output buffer is the caller's: allocated before the baseline.
    let mut out: Vec<Pair> = Vec::with_capacity(expect * 4 + 1024);
    let baseline = alloc::reset_peak();
    engine.prepare(world)?;
    let mut times = Vec::with_capacity(frames);
    let mut ok = true;
    let mut last = (0usize, None, None);
    let mut warmup = warmup.max(1);
    let mut frames = frames;
    let mut f = 0usize;
    // A static world's reference is the same every frame: warm up by time
    // too (at least 0.2 s), as a second core may take that long to wake.
    let still = world.motion.is_none();
    let started = Instant::now();
    while f < warmup + frames {
        if let Some(m) = motion.as_mut() {
            m.step(&mut boxes, &mut moved);
        }
        out.clear();
        let t0 = Instant::now();
        let frame = engines::Frame {
            boxes: &boxes,
            others: &world.others,
            moved: &moved,
        };
        let stats = engine.frame(&frame, &mut out)?;
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        if f == 0 && dt > 200.0 {
            // A slow engine: one warm-up frame, at most three timed.
            warmup = 1;
            frames = frames.min(3);
        } else if still && f + 1 == warmup && started.elapsed().as_secs_f64() < 0.2 {
            warmup += 1;
        }
        if f >= warmup {
            times.push(dt);
        }
        let r = refs[f.min(refs.len() - 1)];
        let want = match spec.track {
            Track::Incremental => r.1,
            _ => r.0,
        };
        // Raw Moertel reports duplicates by design: count distinct pairs.
        let raw_dups = if spec.name == "sectors-raw" {
            out.sort_unstable();
            let before = out.len();
            out.dedup();
            Some((before - out.len()) as u64)
        } else {
            None
        };
        if out.len() != want {
            ok = false;
        }
        last = (out.len(), stats.tests, raw_dups);
        f += 1;
    }
    let peak = alloc::peak().saturating_sub(baseline) + engine.native_bytes();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let p99 = times[((times.len() as f64 * 0.99).ceil() as usize).clamp(1, times.len()) - 1];
    let (pairs, tests, raw_duplicates) = last;
    Ok(Measurement {
        workload: world.family.name(),
        n: n + world.others.len(),
        engine: spec.name,
        mode: spec.track,
        threads,
        median_ms: median,
        p99_ms: p99,
        frames: times.len(),
        pairs,
        tests,
        tests_per_pair: tests.map(|t| t as f64 / pairs.max(1) as f64),
        raw_duplicates,
        bytes_per_object: peak as f64 / (n + world.others.len()).max(1) as f64,
        ok,
        round_medians_ms: vec![median],
    })
}

fn print_table(
    family: Family,
    n: usize,
    refs: &References,
    reference: &str,
    rows: &[Measurement],
    skipped: &[String],
    rounds: u32,
) {
    println!();
    println!(
        "== {} · n = {} · {} pairs per frame (reference: {}){}",
        family.name(),
        n,
        refs.first().map_or(0, |r| r.0),
        reference,
        if rounds > 1 {
            format!(" · fastest of {rounds} rounds")
        } else {
            String::new()
        }
    );
    println!(
        "{:<18} {:<12} {:>10} {:>10} {:>10} {:>4} {:>10} {:>9} {:>8}",
        "engine", "mode", "median ms", "p99 ms", "pairs", "ok", "tests/pair", "B/object", "vs grid"
    );
    for r in rows {
        let grid = rows
            .iter()
            .find(|g| g.engine == "grid" && g.mode == r.mode)
            .map(|g| g.median_ms);
        let ratio = grid.map_or(String::from("-"), |g| format!("{:.2}×", r.median_ms / g));
        println!(
            "{:<18} {:<12} {:>10.3} {:>10.3} {:>10} {:>4} {:>10} {:>9.1} {:>8}",
            r.engine,
            format!("{:?}", r.mode).to_lowercase(),
            r.median_ms,
            r.p99_ms,
            r.pairs,
            if r.ok { "✓" } else { "✗" },
            r.tests_per_pair
                .map_or(String::from("-"), |t| format!("{t:.2}")),
            r.bytes_per_object,
            ratio,
        );
    }
    for s in skipped {
        println!("  skipped {s}");
    }
}

fn run_moertel(args: &Args) -> anyhow::Result<()> {
    println!();
    println!(
        "== Moertel's experiment (30×30 sprites on 640×480, 64-px sectors): full checks per second"
    );
    let rows = moertel::table(args.moertel_seconds)?;
    println!(
        "{:>8} {:>12} {:>12} {:>14} {:>14} {:>14} {:>10}",
        "objects", "68040 1994", "PPC601 1994", "sectors-raw", "sectors-exact", "grid", "raw/PPC"
    );
    for r in &rows {
        let get = |name: &str| {
            r.today
                .iter()
                .find(|(m, _)| *m == name)
                .map_or(0.0, |(_, v)| *v)
        };
        println!(
            "{:>8} {:>12.0} {:>12.0} {:>14.0} {:>14.0} {:>14.0} {:>9.0}×",
            r.objects,
            r.his_68040,
            r.his_ppc601,
            get("sectors-raw"),
            get("sectors-exact"),
            get("grid"),
            get("sectors-raw") / r.his_ppc601
        );
        if args.json {
            for (m, v) in &r.today {
                println!(
                    "{}",
                    serde_json::json!({"workload": "moertel", "n": r.objects, "engine": m, "checks_per_s": v})
                );
            }
        }
    }
    let d = moertel::duplicates(2000)?;
    println!();
    println!(
        "Duplicates at 200 objects over {} worlds: {:.2} collisions per check, {:.2} raw reports ({:.3}× each); \
         two coincident objects: {} reports. Tests per check: raw {:.1}, exact {:.1}.",
        d.worlds,
        d.collisions as f64 / d.worlds as f64,
        d.raw_reports as f64 / d.worlds as f64,
        d.raw_reports as f64 / d.collisions.max(1) as f64,
        d.coincident_reports,
        d.raw_tests as f64 / d.worlds as f64,
        d.exact_tests as f64 / d.worlds as f64,
    );
    println!();
    println!(
        "Four shifts against the 9-sector method (tests per sector; his formulas assume exactly K per sector):"
    );
    println!(
        "{:>6} {:>14} {:>14} {:>10} {:>12} {:>12} {:>10}",
        "K", "shifts meas.", "9-cell meas.", "ratio", "his shifts", "his 9-cell", "his ratio"
    );
    for r in moertel::analysis(&[0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0])? {
        let his = if r.his_shifts > 0.0 {
            format!("{:.1}", r.his_adjacent / r.his_shifts)
        } else {
            "∞".into()
        };
        println!(
            "{:>6.1} {:>14.2} {:>14.2} {:>10.1} {:>12.2} {:>12.2} {:>10}",
            r.k,
            r.shifts_tests_per_sector,
            r.adjacent_tests_per_sector,
            r.adjacent_tests_per_sector / r.shifts_tests_per_sector,
            r.his_shifts,
            r.his_adjacent,
            his
        );
    }
    Ok(())
}

/// The issue's goals, as ratios from this run.
fn print_goals(all: &[Measurement]) {
    let find = |w: &str, n: usize, engine: &str, mode: Track| {
        all.iter()
            .find(|m| m.workload == w && m.n == n && m.engine == engine && m.mode == mode)
    };
    let fastest_peer = |w: &str, n: usize| {
        all.iter()
            .filter(|m| m.workload == w && m.n == n && m.mode == Track::Rebuild)
            .filter(|m| ["parry2d-bvh", "broccoli", "rstar", "box2d-tree"].contains(&m.engine))
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
    };
    let mut lines = Vec::new();
    let mut ns: Vec<usize> = all.iter().map(|m| m.n).collect();
    ns.sort_unstable();
    ns.dedup();
    for &n in &ns {
        for (w, goal) in [("dense", 5.0), ("mixed", 3.0)] {
            if let (Some(g), Some(p)) = (find(w, n, "grid", Track::Rebuild), fastest_peer(w, n)) {
                let r = p.median_ms / g.median_ms;
                lines.push((
                    format!("{w} n={n}: grid vs fastest peer ({})", p.engine),
                    r,
                    goal,
                    r >= goal,
                ));
            }
        }
        if let (Some(inc), Some(full)) = (
            find("motion-10%", n, "grid", Track::Incremental),
            find("motion-10%", n, "grid", Track::Rebuild),
        ) {
            let r = inc.median_ms / full.median_ms;
            lines.push((
                format!("motion-10% n={n}: incremental / full rebuild"),
                r,
                0.2,
                r <= 0.2,
            ));
        }
        for (mode, how) in [
            (Track::Incremental, "incremental"),
            (Track::Rebuild, "rebuild"),
        ] {
            if let (Some(g), Some(p)) = (
                find("motion-100%", n, "grid", mode),
                find("motion-100%", n, "parry2d-bvh", Track::Incremental),
            ) {
                let r = p.median_ms / g.median_ms;
                lines.push((
                    format!("motion-100% n={n}: grid {how} vs parry2d incremental"),
                    r,
                    3.0,
                    r >= 3.0,
                ));
            }
        }
        for w in ["dense", "mixed"] {
            if let (Some(s), Some(p)) = (
                find(w, n, "grid", Track::Rebuild),
                find(w, n, "grid-par", Track::Rebuild),
            ) {
                let r = s.median_ms / p.median_ms;
                lines.push((
                    format!("{w} n={n}: speed-up on {} threads", p.threads),
                    r,
                    1.8,
                    r >= 1.8,
                ));
            }
        }
        for (w, goal) in [("dense", 2.5), ("sparse", 2.5), ("mixed", 4.0)] {
            if let Some(t) = find(w, n, "grid", Track::Rebuild).and_then(|g| g.tests_per_pair) {
                lines.push((format!("{w} n={n}: tests per pair"), t, goal, t < goal));
            }
        }
    }
    if lines.is_empty() {
        return;
    }
    println!();
    println!("== Goals");
    for (what, value, goal, met) in lines {
        println!(
            "{:<60} {:>8.2} (goal {:>4}) {}",
            what,
            value,
            goal,
            if met { "met" } else { "NOT met" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every engine, on a small world of every family, reports the
    /// reference's pair count in every frame (a correctness check of the
    /// harness and the peers' use, not a timing).
    #[test]
    fn every_engine_agrees_with_the_reference() {
        let families = Family::ALL;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for family in families {
            let world = workloads::generate(family, 1500, 7);
            let (warmup, frames) = (1, 3);
            let (refs, _) = references(&world, warmup + frames).unwrap();
            assert!(refs[0].0 > 0, "{family:?}: the world has collisions");
            for spec in engines::for_world(&world).into_iter().flatten() {
                let m = pool
                    .install(|| measure(&spec, &world, &refs, warmup, frames, 1))
                    .unwrap();
                assert!(
                    m.ok,
                    "{} on {family:?}: {} pairs, reference {:?}",
                    spec.name,
                    m.pairs,
                    refs.last()
                );
            }
        }
    }

    fn measurement(median_ms: f64, bytes_per_object: f64, ok: bool) -> Measurement {
        Measurement {
            workload: "dense",
            n: 10,
            engine: "grid",
            mode: Track::Rebuild,
            threads: 1,
            median_ms,
            p99_ms: median_ms * 2.0,
            frames: 4,
            pairs: 7,
            tests: Some(median_ms as u64),
            tests_per_pair: None,
            raw_duplicates: None,
            bytes_per_object,
            ok,
            round_medians_ms: vec![median_ms],
        }
    }

    /// Rounds fold into the fastest round's times, the largest memory, a
    /// failure if any round failed, and every round's median in order.
    #[test]
    fn rounds_keep_the_fastest_time_and_the_worst_of_the_rest() {
        let m = measurement(3.0, 40.0, true)
            .fold(measurement(2.0, 30.0, true))
            .fold(measurement(5.0, 50.0, false));
        assert_eq!(m.median_ms, 2.0);
        assert_eq!(m.p99_ms, 4.0);
        assert_eq!(m.tests, Some(2));
        assert_eq!(m.bytes_per_object, 50.0);
        assert!(!m.ok);
        assert_eq!(m.round_medians_ms, vec![3.0, 2.0, 5.0]);
        // A tie keeps the earlier round.
        let mut later = measurement(2.0, 1.0, true);
        later.p99_ms = 9.0;
        let m = measurement(2.0, 1.0, true).fold(later);
        assert_eq!(m.p99_ms, 4.0);
        assert_eq!(m.round_medians_ms, vec![2.0, 2.0]);
    }
}
