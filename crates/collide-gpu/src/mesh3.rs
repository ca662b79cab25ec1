//! 3-D meshes: each object drawn with its own model-view-projection, the
//! seed's way (the first into the stencil, the second inside an occlusion
//! query), with two of the seed's 3-D refinements:
//!
//! - **The screen rectangle** of each object's bounding box, clipped to the
//!   near plane (`collide::screen_rect_of_box`), is the prefilter and the
//!   scissor: objects whose rectangles do not meet are never drawn.
//! - **Depth slabs**: each object is drawn only where its depth lies within
//!   the other's bounding depth range, so a floor's far part behind a
//!   standing object, or any part of one object in front of or behind the
//!   whole other, cannot count.
//!
//! Where it can still be wrong: two objects whose depth ranges overlap and
//! whose pixels meet at a common depth *range* but not a common point (two
//! slanted rods crossing on screen a little apart) give a false hit; an
//! object wholly inside another, touching no surface, is no hit (surfaces
//! are drawn, not solids). Both are tests in `tests/meshes3.rs`.

use collide::{Aabb, DepthRange, Mat4, Vec3, Viewport, screen_rect_of_box};

use crate::{DEPTH_STENCIL, GpuCollider, GpuError, Hit, PAIRS_PER_SUBMIT, Path, PathChoice};

/// Whether each mesh is kept to the other's depth range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthSlabs {
    /// Kept (the default): only the parts at the other's depths count.
    On,
    /// Not kept: screen overlap alone (the seed's 2-D test on a 3-D
    /// scene; a standing object then meets the floor's far part).
    Off,
}

/// A 3-D mesh's model: vertices and triangles as uploaded.
#[derive(Clone, Copy, Debug)]
pub struct Model3<'a> {
    /// Vertices in model space.
    pub vertices: &'a [[f32; 3]],
    /// Triangles, as indices into `vertices`.
    pub triangles: &'a [[u32; 3]],
    /// Every triangle lies on the mesh's convex hull (a box, a hull, a
    /// flat floor): a group test draws it once as the first mesh.
    pub on_hull: bool,
}

/// A 3-D mesh uploaded with [`GpuCollider::add_mesh_3d`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mesh3Id(usize);

/// Two 3-D meshes to test, each with its model-view-projection (model
/// space to wgpu clip space: depth 0 at the near plane, 1 at the far).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mesh3Pair {
    /// The first mesh (drawn into the stencil buffer).
    pub a: Mesh3Id,
    /// Its model-view-projection.
    pub mvp_a: Mat4,
    /// The second mesh (drawn inside the query).
    pub b: Mesh3Id,
    /// Its model-view-projection.
    pub mvp_b: Mat4,
}

pub(crate) struct Mesh3 {
    pub(crate) vertices: wgpu::Buffer,
    pub(crate) indices: wgpu::Buffer,
    pub(crate) index_count: u32,
    pub(crate) min: Vec3,
    pub(crate) max: Vec3,
    model: Vec<[f32; 3]>,
    triangles: Vec<[u32; 3]>,
    /// Every triangle lies on the mesh's convex hull (each one's plane
    /// has all vertices on one side), so a pixel's surfaces are its
    /// nearest and farthest: the group test may draw it once.
    pub(crate) on_hull: bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Mesh3Draw {
    pub(crate) mvp: [[f32; 4]; 4],
    /// The depth range the draw is kept to (the other object's).
    pub(crate) slab: [f32; 2],
    /// The object's own depth range (read by the group test's shader).
    pub(crate) own: [f32; 2],
    pub(crate) colour: [f32; 4],
}

pub(crate) struct Mesh3Pipelines {
    write: wgpu::RenderPipeline,
    test: wgpu::RenderPipeline,
    /// Normal mode: colour with a depth test.
    colour: wgpu::RenderPipeline,
    /// The demo's touching pixels: a stencil mark, then colour on it.
    mark: wgpu::RenderPipeline,
    paint: wgpu::RenderPipeline,
}

/// A 3-D mesh's vertex buffer: positions, three f32 each.
pub(crate) const VERTEX3: wgpu::VertexBufferLayout<'static> = wgpu::VertexBufferLayout {
    array_stride: 12,
    step_mode: wgpu::VertexStepMode::Vertex,
    attributes: &[wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: 0,
        shader_location: 0,
    }],
};

