//! What handing work to a second thread costs on this machine: regions of
//! two equal pieces of pure computation, run serially, as a rayon pair (the
//! caller on a 2-thread pool), and with a helper thread spinning on an
//! atomic (as `collide`'s thread team does between a call's passes). Then
//! how far the machine's two cores scale at all, on a loop of independent
//! floating-point chains.
//!
//! ```text
//! cargo run --release -p collide-bench --bin handoff
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use rayon::prelude::*;

/// Times two-piece regions three ways, then the cores' own scaling.
#[derive(Parser, Debug)]
struct Args {
    /// Regions timed per piece size.
    #[arg(long, default_value_t = 2000)]
    regions: usize,
}

/// A dependent chain of `n` multiply-adds (about 0.14 ns each here).
fn piece(n: u64) -> u64 {
    let mut x = n;
    for _ in 0..n {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    x
}

/// Microseconds per region of `regions` calls of `region`.
fn per_region(regions: usize, mut region: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..regions {
        region();
    }
    t.elapsed().as_secs_f64() * 1e6 / regions as f64
}

fn main() -> Result<()> {
    let args = Args::parse();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .context("building the thread pool")?;
    println!("two pieces a region, µs per region");
    println!("piece (iterations)     serial   rayon pair   spinning helper");
    for n in [10_000u64, 30_000, 100_000] {
        let serial = per_region(args.regions, || {
            black_box(piece(n) ^ piece(n + 1));
        });
        let rayon_pair = pool.install(|| {
            per_region(args.regions, || {
                let v: Vec<u64> = (0..2u64).into_par_iter().map(|i| piece(n + i)).collect();
                black_box(v);
            })
        });
        // The helper runs piece 1 of region `k` when `go` reaches `k`.
        let go = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let spinning = std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut seen = 0;
                while !stop.load(Ordering::Relaxed) {
                    let k = go.load(Ordering::Acquire);
                    if k == seen {
                        std::hint::spin_loop();
                        continue;
                    }
                    seen = k;
                    black_box(piece(n + 1));
                    done.store(k, Ordering::Release);
                }
            });
            let mut k = 0;
            let t = per_region(args.regions, || {
                k += 1;
                go.store(k, Ordering::Release);
                black_box(piece(n));
                while done.load(Ordering::Acquire) != k {
                    std::hint::spin_loop();
                }
            });
            stop.store(true, Ordering::Relaxed);
            t
        });
        println!("{n:>18} {serial:>10.2} {rayon_pair:>12.2} {spinning:>17.2}");
    }
    // One loop of 16 independent chains, alone and on both cores at once.
    let chains = || {
        let mut a = [1.0f64; 16];
        for i in 0..200_000_000u64 {
            for x in &mut a {
                *x = *x * 1.000_000_1 + i as f64 * 1e-9;
            }
        }
        black_box(a);
    };
    let t = Instant::now();
    chains();
    let one = t.elapsed().as_secs_f64();
    let t = Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(chains);
        chains();
    });
    let two = t.elapsed().as_secs_f64();
    println!(
        "\nthe cores' own scaling (16 independent chains): one {one:.3} s, two at once {two:.3} s: {:.2}×",
        2.0 * one / two
    );
    Ok(())
}
