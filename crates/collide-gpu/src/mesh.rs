//! Meshes: what a game draws, tested the seed's way. Indexed triangles in
//! model coordinates are uploaded once into buffers the collider owns;
//! each test draws the first mesh into the stencil buffer and the second
//! with the stencil test "equal" inside an occlusion query, each with its
//! own turn, scale and move read from a per-batch buffer.
//!
//! A pixel is covered where its centre is inside a triangle, by the
//! rasteriser's top-left rule on edges: `collide::raster::rasterize` on
//! [`GpuCollider::placed_triangles`] is the CPU twin. The GPU snaps
//! vertices to its sub-pixel grid (1/256 pixel on common hardware), so a
//! centre within about that of an edge may go either way.

use collide::Vec2;
use wgpu::util::DeviceExt;

use crate::{
    DEPTH_STENCIL, GpuCollider, GpuError, Hit, PAIRS_PER_SUBMIT, Path, PathChoice, boxes_apart,
    layer_depth,
};

/// A mesh uploaded with [`GpuCollider::add_mesh`] or
/// [`GpuCollider::add_polygon`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MeshId(usize);

/// Where a 2-D mesh is drawn: its model coordinates (pixels, y down),
/// turned by `angle` (radians, counter-clockwise on screen) and scaled by
/// `scale` about the model's origin, then moved by `(x, y)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshPlacement {
    /// Where the model's origin lands, x.
    pub x: f32,
    /// Where the model's origin lands, y.
    pub y: f32,
    /// Turn, radians.
    pub angle: f32,
    /// Scale.
    pub scale: f32,
    /// Layer: meshes on different layers never collide.
    pub layer: u8,
}

impl MeshPlacement {
    /// Unturned, unscaled, the model's origin at (x, y), layer 0.
    pub fn at(x: f32, y: f32) -> MeshPlacement {
        MeshPlacement {
            x,
            y,
            angle: 0.0,
            scale: 1.0,
            layer: 0,
        }
    }

    /// Where a model point lands: the vertex shader's arithmetic.
    pub fn apply(&self, p: [f32; 2]) -> [f64; 2] {
        let (s, c) = self.angle.sin_cos();
        let (x, y) = (p[0], p[1]);
        [
            f64::from((c * x + s * y) * self.scale + self.x),
            f64::from((-s * x + c * y) * self.scale + self.y),
        ]
    }
}

/// The collision buffer's resolution against the screen's, for meshes:
/// a lower one draws a quarter or a sixteenth of the pixels (fill rate)
/// and answers for a coarser picture; its error against full resolution is
/// measured by `gpu_meshes` (collide-bench).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// One buffer pixel per screen pixel.
    Full,
    /// One per 2 × 2.
    Half,
    /// One per 4 × 4.
    Quarter,
}

impl Resolution {
    /// Buffer pixels per screen pixel, along a side.
    pub fn factor(self) -> f32 {
        match self {
            Resolution::Full => 1.0,
            Resolution::Half => 0.5,
            Resolution::Quarter => 0.25,
        }
    }
}

/// A batch's draw records (two a pair) and each pair's scissor (`None`
/// where the boxes do not meet).
pub(crate) type PlacedPairs<D> = (Vec<D>, Vec<Option<[u32; 4]>>);

/// Two meshes to test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshPair {
    /// The first mesh (drawn into the stencil buffer).
    pub a: MeshId,
    /// Where it is.
    pub at_a: MeshPlacement,
    /// The second mesh (drawn with the stencil test, inside the query).
    pub b: MeshId,
    /// Where it is.
    pub at_b: MeshPlacement,
}

/// A mesh on the GPU, and its model kept for the CPU side.
pub(crate) struct Mesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    /// The farthest vertex from the model's origin (the placed mesh's
    /// bounding box is its circle's).
    radius: f32,
    model: Vec<[f32; 2]>,
    triangles: Vec<[u32; 3]>,
}