/// The colour format of [`GpuCollider::render_meshes_3d`].
const SCENE: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl Mesh3Pipelines {
    pub(crate) fn new(device: &wgpu::Device, draw_layout: &wgpu::BindGroupLayout) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mesh3"),
            source: wgpu::ShaderSource::Wgsl(include_str!("mesh3.wgsl").into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh3"),
            bind_group_layouts: &[Some(draw_layout)],
            immediate_size: 0,
        });
        let vertex_layout = [Some(VERTEX3)];
        let with_colour = |label,
                           face: wgpu::StencilFaceState,
                           colour: Option<wgpu::ColorWrites>,
                           entry: &str,
                           depth_test: bool| {
            let targets = [colour.map(|write_mask| wgpu::ColorTargetState {
                format: SCENE,
                blend: None,
                write_mask,
            })];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &vertex_layout,
                },
                // Front and back faces: the slab decides, not the facing.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_STENCIL,
                    depth_write_enabled: Some(depth_test),
                    depth_compare: Some(if depth_test {
                        wgpu::CompareFunction::Less
                    } else {
                        wgpu::CompareFunction::Always
                    }),
                    stencil: wgpu::StencilState {
                        front: face,
                        back: face,
                        read_mask: 0xff,
                        write_mask: 0xff,
                    },
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets: if colour.is_some() { &targets } else { &[] },
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let pipeline =
            |label, face: wgpu::StencilFaceState| with_colour(label, face, None, "fs", false);
        let keep = wgpu::StencilFaceState {
            compare: wgpu::CompareFunction::Always,
            fail_op: wgpu::StencilOperation::Keep,
            depth_fail_op: wgpu::StencilOperation::Keep,
            pass_op: wgpu::StencilOperation::Keep,
        };
        Mesh3Pipelines {
            colour: with_colour(
                "mesh3: colour",
                keep,
                Some(wgpu::ColorWrites::ALL),
                "fs_colour",
                true,
            ),
            mark: with_colour(
                "mesh3: mark",
                wgpu::StencilFaceState {
                    pass_op: wgpu::StencilOperation::Replace,
                    ..keep
                },
                Some(wgpu::ColorWrites::empty()),
                "fs_mark",
                false,
            ),
            paint: with_colour(
                "mesh3: paint",
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Equal,
                    ..keep
                },
                Some(wgpu::ColorWrites::ALL),
                "fs_mark",
                false,
            ),
            write: pipeline(
                "mesh3: write stencil",
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Always,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Replace,
                },
            ),
            // A passing fragment clears its pixel, so the surface's other
            // layers there (a closed mesh's back faces) do not count it
            // again: the query counts pixels, not fragments.
            test: pipeline(
                "mesh3: test stencil",
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Equal,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Zero,
                },
            ),
        }
    }
}

