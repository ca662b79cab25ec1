//! Where the grid's time goes: the build and the sweep of a rebuilt frame,
//! serial and on two threads, and the updates and the moved-pairs query of
//! a frame in which a share of the objects moves, each timed on its own
//! (the main benchmark times whole frames).
//!
//! `--fresh` draws a new world for every frame. The main benchmark rebuilds
//! the same boxes every frame, and at 10k objects the branch predictor
//! learns much of the sweep; a fresh world shows what a game whose objects
//! move gets.
//!
//! `--long FRAMES` instead updates one grid for that many frames and
//! prints, every 250 frames, the query's time and tests: they must not grow.
//!
//! `--column N` times a column of N one-object rows all moving (see its
//! help). `--strip` rebuilds a world of one long row instead of the dense
//! one (rows too long for the row sort's buffers).
//!
//! ```text
//! cargo run --release -p collide-bench --bin grid_phases -- --n 100000 --fresh
//! cargo run --release -p collide-bench --bin grid_phases -- --long 2000 --moving 0.1
//! cargo run --release -p collide-bench --bin grid_phases -- --column 20000 --frames 40
//! cargo run --release -p collide-bench --bin grid_phases -- --n 100000 --strip --moving 0
//! ```

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use collide::{Aabb, Execution, Grid, GridConfig, Pair};

// The main benchmark's worlds, so the phases are timed on the same boxes.
#[allow(dead_code, reason = "this probe uses a few of the families")]
#[path = "../workloads.rs"]
mod workloads;
use workloads::{Family, Motion, Rng};

/// Times the grid's phases on dense or mixed worlds.
#[derive(Parser, Debug)]
struct Args {
    /// Objects.
    #[arg(long, default_value_t = 100_000)]
    n: usize,
    /// The main benchmark's mixed workload (99% 4–30 px, 1% 30–300 px)
    /// instead of its dense one (30 × 30).
    #[arg(long)]
    mixed: bool,
    /// A new world every frame.
    #[arg(long)]
    fresh: bool,
    /// Timed frames (the median is printed).
    #[arg(long, default_value_t = 30)]
    frames: usize,
    /// Shares of moving objects for the incremental rows (on the dense
    /// world, moving as in the benchmark's motion workloads).
    #[arg(long, default_values_t = [0.1, 1.0])]
    moving: Vec<f64>,
    /// Instead of the tables: this many frames of the first moving share,
    /// with the query's median time and tests printed every 250 frames (a
    /// grid updated for a long time must not slow down).
    #[arg(long)]
    long: Option<usize>,
    /// Instead of the tables: a column of this many one-object rows (10 ×
    /// 30 px, 40 px apart), each frame moved right by 0.01 px per place in
    /// the column, bottom to top, and back; prints the median frame. Each
    /// update raises the reach of the rows above it, the case that an
    /// update's reach raise must not carry up the whole column.
    #[arg(long)]
    column: Option<usize>,
    /// A world of one long strip instead: 30 × 30 px objects at the dense
    /// world's density, their minimum y all within one px, so that every
    /// object falls in one row (the case of rows too long for the row
    /// sort's buffers).
    #[arg(long, conflicts_with_all = ["long", "column", "mixed"])]
    strip: bool,
    /// The main benchmark's thin workload instead (lasers and walls, 10–300
    /// × 1–3 px): many levels, whose sweeps between them dominate.
    #[arg(long, conflicts_with_all = ["mixed", "strip"])]
    thin: bool,
}

fn world_name(args: &Args) -> &'static str {
    if args.strip {
        "one-strip"
    } else if args.thin {
        "thin"
    } else if args.mixed {
        "mixed"
    } else {
        "dense"
    }
}