/// The per-draw record of `mesh.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct MeshDraw {
    pos: [f32; 2],
    cos_sin: [f32; 2],
    depth: f32,
    scale: f32,
    pad: [f32; 2],
    colour: [f32; 4],
}

/// The mesh renderer in its two collision modes.
pub(crate) struct MeshPipelines {
    write: wgpu::RenderPipeline,
    test: wgpu::RenderPipeline,
    /// The test that leaves the stencil as it was (a group's candidates).
    test_keep: wgpu::RenderPipeline,
    /// Normal mode: each mesh in its colour.
    colour: wgpu::RenderPipeline,
}

impl MeshPipelines {
    pub(crate) fn new(device: &wgpu::Device, draw_layout: &wgpu::BindGroupLayout) -> MeshPipelines {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mesh"),
            source: wgpu::ShaderSource::Wgsl(include_str!("mesh.wgsl").into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh"),
            bind_group_layouts: &[Some(draw_layout)],
            immediate_size: 0,
        });
        let vertex_layout = [Some(wgpu::VertexBufferLayout {
            array_stride: 8,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &[wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x2,
                offset: 0,
                shader_location: 0,
            }],
        })];
        let pipeline = |label, face: wgpu::StencilFaceState, depth_write, depth_compare| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &vertex_layout,
                },
                // Both windings: a model's triangles may turn either way.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_STENCIL,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(depth_compare),
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
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let colour = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("mesh: colour"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &vertex_layout,
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_colour"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: wgpu::TextureFormat::Rgba8Unorm,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        MeshPipelines {
            colour,
            test_keep: pipeline(
                "mesh: test stencil, keep",
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Equal,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Keep,
                },
                false,
                wgpu::CompareFunction::Equal,
            ),
            write: pipeline(
                "mesh: write stencil",
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Always,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Replace,
                },
                true,
                wgpu::CompareFunction::Always,
            ),
            // A passing fragment clears its pixel: overlapping triangles
            // of one mesh count a pixel once.
            test: pipeline(
                "mesh: test stencil",
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Equal,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Zero,
                },
                false,
                wgpu::CompareFunction::Equal,
            ),
        }
    }
}

impl GpuCollider {
    /// Sets the collision buffer's resolution for mesh tests (2-D and 3-D).
    pub fn set_resolution(&mut self, resolution: Resolution) {
        self.resolution = resolution;
    }

    /// Uploads a mesh: vertices in model coordinates (pixels) and
    /// triangles as indices into them. Uploaded once; every test draws it
    /// from the collider's own buffers.
    ///
    /// # Errors
    /// [`GpuError::BadMesh`] for no triangles, an index past the vertices
    /// or a vertex that is not finite.
    pub fn add_mesh(
        &mut self,
        vertices: &[[f32; 2]],
        triangles: &[[u32; 3]],
    ) -> Result<MeshId, GpuError> {
        let (vertex_buffer, index_buffer, index_count) = self.upload_mesh(vertices, triangles)?;
        let radius = vertices
            .iter()
            .map(|v| v[0].hypot(v[1]))
            .fold(0.0f32, f32::max);
        self.meshes.push(Mesh {
            vertices: vertex_buffer,
            indices: index_buffer,
            index_count,
            radius,
            model: vertices.to_vec(),
            triangles: triangles.to_vec(),
        });
        Ok(MeshId(self.meshes.len() - 1))
    }

