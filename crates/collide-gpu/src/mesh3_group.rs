//! One 3-D mesh against many with the first drawn once (the seed's group
//! test in 3-D). A pair keeps each mesh to the other's depth slab, so one
//! stencil of the first cannot serve every candidate. Instead the first is
//! drawn twice into depth targets, its nearest and its farthest surface at
//! each pixel, and each candidate's shader reads both: a pixel counts where
//! the candidate has a surface within the first's depth range and the first
//! has one within the candidate's. When every triangle of the first lies
//! on its convex hull, those two depths are all its surfaces at a pixel,
//! and the answers are the pair test's exactly (counts too); other first
//! meshes are tested as pairs.

use collide::{Aabb, DepthRange, Mat4, Viewport, screen_rect_of_box};

use crate::mesh3::{Mesh3Draw, Mesh3Id, depth_range, onto_buffer};
use crate::{DEPTH_STENCIL, DepthSlabs, GpuCollider, GpuError, Hit, PAIRS_PER_PASS};

/// The first mesh's depths, as an f32's bits in an integer colour target:
/// one for the nearest surface, one for the farthest (GL can neither read
/// a depth texture in a shader nor render into R32Float).
const GROUP_DEPTH_COLOUR: wgpu::TextureFormat = wgpu::TextureFormat::R32Uint;
/// The depth test that keeps the nearest or the farthest.
const GROUP_DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The group test's targets and pipelines.
pub(crate) struct GroupTargets {
    nearest: wgpu::TextureView,
    farthest: wgpu::TextureView,
    depth: wgpu::TextureView,
    depths: wgpu::BindGroup,
    /// The first mesh into `nearest` (less) and `farthest` (greater).
    near: wgpu::RenderPipeline,
    far: wgpu::RenderPipeline,
    /// Each candidate inside its query, its pixels counted once (stencil
    /// "not equal" to its own value, then set to it).
    candidate: wgpu::RenderPipeline,
}

impl GroupTargets {
    pub(crate) fn new(
        device: &wgpu::Device,
        draw_layout: &wgpu::BindGroupLayout,
        side: u32,
    ) -> GroupTargets {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mesh3 group"),
            source: wgpu::ShaderSource::Wgsl(include_str!("mesh3_group.wgsl").into()),
        });
        let target = |label, format, usage| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: side,
                        height: side,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        let read = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
        let nearest = target("group nearest", GROUP_DEPTH_COLOUR, read);
        let farthest = target("group farthest", GROUP_DEPTH_COLOUR, read);
        let depth = target(
            "group depth test",
            GROUP_DEPTH,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let depth_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Uint,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let depth_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("group depths"),
            entries: &[depth_entry(0), depth_entry(1)],
        });
        let depths = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("group depths"),
            layout: &depth_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&nearest),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&farthest),
                },
            ],
        });
        let vertex_layout = [Some(crate::mesh3::VERTEX3)];
        let depth_only_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("group depth"),
            bind_group_layouts: &[Some(draw_layout)],
            immediate_size: 0,
        });
        let depth_pipeline = |label, compare| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&depth_only_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &vertex_layout,
                },
                // Front and back faces: both are surfaces.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: GROUP_DEPTH,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(compare),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_depth"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: GROUP_DEPTH_COLOUR,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let candidate_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("group candidate"),
            bind_group_layouts: &[Some(draw_layout), Some(&depth_layout)],
            immediate_size: 0,
        });
        let once = wgpu::StencilFaceState {
            compare: wgpu::CompareFunction::NotEqual,
            fail_op: wgpu::StencilOperation::Keep,
            depth_fail_op: wgpu::StencilOperation::Keep,
            pass_op: wgpu::StencilOperation::Replace,
        };
        let candidate = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("group candidate"),
            layout: Some(&candidate_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &vertex_layout,
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_STENCIL,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: wgpu::StencilState {
                    front: once,
                    back: once,
                    read_mask: 0xff,
                    write_mask: 0xff,
                },
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_candidate"),
                compilation_options: Default::default(),
                targets: &[],
            }),
            multiview_mask: None,
            cache: None,
        });
        GroupTargets {
            nearest,
            farthest,
            depth,
            depths,
            near: depth_pipeline("group nearest", wgpu::CompareFunction::Less),
            far: depth_pipeline("group farthest", wgpu::CompareFunction::Greater),
            candidate,
        }
    }
}

