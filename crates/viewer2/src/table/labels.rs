//! Which labels of the light table show: each takes its rectangle on the
//! screen, and one that would overlap a label already placed is left out,
//! in order of priority, so names never pile up over each other. The
//! hovered card's name comes first (its full name is always readable),
//! then the selected, then open trays' titles, then stacks by size.

use std::cmp::Reverse;

/// Why a label matters, most first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Standing {
    /// The card or tray under the pointer.
    Hovered,
    /// A selected card.
    Selected,
    /// An open tray's title.
    Tray,
    /// A closed stack's name.
    Stack,
}

/// A label that may show: its rectangle on the screen (`min`, `max`), its
/// standing, and its size (photos in it: bigger stacks first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The rectangle's top-left corner.
    pub min: [f32; 2],
    /// The rectangle's bottom-right corner.
    pub max: [f32; 2],
    /// Its standing.
    pub standing: Standing,
    /// How many photos it names.
    pub size: u32,
}

impl Candidate {
    fn overlaps(&self, other: &Candidate) -> bool {
        self.min[0] < other.max[0]
            && other.min[0] < self.max[0]
            && self.min[1] < other.max[1]
            && other.min[1] < self.max[1]
    }
}

/// Which candidates show: `true` for each that does. The first by
/// standing, then size, then order given, always shows; each later one
/// shows unless it overlaps one that shows.
pub fn place(candidates: &[Candidate]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| (candidates[i].standing, Reverse(candidates[i].size), i));
    let mut shown = vec![false; candidates.len()];
    let mut placed: Vec<usize> = Vec::new();
    for i in order {
        let c = &candidates[i];
        if placed.iter().all(|&p| !candidates[p].overlaps(c)) {
            shown[i] = true;
            placed.push(i);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn candidate() -> impl Strategy<Value = Candidate> {
        (
            0.0f32..400.0,
            0.0f32..300.0,
            1.0f32..120.0,
            1.0f32..30.0,
            0u8..4,
            0u32..50,
        )
            .prop_map(|(x, y, w, h, s, size)| Candidate {
                min: [x, y],
                max: [x + w, y + h],
                standing: [
                    Standing::Hovered,
                    Standing::Selected,
                    Standing::Tray,
                    Standing::Stack,
                ][s as usize],
                size,
            })
    }

    proptest! {
        /// No two shown labels overlap; every label left out overlaps a
        /// shown one that stands before it; the first always shows.
        #[test]
        fn shown_labels_never_overlap_and_none_is_left_out_for_nothing(
            cs in prop::collection::vec(candidate(), 0..40),
        ) {
            let shown = place(&cs);
            let rank = |i: usize| (cs[i].standing, Reverse(cs[i].size), i);
            for i in 0..cs.len() {
                for j in 0..cs.len() {
                    if i != j && shown[i] && shown[j] {
                        prop_assert!(!cs[i].overlaps(&cs[j]), "{} and {} overlap", i, j);
                    }
                }
                if !shown[i] {
                    prop_assert!(
                        (0..cs.len()).any(|j| shown[j] && rank(j) < rank(i) && cs[j].overlaps(&cs[i])),
                        "{} left out for nothing", i
                    );
                }
            }
            if let Some(first) = (0..cs.len()).min_by_key(|&i| rank(i)) {
                prop_assert!(shown[first]);
            }
        }
    }
}
