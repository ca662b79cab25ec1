//! Pixel-perfect collision on the GPU, the seed's way (kometbomb, "Hardware-
//! accelerated 2D collision detection in OpenGL" and "Collision Detection
//! with Occlusion Queries Redux"): draw the first sprite into the stencil
//! buffer only, then the second with the stencil test "equal" inside an
//! occlusion query; any sample passing means the sprites touch.
//!
//! ```
//! use collide::mask::Mask;
//! use collide_gpu::{GpuCollider, GpuError, Pair, Placement};
//! let mut gpu = match GpuCollider::new(256) {
//!     Ok(gpu) => gpu,
//!     // No GPU here, not even a software one: nothing to show.
//!     Err(GpuError::NoAdapter(why)) => {
//! #       assert!(std::env::var("REQUIRE_GPU").as_deref() != Ok("1"), "{why}");
//!         return Ok(());
//!     }
//!     Err(e) => return Err(e.into()),
//! };
//! let ship = gpu.add_sprite(&Mask::full(32, 16)?)?;
//! let rock = gpu.add_sprite(&Mask::full(20, 20)?)?;
//! let near = Placement { angle: 0.7, scale: 1.5, ..Placement::at(25, 5) };
//! let far = Placement::at(200, 200);
//! let pairs = [
//!     Pair { a: ship, at_a: Placement::at(0, 0), b: rock, at_b: near },
//!     Pair { a: ship, at_a: Placement::at(0, 0), b: rock, at_b: far },
//! ];
//! let hits = gpu.test_pairs(&pairs)?; // yes or no, and the path that said it
//! assert!(hits[0].hit && !hits[1].hit);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - Sprites are `collide::mask::Mask`s uploaded as textures, placed at an
//!   integer position and turned and scaled about their centre. A fragment
//!   survives where its pixel centre, mapped back into the sprite, lands on
//!   a set texel. That is the rule of `Mask::rotated`, so the CPU masks
//!   are the oracle.
//! - Many pairs go in one submission. Pair `k` of a render pass writes
//!   stencil value `k + 1`, so no clear is needed between pairs, only every
//!   255.
//! - Occlusion results are only promised as "zero or not":
//!   [`Occlusion`] says what this adapter's queries give, and yes/no never
//!   relies on more. For an exact pixel count on any backend,
//!   [`GpuCollider::count_pairs`] counts the AND of both coverages in a
//!   compute pass.
//! - Meshes ([`GpuCollider::add_mesh`], [`GpuCollider::add_mesh_3d`]) go
//!   through the same modes: triangles uploaded once, each draw with its own
//!   transform; 3-D pairs use screen rectangles and depth slabs.
//! - A cost model ([`PathChoice::Auto`]) sends each batch of sprite pairs,
//!   group or 2-D mesh pairs to the GPU or to the CPU (`collide::mask`,
//!   `collide::raster`, by the same pixel rule), where its measured costs
//!   say; every [`Hit`] names its [`Path`].
//! - Per-draw parameters are copied into a GPU buffer per batch (never
//!   read later from memory the caller may reuse: the seed's static-array
//!   bug cannot happen here, and a test checks it).

use collide::mask::Mask;
use thiserror::Error;
use wgpu::util::DeviceExt;

mod cost;
mod mesh;
mod mesh3;
mod mesh3_group;
mod sprite_cpu;

pub use cost::{MeshCosts, MeshWork, SpriteCosts, SpriteWork};
pub use mesh::{MeshId, MeshPair, MeshPlacement, Resolution};
pub use mesh3::{DepthSlabs, Mesh3Id, Mesh3Pair, Model3, SceneObject};

/// Why the GPU path could not run.
#[derive(Debug, Error)]
pub enum GpuError {
    /// No adapter (no GPU and no software Vulkan: on Debian,
    /// `mesa-vulkan-drivers`).
    #[error(
        "no GPU adapter found ({0}); on Debian, `apt-get install mesa-vulkan-drivers` gives a software one"
    )]
    NoAdapter(String),
    /// The adapter refused a device.
    #[error("the GPU refused a device: {0}")]
    Device(String),
    /// A sprite id from another collider.
    #[error("sprite {0} does not exist here")]
    UnknownSprite(usize),
    /// A sprite too big for the device's textures.
    #[error("a {width}x{height} sprite is over this GPU's texture limit of {limit}")]
    SpriteTooLarge {
        /// Width.
        width: usize,
        /// Height.
        height: usize,
        /// The device's largest 2-D texture side.
        limit: u32,
    },
    /// An alpha buffer whose length is not width × height.
    #[error("a {width}x{height} alpha sprite needs {expected} bytes, got {got}")]
    AlphaSize {
        /// Width.
        width: usize,
        /// Height.
        height: usize,
        /// Bytes needed.
        expected: usize,
        /// Bytes given.
        got: usize,
    },
    /// A pair whose two placed sprites do not fit the render target.
    #[error("pair {index} spans {width}x{height} pixels; the target is {side}x{side}")]
    PairTooLarge {
        /// Index of the pair.
        index: usize,
        /// Width of the two sprites' union.
        width: i64,
        /// Height of the union.
        height: i64,
        /// The target's side.
        side: u32,
    },
    /// A placement that is not finite, or a scale that is not positive.
    #[error(
        "pair {index}: placement angle {angle} and scale {scale} must be finite, scale above 0"
    )]
    BadPlacement {
        /// Index of the pair.
        index: usize,
        /// Its angle.
        angle: f32,
        /// Its scale.
        scale: f32,
    },
    /// More groups than one submission's queries.
    #[error("{given} groups in one submission; at most {limit}")]
    TooManyGroups {
        /// Groups given.
        given: usize,
        /// The most one submission takes.
        limit: usize,
    },
    /// Reading results back failed.
    #[error("reading results back from the GPU failed: {0}")]
    Readback(String),
    /// A mesh id from another collider.
    #[error("mesh {0} does not exist here")]
    UnknownMesh(usize),
    /// A sprite's mask could not be made or turned on the CPU path.
    #[error("the CPU masks: {0}")]
    Mask(String),
    /// Mesh data that cannot be drawn: what was wrong with it.
    #[error("bad mesh: {0}")]
    BadMesh(String),
    /// An outline that is not a simple polygon.
    #[error("the polygon cannot be cut into triangles: {0}")]
    Polygon(collide::CollideError),
}

