//! The incremental grid against a model: random sequences of inserts,
//! small moves (one at a time, or in bursts longer than the grid's update
//! lag), teleports, resizes, removals, filter changes, relayouts and
//! rebuilds. After every step the grid's invariants hold and every object's
//! box is the model's; at every query its pairs are exactly the model's
//! (all pairs, or pairs touching moved objects), a region query finds
//! exactly the model's objects, and a parallel grid fed the same steps
//! answers identically.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on failure

mod common;

use collide::{Aabb, CollideError, Execution, Filter, Grid, GridConfig, Handle, Pair};
use common::bx;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Insert(Aabb),
    Nudge(usize, i8, i8),
    /// Many nudges in a row: more than the updates that wait unapplied.
    Burst(Vec<(usize, i8, i8)>),
    Region(Aabb),
    Teleport(usize, Aabb),
    Resize(usize, u16, u16),
    Remove(usize),
    SetFilter(usize, u8),
    /// Marked as moved without a new box.
    Touch(usize),
    FindMoved,
    FindAll,
    Relayout,
    Rebuild,
}

/// Boxes in a small world so that objects meet: mostly 0–40 px, a few up to
/// 300 px, corners on a 4-px lattice half the time (touching, cell borders).
fn local_box() -> impl Strategy<Value = Aabb> {
    (
        -100i32..500,
        -100i32..500,
        prop_oneof![8 => 0u16..40, 1 => 40u16..300],
        prop_oneof![8 => 0u16..40, 1 => 40u16..300],
        any::<bool>(),
        0.0f32..1.0,
    )
        .prop_map(|(x, y, w, h, lattice, f)| {
            let (x, y) = if lattice {
                ((x & !3) as f32, (y & !3) as f32)
            } else {
                (x as f32 + f, y as f32 - f)
            };
            bx(x, y, x + f32::from(w), y + f32::from(h))
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => local_box().prop_map(Op::Insert),
        8 => (any::<usize>(), -3i8..=3, -3i8..=3).prop_map(|(k, dx, dy)| Op::Nudge(k, dx, dy)),
        1 => proptest::collection::vec((any::<usize>(), -3i8..=3, -3i8..=3), 10..60).prop_map(Op::Burst),
        2 => local_box().prop_map(Op::Region),
        2 => (any::<usize>(), local_box()).prop_map(|(k, b)| Op::Teleport(k, b)),
        1 => (any::<usize>(), 0u16..80, 0u16..80).prop_map(|(k, w, h)| Op::Resize(k, w, h)),
        2 => any::<usize>().prop_map(Op::Remove),
        1 => (any::<usize>(), 0u8..4).prop_map(|(k, f)| Op::SetFilter(k, f)),
        1 => any::<usize>().prop_map(Op::Touch),
        2 => Just(Op::FindMoved),
        1 => Just(Op::FindAll),
        1 => Just(Op::Relayout),
        1 => Just(Op::Rebuild),
    ]
}

fn filter_code(f: u8) -> Filter {
    match f {
        0 => Filter::DEFAULT,
        1 => Filter {
            category: 2,
            mask: !2,
        },
        2 => Filter {
            category: 4,
            mask: u32::MAX,
        },
        _ => Filter {
            category: 8,
            mask: 1,
        },
    }
}

#[derive(Clone, Debug)]
struct Obj {
    handle: collide::Handle,
    aabb: Aabb,
    filter: Filter,
    moved: bool,
}

fn model_pairs(objs: &[Obj], moved_only: bool) -> Vec<Pair> {
    let mut v = Vec::new();
    for (i, a) in objs.iter().enumerate() {
        for b in &objs[i + 1..] {
            if a.aabb.intersects(&b.aabb)
                && a.filter.allows(b.filter)
                && (!moved_only || a.moved || b.moved)
            {
                v.push(Pair::ordered(a.handle.index(), b.handle.index()));
            }
        }
    }
    v.sort_unstable();
    v
}

/// Moves `o` by (dx, dy) in both grids and the model.
fn nudge(grid: &mut Grid, par: &mut Grid, o: &mut Obj, dx: i8, dy: i8) {
    let (lo, hi) = (o.aabb.min(), o.aabb.max());
    let b = bx(
        lo.x + f32::from(dx),
        lo.y + f32::from(dy),
        hi.x + f32::from(dx),
        hi.y + f32::from(dy),
    );
    grid.update(o.handle, b).unwrap();
    par.update(o.handle, b).unwrap();
    o.moved |= b != o.aabb;
    o.aabb = b;
}

/// Applies `ops` to a serial and a parallel grid and the model.
fn run(initial: Vec<Aabb>, bulk: bool, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut grid = Grid::new();
    let mut par = Grid::with_config(GridConfig {
        execution: Execution::Parallel,
    });
    let mut objs: Vec<Obj> = Vec::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    if bulk {
        grid.rebuild(&initial).unwrap();
        par.rebuild(&initial).unwrap();
        for (i, b) in initial.iter().enumerate() {
            let handle = grid.handle(i as u32).unwrap();
            objs.push(Obj {
                handle,
                aabb: *b,
                filter: Filter::DEFAULT,
                moved: true,
            });
        }
    } else {
        for b in &initial {
            let handle = grid.insert(*b).unwrap();
            prop_assert_eq!(par.insert(*b).unwrap(), handle);
            objs.push(Obj {
                handle,
                aabb: *b,
                filter: Filter::DEFAULT,
                moved: true,
            });
        }
    }
    let mut removed: Vec<collide::Handle> = Vec::new();
    for op in ops {
        let pick = |k: usize| {
            if objs.is_empty() {
                None
            } else {
                Some(k % objs.len())
            }
        };
        match op {
            Op::Insert(b) => {
                let handle = grid.insert(b).unwrap();
                prop_assert_eq!(par.insert(b).unwrap(), handle);
                objs.push(Obj {
                    handle,
                    aabb: b,
                    filter: Filter::DEFAULT,
                    moved: true,
                });
            }
            Op::Nudge(k, ..) | Op::Resize(k, ..) if pick(k).is_none() => {}
            Op::Nudge(k, dx, dy) => {
                let n = objs.len();
                nudge(&mut grid, &mut par, &mut objs[k % n], dx, dy);
            }
            Op::Burst(moves) => {
                for (k, dx, dy) in moves {
                    if !objs.is_empty() {
                        let n = objs.len();
                        nudge(&mut grid, &mut par, &mut objs[k % n], dx, dy);
                    }
                }
            }
            Op::Region(region) => {
                let mut got: Vec<u32> = Vec::new();
                let mut handles = Vec::new();
                grid.query_region(&region, &mut handles).unwrap();
                for h in handles {
                    prop_assert!(grid.get(h).is_some(), "a live handle");
                    got.push(h.index());
                }
                got.sort_unstable();
                let mut want: Vec<u32> = objs
                    .iter()
                    .filter(|o| o.aabb.intersects(&region))
                    .map(|o| o.handle.index())
                    .collect();
                want.sort_unstable();
                prop_assert_eq!(got, want, "region query");
            }
            Op::Resize(k, w, h) => {
                let n = objs.len();
                let o = &mut objs[k % n];
                let lo = o.aabb.min();
                let b = bx(lo.x, lo.y, lo.x + f32::from(w), lo.y + f32::from(h));
                grid.update(o.handle, b).unwrap();
                par.update(o.handle, b).unwrap();
                o.moved |= b != o.aabb;
                o.aabb = b;
            }
            Op::Teleport(k, b) => {
                if let Some(k) = pick(k) {
                    let o = &mut objs[k];
                    grid.update(o.handle, b).unwrap();
                    par.update(o.handle, b).unwrap();
                    o.moved |= b != o.aabb;
                    o.aabb = b;
                }
            }
            Op::Remove(k) => {
                if let Some(k) = pick(k) {
                    let o = objs.swap_remove(k);
                    prop_assert_eq!(grid.remove(o.handle).unwrap(), o.aabb);
                    par.remove(o.handle).unwrap();
                    removed.push(o.handle);
                }
            }
            Op::SetFilter(k, f) => {
                if let Some(k) = pick(k) {
                    let o = &mut objs[k];
                    o.filter = filter_code(f);
                    grid.set_filter(o.handle, o.filter).unwrap();
                    par.set_filter(o.handle, o.filter).unwrap();
                }
            }
            Op::Touch(k) => {
                if let Some(k) = pick(k) {
                    let o = &mut objs[k];
                    grid.touch(o.handle).unwrap();
                    par.touch(o.handle).unwrap();
                    o.moved = true;
                }
            }
            Op::FindMoved => {
                let mut got = Vec::new();
                grid.find_moved_pairs(&mut got).unwrap();
                let mut got_par = Vec::new();
                pool.install(|| par.find_moved_pairs(&mut got_par)).unwrap();
                prop_assert_eq!(&got_par, &got, "parallel moved pairs differ");
                got.sort_unstable();
                let before = got.len();
                got.dedup();
                prop_assert_eq!(before, got.len(), "duplicate moved pair");
                prop_assert_eq!(got, model_pairs(&objs, true));
                for o in &mut objs {
                    o.moved = false;
                }
            }
            Op::FindAll => {
                let mut got = Vec::new();
                grid.find_all_pairs(&mut got).unwrap();
                let mut got_par = Vec::new();
                pool.install(|| par.find_all_pairs(&mut got_par)).unwrap();
                prop_assert_eq!(&got_par, &got, "parallel pairs differ");
                got.sort_unstable();
                prop_assert_eq!(got, model_pairs(&objs, false));
            }
            Op::Relayout => {
                grid.relayout_now().unwrap();
                par.relayout_now().unwrap();
            }
            Op::Rebuild => {
                let boxes: Vec<Aabb> = objs.iter().map(|o| o.aabb).collect();
                grid.rebuild(&boxes).unwrap();
                par.rebuild(&boxes).unwrap();
                removed.extend(objs.iter().map(|o| o.handle));
                for (i, o) in objs.iter_mut().enumerate() {
                    o.handle = grid.handle(i as u32).unwrap();
                    o.filter = Filter::DEFAULT;
                    o.moved = true;
                }
                // Every handle from before the rebuild is stale, even where
                // its index is reused.
                for h in &removed {
                    prop_assert_eq!(grid.get(*h), None, "a handle from before a rebuild");
                }
            }
        }
        grid.validate();
        prop_assert_eq!(grid.len(), objs.len());
        for o in &objs {
            prop_assert_eq!(grid.get(o.handle), Some(o.aabb));
        }
    }
    // Every removed handle is stale now.
    for h in removed {
        if objs.iter().any(|o| o.handle == h) {
            continue;
        }
        prop_assert_eq!(grid.get(h), None);
        let stale_update = matches!(
            grid.update(h, bx(0.0, 0.0, 1.0, 1.0)),
            Err(CollideError::StaleHandle { .. })
        );
        prop_assert!(stale_update, "update through a stale handle");
        let stale_remove = matches!(grid.remove(h), Err(CollideError::StaleHandle { .. }));
        prop_assert!(stale_remove, "remove through a stale handle");
    }
    grid.validate();
    par.validate();
    Ok(())
}

proptest! {
    #[test]
    fn grid_follows_the_model(
        initial in proptest::collection::vec(local_box(), 0..200),
        bulk in any::<bool>(),
        ops in proptest::collection::vec(op(), 0..150),
    ) {
        run(initial, bulk, ops)?;
    }
}

#[test]
fn many_small_moves_after_a_relayout_are_filed_in_place() {
    // A dense world, relaid out with gaps, then many frames of small moves:
    // the moved pairs stay exact throughout.
    let boxes = common::fixed_dense_world(3000, 7);
    let mut grid = Grid::new();
    let handles: Vec<_> = boxes.iter().map(|b| grid.insert(*b).unwrap()).collect();
    let mut cur = boxes.clone();
    let mut out = Vec::new();
    grid.find_moved_pairs(&mut out).unwrap();
    let mut rng = common::SplitMix(99);
    for frame in 0..30 {
        for (i, h) in handles.iter().enumerate() {
            if !(i + frame).is_multiple_of(10) {
                continue;
            }
            let (dx, dy) = (rng.unit() * 4.0 - 2.0, rng.unit() * 4.0 - 2.0);
            let (lo, hi) = (cur[i].min(), cur[i].max());
            cur[i] = bx(lo.x + dx, lo.y + dy, hi.x + dx, hi.y + dy);
            grid.update(*h, cur[i]).unwrap();
        }
        out.clear();
        grid.find_moved_pairs(&mut out).unwrap();
        let moved = |k: usize| (k + frame).is_multiple_of(10);
        let mut want: Vec<Pair> = common::oracle(&cur)
            .into_iter()
            .filter(|p| moved(p.a as usize) || moved(p.b as usize))
            .collect();
        want.sort_unstable();
        assert_eq!(common::sorted(&out), want, "frame {frame}");
        grid.validate();
    }
}

#[test]
fn moves_far_out_where_the_finest_rows_saturate() {
    // Tiny objects give the grid a level of rows 2^-10 high; at y = 2^60
    // their row keys saturate, so rows there no longer nest. A big object
    // moving there across rows of its own (coarse) level must change rows.
    let mut grid = Grid::new();
    for k in 0..200 {
        let x = k as f32 * 0.01;
        grid.insert(bx(x, 0.0, x + 0.001, 0.001)).unwrap();
    }
    let far = 2f32.powi(60);
    let h = 3.0 * 2f32.powi(39); // not a power of two: the cheap same-height test applies
    let big = grid.insert(bx(0.0, far, h, far + h)).unwrap();
    let jump = 2f32.powi(45);
    let partner = grid.insert(bx(0.0, far + jump, h, far + jump + h)).unwrap();
    grid.relayout_now().unwrap();
    grid.validate();
    let mut out = Vec::new();
    grid.find_all_pairs(&mut out).unwrap();
    assert!(!out.iter().any(|p| p.b == big.index() || p.a == big.index()));
    grid.update(big, bx(0.0, far + jump, h, far + jump + h))
        .unwrap();
    out.clear();
    grid.find_all_pairs(&mut out).unwrap();
    grid.validate();
    assert!(
        out.contains(&Pair::ordered(big.index(), partner.index())),
        "{out:?}"
    );
}

#[test]
fn pending_objects_are_swept_not_tested_each_against_each() {
    let boxes = common::fixed_dense_world(3000, 3);
    let mut grid = Grid::new();
    grid.rebuild(&boxes).unwrap();
    grid.relayout_now().unwrap();
    let mut out = Vec::new();
    grid.find_all_pairs(&mut out).unwrap();
    let layout_tests = grid.last_stats().tests;
    // Sixty objects taller than any level's rows, far from the rest, 100
    // px apart: no row can take them, so they wait as pending objects, and
    // none meets another.
    for k in 0..60 {
        let x = k as f32 * 100.0;
        grid.insert(bx(x, 1e6, x + 10.0, 1e6 + 1000.0)).unwrap();
    }
    out.clear();
    grid.find_all_pairs(&mut out).unwrap();
    grid.validate();
    let extra = grid.last_stats().tests - layout_tests;
    // Each against each would be 1,770 tests.
    assert!(extra <= 60, "{extra} tests for 60 pending objects");
}

#[test]
fn a_far_excursion_does_not_widen_windows_for_good() {
    // Two rows of objects. One goes far right and comes back: on its way
    // back every neighbour it passes takes its far reach, so windows into
    // its row would reach back to the row's start from then on.
    let mut grid = Grid::new();
    let handles: Vec<_> = (0..400)
        .map(|k| {
            let (x, y) = ((k % 200) as f32 * 20.0, (k / 200) as f32 * 16.0);
            grid.insert(bx(x, y, x + 10.0, y + 10.0)).unwrap()
        })
        .collect();
    grid.relayout_now().unwrap();
    let mut out = Vec::new();
    grid.find_all_pairs(&mut out).unwrap();
    grid.forget_moved();
    // A frame of small moves: every fourth object of each row shifts by
    // 0 or 1 px.
    let frame = |grid: &mut Grid, t: usize| {
        for (k, &h) in handles.iter().enumerate().skip(1).step_by(4) {
            let x = (k % 200) as f32 * 20.0 + (t % 2) as f32;
            let y = (k / 200) as f32 * 16.0;
            grid.update(h, bx(x, y, x + 10.0, y + 10.0)).unwrap();
        }
        let mut out = Vec::new();
        grid.find_moved_pairs(&mut out).unwrap();
        grid.validate();
        grid.last_stats().tests
    };
    let calm = frame(&mut grid, 1);
    grid.update(handles[0], bx(100_000.0, 0.0, 100_010.0, 10.0))
        .unwrap();
    grid.find_moved_pairs(&mut out).unwrap();
    grid.update(handles[0], bx(0.0, 0.0, 10.0, 10.0)).unwrap();
    grid.find_moved_pairs(&mut out).unwrap();
    let after = (2..20).map(|t| frame(&mut grid, t)).last().unwrap();
    assert!(
        after <= 2 * calm,
        "{after} tests, {calm} before the excursion"
    );
}

#[test]
fn clear_and_rebuild_make_every_earlier_handle_stale() {
    let boxes: Vec<Aabb> = (0..5)
        .map(|k| bx(k as f32 * 20.0, 0.0, k as f32 * 20.0 + 10.0, 10.0))
        .collect();
    let mut grid = Grid::new();
    let first: Vec<Handle> = boxes.iter().map(|b| grid.insert(*b).unwrap()).collect();
    grid.remove(first[1]).unwrap();
    let stale = |grid: &mut Grid, h: Handle| {
        assert_eq!(grid.get(h), None, "{h:?}");
        assert!(matches!(
            grid.update(h, boxes[0]),
            Err(CollideError::StaleHandle { .. })
        ));
        assert!(matches!(
            grid.remove(h),
            Err(CollideError::StaleHandle { .. })
        ));
    };
    // Cleared: every slot comes back, under a new generation.
    grid.clear();
    for &h in &first {
        stale(&mut grid, h);
    }
    let second: Vec<Handle> = boxes.iter().map(|b| grid.insert(*b).unwrap()).collect();
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a.index(), b.index(), "slots are reused");
        assert_ne!(a, b);
    }
    // Rebuilt: handle i for box i, none of them an earlier handle.
    grid.rebuild(&boxes).unwrap();
    for &h in first.iter().chain(&second) {
        stale(&mut grid, h);
    }
    let third: Vec<Handle> = (0..5).map(|i| grid.handle(i).unwrap()).collect();
    for (i, h) in third.iter().enumerate() {
        assert_eq!(grid.get(*h), Some(boxes[i]));
        assert!(!first.contains(h) && !second.contains(h));
    }
    // Cleared right after a rebuild, before any handle was placed.
    grid.rebuild(&boxes).unwrap();
    let fourth = grid.handle(0).unwrap();
    grid.clear();
    stale(&mut grid, fourth);
    assert!(grid.is_empty());
    grid.validate();
}
