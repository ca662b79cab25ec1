//! One axis's map: where each source column (or row) lands in the output.
//!
//! The seed rotates a height field z = accumulated energy by θ and projects it
//! orthographically, so source column x lands at
//! `x' = x·cosθ + k·Z(x)·sinθ`, where Z is the accumulated energy scaled to
//! total W: each column's width is the blend `cosθ + k·e(x)·sinθ` of uniform
//! scaling and energy-proportional width.
//!
//! The separable mode takes that blend per axis, `w(x) = G·((1 − t) + t·e(x))`
//! with `G = target / source`, `e` the column's energy with mean 1 (floored),
//! and `t = k·sinθ / G` the share given to energy. `t` is chosen in closed
//! form per target as the most content-aware blend in which no column grows
//! while shrinking (nor shrinks while enlarging):
//!
//! `t = strength · (1/G − 1) / (e_max − 1)`, at most 1.
//!
//! `t` is negative when enlarging, which stretches low-energy columns most
//! (the seed's own enlarging branch stretches detail most). `G = 1` is the
//! identity, and `x'` never decreases when the target shrinks: animating the
//! size moves every pixel one way only (`∂x'/∂G = (x·e_max − Z(x))/(e_max − 1)
//! ≥ 0`).

use crate::error::{RetargetError, try_vec};

/// A monotone map of one axis: source line `i` covers `[edges[i],
/// edges[i+1])` in the output; `edges[0] = 0` and the last edge is the
/// target size.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisMap {
    edges: Vec<f64>,
}

impl AxisMap {
    /// Builds a map from per-line output widths (each ≥ 0).
    pub fn from_widths(widths: &[f64]) -> Result<Self, RetargetError> {
        let mut edges = try_vec(widths.len() + 1, 0.0f64, "axis map")?;
        let mut acc = 0.0;
        for (i, &w) in widths.iter().enumerate() {
            acc += w.max(0.0);
            edges[i + 1] = acc;
        }
        Ok(AxisMap { edges })
    }

    /// The identity map of `n` lines.
    pub fn identity(n: usize) -> Result<Self, RetargetError> {
        let mut edges = try_vec(n + 1, 0.0f64, "axis map")?;
        for (i, e) in edges.iter_mut().enumerate() {
            *e = i as f64;
        }
        Ok(AxisMap { edges })
    }

    /// The `n + 1` edges.
    pub fn edges(&self) -> &[f64] {
        &self.edges
    }
    /// Number of source lines.
    pub fn source_len(&self) -> usize {
        self.edges.len() - 1
    }
    /// Output size (the last edge).
    pub fn target_len(&self) -> f64 {
        self.edges[self.edges.len() - 1]
    }
    /// Width of source line `i` in the output.
    pub fn width(&self, i: usize) -> f64 {
        self.edges[i + 1] - self.edges[i]
    }

    /// Where the output coordinate `u` comes from in the source (the inverse
    /// map), `u` in `[0, target]`. Zero-width lines are skipped.
    pub fn inverse(&self, u: f64) -> f64 {
        let e = &self.edges;
        // The last line whose start is ≤ u and that has some width.
        let i = e
            .partition_point(|&v| v <= u)
            .saturating_sub(1)
            .min(e.len() - 2);
        let w = e[i + 1] - e[i];
        if w > 0.0 {
            i as f64 + ((u - e[i]) / w).clamp(0.0, 1.0)
        } else {
            (i + 1) as f64
        }
    }
}

/// Settings of the separable map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlendOptions {
    /// How much of the allowed content-awareness to use, 0 (uniform
    /// scaling) to 1.
    pub strength: f64,
    /// The floor mixed into the energy profile (see
    /// [`EnergyOptions::floor`](crate::EnergyOptions::floor)).
    pub floor: f64,
}

/// The separable map of one axis. `profile` is the energy of each line,
/// `protect` and `remove` flag lines (either may be empty for none).
///
/// Protected lines keep width 1 while the target leaves room for them.
/// When shrinking, removed lines give up their width first (all of it, once
/// the target is below the number of kept lines); the rest is blended.
pub fn separable_map(
    profile: &[f64],
    protect: &[bool],
    remove: &[bool],
    target: u32,
    opts: &BlendOptions,
) -> Result<AxisMap, RetargetError> {
    let n = profile.len();
    let flag = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    let is_protected = |i| flag(protect, i);
    let is_removed = |i| !is_protected(i) && flag(remove, i);
    let protected = (0..n).filter(|&i| is_protected(i)).count();
    let removed = (0..n).filter(|&i| is_removed(i)).count();
    let free = n - protected - removed;
    let target = f64::from(target);
    let mut widths = try_vec(n, 0.0f64, "line widths")?;

    // How much each class gets.
    let (w_protected, w_removed, free_total) = if target >= n as f64 {
        // Enlarging: removed lines are ordinary ones.
        (1.0, None, target - protected as f64)
    } else if target >= (n - removed) as f64 {
        let share = (target - (n - removed) as f64) / removed.max(1) as f64;
        (1.0, Some(share), free as f64)
    } else if target >= protected as f64 {
        (1.0, Some(0.0), target - protected as f64)
    } else {
        (target / protected as f64, Some(0.0), 0.0)
    };

    // Lines blended by energy.
    let blended: Vec<usize> = (0..n)
        .filter(|&i| !is_protected(i) && (w_removed.is_none() || !is_removed(i)))
        .collect();
    if !blended.is_empty() {
        let m = blended.len() as f64;
        let sum: f64 = blended.iter().map(|&i| profile[i].max(0.0)).sum();
        let scale = if sum > 0.0 && sum.is_finite() {
            m / sum
        } else {
            0.0
        };
        let floor = opts.floor.clamp(0.0, 1.0);
        // Energy with mean 1, floored: e = (1 − f)·ê + f (a flat profile is
        // all ones).
        let e = |i: usize| {
            if scale > 0.0 {
                (1.0 - floor) * profile[i].max(0.0) * scale + floor
            } else {
                1.0
            }
        };
        let e_max = blended.iter().map(|&i| e(i)).fold(1.0f64, f64::max);
        let g = free_total / m;
        let t = if e_max > 1.0 + 1e-12 && g > 0.0 {
            (opts.strength.clamp(0.0, 1.0) * (1.0 / g - 1.0) / (e_max - 1.0)).min(1.0)
        } else {
            0.0
        };
        for &i in &blended {
            widths[i] = g * ((1.0 - t) + t * e(i));
        }
    }
    for (i, w) in widths.iter_mut().enumerate() {
        if is_protected(i) {
            *w = w_protected;
        } else if is_removed(i)
            && let Some(share) = w_removed
        {
            *w = share;
        }
    }
    AxisMap::from_widths(&widths)
}
