//! Sampling a function of one variable for a graph: uniform samples,
//! refined where the curve bends, broken where it jumps (asymptotes, like
//! tan x at π/2) or is undefined (ln x for x ≤ 0).

/// A sampled graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Connected pieces of the curve, each a list of `[x, y]` points in
    /// increasing x.
    pub segments: Vec<Vec<[f64; 2]>>,
    /// The variable's range.
    pub x_range: (f64, f64),
    /// A y range that shows the curve without letting asymptotes flatten
    /// it (the 2nd to 98th percentile of the samples, widened by 10%).
    pub y_range: (f64, f64),
    /// Why sampling stopped before the end (the time limit), if it did:
    /// the segments are what was drawn until then.
    pub stopped: Option<String>,
}

/// How many times an interval may be halved where the curve bends.
const MAX_REFINE: u32 = 6;

/// Samples `f` on `[from, to]`: `n` uniform points, refined and broken as
/// described above. `f` answers `None` where the function is undefined.
pub fn sample(mut f: impl FnMut(f64) -> Option<f64>, from: f64, to: f64, n: usize) -> Graph {
    let n = n.max(2);
    let mut points: Vec<(f64, Option<f64>)> = (0..n)
        .map(|i| {
            let x = from + (to - from) * i as f64 / (n - 1) as f64;
            (x, f(x).filter(|y| y.is_finite()))
        })
        .collect();
    let (lo, hi) = robust_range(&points);
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let tolerance = span * 0.002;

    // Refine: halve intervals whose midpoint is far from the chord.
    let mut refined = Vec::with_capacity(points.len() * 2);
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        refined.push(a);
        refine(&mut f, a, b, tolerance, MAX_REFINE, &mut refined);
    }
    if let Some(last) = points.last() {
        refined.push(*last);
    }
    points = refined;

    // Split into segments at gaps and jumps.
    let mut segments: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut current: Vec<[f64; 2]> = Vec::new();
    for &(x, y) in &points {
        let Some(y) = y else {
            if current.len() > 1 {
                segments.push(std::mem::take(&mut current));
            }
            current.clear();
            continue;
        };
        if let Some(&[px, py]) = current.last()
            && jumps(&mut f, (px, py), (x, y), span)
        {
            if current.len() > 1 {
                segments.push(std::mem::take(&mut current));
            }
            current.clear();
        }
        current.push([x, y]);
    }
    if current.len() > 1 {
        segments.push(current);
    }
    let pad = (hi - lo) * 0.1;
    let y_range = if hi > lo {
        (lo - pad, hi + pad)
    } else {
        (lo - 1.0, hi + 1.0)
    };
    Graph {
        segments,
        x_range: (from, to),
        y_range,
        stopped: None,
    }
}

fn refine(
    f: &mut impl FnMut(f64) -> Option<f64>,
    a: (f64, Option<f64>),
    b: (f64, Option<f64>),
    tolerance: f64,
    depth: u32,
    out: &mut Vec<(f64, Option<f64>)>,
) {
    if depth == 0 {
        return;
    }
    let xm = (a.0 + b.0) / 2.0;
    let ym = f(xm).filter(|y| y.is_finite());
    let bends = match (a.1, ym, b.1) {
        (Some(ya), Some(y), Some(yb)) => (y - (ya + yb) / 2.0).abs() > tolerance,
        // An edge of the domain: find it more closely.
        (ya, y, yb) => ya.is_some() != y.is_some() || y.is_some() != yb.is_some(),
    };
    if !bends {
        return;
    }
    let m = (xm, ym);
    refine(f, a, m, tolerance, depth - 1, out);
    out.push(m);
    refine(f, m, b, tolerance, depth - 1, out);
}

/// Whether the curve jumps between two neighbouring samples: a large
/// step whose midpoint does not lie between the ends (a pole), rather
/// than a steep but continuous rise.
fn jumps(f: &mut impl FnMut(f64) -> Option<f64>, a: (f64, f64), b: (f64, f64), span: f64) -> bool {
    if (b.1 - a.1).abs() < span * 0.5 {
        return false;
    }
    match f((a.0 + b.0) / 2.0).filter(|y| y.is_finite()) {
        None => true,
        Some(m) => {
            let (lo, hi) = (a.1.min(b.1), a.1.max(b.1));
            m < lo || m > hi
        }
    }
}

/// The 2nd and 98th percentiles of the defined samples.
fn robust_range(points: &[(f64, Option<f64>)]) -> (f64, f64) {
    let mut ys: Vec<f64> = points.iter().filter_map(|p| p.1).collect();
    if ys.is_empty() {
        return (-1.0, 1.0);
    }
    ys.sort_by(f64::total_cmp);
    let at = |q: f64| ys[((ys.len() - 1) as f64 * q).round() as usize];
    (at(0.02), at(0.98))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tan_breaks_at_its_poles() {
        let g = sample(|x| Some(x.tan()), -4.0, 4.0, 400);
        // Poles at ±π/2 (and none elsewhere in range): three pieces.
        assert_eq!(
            g.segments.len(),
            3,
            "{:?}",
            g.segments.iter().map(Vec::len).collect::<Vec<_>>()
        );
        for s in &g.segments {
            assert!(s.windows(2).all(|w| w[0][0] < w[1][0]));
        }
    }

    #[test]
    fn a_steep_continuous_curve_is_not_broken() {
        let g = sample(|x| Some((50.0 * x).atan()), -1.0, 1.0, 200);
        assert_eq!(g.segments.len(), 1);
    }

    #[test]
    fn undefined_stretches_leave_gaps() {
        let g = sample(|x| (x > 0.0).then(|| x.ln()), -2.0, 2.0, 100);
        assert_eq!(g.segments.len(), 1);
        assert!(g.segments[0].iter().all(|p| p[0] > 0.0));
    }

    #[test]
    fn refinement_follows_a_sharp_bend() {
        // The kink at 0.3 falls between the uniform samples.
        let g = sample(|x| Some((x - 0.3).abs()), -1.0, 1.0, 10);
        let near = g.segments[0]
            .iter()
            .filter(|p| (p[0] - 0.3).abs() < 0.05)
            .count();
        assert!(near >= 3, "{near} points near the kink");
        let uniform = sample(|x| Some(2.0 * x), -1.0, 1.0, 10);
        assert_eq!(
            uniform.segments[0].len(),
            10,
            "a straight line needs no refinement"
        );
    }
}
