// One 3-D mesh against many, the first drawn once: its nearest and farthest
// depth at each pixel go into two depth targets, and each candidate reads
// them. For a first mesh whose triangles all lie on its convex hull, a
// pixel's surfaces are exactly those two depths, so "the first has a
// surface within the candidate's slab here" is the pair test's rule.

struct Mesh3Draw {
    mvp: mat4x4<f32>,
    // The range this draw is kept to (the other object's depths).
    slab: vec2<f32>,
    // This object's own depth range.
    own: vec2<f32>,
    colour: vec4<f32>,
}

@group(0) @binding(0) var<storage, read> draws: array<Mesh3Draw>;
// Depths as the bits of an f32 in an integer colour target (GL can neither
// read a depth texture in a shader nor render into R32Float).
@group(1) @binding(0) var nearest: texture_2d<u32>;
@group(1) @binding(1) var farthest: texture_2d<u32>;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) draw: u32,
}

@vertex
fn vs(@location(0) p: vec3<f32>, @builtin(instance_index) i: u32) -> VsOut {
    var out: VsOut;
    out.clip = draws[i].mvp * vec4(p, 1.0);
    out.draw = i;
    return out;
}

// The first mesh: its depth, into a colour target (the depth test keeps
// the nearest or the farthest).
@fragment
fn fs_depth(in: VsOut) -> @location(0) vec4<u32> {
    return vec4(bitcast<u32>(in.clip.z), 0u, 0u, 1u);
}

// A candidate's fragment counts where it lies within the first's depth
// range and the first has a surface within the candidate's own range at
// this pixel (nearest > farthest: the first is not here).
@fragment
fn fs_candidate(in: VsOut) {
    let d = draws[in.draw];
    if (in.clip.z < d.slab.x || in.clip.z > d.slab.y) {
        discard;
    }
    let px = vec2<i32>(in.clip.xy);
    let near = bitcast<f32>(textureLoad(nearest, px, 0).x);
    let far = bitcast<f32>(textureLoad(farthest, px, 0).x);
    let near_in = near >= d.own.x && near <= d.own.y;
    let far_in = far >= d.own.x && far <= d.own.y;
    if (near > far || !(near_in || far_in)) {
        discard;
    }
}
