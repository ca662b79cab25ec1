// 3-D meshes: each draw has its own model-view-projection (already moved
// onto the collision buffer) and a depth slab: fragments whose depth lies
// outside it are discarded, so only the parts of one object at the other's
// depths can meet it (the seed's footnote on near and far planes).

struct Mesh3Draw {
    mvp: mat4x4<f32>,
    slab: vec2<f32>,
    _pad: vec2<f32>,
    colour: vec4<f32>,
}

@group(0) @binding(0) var<storage, read> draws: array<Mesh3Draw>;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) draw: u32,
    @location(1) ndc: vec3<f32>,
}

@vertex
fn vs(@location(0) p: vec3<f32>, @builtin(instance_index) i: u32) -> VsOut {
    var out: VsOut;
    out.clip = draws[i].mvp * vec4(p, 1.0);
    out.draw = i;
    out.ndc = out.clip.xyz / out.clip.w;
    return out;
}

// Stencil and occlusion modes: coverage within the slab.
@fragment
fn fs(in: VsOut) {
    let slab = draws[in.draw].slab;
    if (in.clip.z < slab.x || in.clip.z > slab.y) {
        discard;
    }
}

// Normal mode: each object in its colour, faceted by the slope of its
// surface on screen (no normals needed).
@fragment
fn fs_colour(in: VsOut) -> @location(0) vec4<f32> {
    let p = vec3(in.ndc.xy, in.ndc.z * 40.0);
    let n = normalize(cross(dpdx(p), dpdy(p)));
    let light = 0.35 + 0.65 * abs(n.z);
    let c = draws[in.draw].colour;
    return vec4(c.rgb * light, c.a);
}

// The touching pixels: the stencil mark (no colour written) and the
// second object's pixels on it, in its colour (red in the demo).
@fragment
fn fs_mark(in: VsOut) -> @location(0) vec4<f32> {
    let d = draws[in.draw];
    if (in.clip.z < d.slab.x || in.clip.z > d.slab.y) {
        discard;
    }
    return d.colour;
}
