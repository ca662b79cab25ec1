// The exact count, on any backend: every pixel of the first sprite's
// bounding box is tested against both sprites with the render pass's rule,
// and the pixels both cover are counted with an atomic add.

struct Draw {
    pos: vec2<f32>,
    size: vec2<f32>,
    cos_sin_inv: vec3<f32>,
    depth: f32,
    half: vec2<f32>,
    threshold: f32,
    _pad: f32,
    colour: vec4<f32>,
}

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

fn covers(d: Draw, mask: texture_2d<f32>, pixel: vec2<f32>) -> bool {
    let centre = d.pos + d.size * 0.5;
    let p = pixel - centre;
    let c = d.cos_sin_inv.x;
    let s = d.cos_sin_inv.y;
    let inv = d.cos_sin_inv.z;
    let src = vec2((c * p.x - s * p.y) * inv, (s * p.x + c * p.y) * inv) + d.size * 0.5;
    if (src.x < 0.0 || src.y < 0.0 || src.x >= d.size.x || src.y >= d.size.y) {
        return false;
    }
    return round(textureLoad(mask, vec2<i32>(floor(src)), 0).r * 255.0) > d.threshold;
}

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
