//! One axis's map: where each source column (or row) lands in the output.
//!
//! The seed rotates a height field z = accumulated energy by θ and projects it
//! orthographically, so source column x lands at
//! `x' = x·cosθ + k·Z(x)·sinθ`, where Z is the accumulated energy scaled to
//! total W: each column's width is the blend `cosθ + k·e(x)·sinθ` of uniform
//! scaling and energy-proportional width.
//!
//! The separable mode does this per axis, with one energy profile per
//! column (row), at θ = 90°, where each line's projected width is its share
//! of the energy, `k·e(x)`, and with that width capped at the line's own
//! (a line never grows while the image shrinks): `w(x) = min(1, k·e(x))`,
//! `k` solved exactly for the target (the most energetic lines saturate
//! first). Enlarging is the mirror image, `w(x) = max(1, μ/e(x))`: the least
//! energetic lines stretch (the seed's own enlarging branch stretches detail
//! most). `strength` < 1 blends with uniform scaling, as a smaller θ does.
//!
//! Each line's width only shrinks as the target shrinks, so animating the
//! size moves every pixel one way only, and the source size is the
//! identity.

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
        if e.len() < 2 {
            return 0.0;
        }
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
    let (w_protected, w_removed, free_total) = if target >= n as f64 && protected == n {
        // Enlarging with every line protected: they share the growth.
        (target / n as f64, None, 0.0)
    } else if target >= n as f64 {
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
        let m = blended.len();
        let sum: f64 = blended.iter().map(|&i| profile[i].max(0.0)).sum();
        let scale = if sum > 0.0 && sum.is_finite() {
            m as f64 / sum
        } else {
            0.0
        };
        let floor = opts.floor.clamp(0.0, 1.0);
        // Energy with mean 1, floored: e = (1 − f)·ê + f (a flat profile is
        // all ones).
        let e: Vec<f64> = blended
            .iter()
            .map(|&i| {
                if scale > 0.0 {
                    (1.0 - floor) * profile[i].max(0.0) * scale + floor
                } else {
                    1.0
                }
            })
            .collect();
        let g = free_total / m as f64;
        let fitted = if free_total <= m as f64 {
            fill_down(&e, free_total)?
        } else {
            fill_up(&e, free_total)?
        };
        let s = opts.strength.clamp(0.0, 1.0);
        for (k, &i) in blended.iter().enumerate() {
            widths[i] = (1.0 - s) * g + s * fitted[k];
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

/// Widths `min(1, k·e)` summing to `total` (≤ the count): the view at 90°,
/// each line's projected width its share of the energy, none wider than it
/// was. Solved exactly: the most energetic lines saturate first.
fn fill_down(e: &[f64], total: f64) -> Result<Vec<f64>, RetargetError> {
    let n = e.len();
    let mut order = try_vec(n, 0usize, "line order")?;
    for (i, o) in order.iter_mut().enumerate() {
        *o = i;
    }
    order.sort_by(|&a, &b| e[b].total_cmp(&e[a]));
    // rest[m] = energy of the lines after the m most energetic.
    let mut rest = try_vec(n + 1, 0.0f64, "line energies")?;
    for m in (0..n).rev() {
        rest[m] = rest[m + 1] + e[order[m]];
    }
    let mut out = try_vec(n, 0.0f64, "line widths")?;
    for m in 0..=n {
        // The m most energetic lines saturated; the rest share what is left.
        let left = total - m as f64;
        if left < 0.0 {
            break;
        }
        let k = if rest[m] > 0.0 {
            left / rest[m]
        } else {
            f64::INFINITY
        };
        let last_saturates = m == 0 || k * e[order[m - 1]] >= 1.0 - 1e-12;
        let next_fits = m == n || k * e[order[m]] <= 1.0 + 1e-12;
        if last_saturates && next_fits {
            for (idx, &i) in order.iter().enumerate() {
                out[i] = if idx < m {
                    1.0
                } else if k.is_finite() {
                    k * e[i]
                } else {
                    0.0
                };
            }
            return Ok(out);
        }
    }
    // Unreachable for total in [0, n]; uniform is the safe answer.
    out.fill(total / n as f64);
    Ok(out)
}

/// Widths `max(1, μ/e)` summing to `total` (≥ the count): enlarging
/// stretches the least energetic lines, none narrower than it was.
fn fill_up(e: &[f64], total: f64) -> Result<Vec<f64>, RetargetError> {
    let n = e.len();
    let inv: Vec<f64> = e.iter().map(|&v| 1.0 / v.max(1e-9)).collect();
    let mut order = try_vec(n, 0usize, "line order")?;
    for (i, o) in order.iter_mut().enumerate() {
        *o = i;
    }
    order.sort_by(|&a, &b| inv[b].total_cmp(&inv[a]));
    let mut out = try_vec(n, 1.0f64, "line widths")?;
    let mut top = 0.0;
    for m in 1..=n {
        // The m least energetic lines stretched; the rest stay 1.
        top += inv[order[m - 1]];
        let mu = (total - (n - m) as f64) / top;
        let last_stretches = mu * inv[order[m - 1]] >= 1.0 - 1e-12;
        let next_stays = m == n || mu * inv[order[m]] <= 1.0 + 1e-12;
        if last_stretches && next_stays {
            for (idx, &i) in order.iter().enumerate() {
                out[i] = if idx < m { mu * inv[i] } else { 1.0 };
            }
            return Ok(out);
        }
    }
    out.fill(total / n as f64);
    Ok(out)
}