/// `n` 30 × 30 boxes in one strip 31 px tall, at the dense world's density
/// (1,536 px² per object), in random order.
fn strip(n: usize, seed: u64) -> Result<Vec<Aabb>> {
    let mut rng = Rng::new(seed);
    let length = n as f64 * 1536.0 / 31.0;
    (0..n)
        .map(|_| {
            let (x, y) = (rng.range(0.0, length), rng.range(0.0, 1.0));
            Aabb::new([x, y], [x + 30.0, y + 30.0]).context("a strip box")
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<()> {
    let args = Args::parse();
    if let Some(frames) = args.long {
        return long_run(&args, frames);
    }
    if let Some(n) = args.column {
        return column(n, args.frames);
    }
    let family = if args.thin {
        Family::Thin
    } else if args.mixed {
        Family::Mixed
    } else {
        Family::Dense
    };
    let worlds = if args.fresh { args.frames } else { 1 };
    let worlds: Vec<Vec<Aabb>> = (0..worlds as u64)
        .map(|seed| {
            if args.strip {
                strip(args.n, 1994 + seed)
            } else {
                Ok(workloads::generate(family, args.n, 1994 + seed).boxes)
            }
        })
        .collect::<Result<_>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .context("building the thread pool")?;
    let per_object = |t: f64| t * 1e6 / args.n as f64;
    println!(
        "n = {}, {} world{}",
        args.n,
        world_name(&args),
        if args.fresh {
            "s, fresh every frame"
        } else {
            ""
        }
    );
    println!("rebuilt frame      build ms  (ns/object)   sweep ms  (ns/object)");
    for (name, execution) in [
        ("serial", Execution::Serial),
        ("2 threads", Execution::Parallel),
    ] {
        let mut grid = Grid::with_config(GridConfig { execution });
        let mut out: Vec<Pair> = Vec::new();
        let (mut build, mut sweep) = (Vec::new(), Vec::new());
        for frame in 0..args.frames + 2 {
            let boxes = &worlds[frame % worlds.len()];
            out.clear();
            let (b, s) = pool.install(|| -> Result<(f64, f64)> {
                let t = Instant::now();
                grid.rebuild(boxes)?;
                let b = ms(t);
                let t = Instant::now();
                grid.find_all_pairs(&mut out)?;
                Ok((b, ms(t)))
            })?;
            if frame >= 2 {
                build.push(b);
                sweep.push(s);
            }
        }
        let (b, s) = (median(build), median(sweep));
        println!(
            "{name:<16} {b:10.3} {:12.1} {s:10.3} {:12.1}",
            per_object(b),
            per_object(s)
        );
    }
    println!("moving share       update ms (ns/update)   query ms  (ns/moved)   rebuild ms");
    let mut rng = Rng::new(1994);
    for &share in &args.moving {
        let mut boxes = workloads::generate(Family::Dense, args.n, 1994).boxes;
        let mut motion = Motion::random(&mut rng, args.n, share);
        let mut moving = Vec::new();
        let mut grid = Grid::new();
        grid.rebuild(&boxes)?;
        grid.forget_moved();
        let mut fresh = Grid::new();
        let mut out: Vec<Pair> = Vec::new();
        let (mut update, mut query, mut rebuild) = (Vec::new(), Vec::new(), Vec::new());
        for frame in 0..args.frames + 2 {
            motion.step(&mut boxes, &mut moving);
            let t = Instant::now();
            for &i in &moving {
                let h = grid.handle(i).context("a handle of the bulk load")?;
                grid.update(h, boxes[i as usize])?;
            }
            let u = ms(t);
            out.clear();
            let t = Instant::now();
            grid.find_moved_pairs(&mut out)?;
            let q = ms(t);
            out.clear();
            let t = Instant::now();
            fresh.rebuild(&boxes)?;
            fresh.find_all_pairs(&mut out)?;
            let r = ms(t);
            if frame >= 2 {
                update.push(u);
                query.push(q);
                rebuild.push(r);
            }
        }
        let (u, q, r) = (median(update), median(query), median(rebuild));
        let per_moved = |t: f64| t * 1e6 / moving.len().max(1) as f64;
        println!(
            "{:<16} {u:10.3} {:12.1} {q:10.3} {:12.1} {r:12.3}",
            format!("{:.0}%", share * 100.0),
            per_moved(u),
            per_moved(q),
        );
    }
    Ok(())
}

/// Frames of small moves on one grid, reported 250 frames at a time:
/// median update and query times, the mean and worst whole frame.
fn long_run(args: &Args, frames: usize) -> Result<()> {
    const WINDOW: usize = 250;
    let share = args.moving.first().copied().unwrap_or(0.1);
    let mut rng = Rng::new(1994);
    let family = if args.thin {
        Family::Thin
    } else if args.mixed {
        Family::Mixed
    } else {
        Family::Dense
    };
    let mut boxes = workloads::generate(family, args.n, 1994).boxes;
    let mut motion = Motion::random(&mut rng, args.n, share);
    let mut moving = Vec::new();
    let mut grid = Grid::new();
    grid.rebuild(&boxes)?;
    grid.forget_moved();
    let mut out: Vec<Pair> = Vec::new();
    let (mut update, mut query) = (Vec::new(), Vec::new());
    println!(
        "n = {}, {}, {:.0}% moving: frames   update ms   query ms   mean ms   max ms   tests (last frame)",
        args.n,
        world_name(args),
        share * 100.0
    );
    for frame in 1..=frames {
        motion.step(&mut boxes, &mut moving);
        let t = Instant::now();
        for &i in &moving {
            let h = grid.handle(i).context("a handle of the bulk load")?;
            grid.update(h, boxes[i as usize])?;
        }
        update.push(ms(t));
        out.clear();
        let t = Instant::now();
        grid.find_moved_pairs(&mut out)?;
        query.push(ms(t));
        if frame % WINDOW == 0 {
            // Mean and worst frame (update and query together): a relayout
            // is one slow frame, which the medians do not show.
            let frames: Vec<f64> = update.iter().zip(&query).map(|(u, q)| u + q).collect();
            let mean = frames.iter().sum::<f64>() / frames.len() as f64;
            let worst = frames.iter().copied().fold(0.0, f64::max);
            println!(
                "{frame:>28} {:11.3} {:10.3} {mean:9.3} {worst:8.3} {:>10}",
                median(std::mem::take(&mut update)),
                median(std::mem::take(&mut query)),
                grid.last_stats().tests
            );
        }
    }
    Ok(())
}

/// The `--column` probe: update + moved-pairs query per frame.
fn column(n: usize, frames: usize) -> Result<()> {
    let bx = |x: f32, k: usize| Aabb::new([x, k as f32 * 40.0], [x + 10.0, k as f32 * 40.0 + 30.0]);
    let mut grid = Grid::new();
    let boxes = (0..n).map(|k| bx(0.0, k)).collect::<Result<Vec<_>, _>>()?;
    grid.rebuild(&boxes)?;
    grid.relayout_now()?;
    grid.forget_moved();
    let mut out: Vec<Pair> = Vec::new();
    let mut times = Vec::new();
    for frame in 0..frames + 2 {
        let step = if frame % 2 == 0 { 0.01 } else { 0.0 };
        let t = Instant::now();
        for k in 0..n {
            let h = grid.handle(k as u32).context("a handle of the bulk load")?;
            grid.update(h, bx(step * k as f32, k)?)?;
        }
        out.clear();
        grid.find_moved_pairs(&mut out)?;
        if frame >= 2 {
            times.push(ms(t));
        }
    }
    println!("column of {n}: {:.3} ms a frame (median)", median(times));
    Ok(())
}
