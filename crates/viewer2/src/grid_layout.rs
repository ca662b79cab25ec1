//! The grid's lines: group headers and rows of photos, each with where it
//! starts, so a grouped grid is drawn, scrolled and walked by line.
//!
//! A place is a photo's index in the result's rows; the groups (see
//! [`crate::library::Library::group`]) cover the rows in order. Without
//! groups the grid is one run of rows with no header.

use std::ops::Range;

use crate::library::Group;

/// One line of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// Group `group`'s header.
    Header {
        /// The group's index.
        group: u32,
    },
    /// Photos `start..end` side by side.
    Photos {
        /// The first place.
        start: u32,
        /// One past the last place.
        end: u32,
    },
}

/// The lines of a result laid out at a number of columns.
#[derive(Clone, Debug, Default)]
pub struct GridLayout {
    /// The lines, top to bottom.
    pub lines: Vec<Line>,
    /// Where each line starts, and after the last the total height.
    tops: Vec<f32>,
    /// The photo lines' indexes in `lines`, in order.
    photo_lines: Vec<u32>,
    places: usize,
}

impl GridLayout {
    /// `places` photos in `groups` (none: one run) at `cols` columns; a
    /// photo row takes `row_step` and a header `header_step`.
    pub fn new(
        places: usize,
        groups: &[Group],
        cols: usize,
        row_step: f32,
        header_step: f32,
    ) -> GridLayout {
        let cols = cols.max(1);
        let mut layout = GridLayout {
            places,
            ..GridLayout::default()
        };
        let mut y = 0.0f32;
        let mut push = |layout: &mut GridLayout, line: Line, step: f32| {
            if matches!(line, Line::Photos { .. }) {
                layout.photo_lines.push(layout.lines.len() as u32);
            }
            layout.lines.push(line);
            layout.tops.push(y);
            y += step;
        };
        let runs: Vec<(Option<u32>, usize, usize)> = if groups.is_empty() {
            vec![(None, 0, places)]
        } else {
            groups
                .iter()
                .enumerate()
                .map(|(g, group)| {
                    let end = groups.get(g + 1).map_or(places, |next| next.start as usize);
                    (
                        Some(g as u32),
                        (group.start as usize).min(places),
                        end.min(places),
                    )
                })
                .collect()
        };
        for (group, start, end) in runs {
            if let Some(group) = group {
                push(&mut layout, Line::Header { group }, header_step);
            }
            let mut at = start;
            while at < end {
                let to = (at + cols).min(end);
                push(
                    &mut layout,
                    Line::Photos {
                        start: at as u32,
                        end: to as u32,
                    },
                    row_step,
                );
                at = to;
            }
        }
        layout.tops.push(y);
        layout
    }

    /// The height of every line together.
    pub fn height(&self) -> f32 {
        self.tops.last().copied().unwrap_or(0.0)
    }

    /// Where line `line` starts.
    pub fn top(&self, line: usize) -> f32 {
        self.tops
            .get(line)
            .copied()
            .unwrap_or_else(|| self.height())
    }

    /// The lines that show between heights `from` and `to`.
    pub fn lines_between(&self, from: f32, to: f32) -> Range<usize> {
        let n = self.lines.len();
        // The first line ending below `from`.
        let first = self.tops[1..]
            .partition_point(|&bottom| bottom <= from)
            .min(n);
        let last = self.tops[..n].partition_point(|&top| top < to).max(first);
        first..last
    }

    /// The line showing place `place`.
    pub fn line_of(&self, place: usize) -> usize {
        let k = self
            .photo_lines
            .partition_point(|&l| match self.lines[l as usize] {
                Line::Photos { end, .. } => (end as usize) <= place,
                Line::Header { .. } => true,
            });
        self.photo_lines
            .get(k)
            .or(self.photo_lines.last())
            .map_or(0, |&l| l as usize)
    }

    /// The first place on line `line` or, for a header, on the next photo
    /// line; `None` past the last.
    pub fn first_place_from(&self, line: usize) -> Option<usize> {
        let k = self.photo_lines.partition_point(|&l| (l as usize) < line);
        match self.lines.get(*self.photo_lines.get(k)? as usize)? {
            Line::Photos { start, .. } => Some(*start as usize),
            Line::Header { .. } => None,
        }
    }

