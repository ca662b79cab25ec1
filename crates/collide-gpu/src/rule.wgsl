// What both the render passes (sprite.wgsl) and the exact count
// (count.wgsl) use, written once and prefixed to each: the per-draw record
// and the rule deciding where a sprite is solid. It is the rule of
// collide::mask::Mask::rotated, so CPU and GPU agree.

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

// Whether the sprite is solid at a pixel centre: the centre, mapped back
// into the sprite, lands on a texel above the draw's alpha threshold.
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
