//! A yes/no overlap test for convex polyhedra by Gilbert–Johnson–Keerthi:
//! grow a simplex of the Minkowski difference B − A towards the origin
//! until a tetrahedron encloses it (overlap) or a support plane leaves it
//! outside (apart). A handful of support searches instead of every face
//! and edge pair, which is what makes it cheap on hulls with many faces.
//!
//! It answers only with a certificate that holds by a margin: apart when a
//! plane separates by more than `slack`, overlapping when the origin lies
//! `slack` inside a tetrahedron of the difference. When the origin lies
//! inside but near a face, the search goes on beyond that face. Pairs that
//! stay closer than the margin (touching, up to rounding), a degenerate
//! simplex, or running out of iterations give [`Verdict::Unsure`], and the
//! caller falls back to the separating-axis test, so the two never
//! disagree.

use crate::math::Real;
use crate::narrow3d::math3::{Transform3, Vec3};
use crate::narrow3d::polyhedron::ConvexPolyhedron;

/// What the test could prove.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    Apart,
    /// With a tetrahedron of B − A that holds the origin by the margin:
    /// where the penetration search starts.
    Overlap([Vec3; 4]),
    Unsure,
}

const MAX_ITERATIONS: usize = 64;

/// A vertex furthest along `dir`, by looking at every one. (The same
/// scan as the hull's, returning the point rather than its index: small
/// hulls' GJK ran ~60% slower through the index.)
#[inline]
fn furthest(vertices: &[Vec3], dir: Vec3) -> Vec3 {
    let mut best = vertices[0];
    let mut best_d = best.dot(dir);
    for &v in &vertices[1..] {
        let d = v.dot(dir);
        if d > best_d {
            best_d = d;
            best = v;
        }
    }
    best
}

/// Support points of the Minkowski difference B − A, with `b` placed in
/// `a`'s frame by `x`.
pub(crate) struct Difference<'s> {
    pub(crate) a: &'s ConvexPolyhedron,
    pub(crate) b: &'s ConvexPolyhedron,
    pub(crate) x: &'s Transform3,
    /// Climb from the last answer (for searches whose directions turn
    /// slowly) rather than from the directory of extreme vertices.
    pub(crate) warm: bool,
    last: Option<(u32, u32)>,
}

impl<'s> Difference<'s> {
    pub(crate) fn new(a: &'s ConvexPolyhedron, b: &'s ConvexPolyhedron, x: &'s Transform3) -> Self {
        Self {
            a,
            b,
            x,
            warm: false,
            last: None,
        }
    }

    /// The point of B − A furthest along `dir`.
    #[inline]
    pub(crate) fn support(&mut self, dir: Vec3) -> Vec3 {
        let (on_a, on_b) = self.support_pair(dir);
        on_b - on_a
    }

    /// The corners of A (furthest along `-dir`) and of B (along `dir`,
    /// placed in A's frame) whose difference is [`Self::support`].
    #[inline]
    pub(crate) fn support_pair(&mut self, dir: Vec3) -> (Vec3, Vec3) {
        if !(self.a.climbs() || self.b.climbs()) {
            let on_b = furthest(&self.b.vertices, self.x.rotation.apply_inverse(dir));
            return (furthest(&self.a.vertices, -dir), self.x.apply(on_b));
        }
        let (from_a, from_b) = match self.last.filter(|_| self.warm) {
            Some((ia, ib)) => (Some(ia), Some(ib)),
            None => (None, None),
        };
        let ia = self.a.support_index(-dir, from_a);
        let ib = self
            .b
            .support_index(self.x.rotation.apply_inverse(dir), from_b);
        self.last = Some((ia, ib));
        (
            self.a.vertices[ia as usize],
            self.x.apply(self.b.vertices[ib as usize]),
        )
    }
}

/// `a` in its frame against `b` placed in `a`'s frame by `x`.
pub(crate) fn overlap(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    x: &Transform3,
    slack: Real,
) -> Verdict {
    let mut difference = Difference::new(a, b, x);
    let mut support = |d: Vec3| difference.support(d);
    let mut dir = x.apply(b.centroid) - a.centroid;
    if dir.dot(dir) == 0.0 {
        dir = Vec3::new(1.0, 0.0, 0.0);
    }
    let mut simplex = [Vec3::ZERO; 4];
    simplex[0] = support(dir);
    let mut count = 1;
    dir = -simplex[0];
    for _ in 0..MAX_ITERATIONS {
        let len = dir.length();
        if !(len > 0.0 && len.is_finite()) {
            return Verdict::Unsure;
        }
        let p = support(dir);
        let reach = p.dot(dir);
        if reach < -slack * len {
            // Nothing of B − A gets within `slack` of the plane through the origin.
            return Verdict::Apart;
        }
        // (Apart by less than the margin along this direction: keep going,
        // a better direction may show more; the iteration cap ends it.)
        simplex[count] = p;
        count += 1;
        match step(&mut simplex, &mut count, slack) {
            Step::Toward(d) => dir = d,
            Step::Done(v) => return v,
            Step::NearFace((p, q, r, far)) => {
                // Reach beyond that face: if the difference goes on past it,
                // one of the three tetrahedra joining the far corner, the
                // new point and an edge of the face holds the origin deeper.
                let beyond = support(outward(p, q, r, far));
                return [(p, q), (q, r), (r, p)]
                    .iter()
                    .map(|&(u, v)| [far, beyond, u, v])
                    .find(|&t| holds_origin(t, slack))
                    .map_or(Verdict::Unsure, Verdict::Overlap);
            }
        }
    }
    Verdict::Unsure
}

