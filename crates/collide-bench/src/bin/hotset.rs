//! A probe of a design the grid does not use: a "hot set" for the objects
//! that keep moving, as Box2D's broad phase keeps fat boxes and pairs.
//!
//! Each moving object gets a fat box (its box grown by `--margin` on every
//! side) and a list of up to seven candidates: the objects whose boxes (or,
//! for other hot objects, fat boxes) touched its fat box when it was last
//! refitted. A move that stays inside the fat box only writes the new box;
//! the moved-pairs query tests each moved object against its list. A move
//! out of the fat box refits it: its anchor box in a grid is updated and
//! the grid is asked for the new candidates (the public `query_region`,
//! slower than an internal query would be, so that time is printed on its
//! own). Still objects' boxes are read through a position array, as the
//! grid's layout reads them through a handle's place.
//!
//! A list that would need more than seven candidates is only counted, not
//! handled (a real version would query the grid for that object every
//! frame), so the probe reports fewer pairs than the grid and its time is
//! a lower bound. On the benchmark's dense world with 10% moving, its list
//! tests alone take about as long as the grid's whole moved-pairs query,
//! so the design was not built (see collide's README, "Tried and dropped").
//!
//! ```text
//! cargo run --release -p collide-bench --bin hotset -- --n 10000 --margin 8
//! ```

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use collide::{Aabb, Grid, Handle, Pair};

#[allow(dead_code, reason = "this probe uses one of the families")]
#[path = "../workloads.rs"]
mod workloads;
use workloads::{Family, Motion, Rng};

/// Times a hot set with candidate lists against the grid's moved query.
#[derive(Parser, Debug)]
struct Args {
    /// Objects (the benchmark's dense world, 10% moving).
    #[arg(long, default_value_t = 10_000)]
    n: usize,
    /// Timed frames (medians are printed).
    #[arg(long, default_value_t = 300)]
    frames: usize,
    /// How far a fat box reaches past its box on every side, in px.
    #[arg(long, default_value_t = 8.0)]
    margin: f32,
}

/// min x, min y, max x, max y.
type Bx = [f32; 4];

fn bx(a: &Aabb) -> Bx {
    [a.min().x, a.min().y, a.max().x, a.max().y]
}

fn overlaps(a: &Bx, b: &Bx) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

fn inside(inner: &Bx, outer: &Bx) -> bool {
    inner[0] >= outer[0] && inner[1] >= outer[1] && inner[2] <= outer[2] && inner[3] <= outer[3]
}

fn grown(b: &Bx, m: f32) -> Bx {
    [b[0] - m, b[1] - m, b[2] + m, b[3] + m]
}

fn aabb(b: &Bx) -> Result<Aabb> {
    Aabb::new([b[0], b[1]], [b[2], b[3]]).context("a fat box")
}

const CANDIDATES: usize = 7;

/// A hot object: its fat box and candidates (handle indices).
#[derive(Clone, Copy)]
struct Hot {
    fat: Bx,
    moved: bool,
    refit: bool,
    overflowed: bool,
    len: u8,
    candidates: [u32; CANDIDATES],
}