    /// Uploads a simple polygon (concave allowed; model coordinates in
    /// pixels), cut into triangles by `collide::raster::triangulate`.
    ///
    /// # Errors
    /// [`GpuError::Polygon`] when the outline is not a simple polygon.
    pub fn add_polygon(&mut self, outline: &[Vec2]) -> Result<MeshId, GpuError> {
        let triangles = collide::raster::triangulate(outline).map_err(GpuError::Polygon)?;
        let vertices: Vec<[f32; 2]> = triangles.iter().flatten().map(|p| [p.x, p.y]).collect();
        let indices: Vec<[u32; 3]> = (0..triangles.len() as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        self.add_mesh(&vertices, &indices)
    }

    fn mesh(&self, id: MeshId) -> Result<&Mesh, GpuError> {
        self.meshes.get(id.0).ok_or(GpuError::UnknownMesh(id.0))
    }

    /// A mesh's triangles where `at` puts them (pixel coordinates): what
    /// `collide::raster::rasterize` takes to give the CPU's coverage.
    pub fn placed_triangles(
        &self,
        id: MeshId,
        at: MeshPlacement,
    ) -> Result<Vec<[[f64; 2]; 3]>, GpuError> {
        let m = self.mesh(id)?;
        Ok(m.triangles
            .iter()
            .map(|t| t.map(|i| at.apply(m.model[i as usize])))
            .collect())
    }

    /// A placed mesh's draw record and its bounding box (the circle's
    /// around the model's origin, in pixels: `[x0, y0, x1, y1]`).
    fn mesh_draw(
        &self,
        index: usize,
        id: MeshId,
        p: MeshPlacement,
    ) -> Result<(MeshDraw, [f64; 4]), GpuError> {
        let m = self.mesh(id)?;
        if !(p.angle.is_finite()
            && p.scale.is_finite()
            && p.scale > 0.0
            && p.x.is_finite()
            && p.y.is_finite())
        {
            return Err(GpuError::BadPlacement {
                index,
                angle: p.angle,
                scale: p.scale,
            });
        }
        let r = f64::from(m.radius) * f64::from(p.scale) + 1.0;
        let (x, y) = (f64::from(p.x), f64::from(p.y));
        let (s, c) = p.angle.sin_cos();
        Ok((
            MeshDraw {
                pos: [p.x, p.y],
                cos_sin: [c, s],
                depth: layer_depth(p.layer),
                scale: p.scale,
                pad: [0.0; 2],
                colour: [1.0; 4],
            },
            [x - r, y - r, x + r, y + r],
        ))
    }

    /// Tests mesh pairs on the path the cost model picks for the batch
    /// ([`GpuCollider::mesh_costs`]); each [`Hit`] says which path gave it.
    ///
    /// # Errors
    /// An unknown mesh, a bad placement, a pair too large for the target,
    /// or a failed read-back.
    pub fn test_mesh_pairs(&self, pairs: &[MeshPair]) -> Result<Vec<Hit>, GpuError> {
        self.test_mesh_pairs_on(pairs, PathChoice::Auto)
    }

    /// Tests mesh pairs on the path asked for, at the collider's
    /// [`Resolution`] (counts are then in buffer pixels).
    ///
    /// # Errors
    /// As [`GpuCollider::test_mesh_pairs`].
    pub fn test_mesh_pairs_on(
        &self,
        pairs: &[MeshPair],
        path: PathChoice,
    ) -> Result<Vec<Hit>, GpuError> {
        // A lower resolution is the same scene drawn smaller.
        let scaled: Vec<MeshPair>;
        let pairs = if self.resolution == Resolution::Full {
            pairs
        } else {
            let f = self.resolution.factor();
            let shrink = |p: MeshPlacement| MeshPlacement {
                x: p.x * f,
                y: p.y * f,
                scale: p.scale * f,
                ..p
            };
            scaled = pairs
                .iter()
                .map(|p| MeshPair {
                    at_a: shrink(p.at_a),
                    at_b: shrink(p.at_b),
                    ..*p
                })
                .collect();
            &scaled
        };
        if !self.use_queries {
            return self.test_mesh_pairs_cpu(pairs);
        }
        match path {
            PathChoice::Gpu => self.test_mesh_pairs_gpu(pairs),
            PathChoice::Cpu => self.test_mesh_pairs_cpu(pairs),
            PathChoice::Auto => {
                let work = self.mesh_work(pairs)?;
                let costs = self.mesh_costs();
                if costs.cpu(&work) < costs.gpu(&work) {
                    self.test_mesh_pairs_cpu(pairs)
                } else {
                    self.test_mesh_pairs_gpu(pairs)
                }
            }
        }
    }

    /// The CPU path: both meshes placed and rasterised
    /// (`collide::raster::rasterize`) over their boxes' overlap, the masks
    /// ANDed; the count is exact for that rule.
    pub(crate) fn test_mesh_pairs_cpu(&self, pairs: &[MeshPair]) -> Result<Vec<Hit>, GpuError> {
        let mut out = Vec::with_capacity(pairs.len());
        for (index, p) in pairs.iter().enumerate() {
            let (ba, _) = self.mesh_box(index, p.a, p.at_a)?;
            let (bb, _) = self.mesh_box(index, p.b, p.at_b)?;
            let (x0, y0) = (ba[0].max(bb[0]).floor(), ba[1].max(bb[1]).floor());
            let (x1, y1) = (ba[2].min(bb[2]).ceil(), ba[3].min(bb[3]).ceil());
            if x0 >= x1 || y0 >= y1 {
                out.push(Hit {
                    hit: false,
                    query: 0,
                    path: Path::BoundingBoxes,
                });
                continue;
            }
            let window = |id, at| -> Result<collide::mask::Mask, GpuError> {
                let moved: Vec<[[f64; 2]; 3]> = self
                    .placed_triangles(id, at)?
                    .into_iter()
                    .map(|t| t.map(|q| [q[0] - x0, q[1] - y0]))
                    .collect();
                collide::raster::rasterize((x1 - x0) as usize, (y1 - y0) as usize, moved)
                    .map_err(|e| GpuError::BadMesh(format!("pair {index}: {e}")))
            };
            let count = window(p.a, p.at_a)?.overlap_area(&window(p.b, p.at_b)?, 0, 0);
            out.push(Hit {
                hit: count > 0,
                query: count,
                path: Path::CpuRaster,
            });
        }
        Ok(out)
    }

    /// A placed mesh's bounding box (the circle's around the model's
    /// origin) and its triangle count.
    pub(crate) fn mesh_box(
        &self,
        index: usize,
        id: MeshId,
        at: MeshPlacement,
    ) -> Result<([f64; 4], usize), GpuError> {
        let (_, b) = self.mesh_draw(index, id, at)?;
        Ok((b, self.mesh(id)?.triangles.len()))
    }

    /// The GPU path: the stencil buffer and occlusion queries, many pairs
    /// per submission; pairs whose bounding boxes do not meet are answered
    /// without drawing.
    pub(crate) fn test_mesh_pairs_gpu(&self, pairs: &[MeshPair]) -> Result<Vec<Hit>, GpuError> {
        let mut out = Vec::with_capacity(pairs.len());
        for (chunk_index, chunk) in pairs.chunks(PAIRS_PER_SUBMIT).enumerate() {
            let (draws, scissors) = self.place_mesh_pairs(chunk, chunk_index * PAIRS_PER_SUBMIT)?;
            if scissors.iter().all(Option::is_none) {
                out.extend(chunk.iter().map(|_| boxes_apart()));
                continue;
            }
            let (_buf, bind) = self.draw_bind_group(&draws);
            let queries = self.submit_pair_queries(&scissors, &bind, |pass, i, second| {
                self.draw_pair_mesh(pass, &chunk[i as usize], i, second)
            })?;
            let hits = self.read_hits(&queries)?;
            out.extend(
                hits.into_iter()
                    .zip(&scissors)
                    .map(|(hit, s)| if s.is_some() { hit } else { boxes_apart() }),
            );
        }
        Ok(out)
    }

    /// Each pair's two draws, both moved by whole pixels so their union
    /// starts at (1, 1) (a translation changes no pixel's answer), and the
    /// scissor of their boxes' overlap; `None` where the boxes do not meet.
    fn place_mesh_pairs(
        &self,
        pairs: &[MeshPair],
        base: usize,
    ) -> Result<PlacedPairs<MeshDraw>, GpuError> {
        let side = f64::from(self.side);
        let mut draws = Vec::with_capacity(pairs.len() * 2);
        let mut scissors = Vec::with_capacity(pairs.len());
        for (k, pair) in pairs.iter().enumerate() {
            let index = base + k;
            let (mut da, ba) = self.mesh_draw(index, pair.a, pair.at_a)?;
            let (mut db, bb) = self.mesh_draw(index, pair.b, pair.at_b)?;
            if !(ba[0] < bb[2] && bb[0] < ba[2] && ba[1] < bb[3] && bb[1] < ba[3]) {
                draws.push(da);
                draws.push(db);
                scissors.push(None);
                continue;
            }
            let (x0, y0) = (ba[0].min(bb[0]).floor(), ba[1].min(bb[1]).floor());
            let (x1, y1) = (ba[2].max(bb[2]).ceil(), ba[3].max(bb[3]).ceil());
            self.check_fits(index, x1 - x0 + 2.0, y1 - y0 + 2.0)?;
            let (tx, ty) = (1.0 - x0, 1.0 - y0);
            for d in [&mut da, &mut db] {
                d.pos = [
                    (f64::from(d.pos[0]) + tx) as f32,
                    (f64::from(d.pos[1]) + ty) as f32,
                ];
            }
            // The seed's scissor: only the boxes' overlap can hold a
            // shared pixel.
            let sx0 = (ba[0].max(bb[0]) + tx).floor().max(0.0);
            let sy0 = (ba[1].max(bb[1]) + ty).floor().max(0.0);
            let sx1 = (ba[2].min(bb[2]) + tx).ceil().min(side);
            let sy1 = (ba[3].min(bb[3]) + ty).ceil().min(side);
            draws.push(da);
            draws.push(db);
            scissors.push(Some([
                sx0 as u32,
                sy0 as u32,
                (sx1 - sx0).max(1.0) as u32,
                (sy1 - sy0).max(1.0) as u32,
            ]));
        }
        Ok((draws, scissors))
    }

    /// Pair `i`'s first mesh into the stencil, or its second under the
    /// test (draw records `2i` and `2i + 1`).
    fn draw_pair_mesh(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pair: &MeshPair,
        i: u32,
        second: bool,
    ) -> Result<(), GpuError> {
        let (pipeline, id) = if second {
            (&self.mesh_pipelines.test, pair.b)
        } else {
            (&self.mesh_pipelines.write, pair.a)
        };
        let m = self.mesh(id)?;
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, m.vertices.slice(..));
        pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
        let k = 2 * i + u32::from(second);
        pass.draw_indexed(0..m.index_count, 0, k..k + 1);
        Ok(())
    }
}