/// What this adapter's occlusion queries report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occlusion {
    /// A sample count (Vulkan, Metal, D3D12). Exact on Mesa's lavapipe, but
    /// wgpu does not promise exactness (it does not ask Vulkan for precise
    /// queries), so only "zero or not" is used.
    SampleCount,
    /// Only "any sample passed" (wgpu's GL backend:
    /// `GL_ANY_SAMPLES_PASSED_CONSERVATIVE`).
    AnySamplesPassed,
}

/// A sprite uploaded with [`GpuCollider::add_sprite`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpriteId(usize);

/// Where a sprite is: its unturned top-left corner on an integer pixel, and
/// a turn (radians, counter-clockwise on screen) and scale about its centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Left edge of the unturned sprite.
    pub x: i32,
    /// Top edge of the unturned sprite.
    pub y: i32,
    /// Turn, radians.
    pub angle: f32,
    /// Scale.
    pub scale: f32,
    /// Layer: objects on different layers never collide (the seed's depth
    /// ranges: the first sprite writes its layer's depth, the second passes
    /// only where the depth is its own).
    pub layer: u8,
    /// Alpha test: a texel is solid where its value is above this (a mask
    /// uploads 255 and 0; [`GpuCollider::add_alpha_sprite`] uploads alpha).
    pub threshold: u8,
}

impl Placement {
    /// Unturned, unscaled, at (x, y), layer 0, threshold 127.
    pub fn at(x: i32, y: i32) -> Placement {
        Placement {
            x,
            y,
            angle: 0.0,
            scale: 1.0,
            layer: 0,
            threshold: DEFAULT_THRESHOLD,
        }
    }
}

/// One pair to test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// The first sprite (drawn into the stencil buffer).
    pub a: SpriteId,
    /// Where it is.
    pub at_a: Placement,
    /// The second sprite (drawn with the stencil test, inside the query).
    pub b: SpriteId,
    /// Where it is.
    pub at_b: Placement,
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// The bounding boxes do not meet: nothing was drawn.
    BoundingBoxes,
    /// An occlusion query, of the kind this adapter gives.
    Occlusion(Occlusion),
    /// The CPU rasteriser (`collide::raster`), chosen by the cost model or
    /// asked for: the exact count by the same pixel rule.
    CpuRaster,
    /// The compute pass's exact count ([`GpuCollider::count_pairs`]), when
    /// occlusion queries are not used
    /// ([`GpuCollider::set_occlusion_queries`]).
    ComputeCount,
    /// The CPU masks (`collide::mask`, turned by `Mask::rotated`), chosen
    /// by the cost model or asked for: the exact count by the same rule.
    CpuMasks,
}

/// The answer for a pair whose boxes do not meet: nothing was drawn.
pub(crate) fn boxes_apart() -> Hit {
    Hit {
        hit: false,
        query: 0,
        path: Path::BoundingBoxes,
    }
}

/// Which path tests a batch (sprite pairs, a group, mesh pairs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathChoice {
    /// The one the cost model estimates cheaper for the batch
    /// ([`GpuCollider::sprite_costs`], [`GpuCollider::mesh_costs`]).
    Auto,
    /// The stencil buffer and occlusion queries.
    Gpu,
    /// The CPU, by the same pixel rule: the masks for sprites,
    /// `collide::raster` for meshes.
    Cpu,
}

/// One pair's answer from the occlusion path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Whether any pixel of the two overlaps.
    pub hit: bool,
    /// The query's raw result: a sample count under
    /// [`Occlusion::SampleCount`] (not promised exact), 0 or 1 under
    /// [`Occlusion::AnySamplesPassed`]; 0 when the boxes settled it.
    pub query: u64,
    /// Which path gave the answer.
    pub path: Path,
}

/// Group answers on their way back from the GPU (see
/// [`GpuCollider::submit_group_tests`]).
pub struct PendingHits {
    buffer: Option<wgpu::Buffer>,
    /// 0: not yet, 1: mapped, 2: failed.
    ready: std::sync::Arc<std::sync::atomic::AtomicU8>,
    count: usize,
    path: Path,
}

impl PendingHits {
    /// No answers to wait for.
    pub(crate) fn empty() -> PendingHits {
        PendingHits {
            buffer: None,
            ready: std::sync::Arc::new(std::sync::atomic::AtomicU8::new(1)),
            count: 0,
            path: Path::BoundingBoxes,
        }
    }

    /// The answers if they have arrived (never blocks), one per group.
    pub fn try_take(&mut self, gpu: &GpuCollider) -> Result<Option<Vec<Hit>>, GpuError> {
        let Some(buffer) = &self.buffer else {
            return Ok(Some(Vec::new()));
        };
        let _ = gpu
            .device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        match self.ready.load(std::sync::atomic::Ordering::Acquire) {
            0 => Ok(None),
            1 => {
                let view = buffer
                    .get_mapped_range(..)
                    .map_err(|e| GpuError::Readback(e.to_string()))?;
                let words: &[u64] = bytemuck::cast_slice(&view);
                let path = self.path;
                Ok(Some(
                    words
                        .iter()
                        .take(self.count)
                        .map(|&q| Hit {
                            hit: q > 0,
                            query: q,
                            path,
                        })
                        .collect(),
                ))
            }
            _ => Err(GpuError::Readback(
                "the result buffer could not be mapped".into(),
            )),
        }
    }

    /// Waits for the answers.
    pub fn wait(mut self, gpu: &GpuCollider) -> Result<Vec<Hit>, GpuError> {
        loop {
            if let Some(hits) = self.try_take(gpu)? {
                return Ok(hits);
            }
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| GpuError::Readback(e.to_string()))?;
        }
    }
}

/// Occlusion queries with their result buffers.
pub(crate) struct Queries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    n: u32,
}

impl Queries {
    /// Records copying the results to the readable buffer.
    fn resolve_into(&self, enc: &mut wgpu::CommandEncoder) {
        enc.resolve_query_set(&self.set, 0..self.n, &self.resolve, 0);
        enc.copy_buffer_to_buffer(&self.resolve, 0, &self.read, 0, u64::from(self.n) * 8);
    }
}

/// The per-draw record the shaders read (`Draw` in the WGSL): every
/// object's own transform, layer depth, alpha threshold and colour, copied
/// into a GPU buffer per batch.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Draw {
    pos: [f32; 2],
    size: [f32; 2],
    cos_sin_inv: [f32; 3],
    depth: f32,
    half: [f32; 2],
    threshold: f32,
    pad: f32,
    colour: [f32; 4],
}

