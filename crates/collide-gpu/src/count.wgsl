// The exact count, on any backend: every pixel of the first sprite's
// bounding box is tested against both sprites with the render pass's rule,
// and the pixels both cover are counted with an atomic add. The source is
// rule.wgsl (the Draw record and `covers`) followed by this file.

struct Job {
    // Indices of the two sprites' draws, and the result slot.
    a: u32,
    b: u32,
    slot: u32,
    _pad: u32,
    // Top-left pixel and size of the region to scan.
    origin: vec2<i32>,
    extent: vec2<u32>,
}

@group(0) @binding(0) var<storage, read> draws: array<Draw>;
@group(0) @binding(1) var<uniform> job: Job;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;
@group(1) @binding(0) var mask_a: texture_2d<f32>;
@group(1) @binding(1) var mask_b: texture_2d<f32>;

@compute @workgroup_size(8, 8)
fn count(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= job.extent.x || id.y >= job.extent.y) {
        return;
    }
    let pixel = vec2<f32>(vec2<i32>(id.xy) + job.origin) + vec2(0.5, 0.5);
    let a = draws[job.a];
    let b = draws[job.b];
    // Different layers never collide.
    if (a.depth == b.depth && covers(a, mask_a, pixel) && covers(b, mask_b, pixel)) {
        atomicAdd(&counts[job.slot], 1u);
    }
}
