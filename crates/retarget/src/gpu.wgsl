// The separable mode's resampling, as two compute passes: across (source
// rows into premultiplied floats), then down (into 8-bit pixels). The same
// arithmetic, in the same order, as resample.rs, so results agree with the
// CPU within one level (only fused multiply-adds may differ).

struct Params {
    src_w: u32,
    src_h: u32,
    out_w: u32,
    out_h: u32,
    // Lane of alpha (channels - 1), or 4 when there is none.
    alpha_lane: u32,
    // Where each table starts in `taps` and `weights`.
    across_first: u32,
    across_offsets: u32,
    down_first: u32,
    down_offsets: u32,
    across_weights: u32,
    down_weights: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> taps: array<u32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> mid: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> dst: array<u32>;

fn lanes(p: u32) -> vec4<f32> {
    return vec4<f32>(f32(p & 0xffu), f32((p >> 8u) & 0xffu), f32((p >> 16u) & 0xffu), f32(p >> 24u));
}

@compute @workgroup_size(8, 8)
fn across(@builtin(global_invocation_id) id: vec3<u32>) {
    let j = id.x;
    let y = id.y;
    if (j >= params.out_w || y >= params.src_h) {
        return;
    }
    let first = taps[params.across_first + j];
    let o0 = taps[params.across_offsets + j];
    let o1 = taps[params.across_offsets + j + 1u];
    var acc = vec4<f32>(0.0);
    let inv = 1.0 / 255.0;
    for (var k = o0; k < o1; k = k + 1u) {
        let p = lanes(src[y * params.src_w + first + (k - o0)]);
        let wk = weights[params.across_weights + k];
        if (params.alpha_lane < 4u) {
            let a = p[params.alpha_lane];
            let wa = wk * a * inv;
            for (var c = 0u; c < 4u; c = c + 1u) {
                if (c == params.alpha_lane) {
                    acc[c] = acc[c] + wk * a;
                } else {
                    acc[c] = acc[c] + wa * p[c];
                }
            }
        } else {
            for (var c = 0u; c < 4u; c = c + 1u) {
                acc[c] = acc[c] + wk * p[c];
            }
        }
    }
    mid[y * params.out_w + j] = acc;
}

fn to_byte(v: f32) -> u32 {
    return u32(clamp(v + 0.5, 0.0, 255.0));
}

@compute @workgroup_size(8, 8)
fn down(@builtin(global_invocation_id) id: vec3<u32>) {
    let j = id.x;
    let i = id.y;
    if (j >= params.out_w || i >= params.out_h) {
        return;
    }
    let first = taps[params.down_first + i];
    let o0 = taps[params.down_offsets + i];
    let o1 = taps[params.down_offsets + i + 1u];
    var acc = vec4<f32>(0.0);
    for (var k = o0; k < o1; k = k + 1u) {
        let wk = weights[params.down_weights + k];
        let m = mid[(first + (k - o0)) * params.out_w + j];
        for (var c = 0u; c < 4u; c = c + 1u) {
            acc[c] = acc[c] + wk * m[c];
        }
    }
    var out = vec4<u32>(0u);
    if (params.alpha_lane < 4u) {
        let a = acc[params.alpha_lane];
        var s = 0.0;
        if (a > 0.0) {
            s = 255.0 / a;
        }
        for (var c = 0u; c < 4u; c = c + 1u) {
            if (c == params.alpha_lane) {
                out[c] = to_byte(a);
            } else {
                out[c] = to_byte(acc[c] * s);
            }
        }
    } else {
        for (var c = 0u; c < 4u; c = c + 1u) {
            out[c] = to_byte(acc[c]);
        }
    }
    dst[i * params.out_w + j] = out.x | (out.y << 8u) | (out.z << 16u) | (out.w << 24u);
}