    /// The place `by` photo lines below `place` (above, negative), in the
    /// same column where that line is long enough, else its last; past
    /// the first line it is the first place, past the last the last.
    pub fn step(&self, place: usize, by: isize) -> usize {
        if self.places == 0 {
            return 0;
        }
        let line = self.line_of(place);
        let k = self.photo_lines.partition_point(|&l| (l as usize) < line) as isize;
        let Some(Line::Photos { start, .. }) = self.lines.get(line) else {
            return place.min(self.places - 1);
        };
        let col = place.saturating_sub(*start as usize);
        let target = k.saturating_add(by);
        if target < 0 {
            return 0;
        }
        match self
            .photo_lines
            .get(target as usize)
            .and_then(|&l| self.lines.get(l as usize))
        {
            Some(Line::Photos { start, end }) => (*start as usize + col).min(*end as usize - 1),
            _ => self.places - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn groups_of(sizes: &[usize]) -> (usize, Vec<Group>) {
        let mut start = 0;
        let mut groups = Vec::new();
        for (k, &n) in sizes.iter().enumerate() {
            groups.push(Group {
                key: k.to_string(),
                start: start as u32,
            });
            start += n;
        }
        (start, groups)
    }

    proptest! {
        /// Every place shows once, in order, each group under its header
        /// in rows of at most `cols`; the tops add up; a vertical step
        /// lands where a walk over the photo lines says.
        #[test]
        fn lines_cover_the_places_and_steps_walk_them(
            sizes in prop::collection::vec(1usize..12, 0..6),
            grouped in any::<bool>(),
            cols in 1usize..6,
            place in 0usize..64,
            by in -4isize..5,
        ) {
            let (n, groups) = groups_of(&sizes);
            let groups = if grouped { groups } else { Vec::new() };
            let layout = GridLayout::new(n, &groups, cols, 10.0, 3.0);
            let mut next = 0u32;
            let mut headers = 0;
            let mut photo_lines: Vec<(u32, u32)> = Vec::new();
            for (l, line) in layout.lines.iter().enumerate() {
                match *line {
                    Line::Header { group } => {
                        prop_assert_eq!(groups[group as usize].start, next);
                        prop_assert_eq!(group as usize, headers);
                        headers += 1;
                    }
                    Line::Photos { start, end } => {
                        prop_assert_eq!(start, next);
                        prop_assert!(end > start && (end - start) as usize <= cols);
                        next = end;
                        photo_lines.push((start, end));
                    }
                }
                let step = if matches!(line, Line::Header { .. }) { 3.0 } else { 10.0 };
                prop_assert_eq!(layout.top(l + 1) - layout.top(l), step);
            }
            prop_assert_eq!(next as usize, n);
            prop_assert_eq!(headers, groups.len());
            if n == 0 {
                return Ok(());
            }
            let place = place % n;
            let k = photo_lines.iter().position(|&(a, b)| (a as usize) <= place && place < b as usize).unwrap();
            prop_assert_eq!(layout.lines[layout.line_of(place)], Line::Photos { start: photo_lines[k].0, end: photo_lines[k].1 });
            let target = k as isize + by;
            let want = if target < 0 {
                0
            } else if target as usize >= photo_lines.len() {
                n - 1
            } else {
                let (a, b) = photo_lines[target as usize];
                (a as usize + place - photo_lines[k].0 as usize).min(b as usize - 1)
            };
            prop_assert_eq!(layout.step(place, by), want);
            // What shows between two heights: the lines overlapping them.
            let (from, to) = (place as f32 * 2.5, place as f32 * 2.5 + 17.0);
            let shown = layout.lines_between(from, to);
            for l in 0..layout.lines.len() {
                let overlaps = layout.top(l + 1) > from && layout.top(l) < to;
                prop_assert_eq!(shown.contains(&l), overlaps, "line {}", l);
            }
        }
    }

    /// Without groups the grid is rows of `cols`: a step down is `cols`
    /// places on, or the last place from the last full row.
    #[test]
    fn ungrouped_steps_are_whole_rows() {
        let layout = GridLayout::new(10, &[], 4, 10.0, 3.0);
        assert_eq!(layout.step(1, 1), 5);
        assert_eq!(layout.step(7, 1), 9);
        assert_eq!(layout.step(3, -1), 0);
        assert_eq!(layout.step(9, 1), 9);
        assert_eq!(layout.first_place_from(2), Some(8));
    }
}
