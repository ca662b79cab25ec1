//! Moertel's claims about his own method, checked.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

use collide::moertel::{self, CRand};
use collide::{AdjacentSectors, BroadPhase, BruteForce, Pair, SectorMode, Sectors};

fn run(bp: &mut dyn BroadPhase, boxes: &[collide::Aabb]) -> Vec<Pair> {
    let mut out = Vec::new();
    bp.find_pairs(boxes, &mut out).unwrap();
    out
}

/// "If you have two objects directly on top of each other ... this
/// particular collision will be reported four times."
#[test]
fn two_coincident_objects_are_reported_four_times() {
    for (x, y) in [(0, 0), (31, 31), (63, 17), (600, 440)] {
        let b = moertel::sprite(x, y);
        let mut raw = Sectors::new(64.0, SectorMode::Raw).unwrap();
        assert_eq!(
            run(&mut raw, &[b, b]),
            [Pair { a: 0, b: 1 }; 4],
            "at ({x}, {y})"
        );
        assert_eq!(raw.last_stats().tests, 4);
        let mut exact = Sectors::new(64.0, SectorMode::Exact).unwrap();
        assert_eq!(run(&mut exact, &[b, b]), [Pair { a: 0, b: 1 }]);
    }
}

/// His integer sector index, `(x + off) >> kLog2SectorSize`.
fn his_sector(b: &collide::Aabb, xoff: i32, yoff: i32) -> (i32, i32) {
    (
        (b.min().x as i32 + xoff) >> 6,
        (b.min().y as i32 + yoff) >> 6,
    )
}

const HIS_SHIFTS: [(i32, i32); 4] = [(0, 0), (0, 32), (32, 0), (32, 32)];

/// His experiment at 200 objects, fixed seeds: the raw report count is, pair
/// by pair, the number of shifts in which both share a sector (computed here
/// with his integer arithmetic), and the test count is his Σ k(k-1)/2 over
/// every sector of every shift.
#[test]
fn raw_reports_and_tests_match_his_code_on_fixed_seeds() {
    for seed in [1u32, 2, 1994, 0xC0FFEE] {
        let boxes = moertel::random_sprites(&mut CRand::new(seed), 200);
        let mut raw = Sectors::new(moertel::SECTOR_SIZE, SectorMode::Raw).unwrap();
        let reports = run(&mut raw, &boxes);
        let truth = run(&mut BruteForce::new(), &boxes);

        let mut want_reports = 0usize;
        for p in &truth {
            let (a, b) = (&boxes[p.a as usize], &boxes[p.b as usize]);
            let shared = HIS_SHIFTS
                .iter()
                .filter(|&&(xo, yo)| his_sector(a, xo, yo) == his_sector(b, xo, yo))
                .count();
            assert!(shared >= 1, "four shifts find every collision");
            want_reports += shared;
            assert_eq!(reports.iter().filter(|q| *q == p).count(), shared);
        }
        assert_eq!(reports.len(), want_reports);

        let mut want_tests = 0u64;
        for &(xo, yo) in &HIS_SHIFTS {
            let mut counts = std::collections::HashMap::new();
            for b in &boxes {
                *counts.entry(his_sector(b, xo, yo)).or_insert(0u64) += 1;
            }
            want_tests += counts.values().map(|k| k * (k - 1) / 2).sum::<u64>();
        }
        assert_eq!(raw.last_stats().tests, want_tests, "seed {seed}");

        // Duplicates are real: more reports than collisions.
        assert!(reports.len() > truth.len());
        let mut exact = Sectors::new(moertel::SECTOR_SIZE, SectorMode::Exact).unwrap();
        let mut once = run(&mut exact, &boxes);
        once.sort_unstable();
        let mut truth = truth;
        truth.sort_unstable();
        assert_eq!(once, truth);
    }
}

/// The 9-sector method performs exactly his L(L-1)/2 tests per sector,
/// L being the objects in the 3×3 block around it.
#[test]
fn adjacent_sectors_performs_his_count_of_tests() {
    let boxes = moertel::random_sprites(&mut CRand::new(7), 200);
    let mut adj = AdjacentSectors::new(64.0).unwrap();
    run(&mut adj, &boxes);
    let mut counts = std::collections::HashMap::new();
    for b in &boxes {
        *counts.entry(his_sector(b, 0, 0)).or_insert(0u64) += 1;
    }
    let mut want = 0u64;
    let (xs, ys) = (
        counts.keys().map(|s| s.0).min().unwrap() - 1
            ..=counts.keys().map(|s| s.0).max().unwrap() + 1,
        counts.keys().map(|s| s.1).min().unwrap() - 1
            ..=counts.keys().map(|s| s.1).max().unwrap() + 1,
    );
    for sx in xs {
        for sy in ys.clone() {
            let l: u64 = (-1..=1)
                .flat_map(|dx| (-1..=1).map(move |dy| (sx + dx, sy + dy)))
                .map(|s| counts.get(&s).copied().unwrap_or(0))
                .sum();
            want += l * l.saturating_sub(1) / 2;
        }
    }
    assert_eq!(adj.last_stats().tests, want);
}
