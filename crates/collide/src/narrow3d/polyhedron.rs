//! Convex polyhedra: built as the convex hull of a point set (incremental,
//! in `f64`), kept as vertices, distinct face planes, and the edges between
//! faces that are not coplanar, each with its two face normals (what the
//! Gauss-map pruning of edge pairs needs). Each vertex also keeps its
//! neighbours on the hull, so that large hulls find their support points by
//! climbing from a nearby vertex instead of scanning them all.

use std::collections::HashMap;

use crate::error::{CollideError, try_reserve, try_reserve_exact};
use crate::math::Real;
use crate::narrow3d::math3::Vec3;

/// A face plane: points `p` of the polyhedron have `normal · p <= offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plane {
    pub(crate) normal: Vec3,
    pub(crate) offset: Real,
}

/// An edge between two faces that are not coplanar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Edge {
    pub(crate) a: u32,
    pub(crate) b: u32,
    /// Normals of the two faces that meet at the edge.
    pub(crate) n1: Vec3,
    pub(crate) n2: Vec3,
    /// `n2 × n1`, the plane of the edge's arc on the Gauss map, kept so
    /// the edge-pair pruning costs four dot products.
    pub(crate) arc: Vec3,
}

/// A convex polyhedron in its local frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolyhedron {
    pub(crate) vertices: Vec<Vec3>,
    pub(crate) faces: Vec<Plane>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) centroid: Vec3,
    /// Every vertex lies within this distance of `centroid`.
    pub(crate) outer_radius: Real,
    /// The ball of this radius about `centroid` lies inside.
    pub(crate) inner_radius: Real,
    /// Half extents when this is a cuboid centred on its origin: boxes
    /// take the 15-axis test.
    pub(crate) box_half: Option<Vec3>,
    /// Vertex `v`'s neighbours on the hull are
    /// `neighbours[neighbour_start[v]..neighbour_start[v + 1]]`.
    neighbour_start: Vec<u32>,
    neighbours: Vec<u32>,
    /// The vertices furthest along the 26 directions of a 3×3×3 grid
    /// (repeats removed): where a climb starts.
    directory: Vec<u32>,
    /// Face `f`'s corners, counter-clockwise seen from outside, are
    /// `face_corners[face_start[f]..face_start[f + 1]]`: what contact
    /// points are clipped from.
    face_start: Vec<u32>,
    face_corners: Vec<u32>,
    /// The faces around vertex `v`, likewise.
    vertex_face_start: Vec<u32>,
    vertex_faces: Vec<u32>,
}

const ILL_CONDITIONED: &str = "polyhedron points too ill-conditioned for a hull in floating point \
     (near-coincident points on a near-flat patch, or coordinates of very different magnitudes)";

/// Hulls with at least this many vertices climb to their support points;
/// below it, scanning every vertex is cheaper than the directory and the
/// climb.
const CLIMB_FROM: usize = 48;

#[derive(Clone, Copy)]
struct Tri {
    v: [usize; 3],
    n: [f64; 3],
    d: f64,
    alive: bool,
    /// 1 + the index of the last point that found it visible.
    seen_by: usize,
}

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn norm(a: P) -> f64 {
    dot(a, a).sqrt()
}

/// Pairs `(key, value)` sorted by key, as compressed rows: the values of
/// key `k` are `values[start[k]..start[k + 1]]`.
fn grouped(keys: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; keys + 1];
    for &(k, _) in pairs {
        start[k as usize + 1] += 1;
    }
    for k in 0..keys {
        start[k + 1] += start[k];
    }
    (start, pairs.iter().map(|&(_, v)| v).collect())
}

