//! Every broad phase against brute force, on random worlds of every family:
//! zero missed pairs, zero duplicates (in the exact modes), zero false ones.
//!
//! Case count: proptest's default (256) or `PROPTEST_CASES`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

mod common;

use collide::{
    AdjacentSectors, BroadPhase, Execution, Grid, GridConfig, Pair, SectorMode, Sectors,
    SweepAndPrune,
};
use common::*;
use proptest::prelude::*;

fn run(bp: &mut dyn BroadPhase, boxes: &[collide::Aabb]) -> Vec<Pair> {
    let mut out = Vec::new();
    bp.find_pairs(boxes, &mut out).expect("find_pairs");
    for p in &out {
        assert!(p.a < p.b, "pairs are ordered: {p:?}");
    }
    out
}

/// The exact methods report the brute-force set, each pair once.
fn check_exact(bp: &mut dyn BroadPhase, boxes: &[collide::Aabb]) -> Result<(), TestCaseError> {
    let got = sorted(&run(bp, boxes));
    let want = oracle(boxes);
    prop_assert_eq!(got.len(), want.len(), "pair count");
    prop_assert_eq!(got, want);
    prop_assert_eq!(bp.last_stats().reported as usize, oracle(boxes).len());
    Ok(())
}

proptest! {
    #[test]
    fn grid_matches_brute_force(boxes in any_world()) {
        check_exact(&mut Grid::new(), &boxes)?;
    }

    #[test]
    fn sweep_and_prune_matches_brute_force(boxes in any_world()) {
        check_exact(&mut SweepAndPrune::new(), &boxes)?;
    }

    #[test]
    fn sectors_exact_matches_brute_force(boxes in any_world()) {
        let size = pow2_above(max_extent(&boxes), 2.0);
        check_exact(&mut Sectors::new(size, SectorMode::Exact).unwrap(), &boxes)?;
    }

    #[test]
    fn adjacent_sectors_matches_brute_force(boxes in any_world()) {
        let size = pow2_above(max_extent(&boxes), 1.0);
        check_exact(&mut AdjacentSectors::new(size).unwrap(), &boxes)?;
    }

    /// Raw mode finds the same pairs, each between one and four times, and
    /// exactly as often as the shifts in which both corners share a sector.
    #[test]
    fn sectors_raw_reports_each_pair_once_per_shared_shift(boxes in any_world()) {
        let size = pow2_above(max_extent(&boxes), 2.0);
        let raw = sorted(&run(&mut Sectors::new(size, SectorMode::Raw).unwrap(), &boxes));
        let mut distinct = raw.clone();
        distinct.dedup();
        prop_assert_eq!(&distinct, &oracle(&boxes));
        let inv = 1.0 / f64::from(size);
        let sector = |b: &collide::Aabb, sx: f64, sy: f64| {
            (
                (f64::from(b.min().x) * inv + sx).floor() as i64,
                (f64::from(b.min().y) * inv + sy).floor() as i64,
            )
        };
        for p in &distinct {
            let (a, b) = (&boxes[p.a as usize], &boxes[p.b as usize]);
            let shared = [(0.0, 0.0), (0.0, 0.5), (0.5, 0.0), (0.5, 0.5)]
                .iter()
                .filter(|&&(sx, sy)| sector(a, sx, sy) == sector(b, sx, sy))
                .count();
            let reported = raw.iter().filter(|q| *q == p).count();
            prop_assert!((1..=4).contains(&reported));
            prop_assert_eq!(reported, shared, "pair {:?}", p);
        }
    }

    /// The parallel grid gives the serial grid's pairs in the serial order,
    /// and the same test count, on 1 to 4 threads.
    #[test]
    fn parallel_grid_is_bit_identical(boxes in any_world(), threads in 1usize..=4) {
        let mut serial = Grid::new();
        let want = run(&mut serial, &boxes);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut par = Grid::with_config(GridConfig { execution: Execution::Parallel });
        let got = pool.install(|| run(&mut par, &boxes));
        prop_assert_eq!(got, want);
        prop_assert_eq!(par.last_stats(), serial.last_stats());
    }
}

/// Region and point queries against a scan of all boxes.
mod queries {
    use super::*;
    use collide::{Aabb, Vec2};

