//! The GPU path through wgpu: the separable plan is worked out on the CPU
//! (energy profiles and maps are `O(W·H)` reads but only `O(W + H)` output),
//! and the per-pixel work, both resampling passes, runs as two compute
//! shaders (`gpu.wgsl`) with the same filter taps and the same arithmetic,
//! so the output matches [`crate::render`] within one level per channel.
//! 8-bit images only.

use wgpu::util::DeviceExt;

use crate::raster::{Raster, Sample};
use crate::resample::{self, Taps};
use crate::{Options, Plan, RetargetError};

/// Why the GPU path could not run.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter: no GPU and no software Vulkan (Debian: `mesa-vulkan-drivers`).
    #[error(
        "no GPU adapter found ({0}); on Debian, `apt-get install mesa-vulkan-drivers` gives a software one"
    )]
    NoAdapter(String),
    /// No hardware GPU: none at all, or only a software renderer.
    #[error("no GPU found{}", .0.as_ref().map(|n| format!(" (only {n}, a software renderer on the CPU)")).unwrap_or_default())]
    NoHardware(Option<String>),
    /// The adapter would not give a device.
    #[error("the GPU refused a device: {0}")]
    Device(String),
    /// A buffer over the device's limit.
    #[error("{what} needs {bytes} bytes, over this GPU's limit of {limit}")]
    TooLarge {
        /// The buffer.
        what: &'static str,
        /// Its size.
        bytes: u64,
        /// The device's limit.
        limit: u64,
    },
    /// Reading the result back failed.
    #[error("reading the result back from the GPU failed: {0}")]
    Readback(String),
    /// The resize itself was refused.
    #[error(transparent)]
    Retarget(#[from] RetargetError),
}

/// Where one GPU resize's time went, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimings {
    /// The plan (energy and the cumulative maps), on the CPU.
    pub plan: f64,
    /// Packing the pixels and the tap tables and copying them to the device.
    pub upload: f64,
    /// The two resampling passes, from submission to completion.
    pub passes: f64,
    /// Mapping the result back and unpacking it.
    pub read_back: f64,
}

/// A device with the two pipelines ready: start it once and keep it for
/// every image (starting is most of a single small resize's time).
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout: wgpu::BindGroupLayout,
    across: wgpu::ComputePipeline,
    down: wgpu::ComputePipeline,
    info: wgpu::AdapterInfo,
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    src_w: u32,
    src_h: u32,
    out_w: u32,
    out_h: u32,
    alpha_lane: u32,
    across_first: u32,
    across_offsets: u32,
    down_first: u32,
    down_offsets: u32,
    across_weights: u32,
    down_weights: u32,
    pad: u32,
}