/// Each face's corners in counter-clockwise order about its normal, from
/// `(face, corner)` pairs sorted by face.
fn face_loops(
    faces: &[Plane],
    vertices: &[Vec3],
    face_corner: &[(u32, u32)],
) -> (Vec<u32>, Vec<u32>) {
    let (start, mut corners) = grouped(faces.len(), face_corner);
    for (f, plane) in faces.iter().enumerate() {
        let ring = &mut corners[start[f] as usize..start[f + 1] as usize];
        let n = ring.len() as Real;
        let centre = ring
            .iter()
            .fold(Vec3::ZERO, |s, &v| s + vertices[v as usize])
            * (1.0 / n);
        let Some(u) = ring
            .first()
            .and_then(|&v| (vertices[v as usize] - centre).normalized())
        else {
            continue;
        };
        let w = plane.normal.cross(u);
        let angle = |v: &u32| {
            let d = vertices[*v as usize] - centre;
            d.dot(w).atan2(d.dot(u))
        };
        ring.sort_by(|a, b| angle(a).total_cmp(&angle(b)));
    }
    (start, corners)
}

/// Index of a vertex furthest along `dir`, by looking at every one.
fn scan(vertices: &[Vec3], dir: Vec3) -> u32 {
    let mut best = (Real::NEG_INFINITY, 0);
    for (k, v) in vertices.iter().enumerate() {
        let d = v.dot(dir);
        if d > best.0 {
            best = (d, k as u32);
        }
    }
    best.1
}

impl ConvexPolyhedron {
    /// The most points [`ConvexPolyhedron::hull`] takes.
    pub const MAX_POINTS: usize = 1 << 16;