impl GpuCollider {
    /// The GPU group test with the first mesh drawn once; `None` when the
    /// first mesh is not on its hull (the caller tests pairs).
    pub(crate) fn test_mesh_3d_group_once(
        &self,
        first: Mesh3Id,
        mvp: &Mat4,
        others: &[(Mesh3Id, Mat4)],
        viewport: &Viewport,
        slabs: DepthSlabs,
    ) -> Result<Option<Vec<Hit>>, GpuError> {
        let a = self.mesh3(first)?;
        if !a.on_hull {
            return Ok(None);
        }
        let viewport = &self.scaled_viewport(viewport);
        let rect = |index: usize, id: Mesh3Id, m: &Mat4| -> Result<Option<Aabb>, GpuError> {
            let mesh = self.mesh3(id)?;
            screen_rect_of_box(mesh.min, mesh.max, m, viewport, DepthRange::ZeroToOne)
                .map_err(|e| GpuError::BadMesh(format!("pair {index}: {e}")))
        };
        let slab = |id: Mesh3Id, m: &Mat4| -> Result<[f32; 2], GpuError> {
            let mesh = self.mesh3(id)?;
            Ok(match slabs {
                DepthSlabs::On => depth_range(mesh.min, mesh.max, m),
                DepthSlabs::Off => [0.0, 1.0],
            })
        };
        let miss = crate::boxes_apart();
        let mut out = vec![miss; others.len()];
        // Every candidate is checked first, so bad input fails before any
        // drawing.
        let mut near_first = Vec::new();
        for (k, (id, m)) in others.iter().enumerate() {
            near_first.push(rect(k, *id, m)?);
        }
        let Some(ra) = rect(0, first, mvp)? else {
            return Ok(Some(out));
        };
        // The candidates whose rectangles meet the first's, and the
        // rectangle holding all those overlaps: it must fit the buffer
        // (else the pairs are tested one by one, each needing only its own
        // overlap to fit).
        let mut drawn = Vec::new();
        let mut union = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for (k, rb) in near_first.iter().enumerate() {
            let Some(rb) = rb else { continue };
            let overlap = [
                f64::from(ra.min().x.max(rb.min().x)).floor(),
                f64::from(ra.min().y.max(rb.min().y)).floor(),
                f64::from(ra.max().x.min(rb.max().x)).ceil(),
                f64::from(ra.max().y.min(rb.max().y)).ceil(),
            ];
            if overlap[0] < overlap[2] && overlap[1] < overlap[3] {
                union = [
                    union[0].min(overlap[0]),
                    union[1].min(overlap[1]),
                    union[2].max(overlap[2]),
                    union[3].max(overlap[3]),
                ];
                drawn.push(k);
            }
        }
        if drawn.is_empty() {
            return Ok(Some(out));
        }
        let [x0, y0, x1, y1] = union;
        let side = f64::from(self.side);
        if x1 - x0 + 2.0 > side || y1 - y0 + 2.0 > side {
            return Ok(None);
        }
        let (tx, ty) = (1.0 - x0, 1.0 - y0);
        let own_a = slab(first, mvp)?;
        let mut draws = vec![Mesh3Draw {
            mvp: onto_buffer(mvp, viewport, tx, ty, side),
            slab: [0.0, 1.0],
            own: own_a,
            colour: [1.0; 4],
        }];
        for &k in &drawn {
            let (id, m) = &others[k];
            draws.push(Mesh3Draw {
                mvp: onto_buffer(m, viewport, tx, ty, side),
                slab: own_a,
                own: slab(*id, m)?,
                colour: [1.0; 4],
            });
        }
        let (_buf, bind) = self.draw_bind_group(&draws);
        let scissor = [1, 1, (x1 - x0) as u32, (y1 - y0) as u32];
        let g = &self.mesh3_group;
        for (chunk_index, chunk) in drawn.chunks(crate::PAIRS_PER_SUBMIT).enumerate() {
            let queries = self.queries(chunk.len() as u32);
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("mesh3 group"),
                });
            let a = self.mesh3(first)?;
            for (view, clear, pipeline) in
                [(&g.nearest, 1.0f32, &g.near), (&g.farthest, 0.0, &g.far)]
            {
                let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("group depth"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            // The clear depth's bits, as the shader writes.
                            load: wgpu::LoadOp::Clear(wgpu::Color {
                                r: f64::from(clear.to_bits()),
                                g: 0.0,
                                b: 0.0,
                                a: 1.0,
                            }),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                        view: &g.depth,
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(clear),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: None,
                    }),
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                pass.set_bind_group(0, &bind, &[]);
                pass.set_scissor_rect(scissor[0], scissor[1], scissor[2], scissor[3]);
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, a.vertices.slice(..));
                pass.set_index_buffer(a.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..a.index_count, 0, 0..1);
            }
            // Each candidate's pixels are counted once: stencil values
            // 1..=255, a cleared stencil every 255 candidates.
            for (pass_index, part) in chunk.chunks(PAIRS_PER_PASS).enumerate() {
                let mut pass = self.stencil_pass(&mut enc, &queries);
                pass.set_bind_group(0, &bind, &[]);
                pass.set_bind_group(1, &g.depths, &[]);
                pass.set_scissor_rect(scissor[0], scissor[1], scissor[2], scissor[3]);
                pass.set_pipeline(&g.candidate);
                for (q, &k) in part.iter().enumerate() {
                    let slot = pass_index * PAIRS_PER_PASS + q;
                    let record = (chunk_index * crate::PAIRS_PER_SUBMIT + slot + 1) as u32;
                    let m = self.mesh3(others[k].0)?;
                    pass.set_stencil_reference(q as u32 + 1);
                    pass.set_vertex_buffer(0, m.vertices.slice(..));
                    pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.begin_occlusion_query(slot as u32);
                    pass.draw_indexed(0..m.index_count, 0, record..record + 1);
                    pass.end_occlusion_query();
                }
            }
            queries.resolve_into(&mut enc);
            self.queue.submit([enc.finish()]);
            for (hit, &k) in self.read_hits(&queries)?.into_iter().zip(chunk) {
                out[k] = hit;
            }
        }
        Ok(Some(out))
    }
}