/// The count pass's per-pair record (`Job` in the WGSL), one per 256 bytes
/// (the dynamic-offset alignment).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Job {
    a: u32,
    b: u32,
    slot: u32,
    pad: u32,
    origin: [i32; 2],
    extent: [u32; 2],
    pad2: [u32; 56],
}

struct Sprite {
    width: usize,
    height: usize,
    view: wgpu::TextureView,
    bind: wgpu::BindGroup,
    /// The texels, kept for the CPU path's other alpha thresholds.
    texels: Vec<u8>,
    /// What [`DEFAULT_THRESHOLD`] keeps: the CPU path's mask.
    mask: Mask,
    /// Only 0 and 255: every threshold below 255 keeps `mask`.
    binary: bool,
}

/// [`Placement::at`]'s alpha test.
pub(crate) const DEFAULT_THRESHOLD: u8 = 127;

/// A device with the pipelines and a stencil target ready.
pub struct GpuCollider {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    occlusion: Occlusion,
    side: u32,
    stencil_view: wgpu::TextureView,
    draw_layout: wgpu::BindGroupLayout,
    sprite_layout: wgpu::BindGroupLayout,
    count_layout: wgpu::BindGroupLayout,
    pair_layout: wgpu::BindGroupLayout,
    write_stencil: wgpu::RenderPipeline,
    test_stencil: wgpu::RenderPipeline,
    colour: wgpu::RenderPipeline,
    count: wgpu::ComputePipeline,
    target_buf: wgpu::Buffer,
    sprites: Vec<Sprite>,
    mesh_pipelines: mesh::MeshPipelines,
    meshes: Vec<mesh::Mesh>,
    mesh_costs: cost::MeshCosts,
    sprite_costs: cost::SpriteCosts,
    /// Whether pair tests use occlusion queries (else the compute count for
    /// sprites and the CPU rasteriser for 2-D meshes).
    use_queries: bool,
    /// The mesh tests' buffer resolution.
    resolution: mesh::Resolution,
    mesh3_pipelines: mesh3::Mesh3Pipelines,
    mesh3_group: mesh3_group::GroupTargets,
    meshes3: Vec<mesh3::Mesh3>,
}

/// The depth a layer's sprites are drawn at (distinct and exact in a
/// 24-bit depth buffer).
fn layer_depth(layer: u8) -> f32 {
    (f32::from(layer) + 0.5) / 256.0
}

/// Pairs per render pass: stencil values 1..=255, then a clear.
const PAIRS_PER_PASS: usize = 255;
/// Pairs per submission (one query set).
const PAIRS_PER_SUBMIT: usize = 4096;
/// The collision buffer: stencil for the masks, depth for the layers.
const DEPTH_STENCIL: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;

fn texture_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