enum Step {
    Toward(Vec3),
    Done(Verdict),
    /// The origin is inside the tetrahedron but within the margin of face
    /// (p, q, r), whose opposite corner is the last point.
    NearFace((Vec3, Vec3, Vec3, Vec3)),
}

/// Keeps the smallest face of the simplex (newest point last) nearest the
/// origin and says where to search next.
fn step(s: &mut [Vec3; 4], count: &mut usize, slack: Real) -> Step {
    match *count {
        2 => line(s, count),
        3 => triangle(s, count),
        _ => tetrahedron(s, count, slack),
    }
}

fn line(s: &mut [Vec3; 4], count: &mut usize) -> Step {
    let (b, a) = (s[0], s[1]);
    let (ab, ao) = (b - a, -a);
    if ab.dot(ao) > 0.0 {
        Step::Toward(ab.cross(ao).cross(ab))
    } else {
        s[0] = a;
        *count = 1;
        Step::Toward(ao)
    }
}

fn triangle(s: &mut [Vec3; 4], count: &mut usize) -> Step {
    let (c, b, a) = (s[0], s[1], s[2]);
    let (ab, ac, ao) = (b - a, c - a, -a);
    let abc = ab.cross(ac);
    if abc.cross(ac).dot(ao) > 0.0 {
        if ac.dot(ao) > 0.0 {
            *s = [c, a, a, a];
            *count = 2;
            return Step::Toward(ac.cross(ao).cross(ac));
        }
        *s = [b, a, a, a];
        *count = 2;
        return line(s, count);
    }
    if ab.cross(abc).dot(ao) > 0.0 {
        *s = [b, a, a, a];
        *count = 2;
        return line(s, count);
    }
    let side = abc.dot(ao);
    if side > 0.0 {
        Step::Toward(abc)
    } else if side < 0.0 {
        // Keep the winding so the next point lands above the face.
        *s = [b, c, a, a];
        Step::Toward(-abc)
    } else {
        Step::Done(Verdict::Unsure)
    }
}

fn tetrahedron(s: &mut [Vec3; 4], count: &mut usize, slack: Real) -> Step {
    let (d, c, b, a) = (s[0], s[1], s[2], s[3]);
    let volume = (b - a).dot((c - a).cross(d - a));
    let scale = (b - a).length() * (c - a).length() * (d - a).length();
    // (Written to be true for NaN as well.)
    if volume.abs().partial_cmp(&(1e-6 * scale)) != Some(std::cmp::Ordering::Greater) {
        return Step::Done(Verdict::Unsure);
    }
    // Signed distance of the origin outside face (p, q, r), away from `far`.
    let outside = |p: Vec3, q: Vec3, r: Vec3, far: Vec3| {
        let n = outward(p, q, r, far);
        -n.dot(p) / n.length()
    };
    let faces = [(b, c, a, d), (c, d, a, b), (d, b, a, c)];
    let mut worst = (Real::NEG_INFINITY, 0);
    for (k, &(p, q, r, far)) in faces.iter().enumerate() {
        let dist = outside(p, q, r, far);
        if dist > worst.0 {
            worst = (dist, k);
        }
    }
    if worst.0 > 0.0 {
        let (p, q, r, _) = faces[worst.1];
        *s = [p, q, r, r];
        *count = 3;
        return triangle(s, count);
    }
    let base = outside(b, c, d, a);
    if worst.0 < -slack && base < -slack {
        return Step::Done(Verdict::Overlap([a, b, c, d]));
    }
    // Inside, but within the margin of a face: usually the face is deep
    // inside the difference and the origin just sits near its plane.
    let near = if base > worst.0 {
        (b, c, d, a)
    } else {
        faces[worst.1]
    };
    Step::NearFace(near)
}

/// The normal of face (p, q, r), pointing away from the corner `far`.
fn outward(p: Vec3, q: Vec3, r: Vec3, far: Vec3) -> Vec3 {
    let n = (q - p).cross(r - p);
    if n.dot(far - p) > 0.0 { -n } else { n }
}

/// Is the origin inside tetrahedron `t` by more than `margin`?
fn holds_origin(t: [Vec3; 4], margin: Real) -> bool {
    let [a, b, c, d] = t;
    [(a, b, c, d), (a, c, d, b), (a, d, b, c), (b, d, c, a)]
        .iter()
        .all(|&(p, q, r, far)| {
            let n = outward(p, q, r, far);
            let len = n.length();
            len > 0.0 && -n.dot(p) < -margin * len
        })
}