/// Whether every triangle's plane has all of the mesh's vertices on one
/// side (within f32 rounding of the model's size): then every triangle
/// lies on the convex hull. Meshes over 2·10⁷ triangle-vertex checks are
/// not checked (false: the group test draws them per candidate).
fn on_hull(vertices: &[[f32; 3]], triangles: &[[u32; 3]], min: Vec3, max: Vec3) -> bool {
    if triangles.len().saturating_mul(vertices.len()) > 20_000_000 {
        return false;
    }
    let size = f64::from((max.x - min.x).max(max.y - min.y).max(max.z - min.z));
    let eps = 1e-5 * size.max(f64::MIN_POSITIVE);
    let v = |i: u32| vertices[i as usize].map(f64::from);
    triangles.iter().all(|t| {
        let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
        let (u, w) = (
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
        );
        let n = [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if len == 0.0 {
            // A degenerate triangle covers no pixel.
            return true;
        }
        let side = |p: &[f32; 3]| {
            ((f64::from(p[0]) - a[0]) * n[0]
                + (f64::from(p[1]) - a[1]) * n[1]
                + (f64::from(p[2]) - a[2]) * n[2])
                / len
        };
        let (mut above, mut below) = (false, false);
        for p in vertices {
            let d = side(p);
            above |= d > eps;
            below |= d < -eps;
            if above && below {
                return false;
            }
        }
        true
    })
}

/// The clip-space depth range (wgpu's 0..1) of a box's corners in front of
/// the eye; corners behind it widen the range to the near plane.
pub(crate) fn depth_range(min: Vec3, max: Vec3, m: &Mat4) -> [f32; 2] {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for k in 0..8 {
        let p = [
            if k & 1 == 0 { min.x } else { max.x },
            if k & 2 == 0 { min.y } else { max.y },
            if k & 4 == 0 { min.z } else { max.z },
        ];
        let clip = |row: usize| {
            (0..3)
                .map(|c| f64::from(m[c][row]) * f64::from(p[c]))
                .sum::<f64>()
                + f64::from(m[3][row])
        };
        let (z, w) = (clip(2), clip(3));
        if w <= 0.0 {
            lo = 0.0;
            continue;
        }
        lo = lo.min(z / w);
        hi = hi.max(z / w);
    }
    [lo.max(0.0) as f32, hi.min(1.0).max(lo.max(0.0)) as f32]
}

/// `m` followed by the move of the game's viewport onto the collision
/// buffer: screen pixel `(px, py)` lands at `(px + tx, py + ty)` of the
/// `side × side` buffer (an affine map of NDC, applied in clip space so
/// depth and perspective are untouched).
pub(crate) fn onto_buffer(
    m: &Mat4,
    viewport: &Viewport,
    tx: f64,
    ty: f64,
    side: f64,
) -> [[f32; 4]; 4] {
    let (vx, vy, vw, vh) = (
        f64::from(viewport.x),
        f64::from(viewport.y),
        f64::from(viewport.width),
        f64::from(viewport.height),
    );
    let sx = vw / side;
    let ox = (2.0 * (vx + tx) + vw) / side - 1.0;
    // The buffer's rows grow down; a y-up viewport lands upside down,
    // which changes no overlap.
    let sy = if viewport.y_down {
        vh / side
    } else {
        -vh / side
    };
    let oy = 1.0 - (2.0 * (vy + ty) + vh) / side;
    let mut out = [[0.0f32; 4]; 4];
    for (c, column) in m.iter().enumerate() {
        let (x, y, z, w) = (
            f64::from(column[0]),
            f64::from(column[1]),
            f64::from(column[2]),
            f64::from(column[3]),
        );
        out[c] = [
            (sx * x + ox * w) as f32,
            (sy * y + oy * w) as f32,
            z as f32,
            w as f32,
        ];
    }
    out
}

impl GpuCollider {
    /// Uploads a 3-D mesh: vertices in model space and triangles as indices.
    ///
    /// # Errors
    /// [`GpuError::BadMesh`] for no triangles, an index past the vertices
    /// or a vertex that is not finite.
    pub fn add_mesh_3d(
        &mut self,
        vertices: &[[f32; 3]],
        triangles: &[[u32; 3]],
    ) -> Result<Mesh3Id, GpuError> {
        let (vertex_buffer, index_buffer, index_count) = self.upload_mesh(vertices, triangles)?;
        let mut min = Vec3::new(f32::MAX, f32::MAX, f32::MAX);
        let mut max = Vec3::new(f32::MIN, f32::MIN, f32::MIN);
        for v in triangles.iter().flatten().map(|&i| vertices[i as usize]) {
            min = Vec3::new(min.x.min(v[0]), min.y.min(v[1]), min.z.min(v[2]));
            max = Vec3::new(max.x.max(v[0]), max.y.max(v[1]), max.z.max(v[2]));
        }
        self.meshes3.push(Mesh3 {
            vertices: vertex_buffer,
            indices: index_buffer,
            index_count,
            min,
            max,
            model: vertices.to_vec(),
            triangles: triangles.to_vec(),
            on_hull: on_hull(vertices, triangles, min, max),
        });
        Ok(Mesh3Id(self.meshes3.len() - 1))
    }

    pub(crate) fn mesh3(&self, id: Mesh3Id) -> Result<&Mesh3, GpuError> {
        self.meshes3.get(id.0).ok_or(GpuError::UnknownMesh(id.0))
    }

    /// A mesh's model as uploaded (for a CPU check).
    pub fn mesh_3d_model(&self, id: Mesh3Id) -> Result<Model3<'_>, GpuError> {
        let m = self.mesh3(id)?;
        Ok(Model3 {
            vertices: &m.model,
            triangles: &m.triangles,
            on_hull: m.on_hull,
        })
    }

    /// The depth slab `[near, far]` (clip depth, 0..1) a mesh is kept to
    /// when tested against the mesh `id` at `mvp`: that mesh's box's range.
    pub fn depth_slab(&self, id: Mesh3Id, mvp: &Mat4) -> Result<[f32; 2], GpuError> {
        let m = self.mesh3(id)?;
        Ok(depth_range(m.min, m.max, mvp))
    }

    /// Tests 3-D mesh pairs seen through `viewport` (the game's screen, in
    /// pixels), on the path the cost model estimates cheaper for the batch
    /// ([`GpuCollider::mesh_costs`]): on the GPU, screen rectangles first,
    /// then the stencil and an occlusion query per pair, each mesh kept to
    /// the other's depth slab; on the CPU, the same projection, slabs and
    /// rule ([`GpuCollider::test_mesh_3d_pairs_on`]).
    ///
    /// # Errors
    /// An unknown mesh, a non-finite matrix, a rectangles' overlap larger
    /// than the collision buffer, or a failed read-back.
    pub fn test_mesh_3d_pairs(
        &self,
        pairs: &[Mesh3Pair],
        viewport: &Viewport,
        slabs: DepthSlabs,
    ) -> Result<Vec<Hit>, GpuError> {
        self.test_mesh_3d_pairs_on(pairs, viewport, slabs, PathChoice::Auto)
    }

    /// The viewport at the collider's [`crate::Resolution`]: a lower
    /// resolution is the same view on a smaller viewport.
    pub(crate) fn scaled_viewport(&self, viewport: &Viewport) -> Viewport {
        let f = self.resolution.factor();
        Viewport {
            x: viewport.x * f,
            y: viewport.y * f,
            width: viewport.width * f,
            height: viewport.height * f,
            y_down: viewport.y_down,
        }
    }

    /// The screen rectangles' overlap of a pair, in whole pixels (x0, y0,
    /// x1, y1), or `None` when they do not meet (or one is wholly behind
    /// the camera).
    fn mesh3_overlap(
        &self,
        index: usize,
        pair: &Mesh3Pair,
        viewport: &Viewport,
    ) -> Result<Option<[f64; 4]>, GpuError> {
        let (a, b) = (self.mesh3(pair.a)?, self.mesh3(pair.b)?);
        let rect = |m: &Mesh3, mvp: &Mat4| -> Result<Option<Aabb>, GpuError> {
            screen_rect_of_box(m.min, m.max, mvp, viewport, DepthRange::ZeroToOne)
                .map_err(|e| GpuError::BadMesh(format!("pair {index}: {e}")))
        };
        let (Some(ra), Some(rb)) = (rect(a, &pair.mvp_a)?, rect(b, &pair.mvp_b)?) else {
            return Ok(None);
        };
        let x0 = f64::from(ra.min().x.max(rb.min().x)).floor();
        let y0 = f64::from(ra.min().y.max(rb.min().y)).floor();
        let x1 = f64::from(ra.max().x.min(rb.max().x)).ceil();
        let y1 = f64::from(ra.max().y.min(rb.max().y)).ceil();
        Ok((x0 < x1 && y0 < y1).then_some([x0, y0, x1, y1]))
    }

    /// Each pair's two draws, moved onto the collision buffer, and its
    /// scissor (`None`, with two empty draws, where the rectangles do not
    /// meet). `viewport` is already scaled.
    fn place_mesh3_pairs(
        &self,
        pairs: &[Mesh3Pair],
        base: usize,
        viewport: &Viewport,
        slabs: DepthSlabs,
    ) -> Result<crate::mesh::PlacedPairs<Mesh3Draw>, GpuError> {
        let slab = |m: &Mesh3, mvp: &Mat4| match slabs {
            DepthSlabs::On => depth_range(m.min, m.max, mvp),
            DepthSlabs::Off => [0.0, 1.0],
        };
        let side = f64::from(self.side);
        let mut draws = Vec::with_capacity(pairs.len() * 2);
        let mut scissors = Vec::with_capacity(pairs.len());
        for (k, pair) in pairs.iter().enumerate() {
            let index = base + k;
            let Some([x0, y0, x1, y1]) = self.mesh3_overlap(index, pair, viewport)? else {
                let empty = Mesh3Draw {
                    mvp: [[0.0; 4]; 4],
                    slab: [0.0; 2],
                    own: [0.0; 2],
                    colour: [0.0; 4],
                };
                draws.extend([empty, empty]);
                scissors.push(None);
                continue;
            };
            let (a, b) = (self.mesh3(pair.a)?, self.mesh3(pair.b)?);
            self.check_fits(index, x1 - x0 + 2.0, y1 - y0 + 2.0)?;
            let (tx, ty) = (1.0 - x0, 1.0 - y0);
            draws.push(Mesh3Draw {
                mvp: onto_buffer(&pair.mvp_a, viewport, tx, ty, side),
                slab: slab(b, &pair.mvp_b),
                own: [0.0; 2],
                colour: [1.0; 4],
            });
            draws.push(Mesh3Draw {
                mvp: onto_buffer(&pair.mvp_b, viewport, tx, ty, side),
                slab: slab(a, &pair.mvp_a),
                own: [0.0; 2],
                colour: [1.0; 4],
            });
            scissors.push(Some([1, 1, (x1 - x0) as u32, (y1 - y0) as u32]));
        }
        Ok((draws, scissors))
    }

    /// The GPU path: only the pairs whose rectangles meet are drawn.
    fn test_mesh_3d_pairs_gpu(
        &self,
        pairs: &[Mesh3Pair],
        viewport: &Viewport,
        slabs: DepthSlabs,
    ) -> Result<Vec<Hit>, GpuError> {
        let viewport = &self.scaled_viewport(viewport);
        let mut out = Vec::with_capacity(pairs.len());
        for (chunk_index, chunk) in pairs.chunks(PAIRS_PER_SUBMIT).enumerate() {
            let base = chunk_index * PAIRS_PER_SUBMIT;
            let (draws, scissors) = self.place_mesh3_pairs(chunk, base, viewport, slabs)?;
            let mut answers = vec![crate::boxes_apart(); chunk.len()];
            let drawn: Vec<usize> = (0..chunk.len())
                .filter(|&k| scissors[k].is_some())
                .collect();
            if !drawn.is_empty() {
                let picked: Vec<Mesh3Pair> = drawn.iter().map(|&k| chunk[k]).collect();
                let picked_draws: Vec<Mesh3Draw> = drawn
                    .iter()
                    .flat_map(|&k| [draws[2 * k], draws[2 * k + 1]])
                    .collect();
                let picked_scissors: Vec<Option<[u32; 4]>> =
                    drawn.iter().map(|&k| scissors[k]).collect();
                for (hit, &k) in self
                    .run_mesh3_queries(&picked, &picked_draws, &picked_scissors)?
                    .into_iter()
                    .zip(&drawn)
                {
                    answers[k] = hit;
                }
            }
            out.extend(answers);
        }
        Ok(out)
    }

    /// [`GpuCollider::test_mesh_3d_pairs`]'s GPU path without waiting: the
    /// queries start now and [`crate::PendingHits::try_take`] gives the
    /// answers when they are back (a frame later, never a stall). Pairs
    /// whose rectangles do not meet get an empty query (0, not hit).
    ///
    /// # Errors
    /// As [`GpuCollider::test_mesh_3d_pairs`], and more than 4,096 pairs.
    pub fn submit_mesh_3d_pairs(
        &self,
        pairs: &[Mesh3Pair],
        viewport: &Viewport,
        slabs: DepthSlabs,
    ) -> Result<crate::PendingHits, GpuError> {
        if pairs.len() > PAIRS_PER_SUBMIT {
            return Err(GpuError::TooManyGroups {
                given: pairs.len(),
                limit: PAIRS_PER_SUBMIT,
            });
        }
        if pairs.is_empty() {
            return Ok(crate::PendingHits::empty());
        }
        let viewport = &self.scaled_viewport(viewport);
        let (draws, scissors) = self.place_mesh3_pairs(pairs, 0, viewport, slabs)?;
        let queries = self.submit_mesh3_queries(pairs, &draws, &scissors)?;
        Ok(self.pending(queries, pairs.len()))
    }

    /// One 3-D mesh against many: `first` with `mvp` against each of
    /// `others`, on the path the cost model picks, with the pair test's
    /// answers. On the GPU, a first mesh whose triangles all lie on its
    /// convex hull (a box, a hull, a floor) is drawn once, into nearest and
    /// farthest depth targets each candidate reads; any other is drawn
    /// again per candidate (its depth slab is that candidate's).
    ///
    /// # Errors
    /// As [`GpuCollider::test_mesh_3d_pairs`].
    pub fn test_mesh_3d_group(
        &self,
        first: Mesh3Id,
        mvp: &Mat4,
        others: &[(Mesh3Id, Mat4)],
        viewport: &Viewport,
        slabs: DepthSlabs,
    ) -> Result<Vec<Hit>, GpuError> {
        self.test_mesh_3d_group_on(first, mvp, others, viewport, slabs, PathChoice::Auto)
    }

    /// [`GpuCollider::test_mesh_3d_group`] on the path asked for.
    ///
    /// # Errors
    /// As [`GpuCollider::test_mesh_3d_pairs`].
    pub fn test_mesh_3d_group_on(
        &self,
        first: Mesh3Id,
        mvp: &Mat4,
        others: &[(Mesh3Id, Mat4)],
        viewport: &Viewport,
        slabs: DepthSlabs,
        path: PathChoice,
    ) -> Result<Vec<Hit>, GpuError> {
        let pairs: Vec<Mesh3Pair> = others
            .iter()
            .map(|&(b, mvp_b)| Mesh3Pair {
                a: first,
                mvp_a: *mvp,
                b,
                mvp_b,
            })
            .collect();
        let gpu = self.mesh_3d_on_gpu(&pairs, viewport, path)?;
        if gpu
            && let Some(hits) = self.test_mesh_3d_group_once(first, mvp, others, viewport, slabs)?
        {
            return Ok(hits);
        }
        let path = if gpu {
            PathChoice::Gpu
        } else {
            PathChoice::Cpu
        };
        self.test_mesh_3d_pairs_on(&pairs, viewport, slabs, path)
    }

    /// Whether a batch of 3-D pairs goes to the GPU: asked, or estimated
    /// cheaper there; never without occlusion queries.
    fn mesh_3d_on_gpu(
        &self,
        pairs: &[Mesh3Pair],
        viewport: &Viewport,
        path: PathChoice,
    ) -> Result<bool, GpuError> {
        if !self.use_queries {
            return Ok(false);
        }
        Ok(match path {
            PathChoice::Gpu => true,
            PathChoice::Cpu => false,
            PathChoice::Auto => {
                let work = self.mesh_3d_work(pairs, viewport)?;
                let costs = self.mesh_costs();
                costs.gpu(&work) <= costs.cpu(&work)
            }
        })
    }

    /// The work of a batch of 3-D pairs as the cost model counts it: pairs
    /// whose rectangles meet, their triangles, and their overlaps' pixels.
    ///
    /// # Errors
    /// An unknown mesh or a non-finite matrix.
    pub fn mesh_3d_work(
        &self,
        pairs: &[Mesh3Pair],
        viewport: &Viewport,
    ) -> Result<crate::MeshWork, GpuError> {
        let viewport = &self.scaled_viewport(viewport);
        let mut w = crate::MeshWork::default();
        for (index, pair) in pairs.iter().enumerate() {
            if let Some([x0, y0, x1, y1]) = self.mesh3_overlap(index, pair, viewport)? {
                let (a, b) = (self.mesh3(pair.a)?, self.mesh3(pair.b)?);
                w.pairs += 1.0;
                w.triangles += f64::from(a.index_count / 3 + b.index_count / 3);
                w.pixels += (x1 - x0) * (y1 - y0);
            }
        }
        Ok(w)
    }

    fn run_mesh3_queries(
        &self,
        pairs: &[Mesh3Pair],
        draws: &[Mesh3Draw],
        scissors: &[Option<[u32; 4]>],
    ) -> Result<Vec<Hit>, GpuError> {
        let queries = self.submit_mesh3_queries(pairs, draws, scissors)?;
        self.read_hits(&queries)
    }

    fn submit_mesh3_queries(
        &self,
        pairs: &[Mesh3Pair],
        draws: &[Mesh3Draw],
        scissors: &[Option<[u32; 4]>],
    ) -> Result<crate::Queries, GpuError> {
        let (_buf, bind) = self.draw_bind_group(draws);
        self.submit_pair_queries(scissors, &bind, |pass, i, second| {
            let pair = &pairs[i as usize];
            let (pipeline, id) = if second {
                (&self.mesh3_pipelines.test, pair.b)
            } else {
                (&self.mesh3_pipelines.write, pair.a)
            };
            pass.set_pipeline(pipeline);
            self.draw_mesh3(pass, id, 2 * i + u32::from(second))
        })
    }

    /// Draws mesh `id` with draw record `k`.
    fn draw_mesh3(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        id: Mesh3Id,
        k: u32,
    ) -> Result<(), GpuError> {
        let m = self.mesh3(id)?;
        pass.set_vertex_buffer(0, m.vertices.slice(..));
        pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..m.index_count, 0, k..k + 1);
        Ok(())
    }
}

