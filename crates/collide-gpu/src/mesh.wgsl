// Meshes: indexed triangles in model coordinates (pixels), each draw with
// its own turn, scale and move (`MeshDraw`). No fragment rule is needed:
// the rasteriser's own coverage (pixel centres, the top-left rule) is the
// shape, as collide::raster::rasterize computes it on the CPU.

struct MeshDraw {
    pos: vec2<f32>,
    cos_sin: vec2<f32>,
    depth: f32,
    scale: f32,
    _pad: vec2<f32>,
    colour: vec4<f32>,
}

struct Target {
    size: vec2<f32>,
    _pad: vec2<f32>,
}

@group(0) @binding(0) var<storage, read> draws: array<MeshDraw>;
@group(0) @binding(1) var<uniform> target_size: Target;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) draw: u32,
}

@vertex
fn vs(@location(0) p: vec2<f32>, @builtin(instance_index) i: u32) -> VsOut {
    let d = draws[i];
    // Turned counter-clockwise on a y-down screen, scaled, then moved.
    let c = d.cos_sin.x;
    let s = d.cos_sin.y;
    let q = vec2(c * p.x + s * p.y, -s * p.x + c * p.y) * d.scale + d.pos;
    var out: VsOut;
    out.clip = vec4(q.x / target_size.size.x * 2.0 - 1.0, 1.0 - q.y / target_size.size.y * 2.0, d.depth, 1.0);
    out.draw = i;
    return out;
}

// Stencil and occlusion modes: coverage alone.
@fragment
fn fs(in: VsOut) {
}

// Normal mode.
@fragment
fn fs_colour(in: VsOut) -> @location(0) vec4<f32> {
    return draws[in.draw].colour;
}