impl Hot {
    /// Adds `c` unless it is there; a full list is marked overflowed.
    fn add(&mut self, c: u32) {
        if self.candidates[..self.len as usize].contains(&c) {
            return;
        }
        if (self.len as usize) < CANDIDATES {
            self.candidates[self.len as usize] = c;
            self.len += 1;
        } else {
            self.overflowed = true;
        }
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let n = args.n;
    let margin = args.margin;
    let mut boxes = workloads::generate(Family::Dense, n, 1994).boxes;
    let mut rng = Rng::new(1994);
    let mut motion = Motion::random(&mut rng, n, 0.1);
    let hot_ids = motion.moving.clone();
    let mut hot_of = vec![u32::MAX; n];
    for (k, &i) in hot_ids.iter().enumerate() {
        hot_of[i as usize] = k as u32;
    }
    // Still objects' boxes in row order (rows of 32 px, by min x), reached
    // through a position per handle, as the grid's layout is.
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (bx(&boxes[a as usize]), bx(&boxes[b as usize]));
        ((a[1] / 32.0).floor(), a[0])
            .partial_cmp(&((b[1] / 32.0).floor(), b[0]))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut place = vec![0u32; n];
    let mut still: Vec<Bx> = Vec::with_capacity(n);
    for (p, &i) in order.iter().enumerate() {
        place[i as usize] = p as u32;
        still.push(bx(&boxes[i as usize]));
    }
    // Every object at its anchor: still ones exact, hot ones as of their
    // last refit.
    let mut anchors = Grid::new();
    anchors.rebuild(&boxes)?;
    let mut hot = vec![
        Hot {
            fat: [0.0; 4],
            moved: false,
            refit: true,
            overflowed: false,
            len: 0,
            candidates: [0; CANDIDATES],
        };
        hot_ids.len()
    ];
    let mut exact: Vec<Bx> = hot_ids.iter().map(|&i| bx(&boxes[i as usize])).collect();
    let mut refits: Vec<u32> = Vec::new();
    let mut found: Vec<Handle> = Vec::new();
    let mut out: Vec<Pair> = Vec::new();
    // The grid as the benchmark drives it, and a rebuilt one.
    let mut grid = Grid::new();
    grid.rebuild(&boxes)?;
    grid.forget_moved();
    let mut fresh = Grid::new();
    let mut moved = Vec::new();
    let mut times: [Vec<f64>; 6] = Default::default();
    let (mut refit_count, mut overflowed, mut candidates, mut short) =
        (0usize, 0usize, 0usize, 0usize);
    let warm = 3;
    for frame in 0..args.frames + warm {
        motion.step(&mut boxes, &mut moved);
        out.clear();
        // Updates: write the box; a move out of the fat box refits.
        let t = Instant::now();
        refits.clear();
        for &i in &moved {
            let k = hot_of[i as usize] as usize;
            let b = bx(&boxes[i as usize]);
            exact[k] = b;
            let e = &mut hot[k];
            e.moved = true;
            if e.refit || !inside(&b, &e.fat) {
                e.refit = true;
                refits.push(k as u32);
            }
        }
        let t_update = ms(t);
        // Refits: anchors first, so that refits find each other's new
        // fat boxes, then the new lists (a hot object found adds the
        // refitted one to its own list too).
        let t = Instant::now();
        for &k in &refits {
            let k = k as usize;
            let h = anchors.handle(hot_ids[k]).context("an anchor's handle")?;
            anchors.update(h, aabb(&exact[k])?)?;
            hot[k].fat = grown(&exact[k], margin);
        }
        anchors.forget_moved();
        for &k in &refits {
            let k = k as usize;
            let fat = hot[k].fat;
            found.clear();
            // Another hot object's anchor lies within `margin` of its fat box.
            anchors.query_region(&aabb(&grown(&fat, margin))?, &mut found)?;
            let (e, id) = (&mut hot[k], hot_ids[k]);
            e.len = 0;
            e.overflowed = false;
            e.refit = false;
            for c in found.iter().map(|h| h.index()).filter(|&c| c != id) {
                match hot_of[c as usize] {
                    u32::MAX if overlaps(&still[place[c as usize] as usize], &fat) => hot[k].add(c),
                    u32::MAX => {}
                    j if overlaps(&hot[j as usize].fat, &fat) => {
                        hot[k].add(c);
                        hot[j as usize].add(id);
                    }
                    _ => {}
                }
            }
        }
        let t_refit = ms(t);
        // The moved-pairs query: each moved object against its list; a
        // pair of two moved objects from the lower handle only.
        let t = Instant::now();
        for (k, e) in hot.iter().enumerate() {
            if !e.moved {
                continue;
            }
            let (a, id) = (&exact[k], hot_ids[k]);
            for &c in &e.candidates[..e.len as usize] {
                let b = match hot_of[c as usize] {
                    u32::MAX => still[place[c as usize] as usize],
                    j if hot[j as usize].moved && c < id => continue,
                    j => exact[j as usize],
                };
                if overlaps(a, &b) {
                    out.push(Pair::ordered(id, c));
                }
            }
        }
        let t_lists = ms(t);
        for e in &mut hot {
            e.moved = false;
        }
        let t_hot = t_update + t_refit + t_lists;
        let hot_pairs = out.len();

        // The grid, as the benchmark's incremental frame drives it.
        out.clear();
        let t = Instant::now();
        for &i in &moved {
            let h = grid.handle(i).context("a handle")?;
            grid.update(h, boxes[i as usize])?;
        }
        grid.find_moved_pairs(&mut out)?;
        let t_grid = ms(t);
        let grid_pairs = out.len();
        out.clear();
        let t = Instant::now();
        fresh.rebuild(&boxes)?;
        fresh.find_all_pairs(&mut out)?;
        let t_rebuild = ms(t);
        if frame >= warm {
            for (v, x) in times
                .iter_mut()
                .zip([t_update, t_refit, t_lists, t_hot, t_grid, t_rebuild])
            {
                v.push(x);
            }
            refit_count += refits.len();
            overflowed += hot.iter().filter(|e| e.overflowed).count();
            candidates += hot.iter().map(|e| e.len as usize).sum::<usize>();
            short += grid_pairs.saturating_sub(hot_pairs);
        }
    }
    let frames = args.frames.max(1) as f64;
    let per_hot = |x: usize| x as f64 / frames / hot_ids.len().max(1) as f64;
    let [u, r, l, h, g, b] = times.map(median);
    println!(
        "n = {n}, dense, {} moving, margin {margin} px; medians of {} frames, ms",
        hot_ids.len(),
        args.frames
    );
    println!(
        "hot set: updates {u:.4}, refits {r:.4} ({:.1}% of moves; public query_region), list tests {l:.4}; frame {h:.4}",
        per_hot(refit_count) * 100.0
    );
    println!(
        "lists: {:.2} candidates each, {:.1}% overflowed (not handled: {:.1} pairs a frame short of the grid's)",
        per_hot(candidates),
        per_hot(overflowed) * 100.0,
        short as f64 / frames
    );
    println!(
        "grid: updates + find_moved_pairs {g:.4}; rebuild + find_all_pairs {b:.4}; list tests / grid frame {:.2}",
        l / g
    );
    Ok(())
}