impl GpuCollider {
    /// One mesh against many, the seed's group test for meshes: `first` is
    /// drawn into the stencil once, then each of `others` whose box meets
    /// it inside its own occlusion query. `first` must fit the collision
    /// buffer; the others may reach past it (only pixels in `first`'s box
    /// can count).
    ///
    /// # Errors
    /// An unknown mesh, a bad placement, `first` larger than the buffer,
    /// more than 4,096 others, or a failed read-back.
    pub fn test_mesh_group(
        &self,
        first: MeshId,
        at: MeshPlacement,
        others: &[(MeshId, MeshPlacement)],
    ) -> Result<Vec<Hit>, GpuError> {
        if others.len() > PAIRS_PER_SUBMIT {
            return Err(GpuError::TooManyGroups {
                given: others.len(),
                limit: PAIRS_PER_SUBMIT,
            });
        }
        let (mut d0, b0) = self.mesh_draw(0, first, at)?;
        let side = f64::from(self.side);
        let (w, h) = (b0[2] - b0[0], b0[3] - b0[1]);
        if w + 2.0 > side || h + 2.0 > side {
            return Err(GpuError::PairTooLarge {
                index: 0,
                width: w.ceil() as i64,
                height: h.ceil() as i64,
                side: self.side,
            });
        }
        // The first mesh's box centred in the buffer, moved by whole pixels.
        let tx = ((side - w) / 2.0 - b0[0]).floor();
        let ty = ((side - h) / 2.0 - b0[1]).floor();
        let shift = |d: &mut MeshDraw| {
            d.pos = [
                (f64::from(d.pos[0]) + tx) as f32,
                (f64::from(d.pos[1]) + ty) as f32,
            ];
        };
        shift(&mut d0);
        let mut draws = vec![d0];
        let mut drawn = Vec::new();
        let mut out = vec![
            Hit {
                hit: false,
                query: 0,
                path: Path::BoundingBoxes,
            };
            others.len()
        ];
        for (k, &(id, p)) in others.iter().enumerate() {
            let (mut d, b) = self.mesh_draw(k + 1, id, p)?;
            if b[0] < b0[2] && b0[0] < b[2] && b[1] < b0[3] && b0[1] < b[3] {
                shift(&mut d);
                draws.push(d);
                drawn.push(k);
            }
        }
        if drawn.is_empty() {
            return Ok(out);
        }
        let bind = self.draw_bind_group(&draws);
        let queries = self.queries(drawn.len() as u32);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("mesh group"),
            });
        {
            let mut pass = self.stencil_pass(&mut enc, &queries);
            pass.set_bind_group(0, &bind.1, &[]);
            let (sx0, sy0) = ((b0[0] + tx).floor().max(0.0), (b0[1] + ty).floor().max(0.0));
            let (sx1, sy1) = ((b0[2] + tx).ceil().min(side), (b0[3] + ty).ceil().min(side));
            pass.set_scissor_rect(
                sx0 as u32,
                sy0 as u32,
                (sx1 - sx0).max(1.0) as u32,
                (sy1 - sy0).max(1.0) as u32,
            );
            pass.set_stencil_reference(1);
            let m0 = self.mesh(first)?;
            pass.set_pipeline(&self.mesh_pipelines.write);
            pass.set_vertex_buffer(0, m0.vertices.slice(..));
            pass.set_index_buffer(m0.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..m0.index_count, 0, 0..1);
            // Each query reads the stencil as the first mesh left it: the
            // test keeps it (no clearing on pass here), so candidates do
            // not hide one another.
            pass.set_pipeline(&self.mesh_pipelines.test_keep);
            for (q, &k) in drawn.iter().enumerate() {
                let m = self.mesh(others[k].0)?;
                pass.set_vertex_buffer(0, m.vertices.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.begin_occlusion_query(q as u32);
                pass.draw_indexed(0..m.index_count, 0, q as u32 + 1..q as u32 + 2);
                pass.end_occlusion_query();
            }
        }
        queries.resolve_into(&mut enc);
        self.queue.submit([enc.finish()]);
        for (q, count) in self
            .read_back::<u64>(&queries.read)?
            .into_iter()
            .enumerate()
        {
            out[drawn[q]] = self.hit(count);
        }
        Ok(out)
    }
}

