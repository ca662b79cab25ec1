//! The pair sequence of a fixed world is a fixed value: the same in debug and
//! release builds, on every run, and for the parallel grid on any number of
//! threads. The hashes below are snapshots: a change of the algorithm that
//! changes the order of pairs must update them (and say so).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

mod common;

use collide::{BroadPhase, Execution, Grid, GridConfig, Pair};

/// FNV-1a over the pairs in order.
fn hash(pairs: &[Pair]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for p in pairs {
        for b in p.a.to_le_bytes().into_iter().chain(p.b.to_le_bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn pairs_of(world: &[collide::Aabb], execution: Execution, threads: usize) -> Vec<Pair> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut grid = Grid::with_config(GridConfig { execution });
    let mut out = Vec::new();
    pool.install(|| grid.find_pairs(world, &mut out)).unwrap();
    out
}

#[test]
fn pair_sequences_are_fixed() {
    let worlds = [
        (
            "dense",
            common::fixed_dense_world(20_000, 1994),
            0x0e3c_0efe_e2d1_02b1u64,
        ),
        (
            "mixed",
            common::fixed_mixed_world(20_000, 1994),
            0x634a_2334_7aa6_6e25u64,
        ),
    ];
    for (name, world, want) in worlds {
        let serial = pairs_of(&world, Execution::Serial, 1);
        let got = hash(&serial);
        for threads in [1, 2, 3, 4] {
            assert_eq!(
                pairs_of(&world, Execution::Parallel, threads),
                serial,
                "{name}: parallel on {threads} threads"
            );
        }
        assert_eq!(
            got, want,
            "{name}: pair sequence hash changed ({got:#018x})"
        );
    }
}
