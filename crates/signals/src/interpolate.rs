//! Interpolation between samples: linear, cubic Hermite and Catmull-Rom
//! (uniform, and over uneven sample times).

use crate::space::{Space, Vector};

/// `a + (b − a)·t`; t = 0 gives `a`, t = 1 gives `b` exactly.
#[inline]
pub fn lerp<V: Vector>(a: V, b: V, t: f64) -> V {
    if t == 1.0 {
        b
    } else {
        a.add(b.sub(a).scale_f64(t))
    }
}

/// The cubic Hermite curve from `p0` (tangent `m0`) to `p1` (tangent `m1`),
/// at `t` in [0, 1]. Tangents are per unit of `t`: for samples `h` seconds
/// apart with velocities `v`, pass `v·h`.
#[inline]
pub fn hermite<V: Vector>(p0: V, m0: V, p1: V, m1: V, t: f64) -> V {
    let t2 = t * t;
    let t3 = t2 * t;
    let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
    let h10 = t3 - 2.0 * t2 + t;
    let h01 = -2.0 * t3 + 3.0 * t2;
    let h11 = t3 - t2;
    p0.scale_f64(h00)
        .add(m0.scale_f64(h10))
        .add(p1.scale_f64(h01))
        .add(m1.scale_f64(h11))
}

/// Uniform Catmull-Rom between `p1` and `p2` at `t` in [0, 1], with `p0` and
/// `p3` the neighbours: passes through every sample, C¹.
#[inline]
pub fn catmull_rom<V: Vector>(p0: V, p1: V, p2: V, p3: V, t: f64) -> V {
    let m1 = p2.sub(p0).scale_f64(0.5);
    let m2 = p3.sub(p1).scale_f64(0.5);
    hermite(p1, m1, p2, m2, t)
}

/// Catmull-Rom over samples at uneven times `times[0] < times[1] < times[2] < times[3]`,
/// evaluated at `time` between `times[1]` and `times[2]` (tangents by
/// finite differences over the neighbours' times). Returns `None` if the
/// times are not increasing.
pub fn catmull_rom_timed<V: Vector>(points: [V; 4], times: [f64; 4], time: f64) -> Option<V> {
    let [t0, t1, t2, t3] = times;
    if !(t0 < t1 && t1 < t2 && t2 < t3) {
        return None;
    }
    let [p0, p1, p2, p3] = points;
    let h = t2 - t1;
    let m1 = p2.sub(p0).scale_f64(h / (t2 - t0));
    let m2 = p3.sub(p1).scale_f64(h / (t3 - t1));
    Some(hermite(p1, m1, p2, m2, (time - t1) / h))
}

/// Linear interpolation in any [`Space`]: the short way for angles, the
/// geodesic (slerp) for rotations.
#[inline]
pub fn interpolate<S: Space>(a: S, b: S, t: f64) -> S {
    a.offset(b.difference(a).scale_f64(t))
}