/// One object of a 3-D scene to draw: the mesh, its model-view-projection
/// (onto the image) and its colour (RGBA, 0..1).
pub type SceneObject = (Mesh3Id, Mat4, [f32; 4]);

impl GpuCollider {
    /// Normal mode for 3-D meshes: draws the objects in their colours with
    /// a depth test into a `width × height` RGBA image, then, for each
    /// `(a, b, colour)` in `touching`, paints in `colour` the pixels where
    /// object `b` meets object `a` by the collision rule (each kept to the
    /// other's depth slab), over everything. The same draw as the tests.
    ///
    /// # Errors
    /// An unknown mesh, an index past `objects`, more than 255 touching
    /// pairs, or a failed read-back.
    pub fn render_meshes_3d(
        &self,
        width: u32,
        height: u32,
        background: [f64; 4],
        objects: &[SceneObject],
        touching: &[(usize, usize, [f32; 4])],
    ) -> Result<Vec<u8>, GpuError> {
        if touching.len() > 255 {
            return Err(GpuError::BadMesh(format!(
                "{} touching pairs; at most 255",
                touching.len()
            )));
        }
        let mut draws: Vec<Mesh3Draw> = Vec::new();
        for &(id, mvp, colour) in objects {
            self.mesh3(id)?;
            draws.push(Mesh3Draw {
                mvp,
                slab: [0.0, 1.0],
                own: [0.0; 2],
                colour,
            });
        }
        for &(a, b, colour) in touching {
            let object = |k: usize| {
                objects
                    .get(k)
                    .ok_or_else(|| GpuError::BadMesh(format!("object {k} of {}", objects.len())))
            };
            let ((ia, ma, _), (ib, mb, _)) = (object(a)?, object(b)?);
            let (ma_, mb_) = (self.mesh3(*ia)?, self.mesh3(*ib)?);
            draws.push(Mesh3Draw {
                mvp: *ma,
                slab: depth_range(mb_.min, mb_.max, mb),
                own: [0.0; 2],
                colour,
            });
            draws.push(Mesh3Draw {
                mvp: *mb,
                slab: depth_range(ma_.min, ma_.max, ma),
                own: [0.0; 2],
                colour,
            });
        }
        if draws.is_empty() {
            draws.push(Mesh3Draw {
                mvp: [[0.0; 4]; 4],
                slab: [0.0; 2],
                own: [0.0; 2],
                colour: [0.0; 4],
            });
        }
        let (_buf, bind) = self.draw_bind_group(&draws);
        self.render_scene(width, height, background, true, |pass| {
            pass.set_bind_group(0, &bind, &[]);
            pass.set_pipeline(&self.mesh3_pipelines.colour);
            for (k, &(id, _, _)) in objects.iter().enumerate() {
                self.draw_mesh3(pass, id, k as u32)?;
            }
            for (t, &(a, b, _)) in touching.iter().enumerate() {
                let k = (objects.len() + 2 * t) as u32;
                pass.set_stencil_reference(t as u32 + 1);
                pass.set_pipeline(&self.mesh3_pipelines.mark);
                self.draw_mesh3(pass, objects[a].0, k)?;
                pass.set_pipeline(&self.mesh3_pipelines.paint);
                self.draw_mesh3(pass, objects[b].0, k + 1)?;
            }
            Ok(())
        })
    }
}