    /// The convex hull of `points`.
    ///
    /// # Errors
    /// [`CollideError::NonFinitePoint`] (with the point's x and y),
    /// [`CollideError::TooManyPoints`], or [`CollideError::Degenerate`] when
    /// the points are all on one plane (no volume).
    pub fn hull(points: &[Vec3]) -> Result<Self, CollideError> {
        if points.len() > Self::MAX_POINTS {
            return Err(CollideError::TooManyPoints {
                given: points.len(),
                limit: Self::MAX_POINTS,
            });
        }
        let mut pts: Vec<P> = Vec::new();
        try_reserve_exact(&mut pts, points.len(), "hull points")?;
        for (index, p) in points.iter().enumerate() {
            if !p.is_finite() {
                return Err(CollideError::NonFinitePoint {
                    index,
                    point: [p.x, p.y],
                });
            }
            pts.push([f64::from(p.x), f64::from(p.y), f64::from(p.z)]);
        }
        let flat = CollideError::Degenerate {
            what: "polyhedron points are all on one plane (or fewer than 4)",
        };
        if pts.len() < 4 {
            return Err(flat);
        }
        let extent = pts
            .iter()
            .flat_map(|p| p.iter().map(|c| c.abs()))
            .fold(0.0f64, f64::max)
            .max(f64::MIN_POSITIVE);
        let eps = extent * 1e-6;
        // A point this far above a face sees it. Far below `eps` (the
        // flatness test) and far above f64 rounding of f32 input: a coarse
        // threshold here leaves dents that tilt sliver faces, and a corner
        // next to one ends up well outside them.
        let sees = extent * 1e-10;

        // The first tetrahedron: extreme in x, furthest from it, from their
        // line, from their plane.
        let i0 = (0..pts.len())
            .min_by(|&a, &b| pts[a][0].total_cmp(&pts[b][0]))
            .ok_or(flat.clone())?;
        let far = |f: &dyn Fn(P) -> f64| {
            (0..pts.len())
                .max_by(|&a, &b| f(pts[a]).total_cmp(&f(pts[b])))
                .unwrap_or(0)
        };
        let i1 = far(&|p| norm(sub(p, pts[i0])));
        let line = sub(pts[i1], pts[i0]);
        let i2 = far(&|p| norm(cross(line, sub(p, pts[i0]))));
        let n012 = cross(line, sub(pts[i2], pts[i0]));
        let i3 = far(&|p| dot(n012, sub(p, pts[i0])).abs());
        let ln = norm(line);
        let nn = norm(n012);
        if ln <= eps || nn <= eps * ln || (dot(n012, sub(pts[i3], pts[i0])) / nn).abs() <= eps {
            return Err(flat);
        }

        let mut tris: Vec<Tri> = Vec::new();
        let make = |v: [usize; 3], pts: &[P]| {
            let n = cross(sub(pts[v[1]], pts[v[0]]), sub(pts[v[2]], pts[v[0]]));
            let l = norm(n);
            let n = if l > 0.0 {
                [n[0] / l, n[1] / l, n[2] / l]
            } else {
                [0.0; 3]
            };
            Tri {
                v,
                n,
                d: dot(n, pts[v[0]]),
                alive: true,
                seen_by: 0,
            }
        };
        let inside: P = [
            (pts[i0][0] + pts[i1][0] + pts[i2][0] + pts[i3][0]) / 4.0,
            (pts[i0][1] + pts[i1][1] + pts[i2][1] + pts[i3][1]) / 4.0,
            (pts[i0][2] + pts[i1][2] + pts[i2][2] + pts[i3][2]) / 4.0,
        ];
        for f in [[i0, i1, i2], [i0, i1, i3], [i0, i2, i3], [i1, i2, i3]] {
            let mut t = make(f, &pts);
            if dot(t.n, inside) - t.d > 0.0 {
                t = make([f[0], f[2], f[1]], &pts);
            }
            tris.push(t);
        }
        // Directed edge (a, b) → the live triangle that has it.
        let mut edge_owner: HashMap<(usize, usize), usize> = HashMap::new();
        for (k, t) in tris.iter().enumerate() {
            for e in 0..3 {
                edge_owner.insert((t.v[e], t.v[(e + 1) % 3]), k);
            }
        }
        let mut visible: Vec<usize> = Vec::new();
        let mut horizon: Vec<(usize, usize)> = Vec::new();
        // A sound hull makes O(n) triangles; ill-conditioned input (huge and
        // tiny coordinates together) can make rounding cut a ragged hole,
        // and the work would balloon. Give up instead.
        let budget = 64 * pts.len() + 1024;
        for (ip, &p) in pts.iter().enumerate() {
            if [i0, i1, i2, i3].contains(&ip) {
                continue;
            }
            let height = |t: &Tri| dot(t.n, p) - t.d;
            // Climb from the newest face to a face no neighbour sees p
            // better from: on a point outside, that is nearly always the
            // most visible face, found in O(√n) steps instead of a scan
            // of every face (which made the hull O(n²)). A climb that
            // ends on a face that does not see p scans, to be sure.
            let mut at = tris.len() - 1;
            loop {
                let v = tris[at].v;
                let better = (0..3)
                    .filter_map(|e| edge_owner.get(&(v[(e + 1) % 3], v[e])).copied())
                    .max_by(|&a, &b| height(&tris[a]).total_cmp(&height(&tris[b])))
                    .filter(|&k| height(&tris[k]) > height(&tris[at]));
                match better {
                    Some(k) => at = k,
                    None => break,
                }
            }
            let seed = if height(&tris[at]) > sees {
                at
            } else {
                let Some(seed) = (0..tris.len())
                    .filter(|&k| tris[k].alive && height(&tris[k]) > sees)
                    .max_by(|&a, &b| height(&tris[a]).total_cmp(&height(&tris[b])))
                else {
                    continue;
                };
                seed
            };
            // The visible faces reachable from the most visible one: a
            // connected patch, so its border is one horizon loop.
            visible.clear();
            visible.push(seed);
            tris[seed].seen_by = ip + 1;
            let mut next = 0;
            while next < visible.len() {
                let v = tris[visible[next]].v;
                next += 1;
                for e in 0..3 {
                    if let Some(&twin) = edge_owner.get(&(v[(e + 1) % 3], v[e]))
                        && tris[twin].seen_by != ip + 1
                        && height(&tris[twin]) > sees
                    {
                        tris[twin].seen_by = ip + 1;
                        visible.push(twin);
                    }
                }
            }
            horizon.clear();
            for &k in &visible {
                let v = tris[k].v;
                for e in 0..3 {
                    let (a, b) = (v[e], v[(e + 1) % 3]);
                    let twin = edge_owner.get(&(b, a)).copied();
                    let twin_visible = twin.is_some_and(|t| tris[t].seen_by == ip + 1);
                    if !twin_visible {
                        horizon.push((a, b));
                    }
                }
            }
            for &k in &visible {
                tris[k].alive = false;
                let v = tris[k].v;
                for e in 0..3 {
                    let key = (v[e], v[(e + 1) % 3]);
                    if edge_owner.get(&key) == Some(&k) {
                        edge_owner.remove(&key);
                    }
                }
            }
            if tris.len() + horizon.len() > budget {
                return Err(CollideError::Degenerate {
                    what: ILL_CONDITIONED,
                });
            }
            try_reserve(&mut tris, horizon.len(), "hull triangles")?;
            for &(a, b) in &horizon {
                let t = make([a, b, ip], &pts);
                let k = tris.len();
                tris.push(t);
                for e in 0..3 {
                    edge_owner.insert((t.v[e], t.v[(e + 1) % 3]), k);
                }
            }
        }
        // Rounding can still leave a fold or a stray triangle where a point
        // lay within `sees` of a face and near a corner. Check that the
        // surface is closed and convex at every edge; and, where it costs
        // no more than the construction (up to 10⁸ corner–face pairs),
        // that every corner lies below every face. Refuse the points
        // otherwise rather than answer with a wrong solid.
        let below = extent * 1e-4;
        let mut corners: Vec<usize> = Vec::new();
        try_reserve_exact(&mut corners, 3 * tris.len(), "hull corners")?;
        corners.extend(tris.iter().filter(|t| t.alive).flat_map(|t| t.v));
        corners.sort_unstable();
        corners.dedup();
        let alive = tris.iter().filter(|t| t.alive).count();
        let every_corner = corners.len().saturating_mul(alive) <= 100_000_000;
        let refuse = Err(CollideError::Degenerate {
            what: ILL_CONDITIONED,
        });
        for (k, t) in tris.iter().enumerate().filter(|(_, t)| t.alive) {
            for e in 0..3 {
                let (a, b) = (t.v[e], t.v[(e + 1) % 3]);
                // Closed: the triangle owns its edge, and a twin exists …
                let Some(&twin) = edge_owner.get(&(b, a)) else {
                    return refuse;
                };
                if edge_owner.get(&(a, b)) != Some(&k) {
                    return refuse;
                }
                // … and convex across it: the twin's far corner is below.
                let apex = tris[twin].v.iter().copied().find(|&v| v != a && v != b);
                if apex.is_none_or(|v| dot(t.n, pts[v]) - t.d > below) {
                    return refuse;
                }
            }
            if every_corner && corners.iter().any(|&c| dot(t.n, pts[c]) - t.d > below) {
                return refuse;
            }
        }
        Self::from_triangles(&pts, &tris, &edge_owner)
    }

