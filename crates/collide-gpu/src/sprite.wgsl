// The seed's pixel-perfect test. Each draw is one sprite: a mask texture
// placed, turned and scaled about its centre. A fragment survives where its
// pixel centre, mapped back into the sprite, lands on a set texel: the same
// rule as collide::mask::Mask::rotated, so CPU and GPU agree. The source is
// rule.wgsl followed by this file.

struct Target {
    size: vec2<f32>,
    _pad: vec2<f32>,
}

@group(0) @binding(0) var<storage, read> draws: array<Draw>;
@group(0) @binding(1) var<uniform> target_size: Target;
@group(1) @binding(0) var mask: texture_2d<f32>;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) draw: u32,
}

@vertex
fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> VsOut {
    let d = draws[i];
    let corner = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0),
    );
    let centre = d.pos + d.size * 0.5;
    let p = centre + corner[v] * d.half;
    var out: VsOut;
    out.clip = vec4(p.x / target_size.size.x * 2.0 - 1.0, 1.0 - p.y / target_size.size.y * 2.0, d.depth, 1.0);
    out.draw = i;
    return out;
}

// Whether the sprite is solid at this pixel centre (rule.wgsl).
fn solid(d: Draw, frag: vec2<f32>) -> bool {
    return covers(d, mask, frag);
}

// Stencil and occlusion modes.
@fragment
fn fs(in: VsOut) {
    if (!solid(draws[in.draw], in.clip.xy)) {
        discard;
    }
}

// Normal mode.
@fragment
fn fs_colour(in: VsOut) -> @location(0) vec4<f32> {
    let d = draws[in.draw];
    if (!solid(d, in.clip.xy)) {
        discard;
    }
    return d.colour;
}