/// A mesh's triangles placed by `mvp` on the screen, as `[x, y, depth]`
/// in pixels relative to `origin`, clipped to the near plane first (a
/// triangle crossing it becomes one or two).
fn screen_triangles(
    m: &Mesh3,
    mvp: &Mat4,
    viewport: &Viewport,
    origin: [f64; 2],
) -> Vec<[[f64; 3]; 3]> {
    let clip = |p: [f32; 3]| -> [f64; 4] {
        std::array::from_fn(|row| {
            (0..3)
                .map(|c| f64::from(mvp[c][row]) * f64::from(p[c]))
                .sum::<f64>()
                + f64::from(mvp[3][row])
        })
    };
    let (vx, vy, vw, vh) = (
        f64::from(viewport.x),
        f64::from(viewport.y),
        f64::from(viewport.width),
        f64::from(viewport.height),
    );
    let screen = |c: [f64; 4]| -> [f64; 3] {
        let (x, y, z) = (c[0] / c[3], c[1] / c[3], c[2] / c[3]);
        let py = if viewport.y_down {
            (1.0 - y) * 0.5
        } else {
            (1.0 + y) * 0.5
        };
        [
            vx + (x + 1.0) * 0.5 * vw - origin[0],
            vy + py * vh - origin[1],
            z,
        ]
    };
    let mut out = Vec::with_capacity(m.triangles.len());
    for t in &m.triangles {
        let corners = t.map(|i| clip(m.model[i as usize]));
        // Sutherland–Hodgman against the near plane, z ≥ 0 in wgpu's clip
        // space.
        let mut kept: Vec<[f64; 4]> = Vec::with_capacity(4);
        for k in 0..3 {
            let (p, q) = (corners[k], corners[(k + 1) % 3]);
            if p[2] >= 0.0 {
                kept.push(p);
            }
            if (p[2] >= 0.0) != (q[2] >= 0.0) {
                let s = p[2] / (p[2] - q[2]);
                kept.push(std::array::from_fn(|i| p[i] + (q[i] - p[i]) * s));
            }
        }
        for k in 1..kept.len().saturating_sub(1) {
            if [kept[0], kept[k], kept[k + 1]].iter().all(|c| c[3] > 0.0) {
                out.push([screen(kept[0]), screen(kept[k]), screen(kept[k + 1])]);
            }
        }
    }
    out
}