    /// A box with these half extents, centred on the origin.
    ///
    /// # Errors
    /// [`CollideError::InvalidShapeParameter`] unless all are finite and > 0.
    pub fn cuboid(half: Vec3) -> Result<Self, CollideError> {
        for (name, value) in [("half x", half.x), ("half y", half.y), ("half z", half.z)] {
            if !(value > 0.0 && value.is_finite()) {
                return Err(CollideError::InvalidShapeParameter {
                    name,
                    value,
                    expected: "finite and > 0",
                });
            }
        }
        let mut corners = Vec::with_capacity(8);
        for k in 0..8 {
            let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            corners.push(Vec3::new(half.x * s(1), half.y * s(2), half.z * s(4)));
        }
        let mut cuboid = Self::hull(&corners)?;
        cuboid.box_half = Some(half);
        Ok(cuboid)
    }

    fn from_triangles(
        pts: &[P],
        tris: &[Tri],
        edge_owner: &HashMap<(usize, usize), usize>,
    ) -> Result<Self, CollideError> {
        // Keep only the hull's vertices, renumbered.
        let mut remap: HashMap<usize, u32> = HashMap::new();
        let mut vertices = Vec::new();
        for t in tris.iter().filter(|t| t.alive) {
            for &v in &t.v {
                if let std::collections::hash_map::Entry::Vacant(slot) = remap.entry(v) {
                    slot.insert(vertices.len() as u32);
                    let p = pts[v];
                    vertices.push(Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real));
                }
            }
        }
        let coplanar = |a: [f64; 3], b: [f64; 3]| dot(a, b) > 1.0 - 1e-9;
        let mut faces: Vec<Plane> = Vec::new();
        // (face, corner) for every corner of every triangle.
        let mut face_corner: Vec<(u32, u32)> = Vec::new();
        // Triangles joined across an edge between coplanar triangles are
        // one face (union–find over the edges: O(n), where matching each
        // triangle against every face found so far was O(n²)).
        let mut parent: Vec<usize> = Vec::new();
        try_reserve_exact(&mut parent, tris.len(), "hull faces")?;
        parent.extend(0..tris.len());
        fn root(parent: &mut [usize], mut k: usize) -> usize {
            while parent[k] != k {
                parent[k] = parent[parent[k]];
                k = parent[k];
            }
            k
        }
        for (&(a, b), &k) in edge_owner {
            if let Some(&twin) = edge_owner.get(&(b, a))
                && coplanar(tris[k].n, tris[twin].n)
            {
                let (rk, rt) = (root(&mut parent, k), root(&mut parent, twin));
                parent[rk.max(rt)] = rk.min(rt);
            }
        }
        let mut face_of_root: HashMap<usize, usize> = HashMap::new();
        for (k, t) in tris.iter().enumerate().filter(|(_, t)| t.alive) {
            let r = root(&mut parent, k);
            let face = *face_of_root.entry(r).or_insert_with(|| {
                faces.push(Plane {
                    normal: Vec3::new(t.n[0] as Real, t.n[1] as Real, t.n[2] as Real),
                    offset: t.d as Real,
                });
                faces.len() - 1
            });
            for v in t.v {
                if let Some(&r) = remap.get(&v) {
                    face_corner.push((face as u32, r));
                }
            }
        }
        face_corner.sort_unstable();
        face_corner.dedup();
        let (face_start, face_corners) = face_loops(&faces, &vertices, &face_corner);
        let mut corner_face: Vec<(u32, u32)> = face_corner.iter().map(|&(f, v)| (v, f)).collect();
        corner_face.sort_unstable();
        let (vertex_face_start, vertex_faces) = grouped(vertices.len(), &corner_face);
        let mut edges = Vec::new();
        for (&(a, b), &k) in edge_owner {
            if a > b {
                continue; // each undirected edge once
            }
            let Some(&twin) = edge_owner.get(&(b, a)) else {
                continue;
            };
            let (n1, n2) = (tris[k].n, tris[twin].n);
            if coplanar(n1, n2) {
                continue;
            }
            let (Some(&ra), Some(&rb)) = (remap.get(&a), remap.get(&b)) else {
                continue;
            };
            let v = |n: [f64; 3]| Vec3::new(n[0] as Real, n[1] as Real, n[2] as Real);
            edges.push(Edge {
                a: ra,
                b: rb,
                n1: v(n1),
                n2: v(n2),
                arc: v(n2).cross(v(n1)),
            });
        }
        // HashMap order is random: sort so every build gives the same order.
        edges.sort_by_key(|e| (e.a, e.b));
        let n = vertices.len() as Real;
        let sum = vertices.iter().fold(Vec3::ZERO, |s, &v| s + v);
        let centroid = sum * (1.0 / n);
        let outer_radius = vertices
            .iter()
            .map(|&v| (v - centroid).length())
            .fold(0.0, Real::max);
        let inner_radius = faces
            .iter()
            .map(|f| f.offset - f.normal.dot(centroid))
            .fold(Real::INFINITY, Real::min)
            .max(0.0);
        // Every directed edge of the triangulation, coplanar ones included:
        // a climb over a finer graph of the same convex surface still stops
        // only at a highest vertex.
        let mut directed: Vec<(u32, u32)> = edge_owner
            .keys()
            .filter_map(|(a, b)| Some((*remap.get(a)?, *remap.get(b)?)))
            .collect();
        directed.sort_unstable();
        let (neighbour_start, neighbours) = grouped(vertices.len(), &directed);
        let mut directory: Vec<u32> = Vec::new();
        for k in 0..27 {
            let axis = |i: i32| ((k / 3i32.pow(i as u32)) % 3 - 1) as Real;
            let dir = Vec3::new(axis(0), axis(1), axis(2));
            if dir == Vec3::ZERO {
                continue;
            }
            let best = scan(&vertices, dir);
            if !directory.contains(&best) {
                directory.push(best);
            }
        }
        Ok(Self {
            centroid,
            outer_radius,
            inner_radius,
            box_half: None,
            vertices,
            faces,
            edges,
            neighbour_start,
            neighbours,
            directory,
            face_start,
            face_corners,
            vertex_face_start,
            vertex_faces,
        })
    }

    /// Face `f`'s corners, counter-clockwise seen from outside.
    pub(crate) fn face_corners(&self, f: usize) -> &[u32] {
        &self.face_corners[self.face_start[f] as usize..self.face_start[f + 1] as usize]
    }

    /// The faces around vertex `v`.
    pub(crate) fn faces_around(&self, v: usize) -> &[u32] {
        &self.vertex_faces
            [self.vertex_face_start[v] as usize..self.vertex_face_start[v + 1] as usize]
    }

    /// Vertex `v`'s neighbours on the hull.
    pub(crate) fn neighbours(&self, v: usize) -> &[u32] {
        &self.neighbours[self.neighbour_start[v] as usize..self.neighbour_start[v + 1] as usize]
    }

    /// Does it find support points by climbing (rather than a scan)?
    #[inline]
    pub(crate) fn climbs(&self) -> bool {
        self.vertices.len() >= CLIMB_FROM
    }

    /// A vertex furthest along `dir` (local frame). `from`: a vertex to
    /// climb from, such as the answer for a nearby direction.
    pub(crate) fn support_index(&self, dir: Vec3, from: Option<u32>) -> u32 {
        if self.vertices.len() < CLIMB_FROM {
            return scan(&self.vertices, dir);
        }
        let start = from.unwrap_or_else(|| {
            let mut best = (Real::NEG_INFINITY, 0);
            for &v in &self.directory {
                let d = self.vertices[v as usize].dot(dir);
                if d > best.0 {
                    best = (d, v);
                }
            }
            best.1
        });
        self.climb(dir, start)
    }

    /// Moves to a higher neighbour until there is none: on a convex
    /// surface a vertex no neighbour beats is a highest one.
    fn climb(&self, dir: Vec3, start: u32) -> u32 {
        let mut at = start;
        let mut height = self.vertices[at as usize].dot(dir);
        loop {
            let from = at as usize;
            for &w in self.neighbours(from) {
                let h = self.vertices[w as usize].dot(dir);
                if h > height {
                    height = h;
                    at = w;
                }
            }
            if at as usize == from {
                return at;
            }
        }
    }

    /// The hull's corners.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// How many distinct face planes it has.
    pub fn face_count(&self) -> usize {
        self.faces.len()
    }

    /// How many edges lie between faces that are not coplanar.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    /// Points at one scale, some snapped to a coarse grid so that many are
    /// coplanar, collinear or repeated.
    fn cloud() -> impl Strategy<Value = Vec<Vec3>> {
        (
            prop::collection::vec([-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0], 4..120),
            prop_oneof![Just(1e-3f32), Just(1.0f32), Just(1e6f32)],
            any::<bool>(),
        )
            .prop_map(|(raw, scale, snap)| {
                raw.iter()
                    .map(|&[x, y, z]| {
                        let c = |v: f32| if snap { (v * 3.0).round() / 3.0 } else { v };
                        Vec3::new(c(x) * scale, c(y) * scale, c(z) * scale)
                    })
                    .collect()
            })
    }

    /// What a fuzzer found: coordinates of wildly different magnitudes,
    /// many equal. Rounding once cut ragged holes here and built hundreds
    /// of thousands of triangles for a hundred points.
    fn wild_cloud() -> impl Strategy<Value = Vec<Vec3>> {
        let coordinate = prop_oneof![
            Just(7.747085e31f32),
            Just(7.744609e31f32),
            Just(5.01922e33f32),
            Just(1.0694693e-38f32),
            Just(0.0f32),
            -1e32f32..1e32,
        ];
        prop::collection::vec([coordinate.clone(), coordinate.clone(), coordinate], 4..120)
            .prop_map(|v| v.into_iter().map(Vec3::from).collect())
    }

    proptest! {
        /// The hull holds every point, its corners are input points, and
        /// each face plane touches at least three corners: it is the
        /// convex hull, up to rounding.
        #[test]
        fn hull_is_the_convex_hull(
            (points, wild) in prop_oneof![cloud().prop_map(|p| (p, false)), wild_cloud().prop_map(|p| (p, true))],
        ) {
            let h = match ConvexPolyhedron::hull(&points) {
                Ok(h) => h,
                // Wild clouds may be refused as ill-conditioned; ordinary
                // ones only when they are flat.
                Err(CollideError::Degenerate { what }) if wild || !what.contains("ill-conditioned") => {
                    return Ok(());
                }
                Err(e) => return Err(TestCaseError::fail(format!("{e:?}"))),
            };
            let extent = points
                .iter()
                .flat_map(|p| [p.x.abs(), p.y.abs(), p.z.abs()])
                .fold(0.0, Real::max);
            let tol = 1e-4 * extent;
            for v in &h.vertices {
                prop_assert!(points.contains(v), "corner {:?} is no input point", v);
            }
            for f in &h.faces {
                for p in &points {
                    prop_assert!(f.normal.dot(*p) - f.offset <= tol, "{:?} outside {:?}", p, f);
                }
                let on = h.vertices.iter().filter(|v| (f.normal.dot(**v) - f.offset).abs() <= tol).count();
                prop_assert!(on >= 3, "face {:?} touches {} corners", f, on);
            }
        }

        /// Climbing (from the directory or from any vertex) finds a vertex
        /// as far along the direction as a scan.
        #[test]
        fn climbed_support_is_the_furthest_vertex(
            points in prop::collection::vec([-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0], CLIMB_FROM..300),
            dir in [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0],
            from in any::<prop::sample::Index>(),
        ) {
            // On a sphere, so that every point is a corner and the hull
            // is large enough to climb.
            let points: Vec<Vec3> = points.iter().filter_map(|&p| Vec3::from(p).normalized()).collect();
            prop_assume!(points.len() >= CLIMB_FROM);
            let h = ConvexPolyhedron::hull(&points).unwrap();
            prop_assert!(h.climbs());
            let dir = Vec3::from(dir);
            let best = h.vertices.iter().map(|v| v.dot(dir)).fold(Real::NEG_INFINITY, Real::max);
            let start = from.index(h.vertices.len()) as u32;
            for got in [h.support_index(dir, None), h.support_index(dir, Some(start))] {
                let reach = h.vertices[got as usize].dot(dir);
                prop_assert!(reach >= best - 1e-5, "climbed to {} of {}", reach, best);
            }
        }
    }
}