impl GpuCollider {
    /// Finds an adapter (`WGPU_BACKEND` may choose the backend) and makes a
    /// `side × side` stencil target (every pair must fit it).
    pub fn new(side: u32) -> Result<GpuCollider, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter =
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
                .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("collide-gpu"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        let occlusion = if info.backend == wgpu::Backend::Gl {
            Occlusion::AnySamplesPassed
        } else {
            Occlusion::SampleCount
        };
        let side = side.clamp(16, device.limits().max_texture_dimension_2d);
        let stencil = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stencil"),
            size: wgpu::Extent3d {
                width: side,
                height: side,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_STENCIL,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let stencil_view = stencil.create_view(&Default::default());
        let vs_fs = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("draws"),
            entries: &[
                buffer_entry(
                    0,
                    vs_fs,
                    wgpu::BufferBindingType::Storage { read_only: true },
                    false,
                ),
                buffer_entry(1, vs_fs, wgpu::BufferBindingType::Uniform, false),
            ],
        });
        let sprite_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sprite"),
            entries: &[texture_entry(0, wgpu::ShaderStages::FRAGMENT)],
        });
        let cs = wgpu::ShaderStages::COMPUTE;
        let count_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("count"),
            entries: &[
                buffer_entry(
                    0,
                    cs,
                    wgpu::BufferBindingType::Storage { read_only: true },
                    false,
                ),
                buffer_entry(1, cs, wgpu::BufferBindingType::Uniform, true),
                buffer_entry(
                    2,
                    cs,
                    wgpu::BufferBindingType::Storage { read_only: false },
                    false,
                ),
            ],
        });
        let pair_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("pair"),
            entries: &[texture_entry(0, cs), texture_entry(1, cs)],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("sprite"),
            source: wgpu::ShaderSource::Wgsl(
                concat!(include_str!("rule.wgsl"), include_str!("sprite.wgsl")).into(),
            ),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("sprite"),
            bind_group_layouts: &[Some(&draw_layout), Some(&sprite_layout)],
            immediate_size: 0,
        });
        // One renderer, three modes, as the seed's `DrawObject`: the same
        // vertex and fragment rule, with stencil writes, with the stencil
        // test, or with colour.
        let pipeline = |label,
                        depth_stencil: Option<wgpu::DepthStencilState>,
                        entry: &str,
                        targets: &[Option<wgpu::ColorTargetState>]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let stencil_mode = |face: wgpu::StencilFaceState, depth_write: bool, depth_compare| {
            wgpu::DepthStencilState {
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
            }
        };
        // Stencil mode: no colour; the sprite writes the pair's stencil value
        // and its layer's depth.
        let write_stencil = pipeline(
            "write stencil",
            Some(stencil_mode(
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Always,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Replace,
                },
                true,
                wgpu::CompareFunction::Always,
            )),
            "fs",
            &[],
        );
        // Occlusion mode: samples pass where the stencil holds the pair's
        // value and the depth is this sprite's layer.
        let test_stencil = pipeline(
            "test stencil",
            Some(stencil_mode(
                wgpu::StencilFaceState {
                    compare: wgpu::CompareFunction::Equal,
                    fail_op: wgpu::StencilOperation::Keep,
                    depth_fail_op: wgpu::StencilOperation::Keep,
                    pass_op: wgpu::StencilOperation::Keep,
                },
                false,
                wgpu::CompareFunction::Equal,
            )),
            "fs",
            &[],
        );
        // Normal mode: the visible scene, in each draw's colour.
        let colour = pipeline(
            "colour",
            None,
            "fs_colour",
            &[Some(wgpu::ColorTargetState {
                format: wgpu::TextureFormat::Rgba8Unorm,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        );
        let count_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("count"),
            source: wgpu::ShaderSource::Wgsl(
                concat!(include_str!("rule.wgsl"), include_str!("count.wgsl")).into(),
            ),
        });
        let count_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("count"),
                bind_group_layouts: &[Some(&count_layout), Some(&pair_layout)],
                immediate_size: 0,
            });
        let count = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("count"),
            layout: Some(&count_pipeline_layout),
            module: &count_module,
            entry_point: Some("count"),
            compilation_options: Default::default(),
            cache: None,
        });
        let target_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("target size"),
            contents: bytemuck::cast_slice(&[side as f32, side as f32, 0.0, 0.0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let mesh_pipelines = mesh::MeshPipelines::new(&device, &draw_layout);
        let mesh3_pipelines = mesh3::Mesh3Pipelines::new(&device, &draw_layout);
        let mesh3_group = mesh3_group::GroupTargets::new(&device, &draw_layout, side);
        Ok(GpuCollider {
            mesh_pipelines,
            meshes: Vec::new(),
            mesh_costs: cost::MeshCosts::default_for(info.device_type == wgpu::DeviceType::Cpu),
            sprite_costs: cost::SpriteCosts::default_for(info.device_type == wgpu::DeviceType::Cpu),
            use_queries: true,
            resolution: mesh::Resolution::Full,
            mesh3_pipelines,
            mesh3_group,
            meshes3: Vec::new(),
            device,
            queue,
            info,
            occlusion,
            side,
            stencil_view,
            draw_layout,
            sprite_layout,
            count_layout,
            pair_layout,
            write_stencil,
            test_stencil,
            colour,
            count,
            target_buf,
            sprites: Vec::new(),
        })
    }

    /// The adapter's name and backend.
    pub fn adapter(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// What this adapter's occlusion queries report.
    pub fn occlusion(&self) -> Occlusion {
        self.occlusion
    }

    /// The render target's side: every pair's two placed sprites must fit.
    pub fn side(&self) -> u32 {
        self.side
    }

    /// Uploads a mask as a sprite texture (255 where set, 0 elsewhere: any
    /// threshold below 255 reads it as the mask).
    pub fn add_sprite(&mut self, mask: &Mask) -> Result<SpriteId, GpuError> {
        let (w, h) = (mask.width(), mask.height());
        let texels: Vec<u8> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| if mask.get(x, y) { 255 } else { 0 })
            .collect();
        self.upload(w, h, &texels)
    }

    /// Uploads an alpha channel (`width × height` bytes, row by row) as a
    /// sprite; each draw's [`Placement::threshold`] is its alpha test.
    pub fn add_alpha_sprite(
        &mut self,
        width: usize,
        height: usize,
        alpha: &[u8],
    ) -> Result<SpriteId, GpuError> {
        let expected = width.saturating_mul(height);
        if alpha.len() != expected {
            return Err(GpuError::AlphaSize {
                width,
                height,
                expected,
                got: alpha.len(),
            });
        }
        self.upload(width, height, alpha)
    }

    fn upload(&mut self, w: usize, h: usize, texels: &[u8]) -> Result<SpriteId, GpuError> {
        let limit = self.device.limits().max_texture_dimension_2d;
        if w == 0 || h == 0 || w > limit as usize || h > limit as usize {
            return Err(GpuError::SpriteTooLarge {
                width: w,
                height: h,
                limit,
            });
        }
        let texture = self.device.create_texture_with_data(
            &self.queue,
            &wgpu::TextureDescriptor {
                label: Some("sprite"),
                size: wgpu::Extent3d {
                    width: w as u32,
                    height: h as u32,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::R8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            texels,
        );
        let view = texture.create_view(&Default::default());
        let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sprite"),
            layout: &self.sprite_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        let mask = Mask::from_alpha(w, h, texels, 1, 0, DEFAULT_THRESHOLD)
            .map_err(|e| GpuError::Mask(e.to_string()))?;
        self.sprites.push(Sprite {
            width: w,
            height: h,
            view,
            bind,
            texels: texels.to_vec(),
            mask,
            binary: texels.iter().all(|&t| t == 0 || t == u8::MAX),
        });
        Ok(SpriteId(self.sprites.len() - 1))
    }

    /// Normal mode: draws sprites in their colours (RGBA, 0..1) over a
    /// background, into a `width × height` image returned as RGBA bytes.
    /// The same vertex and fragment rule as the collision modes, so what is
    /// seen is what collides.
    pub fn render(
        &self,
        width: u32,
        height: u32,
        background: [f64; 4],
        objects: &[(SpriteId, Placement, [f32; 4])],
    ) -> Result<Vec<u8>, GpuError> {
        let mut draws = Vec::with_capacity(objects.len());
        for (k, &(id, p, colour)) in objects.iter().enumerate() {
            let (mut d, _) = self.draw(k, id, p)?;
            d.colour = colour;
            draws.push(d);
        }
        let (_draws, _size, bind) = self.image_bind_group(&draws, width, height);
        self.render_scene(width, height, background, false, |pass| {
            pass.set_pipeline(&self.colour);
            pass.set_bind_group(0, &bind, &[]);
            for (k, &(id, _, _)) in objects.iter().enumerate() {
                pass.set_bind_group(1, &self.sprite(id)?.bind, &[]);
                pass.draw(0..6, k as u32..k as u32 + 1);
            }
            Ok(())
        })
    }

    /// A `width × height` RGBA image: cleared to `background`, drawn by
    /// `draw` in one colour pass (with a depth-stencil buffer, cleared to
    /// depth 1 and stencil 0, when `depth_stencil`), read back row by row.
    pub(crate) fn render_scene(
        &self,
        width: u32,
        height: u32,
        background: [f64; 4],
        depth_stencil: bool,
        draw: impl FnOnce(&mut wgpu::RenderPass<'_>) -> Result<(), GpuError>,
    ) -> Result<Vec<u8>, GpuError> {
        let dev = &self.device;
        let texture = |format, usage| {
            dev.create_texture(&wgpu::TextureDescriptor {
                label: Some("scene"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let target = texture(
            wgpu::TextureFormat::Rgba8Unorm,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let view = target.create_view(&Default::default());
        let depth_view = depth_stencil.then(|| {
            texture(DEPTH_STENCIL, wgpu::TextureUsages::RENDER_ATTACHMENT)
                .create_view(&Default::default())
        });
        // Rows of the copy are padded to 256 bytes.
        let row = (width * 4).div_ceil(256) * 256;
        let read = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scene readback"),
            size: u64::from(row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("scene"),
        });
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: background[0],
                            g: background[1],
                            b: background[2],
                            a: background[3],
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: depth_view.as_ref().map(|view| {
                    wgpu::RenderPassDepthStencilAttachment {
                        view,
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(1.0),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(0),
                            store: wgpu::StoreOp::Store,
                        }),
                    }
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            draw(&mut pass)?;
        }
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &target,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &read,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([enc.finish()]);
        let padded = self.read_back::<u8>(&read)?;
        Ok(padded
            .chunks_exact(row as usize)
            .flat_map(|r| r[..width as usize * 4].iter().copied())
            .collect())
    }

    fn sprite(&self, id: SpriteId) -> Result<&Sprite, GpuError> {
        self.sprites.get(id.0).ok_or(GpuError::UnknownSprite(id.0))
    }

    /// The draw record of a sprite, and its turned bounding box (integer
    /// pixels, the cells `Mask::rotated` would make).
    fn draw(&self, index: usize, id: SpriteId, p: Placement) -> Result<(Draw, [i64; 4]), GpuError> {
        let s = self.sprite(id)?;
        if !(p.angle.is_finite() && p.scale.is_finite() && p.scale > 0.0) {
            return Err(GpuError::BadPlacement {
                index,
                angle: p.angle,
                scale: p.scale,
            });
        }
        let (w, h) = (s.width as f64, s.height as f64);
        let (sin, cos) = f64::from(p.angle).sin_cos();
        let scale = f64::from(p.scale);
        let half_w = (w * cos.abs() + h * sin.abs()) * scale / 2.0;
        let half_h = (w * sin.abs() + h * cos.abs()) * scale / 2.0;
        let (cx, cy) = (f64::from(p.x) + w / 2.0, f64::from(p.y) + h / 2.0);
        let bbox = [
            (cx - half_w).floor() as i64,
            (cy - half_h).floor() as i64,
            (cx + half_w).ceil() as i64,
            (cy + half_h).ceil() as i64,
        ];
        let draw = Draw {
            pos: [p.x as f32, p.y as f32],
            size: [s.width as f32, s.height as f32],
            cos_sin_inv: [cos as f32, sin as f32, (1.0 / scale) as f32],
            depth: layer_depth(p.layer),
            half: [(half_w + 1.0) as f32, (half_h + 1.0) as f32],
            threshold: f32::from(p.threshold),
            pad: 0.0,
            colour: [1.0; 4],
        };
        Ok((draw, bbox))
    }

    /// Both sprites' draws, moved together by whole pixels so their union
    /// starts at (1, 1) (a translation changes no pixel's result), and the
    /// union's box after the move.
    fn place(&self, index: usize, pair: &Pair) -> Result<([Draw; 2], [[i64; 4]; 2]), GpuError> {
        let (mut da, ba) = self.draw(index, pair.a, pair.at_a)?;
        let (mut db, bb) = self.draw(index, pair.b, pair.at_b)?;
        let (x0, y0) = (ba[0].min(bb[0]), ba[1].min(bb[1]));
        let (x1, y1) = (ba[2].max(bb[2]), ba[3].max(bb[3]));
        let (w, h) = (x1 - x0 + 2, y1 - y0 + 2);
        if w > i64::from(self.side) || h > i64::from(self.side) {
            return Err(GpuError::PairTooLarge {
                index,
                width: w,
                height: h,
                side: self.side,
            });
        }
        let (tx, ty) = (1 - x0, 1 - y0);
        for d in [&mut da, &mut db] {
            d.pos[0] = (f64::from(d.pos[0]) + tx as f64) as f32;
            d.pos[1] = (f64::from(d.pos[1]) + ty as f64) as f32;
        }
        let moved = |b: [i64; 4]| [b[0] + tx, b[1] + ty, b[2] + tx, b[3] + ty];
        Ok(([da, db], [moved(ba), moved(bb)]))
    }

    /// Whether pair tests use occlusion queries (the default). Without
    /// them, sprite pairs are answered by the compute pass's exact count,
    /// sprite groups by the CPU masks and 2-D and 3-D mesh pairs by the CPU
    /// rasteriser, each `Hit` saying so: the path for an adapter whose
    /// queries are missing or not trusted. The asynchronous group and mesh
    /// submissions always use queries.
    pub fn set_occlusion_queries(&mut self, use_them: bool) {
        self.use_queries = use_them;
    }

    /// Tests pairs on the path the cost model estimates cheaper for the
    /// batch ([`GpuCollider::sprite_costs`]): the CPU masks for unturned
    /// sprites on every adapter measured so far, the GPU for turned and
    /// scaled ones on a real GPU. Each [`Hit`] says which path gave it.
    ///
    /// # Errors
    /// An unknown sprite, a bad placement, a pair too large for the
    /// target, or a failed read-back.
    pub fn test_pairs(&self, pairs: &[Pair]) -> Result<Vec<Hit>, GpuError> {
        self.test_pairs_on(pairs, PathChoice::Auto)
    }

    /// Tests pairs on the path asked for.
    ///
    /// # Errors
    /// As [`GpuCollider::test_pairs`].
    pub fn test_pairs_on(&self, pairs: &[Pair], path: PathChoice) -> Result<Vec<Hit>, GpuError> {
        match path {
            PathChoice::Gpu => self.test_pairs_gpu(pairs),
            PathChoice::Cpu => self.test_pairs_cpu(pairs),
            PathChoice::Auto => {
                let work = self.sprite_work(pairs)?;
                if self.sprite_costs.cpu(&work) < self.sprite_costs.gpu(&work) {
                    self.test_pairs_cpu(pairs)
                } else {
                    self.test_pairs_gpu(pairs)
                }
            }
        }
    }

    /// The GPU path: the stencil buffer and occlusion queries, many pairs
    /// per submission (or, with [`GpuCollider::set_occlusion_queries`]
    /// off, the compute pass's exact counts).
    pub(crate) fn test_pairs_gpu(&self, pairs: &[Pair]) -> Result<Vec<Hit>, GpuError> {
        if !self.use_queries {
            return Ok(self
                .count_pairs(pairs)?
                .into_iter()
                .map(|count| Hit {
                    hit: count > 0,
                    query: count,
                    path: Path::ComputeCount,
                })
                .collect());
        }
        let mut out = Vec::with_capacity(pairs.len());
        for (chunk_index, chunk) in pairs.chunks(PAIRS_PER_SUBMIT).enumerate() {
            let base = chunk_index * PAIRS_PER_SUBMIT;
            // Bounding rectangles first: only pairs whose turned boxes meet
            // are drawn.
            let mut draws = Vec::with_capacity(chunk.len() * 2);
            let mut scissors = Vec::with_capacity(chunk.len());
            let mut drawn = Vec::with_capacity(chunk.len());
            let mut answers = vec![crate::boxes_apart(); chunk.len()];
            for (k, pair) in chunk.iter().enumerate() {
                let (_, ba) = self.draw(base + k, pair.a, pair.at_a)?;
                let (_, bb) = self.draw(base + k, pair.b, pair.at_b)?;
                if ba[0] < bb[2] && bb[0] < ba[2] && ba[1] < bb[3] && bb[1] < ba[3] {
                    let (d, [a, b]) = self.place(base + k, pair)?;
                    draws.extend_from_slice(&d);
                    // The seed's scissor: only the two boxes' overlap can hold
                    // a shared pixel.
                    let (x0, y0) = (a[0].max(b[0]).max(0), a[1].max(b[1]).max(0));
                    let (x1, y1) = (
                        a[2].min(b[2]).min(i64::from(self.side)),
                        a[3].min(b[3]).min(i64::from(self.side)),
                    );
                    scissors.push([
                        x0 as u32,
                        y0 as u32,
                        (x1 - x0).max(1) as u32,
                        (y1 - y0).max(1) as u32,
                    ]);
                    drawn.push(k);
                }
            }
            if !drawn.is_empty() {
                let picked: Vec<Pair> = drawn.iter().map(|&k| chunk[k]).collect();
                for (hit, &k) in self
                    .run_queries(&picked, &draws, &scissors)?
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

    /// The per-draw records of one batch, copied into a GPU buffer now
    /// (nothing the caller owns is read after the call returns), and their
    /// bind group.
    pub(crate) fn draw_bind_group<T: bytemuck::Pod>(
        &self,
        draws: &[T],
    ) -> (wgpu::Buffer, wgpu::BindGroup) {
        self.bind_draws(draws, &self.target_buf)
    }

    /// A `width × height` image's draw records (never empty: a storage
    /// buffer may not be) with a size record of its own, for normal mode.
    pub(crate) fn image_bind_group<T: bytemuck::Pod>(
        &self,
        draws: &[T],
        width: u32,
        height: u32,
    ) -> (wgpu::Buffer, wgpu::Buffer, wgpu::BindGroup) {
        let size = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("image size"),
                contents: bytemuck::cast_slice(&[width as f32, height as f32, 0.0, 0.0]),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let none = [T::zeroed()];
        let draws = if draws.is_empty() { &none[..] } else { draws };
        let (buf, bind) = self.bind_draws(draws, &size);
        (buf, size, bind)
    }

    fn bind_draws<T: bytemuck::Pod>(
        &self,
        draws: &[T],
        size: &wgpu::Buffer,
    ) -> (wgpu::Buffer, wgpu::BindGroup) {
        let buf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("draws"),
                contents: bytemuck::cast_slice(draws),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("draws"),
            layout: &self.draw_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: size.as_entire_binding(),
                },
            ],
        });
        (buf, bind)
    }

    /// `n` occlusion queries and the buffers their results travel through.
    fn queries(&self, n: u32) -> Queries {
        let dev = &self.device;
        let bytes = u64::from(n) * 8;
        let buffer = |label, usage| {
            dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        Queries {
            set: dev.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("occlusion"),
                ty: wgpu::QueryType::Occlusion,
                count: n,
            }),
            resolve: buffer(
                "query results",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            read: buffer(
                "query readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            n,
        }
    }

    /// A render pass on the collision buffer, depth and stencil cleared,
    /// counting into `queries`.
    fn stencil_pass<'a>(
        &'a self,
        enc: &'a mut wgpu::CommandEncoder,
        queries: &'a Queries,
    ) -> wgpu::RenderPass<'a> {
        enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("collision"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.stencil_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0),
                    store: wgpu::StoreOp::Store,
                }),
            }),
            timestamp_writes: None,
            occlusion_query_set: Some(&queries.set),
            multiview_mask: None,
        })
    }

    /// A query's result as an answer.
    fn hit(&self, query: u64) -> Hit {
        Hit {
            hit: query > 0,
            query,
            path: Path::Occlusion(self.occlusion),
        }
    }

    fn run_queries(
        &self,
        pairs: &[Pair],
        draws: &[Draw],
        scissors: &[[u32; 4]],
    ) -> Result<Vec<Hit>, GpuError> {
        let (_draw_buf, draw_bind) = self.draw_bind_group(draws);
        let scissors: Vec<Option<[u32; 4]>> = scissors.iter().copied().map(Some).collect();
        let queries = self.submit_pair_queries(&scissors, &draw_bind, |pass, i, second| {
            let pair = &pairs[i as usize];
            let (pipeline, id) = if second {
                (&self.test_stencil, pair.b)
            } else {
                (&self.write_stencil, pair.a)
            };
            pass.set_pipeline(pipeline);
            pass.set_bind_group(1, &self.sprite(id)?.bind, &[]);
            let k = 2 * i + u32::from(second);
            pass.draw(0..6, k..k + 1);
            Ok(())
        })?;
        self.read_hits(&queries)
    }

    /// The seed's test for many pairs in one submission: pair `i` gets the
    /// stencil value of its place in its pass (passes of 255, cleared at
    /// the start), `draw(pass, i, false)` writes the first object there and
    /// `draw(pass, i, true)` draws the second inside occlusion query `i`,
    /// under the pair's scissor; a pair without one gets an empty query.
    /// `bind` is group 0 for every draw. The queries come back resolved
    /// into their read buffer (not yet mapped).
    pub(crate) fn submit_pair_queries(
        &self,
        scissors: &[Option<[u32; 4]>],
        bind: &wgpu::BindGroup,
        mut draw: impl FnMut(&mut wgpu::RenderPass<'_>, u32, bool) -> Result<(), GpuError>,
    ) -> Result<Queries, GpuError> {
        let queries = self.queries(scissors.len().max(1) as u32);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("pairs"),
            });
        for (pass_index, chunk) in scissors.chunks(PAIRS_PER_PASS).enumerate() {
            let mut pass = self.stencil_pass(&mut enc, &queries);
            pass.set_bind_group(0, bind, &[]);
            for (k, scissor) in chunk.iter().enumerate() {
                let i = (pass_index * PAIRS_PER_PASS + k) as u32;
                let Some([sx, sy, sw, sh]) = *scissor else {
                    pass.begin_occlusion_query(i);
                    pass.end_occlusion_query();
                    continue;
                };
                pass.set_scissor_rect(sx, sy, sw, sh);
                pass.set_stencil_reference(k as u32 + 1);
                draw(&mut pass, i, false)?;
                pass.begin_occlusion_query(i);
                draw(&mut pass, i, true)?;
                pass.end_occlusion_query();
            }
        }
        queries.resolve_into(&mut enc);
        self.queue.submit([enc.finish()]);
        Ok(queries)
    }

    /// The answers of submitted queries, waited for.
    pub(crate) fn read_hits(&self, queries: &Queries) -> Result<Vec<Hit>, GpuError> {
        Ok(self
            .read_back::<u64>(&queries.read)?
            .into_iter()
            .map(|q| self.hit(q))
            .collect())
    }

    /// Maps a buffer and copies it out.
    fn read_back<T: bytemuck::Pod>(&self, buf: &wgpu::Buffer) -> Result<Vec<T>, GpuError> {
        let (tx, rx) = std::sync::mpsc::channel();
        buf.map_async(wgpu::MapMode::Read, .., move |r| {
            let _receiver_gone = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| GpuError::Readback(e.to_string()))?
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let view = buf
            .get_mapped_range(..)
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        Ok(bytemuck::cast_slice(&view).to_vec())
    }

    /// One sprite against many, the seed's group test, on the path the
    /// cost model estimates cheaper ([`GpuCollider::test_group_on`]).
    ///
    /// # Errors
    /// An unknown sprite, a bad placement, a candidate that does not fit
    /// the target with the first centred, or a failed read-back.
    pub fn test_group(
        &self,
        first: SpriteId,
        at: Placement,
        others: &[(SpriteId, Placement)],
    ) -> Result<Vec<Hit>, GpuError> {
        self.test_group_on(first, at, others, PathChoice::Auto)
    }

    /// One sprite against many on the path asked for. On the GPU the first
    /// sprite is drawn into the stencil buffer once, then each other sprite
    /// whose bounding box meets it is drawn inside its own occlusion query;
    /// on the CPU the first is turned once and ANDed with each. All sprites
    /// move together so the first is centred in the target; a candidate
    /// that does not fit the target is an error on both paths.
    ///
    /// # Errors
    /// As [`GpuCollider::test_group`].
    pub fn test_group_on(
        &self,
        first: SpriteId,
        at: Placement,
        others: &[(SpriteId, Placement)],
        path: PathChoice,
    ) -> Result<Vec<Hit>, GpuError> {
        // Without trusted queries a group has no GPU path: the CPU masks.
        let cpu = !self.use_queries
            || match path {
                PathChoice::Gpu => false,
                PathChoice::Cpu => true,
                PathChoice::Auto => {
                    let work = self.group_work(first, at, others)?;
                    self.sprite_costs.cpu(&work) < self.sprite_costs.gpu_group(&work)
                }
            };
        if cpu {
            self.test_group_cpu(first, at, others)
        } else {
            self.test_group_gpu(first, at, others)
        }
    }

    /// Refuses pair `index` if its union, `width × height` pixels with
    /// its margins, does not fit the target.
    pub(crate) fn check_fits(&self, index: usize, width: f64, height: f64) -> Result<(), GpuError> {
        let side = f64::from(self.side);
        if width > side || height > side {
            return Err(GpuError::PairTooLarge {
                index,
                width: width as i64,
                height: height as i64,
                side: self.side,
            });
        }
        Ok(())
    }

    /// How far a group's sprites move so the first one's box is centred in
    /// the target.
    pub(crate) fn group_shift(&self, b0: [i64; 4]) -> (i64, i64) {
        (
            (i64::from(self.side) - (b0[2] - b0[0])) / 2 - b0[0],
            (i64::from(self.side) - (b0[3] - b0[1])) / 2 - b0[1],
        )
    }

    /// Refuses group candidate `k` (box `b`) if, moved by `(tx, ty)`, it
    /// does not fit the target.
    pub(crate) fn check_group_fit(
        &self,
        k: usize,
        b: [i64; 4],
        (tx, ty): (i64, i64),
    ) -> Result<(), GpuError> {
        let side = i64::from(self.side);
        if b[0] + tx < 0 || b[1] + ty < 0 || b[2] + tx > side || b[3] + ty > side {
            return Err(GpuError::PairTooLarge {
                index: k,
                width: b[2] - b[0],
                height: b[3] - b[1],
                side: self.side,
            });
        }
        Ok(())
    }

    fn test_group_gpu(
        &self,
        first: SpriteId,
        at: Placement,
        others: &[(SpriteId, Placement)],
    ) -> Result<Vec<Hit>, GpuError> {
        let (mut d0, b0) = self.draw(0, first, at)?;
        // Centre the first sprite's box in the target.
        let (tx, ty) = self.group_shift(b0);
        d0.pos = [
            (f64::from(d0.pos[0]) + tx as f64) as f32,
            (f64::from(d0.pos[1]) + ty as f64) as f32,
        ];
        let mut draws = vec![d0];
        let mut drawn = Vec::new();
        for (k, &(id, p)) in others.iter().enumerate() {
            let (mut d, b) = self.draw(k, id, p)?;
            if !(b0[0] < b[2] && b[0] < b0[2] && b0[1] < b[3] && b[1] < b0[3]) {
                continue;
            }
            self.check_group_fit(k, b, (tx, ty))?;
            d.pos = [
                (f64::from(d.pos[0]) + tx as f64) as f32,
                (f64::from(d.pos[1]) + ty as f64) as f32,
            ];
            draws.push(d);
            drawn.push(k);
        }
        let mut answers = vec![crate::boxes_apart(); others.len()];
        if drawn.is_empty() {
            return Ok(answers);
        }
        let (_draw_buf, draw_bind) = self.draw_bind_group(&draws);
        for (chunk_index, chunk) in drawn.chunks(PAIRS_PER_SUBMIT).enumerate() {
            let queries = self.queries(chunk.len() as u32);
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("group"),
                });
            {
                let mut pass = self.stencil_pass(&mut enc, &queries);
                pass.set_bind_group(0, &draw_bind, &[]);
                pass.set_stencil_reference(1);
                pass.set_pipeline(&self.write_stencil);
                pass.set_bind_group(1, &self.sprite(first)?.bind, &[]);
                pass.draw(0..6, 0..1);
                pass.set_pipeline(&self.test_stencil);
                for (q, &k) in chunk.iter().enumerate() {
                    let instance = (chunk_index * PAIRS_PER_SUBMIT + q + 1) as u32;
                    pass.set_bind_group(1, &self.sprite(others[k].0)?.bind, &[]);
                    pass.begin_occlusion_query(q as u32);
                    pass.draw(0..6, instance..instance + 1);
                    pass.end_occlusion_query();
                }
            }
            queries.resolve_into(&mut enc);
            self.queue.submit([enc.finish()]);
            for (&q, &k) in self.read_back::<u64>(&queries.read)?.iter().zip(chunk) {
                answers[k] = self.hit(q);
            }
        }
        Ok(answers)
    }

    /// The seed's group test, asynchronous: each group's objects (all
    /// enemies, all enemy bullets) are drawn into one stencil, and one query
    /// tests `probe` against the whole group. Every group's query is started
    /// in one submission; the answers are read later from the returned
    /// [`PendingHits`] (a frame late, without stalling the caller).
    ///
    /// Coordinates are the collision buffer's own (`side × side`): parts
    /// outside it are not tested.
    pub fn submit_group_tests(
        &self,
        probe: (SpriteId, Placement),
        groups: &[&[(SpriteId, Placement)]],
    ) -> Result<PendingHits, GpuError> {
        if groups.is_empty() {
            return Ok(PendingHits {
                buffer: None,
                ready: std::sync::Arc::default(),
                count: 0,
                path: Path::Occlusion(self.occlusion),
            });
        }
        if groups.len() > PAIRS_PER_SUBMIT {
            return Err(GpuError::TooManyGroups {
                given: groups.len(),
                limit: PAIRS_PER_SUBMIT,
            });
        }
        let (probe_draw, _) = self.draw(0, probe.0, probe.1)?;
        let mut draws = vec![probe_draw];
        for group in groups {
            for (k, &(id, p)) in group.iter().enumerate() {
                draws.push(self.draw(k, id, p)?.0);
            }
        }
        let (_draw_buf, bind) = self.draw_bind_group(&draws);
        let queries = self.queries(groups.len() as u32);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("groups"),
            });
        let mut first = 1u32;
        for (g, group) in groups.iter().enumerate() {
            let mut pass = self.stencil_pass(&mut enc, &queries);
            pass.set_bind_group(0, &bind, &[]);
            pass.set_stencil_reference(1);
            pass.set_pipeline(&self.write_stencil);
            for (k, &(id, _)) in group.iter().enumerate() {
                pass.set_bind_group(1, &self.sprite(id)?.bind, &[]);
                let i = first + k as u32;
                pass.draw(0..6, i..i + 1);
            }
            first += group.len() as u32;
            pass.set_pipeline(&self.test_stencil);
            pass.set_bind_group(1, &self.sprite(probe.0)?.bind, &[]);
            pass.begin_occlusion_query(g as u32);
            pass.draw(0..6, 0..1);
            pass.end_occlusion_query();
        }
        queries.resolve_into(&mut enc);
        self.queue.submit([enc.finish()]);
        Ok(self.pending(queries, groups.len()))
    }

    /// Answers on their way back: the queries' read buffer is mapped when
    /// the GPU is done, and [`PendingHits::try_take`] reads it then.
    fn pending(&self, queries: Queries, count: usize) -> PendingHits {
        let ready = std::sync::Arc::new(std::sync::atomic::AtomicU8::new(0));
        let flag = ready.clone();
        queries.read.map_async(wgpu::MapMode::Read, .., move |r| {
            flag.store(
                if r.is_ok() { 1 } else { 2 },
                std::sync::atomic::Ordering::Release,
            );
        });
        PendingHits {
            buffer: Some(queries.read),
            ready,
            count,
            path: Path::Occlusion(self.occlusion),
        }
    }

    /// The exact number of pixels the two sprites share, for each pair, from
    /// a compute pass (portable: no occlusion query is involved).
    pub fn count_pairs(&self, pairs: &[Pair]) -> Result<Vec<u64>, GpuError> {
        let dev = &self.device;
        let mut draws = Vec::with_capacity(pairs.len() * 2);
        let mut jobs = Vec::with_capacity(pairs.len());
        for (k, pair) in pairs.iter().enumerate() {
            let (d, [bbox_a, _]) = self.place(k, pair)?;
            draws.extend_from_slice(&d);
            jobs.push(Job {
                a: 2 * k as u32,
                b: 2 * k as u32 + 1,
                slot: k as u32,
                pad: 0,
                origin: [bbox_a[0] as i32, bbox_a[1] as i32],
                extent: [
                    (bbox_a[2] - bbox_a[0]).max(0) as u32,
                    (bbox_a[3] - bbox_a[1]).max(0) as u32,
                ],
                pad2: [0; 56],
            });
        }
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let init = |label, contents: &[u8], usage| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let draw_buf = init(
            "draws",
            bytemuck::cast_slice(&draws),
            wgpu::BufferUsages::STORAGE,
        );
        let job_buf = init(
            "jobs",
            bytemuck::cast_slice(&jobs),
            wgpu::BufferUsages::UNIFORM,
        );
        let bytes = pairs.len() as u64 * 4;
        let counts = init(
            "counts",
            &vec![0u8; bytes as usize],
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let read = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("counts readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = dev.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("count"),
            layout: &self.count_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: draw_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &job_buf,
                        offset: 0,
                        size: wgpu::BufferSize::new(std::mem::size_of::<Job>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: counts.as_entire_binding(),
                },
            ],
        });
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("counts"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("count"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.count);
            for (k, (pair, job)) in pairs.iter().zip(&jobs).enumerate() {
                let textures = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("pair"),
                    layout: &self.pair_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::TextureView(
                                &self.sprite(pair.a)?.view,
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(
                                &self.sprite(pair.b)?.view,
                            ),
                        },
                    ],
                });
                pass.set_bind_group(0, &bind, &[(k * std::mem::size_of::<Job>()) as u32]);
                pass.set_bind_group(1, &textures, &[]);
                pass.dispatch_workgroups(
                    job.extent[0].div_ceil(8).max(1),
                    job.extent[1].div_ceil(8).max(1),
                    1,
                );
            }
        }
        enc.copy_buffer_to_buffer(&counts, 0, &read, 0, bytes);
        self.queue.submit([enc.finish()]);
        Ok(self
            .read_back::<u32>(&read)?
            .into_iter()
            .map(u64::from)
            .collect())
    }
}

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