impl Gpu {
    /// Finds an adapter (`WGPU_BACKEND` may choose the backend) and builds
    /// the pipelines.
    pub fn new() -> Result<Gpu, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter =
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
                .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        Self::with_adapter(adapter)
    }

    /// A hardware GPU only, through the native APIs (Vulkan, Metal,
    /// DirectX 12; not OpenGL, whose probing prints warnings on machines
    /// without a display): [`GpuError::NoHardware`] where there is none or
    /// only a software renderer, which is slower than the CPU path.
    pub fn hardware() -> Result<Gpu, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = wgpu::Backends::PRIMARY;
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .map_err(|_| GpuError::NoHardware(None))?;
        let info = adapter.get_info();
        if info.device_type == wgpu::DeviceType::Cpu {
            return Err(GpuError::NoHardware(Some(info.name)));
        }
        Self::with_adapter(adapter)
    }

    fn with_adapter(adapter: wgpu::Adapter) -> Result<Gpu, GpuError> {
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("retarget"),
            // The adapter's own limits: large images need large buffers.
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("retarget resample"),
            source: wgpu::ShaderSource::Wgsl(include_str!("gpu.wgsl").into()),
        });
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("retarget resample"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, true),
                storage(4, false),
                storage(5, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("retarget resample"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let (across, down) = (pipeline("across"), pipeline("down"));
        Ok(Gpu {
            device,
            queue,
            layout,
            across,
            down,
            info,
        })
    }

    /// The adapter's name and backend, for logs and skip lines.
    pub fn adapter(&self) -> String {
        format!("{} ({:?})", self.info.name, self.info.backend)
    }

    fn check(&self, what: &'static str, bytes: u64) -> Result<(), GpuError> {
        let l = self.device.limits();
        let limit = l.max_storage_buffer_binding_size.min(l.max_buffer_size);
        if bytes > limit {
            return Err(GpuError::TooLarge { what, bytes, limit });
        }
        Ok(())
    }

    /// Resizes like [`crate::retarget`] in separable mode, the per-pixel
    /// work on the GPU.
    pub fn retarget(
        &self,
        src: &Raster<u8>,
        width: u32,
        height: u32,
        opts: &Options,
    ) -> Result<Raster<u8>, GpuError> {
        self.retarget_timed(src, width, height, opts)
            .map(|(r, _)| r)
    }

    /// [`Gpu::retarget`], and where its time went.
    pub fn retarget_timed(
        &self,
        src: &Raster<u8>,
        width: u32,
        height: u32,
        opts: &Options,
    ) -> Result<(Raster<u8>, GpuTimings), GpuError> {
        let started = std::time::Instant::now();
        let plan = crate::plan(src, width, height, opts)?;
        let planned = started.elapsed().as_secs_f64();
        let (out, mut timings) = self.render_timed(src, &plan, width, height)?;
        timings.plan = planned;
        Ok((out, timings))
    }

    /// Draws `src` through a separable plan on the GPU.
    pub fn render(
        &self,
        src: &Raster<u8>,
        plan: &Plan,
        width: u32,
        height: u32,
    ) -> Result<Raster<u8>, GpuError> {
        self.render_timed(src, plan, width, height).map(|(r, _)| r)
    }

    fn render_timed(
        &self,
        src: &Raster<u8>,
        plan: &Plan,
        width: u32,
        height: u32,
    ) -> Result<(Raster<u8>, GpuTimings), GpuError> {
        let clock = std::time::Instant::now();
        let mut timings = GpuTimings::default();
        let lim = crate::Limits::default();
        lim.check("target", u64::from(width), u64::from(height))
            .map_err(GpuError::from)?;
        plan.check(src.width(), src.height())?;
        let across = resample::taps(&plan.x, width as usize)?;
        let down = resample::taps(&plan.y, height as usize)?;
        let (sw, sh) = (src.width(), src.height());
        let c = usize::from(src.channels());
        let mid_bytes = u64::from(width) * u64::from(sh) * 16;
        self.check("the intermediate image", mid_bytes)?;
        self.check("the source image", u64::from(sw) * u64::from(sh) * 4)?;

        // Pixels packed four lanes to a word; missing lanes are zero.
        let packed: Vec<u32> = src
            .as_slice()
            .chunks_exact(c)
            .map(|p| {
                p.iter()
                    .enumerate()
                    .fold(0u32, |acc, (i, &v)| acc | (u32::from(v) << (8 * i)))
            })
            .collect();
        let (table, weights, params) = tables(&across, &down, sw, sh, width, height, src);
        let dev = &self.device;
        let init = |label, contents: &[u8], usage| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let params_buf = init(
            "params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let src_buf = init(
            "source",
            bytemuck::cast_slice(&packed),
            wgpu::BufferUsages::STORAGE,
        );
        let tap_buf = init(
            "taps",
            bytemuck::cast_slice(&table),
            wgpu::BufferUsages::STORAGE,
        );
        let weight_buf = init(
            "weights",
            bytemuck::cast_slice(&weights),
            wgpu::BufferUsages::STORAGE,
        );
        let mid_buf = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("intermediate"),
            size: mid_bytes.max(16),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let out_bytes = (u64::from(width) * u64::from(height) * 4).max(4);
        let out_buf = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("output"),
            size: out_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let read_buf = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: out_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = dev.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("retarget resample"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: src_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: tap_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: weight_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: mid_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: out_buf.as_entire_binding(),
                },
            ],
        });
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("retarget"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("resample"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &bind, &[]);
            pass.set_pipeline(&self.across);
            pass.dispatch_workgroups(width.div_ceil(8), sh.div_ceil(8), 1);
            pass.set_pipeline(&self.down);
            pass.dispatch_workgroups(width.div_ceil(8), height.div_ceil(8), 1);
        }
        enc.copy_buffer_to_buffer(&out_buf, 0, &read_buf, 0, out_bytes);
        timings.upload = clock.elapsed().as_secs_f64();
        self.queue.submit([enc.finish()]);
        dev.poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        timings.passes = clock.elapsed().as_secs_f64() - timings.upload;
        let (tx, rx) = std::sync::mpsc::channel();
        read_buf.map_async(wgpu::MapMode::Read, .., move |r| {
            let _receiver_gone = tx.send(r);
        });
        dev.poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| GpuError::Readback(e.to_string()))?
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let view = read_buf
            .get_mapped_range(..)
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let words: &[u32] = bytemuck::cast_slice(&view);
        let mut out = Raster::new(width, height, src.channels(), &lim)?;
        for (o, &wd) in out.as_mut_slice().chunks_exact_mut(c).zip(words) {
            for (i, v) in o.iter_mut().enumerate() {
                *v = (wd >> (8 * i)) as u8;
            }
        }
        timings.read_back = clock.elapsed().as_secs_f64() - timings.upload - timings.passes;
        Ok((out, timings))
    }
}

/// The taps of both passes in one `u32` table and one `f32` table (the
/// shader has room for only so many buffers), and where each part starts.
fn tables<S: Sample>(
    across: &Taps,
    down: &Taps,
    sw: u32,
    sh: u32,
    width: u32,
    height: u32,
    src: &Raster<S>,
) -> (Vec<u32>, Vec<f32>, Params) {
    let mut table = Vec::new();
    let across_first = 0u32;
    table.extend_from_slice(&across.first);
    let across_offsets = table.len() as u32;
    table.extend_from_slice(&across.offsets);
    let down_first = table.len() as u32;
    table.extend_from_slice(&down.first);
    let down_offsets = table.len() as u32;
    table.extend_from_slice(&down.offsets);
    let mut weights = across.weights.clone();
    let down_weights = weights.len() as u32;
    weights.extend_from_slice(&down.weights);
    let params = Params {
        src_w: sw,
        src_h: sh,
        out_w: width,
        out_h: height,
        alpha_lane: if src.has_alpha() {
            u32::from(src.channels()) - 1
        } else {
            4
        },
        across_first,
        across_offsets,
        down_first,
        down_offsets,
        across_weights: 0,
        down_weights,
        pad: 0,
    };
    (table, weights, params)
}
