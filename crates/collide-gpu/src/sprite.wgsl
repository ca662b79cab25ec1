// The seed's pixel-perfect test. Each draw is one sprite: a mask texture
// placed, turned and scaled about its centre. A fragment survives where its
// pixel centre, mapped back into the sprite, lands on a set texel: the same
// rule as collide::mask::Mask::rotated, so CPU and GPU agree.

struct Draw {
    // Top-left of the unturned sprite, in target pixels.
    pos: vec2<f32>,
    // Sprite width and height in texels.
    size: vec2<f32>,
    // cos and sin of the turn, and 1 / scale.
    cos_sin_inv: vec3<f32>,
    // The layer's depth.
    depth: f32,
    // Half extents of the turned sprite's bounding box, plus a pixel.
    half: vec2<f32>,
    // Alpha test: solid above this (0..255).
    threshold: f32,
    _pad: f32,
    // Normal mode's colour.
    colour: vec4<f32>,
}

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

// Whether the sprite is solid at this pixel centre.
fn solid(d: Draw, frag: vec2<f32>) -> bool {
    let centre = d.pos + d.size * 0.5;
    let p = frag - centre;
    let c = d.cos_sin_inv.x;
    let s = d.cos_sin_inv.y;
    let inv = d.cos_sin_inv.z;
    let src = vec2((c * p.x - s * p.y) * inv, (s * p.x + c * p.y) * inv) + d.size * 0.5;
    if (src.x < 0.0 || src.y < 0.0 || src.x >= d.size.x || src.y >= d.size.y) {
        return false;
    }
    return round(textureLoad(mask, vec2<i32>(floor(src)), 0).r * 255.0) > d.threshold;
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