impl GpuCollider {
    /// [`GpuCollider::test_mesh_pairs`]'s GPU path without waiting: the
    /// queries start now and [`crate::PendingHits::try_take`] gives the
    /// answers when they are back (a frame later, never a stall). Pairs
    /// whose boxes do not meet get an empty query (0, not hit).
    ///
    /// # Errors
    /// As [`GpuCollider::test_mesh_pairs`], and more than 4,096 pairs.
    pub fn submit_mesh_pairs(&self, pairs: &[MeshPair]) -> Result<crate::PendingHits, GpuError> {
        if pairs.len() > PAIRS_PER_SUBMIT {
            return Err(GpuError::TooManyGroups {
                given: pairs.len(),
                limit: PAIRS_PER_SUBMIT,
            });
        }
        if pairs.is_empty() {
            return Ok(crate::PendingHits::empty());
        }
        let (draws, scissors) = self.place_mesh_pairs(pairs, 0)?;
        let (_buf, bind) = self.draw_bind_group(&draws);
        let queries = self.submit_pair_queries(&scissors, &bind, |pass, i, second| {
            self.draw_pair_mesh(pass, &pairs[i as usize], i, second)
        })?;
        Ok(self.pending(queries, pairs.len()))
    }
}

impl GpuCollider {
    /// Normal mode for 2-D meshes: draws each `(mesh, placement, colour)`
    /// over `background` into a `width × height` RGBA image (later ones on
    /// top), by the same rasteriser rule as the collision modes: what is
    /// seen is what collides.
    ///
    /// # Errors
    /// An unknown mesh, a bad placement, or a failed read-back.
    pub fn render_meshes(
        &self,
        width: u32,
        height: u32,
        background: [f64; 4],
        objects: &[(MeshId, MeshPlacement, [f32; 4])],
    ) -> Result<Vec<u8>, GpuError> {
        let mut draws = Vec::with_capacity(objects.len().max(1));
        for (k, &(id, at, colour)) in objects.iter().enumerate() {
            let (mut d, _) = self.mesh_draw(k, id, at)?;
            d.colour = colour;
            draws.push(d);
        }
        let (_draws, _size, bind) = self.image_bind_group(&draws, width, height);
        self.render_scene(width, height, background, false, |pass| {
            pass.set_pipeline(&self.mesh_pipelines.colour);
            pass.set_bind_group(0, &bind, &[]);
            for (k, &(id, _, _)) in objects.iter().enumerate() {
                let m = self.mesh(id)?;
                pass.set_vertex_buffer(0, m.vertices.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..m.index_count, 0, k as u32..k as u32 + 1);
            }
            Ok(())
        })
    }
}

