#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The atlas's bookkeeping against a plain model: at most `capacity`
//! holders, each in its own slot inside its page, and the farthest holder
//! giving way only to a nearer photo.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use viewer2::atlas::Atlas;

#[derive(Clone, Debug)]
enum Op {
    Insert(u64),
    Remove(u64),
    /// The view moved: new distances.
    Move(u64),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            6 => (0u64..40).prop_map(Op::Insert),
            1 => (0u64..40).prop_map(Op::Remove),
            1 => (0u64..40).prop_map(Op::Move),
        ],
        0..200,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn atlas_matches_the_model(ops in ops(), slots_per_side in 1u32..4, pages in 1u64..3) {
        let slot = 8;
        let side = slot * slots_per_side;
        let mut atlas = Atlas::new(pages * (side as u64).pow(2) * 4, side, slot);
        let capacity = (pages * (slots_per_side as u64).pow(2)) as usize;
        prop_assert_eq!(atlas.capacity(), capacity);
        prop_assert_eq!(atlas.bytes(), pages * (side as u64).pow(2) * 4);
        let mut held: HashSet<u64> = HashSet::new();
        // The view's centre: distance is |id - centre|.
        let mut centre = 0u64;
        for op in ops {
            let distance = |id: u64| id.abs_diff(centre);
            match op {
                Op::Insert(id) => {
                    let got = atlas.insert(id, distance);
                    if held.contains(&id) {
                        prop_assert_eq!(got.map(|g| g.1), Some(None));
                    } else if held.len() < capacity {
                        prop_assert_eq!(got.map(|g| g.1), Some(None));
                        held.insert(id);
                    } else {
                        let farthest = held.iter().map(|&h| distance(h)).max().unwrap();
                        match got {
                            None => prop_assert!(farthest <= distance(id)),
                            Some((_, evicted)) => {
                                let evicted = evicted.unwrap();
                                prop_assert!(held.remove(&evicted));
                                prop_assert_eq!(distance(evicted), farthest);
                                prop_assert!(farthest > distance(id));
                                held.insert(id);
                            }
                        }
                    }
                }
                Op::Remove(id) => {
                    atlas.remove(id);
                    held.remove(&id);
                }
                Op::Move(c) => centre = c,
            }
            prop_assert_eq!(atlas.len(), held.len());
            let mut places = HashMap::new();
            for &h in &held {
                let s = atlas.get(h).unwrap();
                prop_assert!((s.page as u64) < pages && s.x + slot <= side && s.y + slot <= side);
                prop_assert_eq!(s.x % slot, 0);
                prop_assert_eq!(s.y % slot, 0);
                prop_assert!(places.insert(s, h).is_none(), "two photos in one slot");
            }
            for id in 0..40 {
                prop_assert_eq!(atlas.get(id).is_some(), held.contains(&id));
            }
        }
    }
}

#[test]
fn a_budget_below_one_page_still_gets_one() {
    let atlas = Atlas::new(0, 64, 16);
    assert_eq!((atlas.pages(), atlas.capacity()), (1, 16));
}