impl GpuCollider {
    /// [`GpuCollider::test_mesh_3d_pairs`] on the path asked for: `Cpu`
    /// projects and rasterises both meshes on the CPU
    /// (`collide::raster::rasterize_depth`, the same rule and slabs); `Gpu`
    /// draws them (the CPU when occlusion queries are off); `Auto` goes
    /// where [`GpuCollider::mesh_costs`] estimate less for the batch.
    ///
    /// # Errors
    /// As [`GpuCollider::test_mesh_3d_pairs`].
    pub fn test_mesh_3d_pairs_on(
        &self,
        pairs: &[Mesh3Pair],
        viewport: &Viewport,
        slabs: DepthSlabs,
        path: PathChoice,
    ) -> Result<Vec<Hit>, GpuError> {
        let gpu = self.mesh_3d_on_gpu(pairs, viewport, path)?;
        if gpu {
            return self.test_mesh_3d_pairs_gpu(pairs, viewport, slabs);
        }
        let viewport = &self.scaled_viewport(viewport);
        let mut out = Vec::with_capacity(pairs.len());
        for (index, pair) in pairs.iter().enumerate() {
            let Some([x0, y0, x1, y1]) = self.mesh3_overlap(index, pair, viewport)? else {
                out.push(crate::boxes_apart());
                continue;
            };
            let (a, b) = (self.mesh3(pair.a)?, self.mesh3(pair.b)?);
            let keep = |m: &Mesh3, mvp: &Mat4| match slabs {
                DepthSlabs::On => depth_range(m.min, m.max, mvp).map(f64::from),
                DepthSlabs::Off => [0.0, 1.0],
            };
            let (w, h) = ((x1 - x0) as usize, (y1 - y0) as usize);
            let coverage = |m: &Mesh3, mvp: &Mat4, within: [f64; 2]| {
                collide::raster::rasterize_depth(
                    w,
                    h,
                    screen_triangles(m, mvp, viewport, [x0, y0]),
                    within,
                )
                .map_err(|e| GpuError::BadMesh(format!("pair {index}: {e}")))
            };
            let ma = coverage(a, &pair.mvp_a, keep(b, &pair.mvp_b))?;
            let mb = coverage(b, &pair.mvp_b, keep(a, &pair.mvp_a))?;
            let count = ma.overlap_area(&mb, 0, 0);
            out.push(Hit {
                hit: count > 0,
                query: count,
                path: Path::CpuRaster,
            });
        }
        Ok(out)
    }
}