impl GpuCollider {
    /// Checks a mesh (2-D or 3-D vertices, `N` coordinates each) and
    /// uploads it: its vertex and index buffers and index count.
    ///
    /// # Errors
    /// [`GpuError::BadMesh`] for no triangles, a vertex that is not finite,
    /// an index past the vertices, or over 2^32 indices.
    pub(crate) fn upload_mesh<const N: usize>(
        &self,
        vertices: &[[f32; N]],
        triangles: &[[u32; 3]],
    ) -> Result<(wgpu::Buffer, wgpu::Buffer, u32), GpuError> {
        let bad = |what: String| Err(GpuError::BadMesh(what));
        if triangles.is_empty() {
            return bad("a mesh needs at least one triangle".into());
        }
        if let Some(k) = vertices
            .iter()
            .position(|v| !v.iter().all(|c| c.is_finite()))
        {
            return bad(format!("vertex {k} is not finite: {:?}", vertices[k]));
        }
        if let Some((t, i)) = triangles
            .iter()
            .enumerate()
            .flat_map(|(t, tri)| tri.iter().map(move |&i| (t, i)))
            .find(|&(_, i)| i as usize >= vertices.len())
        {
            return bad(format!(
                "triangle {t} uses vertex {i}; there are {}",
                vertices.len()
            ));
        }
        let index_count = u32::try_from(triangles.len() * 3)
            .map_err(|_| GpuError::BadMesh("over 2^32 indices".into()))?;
        let buffer = |label, contents: &[u8], usage| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        Ok((
            buffer(
                "mesh vertices",
                bytemuck::cast_slice(vertices),
                wgpu::BufferUsages::VERTEX,
            ),
            buffer(
                "mesh indices",
                bytemuck::cast_slice(triangles),
                wgpu::BufferUsages::INDEX,
            ),
            index_count,
        ))
    }
}
