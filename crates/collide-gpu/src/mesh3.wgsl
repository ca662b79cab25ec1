// 3-D meshes: each draw has its own model-view-projection (already moved
// onto the collision buffer) and a depth slab: fragments whose depth lies
// outside it are discarded, so only the parts of one object at the other's
// depths can meet it (the seed's footnote on near and far planes).

struct Mesh3Draw {
    mvp: mat4x4<f32>,
    slab: vec2<f32>,
    _pad: vec2<f32>,
}

@group(0) @binding(0) var<storage, read> draws: array<Mesh3Draw>;

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

// Stencil and occlusion modes: coverage within the slab.
@fragment
fn fs(in: VsOut) {
    let slab = draws[in.draw].slab;
    if (in.clip.z < slab.x || in.clip.z > slab.y) {
        discard;
    }
}