    proptest! {
        #[test]
        fn region_query_matches_scan(boxes in any_world(), q in (-400.0f32..4000.0, -400.0f32..4000.0, 0.0f32..600.0, 0.0f32..600.0)) {
            let mut grid = Grid::new();
            grid.rebuild(&boxes).unwrap();
            let region = Aabb::new([q.0, q.1], [q.0 + q.2, q.1 + q.3]).unwrap();
            let mut got = Vec::new();
            grid.query_region(&region, &mut got).unwrap();
            let mut got: Vec<u32> = got.iter().map(|h| h.index()).collect();
            got.sort_unstable();
            let want: Vec<u32> = (0..boxes.len() as u32).filter(|&i| boxes[i as usize].intersects(&region)).collect();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn point_query_matches_scan(boxes in any_world(), pick in any::<prop::sample::Index>(), corner in 0u8..5) {
            prop_assume!(!boxes.is_empty());
            // Points on corners and edges of a box must be found.
            let b = boxes[pick.index(boxes.len())];
            let p = match corner {
                0 => b.min(),
                1 => b.max(),
                2 => Vec2::new(b.min().x, b.max().y),
                3 => Vec2::new(b.max().x, b.min().y),
                _ => Vec2::new(b.min().x + (b.max().x - b.min().x) * 0.5, b.min().y),
            };
            let mut grid = Grid::new();
            grid.rebuild(&boxes).unwrap();
            let mut got = Vec::new();
            grid.query_point(p, &mut got).unwrap();
            let mut got: Vec<u32> = got.iter().map(|h| h.index()).collect();
            got.sort_unstable();
            let want: Vec<u32> = (0..boxes.len() as u32).filter(|&i| boxes[i as usize].contains_point(p)).collect();
            prop_assert_eq!(got, want);
        }
    }
}

/// Pairs between two grids against all |A|·|B| tests.
mod bipartite {
    use super::*;
    use collide::Filter;

    proptest! {
        #[test]
        fn pairs_between_match_brute_force(a in any_world(), b in any_world(), incremental in any::<bool>()) {
            let (mut ga, mut gb) = (Grid::new(), Grid::new());
            if incremental {
                // Objects inserted one by one stay pending until a relayout.
                for x in &a { ga.insert(*x).unwrap(); }
                for x in &b { gb.insert(*x).unwrap(); }
            } else {
                ga.rebuild(&a).unwrap();
                gb.rebuild(&b).unwrap();
            }
            let mut got = Vec::new();
            ga.find_pairs_between(&mut gb, &mut got).unwrap();
            got.sort_unstable();
            let mut want = Vec::new();
            for (i, x) in a.iter().enumerate() {
                for (j, y) in b.iter().enumerate() {
                    if x.intersects(y) {
                        want.push(Pair { a: i as u32, b: j as u32 });
                    }
                }
            }
            want.sort_unstable();
            prop_assert_eq!(got, want);
        }

        /// Filters inside the broad phase: "no enemy against enemy".
        #[test]
        fn filters_drop_exactly_the_disallowed_pairs(boxes in dense(), groups in proptest::collection::vec(0u8..3, 0..260)) {
            const PLAYER: u32 = 1;
            const ENEMY: u32 = 2;
            const WALL: u32 = 4;
            let filter_of = |i: usize| match groups.get(i).copied().unwrap_or(0) {
                0 => Filter { category: PLAYER, mask: ENEMY | WALL },
                1 => Filter { category: ENEMY, mask: PLAYER | WALL },
                _ => Filter { category: WALL, mask: PLAYER | ENEMY },
            };
            let mut grid = Grid::new();
            for (i, b) in boxes.iter().enumerate() {
                let h = grid.insert(*b).unwrap();
                grid.set_filter(h, filter_of(i)).unwrap();
            }
            let mut got = Vec::new();
            grid.find_all_pairs(&mut got).unwrap();
            got.sort_unstable();
            let want: Vec<Pair> = oracle(&boxes)
                .into_iter()
                .filter(|p| filter_of(p.a as usize).allows(filter_of(p.b as usize)))
                .collect();
            prop_assert_eq!(got, want);
        }
    }
}

#[test]
fn edges_touching_across_a_cell_border_are_one_pair() {
    // Two 32-px boxes meeting exactly on a row boundary, and a third
    // touching both at a corner.
    let boxes = [
        bx(0.0, 0.0, 32.0, 32.0),
        bx(0.0, 32.0, 32.0, 64.0),
        bx(32.0, 64.0, 40.0, 70.0),
    ];
    let mut out = Vec::new();
    Grid::new().find_pairs(&boxes, &mut out).unwrap();
    assert_eq!(sorted(&out), [Pair { a: 0, b: 1 }, Pair { a: 1, b: 2 }]);
}

#[test]
fn identical_objects_pair_once_in_exact_modes() {
    let b = bx(10.0, 10.0, 40.0, 40.0);
    let boxes = [b, b, b];
    let want = [
        Pair { a: 0, b: 1 },
        Pair { a: 0, b: 2 },
        Pair { a: 1, b: 2 },
    ];
    for bp in [
        &mut Grid::new() as &mut dyn BroadPhase,
        &mut Sectors::new(64.0, SectorMode::Exact).unwrap(),
        &mut AdjacentSectors::new(64.0).unwrap(),
        &mut SweepAndPrune::new(),
    ] {
        assert_eq!(sorted(&run(bp, &boxes)), want);
    }
}

#[test]
fn the_largest_boxes_f32_allows_still_pair() {
    let everything = bx(-f32::MAX, -f32::MAX, f32::MAX, f32::MAX);
    let speck = bx(1e30, -1e30, 1e30, -1e30);
    let other = bx(-3.0, -3.0, -2.0, -2.0);
    let boxes = [speck, everything, other];
    let mut out = Vec::new();
    Grid::new().find_pairs(&boxes, &mut out).unwrap();
    assert_eq!(sorted(&out), [Pair { a: 0, b: 1 }, Pair { a: 1, b: 2 }]);
}
