//! The SSSE3 and AVX2 kernels: groups of four outputs, each output's pairs
//! loaded and shuffled apart.
use super::{BITS, FixedTaps, HALF, output_scalar};
use std::arch::x86_64::*;

/// Outputs per group: four RGB outputs are packed into one 12-byte
/// store.
const GROUP: usize = 4;

/// Most pairs of taps a group takes in the unrolled kernel; groups
/// with more go output by output.
const MOST_PAIRS: usize = 4;

/// One group of four outputs, ready for the kernel.
struct Group {
    /// Index of its first output.
    first_output: usize,
    /// Byte offset of each output's first pixel.
    at: [usize; GROUP],
    /// Where its weights start: pair `p` of output `k` at
    /// `p * GROUP + k` from there.
    weights: usize,
}

/// The taps regrouped for the kernel, by how many pairs each group of
/// four outputs is padded to. The groups of one class run together, so
/// the unrolled kernel is picked once per class, not once per group (a
/// branch that content-aware widths make unpredictable). Class 0 goes
/// output by output: more pairs, or a read that would pass the row's
/// end.
struct Plan {
    classes: [Vec<Group>; MOST_PAIRS + 1],
    /// Broadcast weights.
    weights: Vec<__m128i>,
}

impl Plan {
    #[target_feature(enable = "ssse3")]
    fn new(taps: &FixedTaps, in_stride: usize) -> Plan {
        let mut plan = Plan {
            classes: Default::default(),
            weights: Vec::new(),
        };
        for g in 0..taps.len() / GROUP {
            let outputs: [(usize, &[i32]); GROUP] =
                std::array::from_fn(|k| taps.get(g * GROUP + k));
            let most = outputs.iter().map(|o| o.1.len()).max().unwrap_or(0);
            // The last pair read is 8 bytes from `first + 2(most - 1)`.
            let fits = outputs
                .iter()
                .all(|&(first, _)| (first + 2 * most.saturating_sub(1)) * 3 + 8 <= in_stride);
            let padded = if fits && most <= MOST_PAIRS { most } else { 0 };
            plan.classes[padded].push(Group {
                first_output: g * GROUP,
                at: outputs.map(|(first, _)| first * 3),
                weights: plan.weights.len(),
            });
            for p in 0..padded {
                for (_, w) in &outputs {
                    let pair = w.get(p).copied().unwrap_or(0);
                    plan.weights.push(_mm_set1_epi32(pair));
                }
            }
        }
        plan
    }
}

/// Every row of an RGB image.
#[target_feature(enable = "ssse3")]
pub(super) fn rgb_rows(
    input: &[u8],
    in_stride: usize,
    taps: &FixedTaps,
    output: &mut [u8],
    out_stride: usize,
) {
    let plan = Plan::new(taps, in_stride);
    for (row, out) in input
        .chunks_exact(in_stride)
        .zip(output.chunks_exact_mut(out_stride))
    {
        rgb_row(row, taps, &plan, out);
    }
}

/// Every row of an RGB image, two rows at once in the two halves of
/// 256-bit registers: they share every weight and every shuffle.
#[target_feature(enable = "avx2")]
pub(super) fn rgb_rows_avx2(
    input: &[u8],
    in_stride: usize,
    taps: &FixedTaps,
    output: &mut [u8],
    out_stride: usize,
) {
    let plan = Plan::new(taps, in_stride);
    let wide: Vec<__m256i> = plan
        .weights
        .iter()
        .map(|&w| _mm256_broadcastsi128_si256(w))
        .collect();
    let mut rows = input.chunks_exact(2 * in_stride);
    let mut outs = output.chunks_exact_mut(2 * out_stride);
    for (rows, out) in (&mut rows).zip(&mut outs) {
        let (r0, r1) = rows.split_at(in_stride);
        let (o0, o1) = out.split_at_mut(out_stride);
        rgb_row_pair(r0, r1, taps, &plan, &wide, o0, o1);
    }
    if let (Some(row), Some(out)) = (
        rows.remainder().get(..in_stride),
        outs.into_remainder().get_mut(..out_stride),
    ) {
        rgb_row(row, taps, &plan, out);
    }
}

#[target_feature(enable = "avx2")]
fn rgb_row_pair(
    r0: &[u8],
    r1: &[u8],
    taps: &FixedTaps,
    plan: &Plan,
    wide: &[__m256i],
    o0: &mut [u8],
    o1: &mut [u8],
) {
    let spread = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        0, -128, 3, -128, 1, -128, 4, -128, 2, -128, 5, -128, -128, -128, -128, -128,
    ));
    let compact = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -128, -128, -128, -128,
    ));
    let half = _mm256_set1_epi32(HALF);
    let (spread1, half1) = (_mm256_castsi256_si128(spread), _mm256_castsi256_si128(half));
    for g in &plan.classes[0] {
        for k in 0..GROUP {
            rgb_output(r0, taps, g.first_output + k, spread1, half1, o0);
            rgb_output(r1, taps, g.first_output + k, spread1, half1, o1);
        }
    }
    macro_rules! class {
        ($p:literal) => {
            for g in &plan.classes[$p] {
                let acc = group_pair::<$p>(r0, r1, &g.at, &wide[g.weights..], spread, half);
                store_pair(acc, g, compact, o0, o1);
            }
        };
    }
    class!(1);
    class!(2);
    class!(3);
    class!(4);
    for j in taps.len() / GROUP * GROUP..taps.len() {
        rgb_output(r0, taps, j, spread1, half1, o0);
        rgb_output(r1, taps, j, spread1, half1, o1);
    }
}

/// [`group`] for two rows, one in each half.
#[inline]
#[target_feature(enable = "avx2")]
fn group_pair<const P: usize>(
    r0: &[u8],
    r1: &[u8],
    at: &[usize; GROUP],
    w: &[__m256i],
    spread: __m256i,
    half: __m256i,
) -> [__m256i; GROUP] {
    let w = &w[..P * GROUP];
    let mut acc = [half; GROUP];
    for p in 0..P {
        for k in 0..GROUP {
            let a = at[k] + 6 * p;
            let v =
                _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(bytes8(r0, a)), bytes8(r1, a));
            let v = _mm256_shuffle_epi8(v, spread);
            acc[k] = _mm256_add_epi32(acc[k], _mm256_madd_epi16(v, w[p * GROUP + k]));
        }
    }
    acc
}

/// [`store`] for two rows.
#[inline]
#[target_feature(enable = "avx2")]
fn store_pair(acc: [__m256i; GROUP], g: &Group, compact: __m256i, o0: &mut [u8], o1: &mut [u8]) {
    let acc = acc.map(|a| _mm256_srai_epi32::<{ BITS as i32 }>(a));
    let bytes = _mm256_packus_epi16(
        _mm256_packs_epi32(acc[0], acc[1]),
        _mm256_packs_epi32(acc[2], acc[3]),
    );
    let bytes = _mm256_shuffle_epi8(bytes, compact);
    let o = g.first_output * 3;
    for (half, out) in [
        (_mm256_castsi256_si128(bytes), o0),
        (_mm256_extracti128_si256::<1>(bytes), o1),
    ] {
        let lo = _mm_cvtsi128_si64(half).to_le_bytes();
        let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(half, half)).to_le_bytes();
        out[o..o + 8].copy_from_slice(&lo);
        out[o + 8..o + 12].copy_from_slice(&hi[..4]);
    }
}

/// Two pixels' channels as (left, right) pairs of 16-bit lanes, from 8
/// bytes at `at`.
#[inline]
#[target_feature(enable = "ssse3")]
fn pixel_pair(row: &[u8], at: usize, spread: __m128i) -> __m128i {
    _mm_shuffle_epi8(bytes8(row, at), spread)
}

/// 8 bytes from `at` in the low half.
#[inline]
#[target_feature(enable = "ssse3")]
fn bytes8(row: &[u8], at: usize) -> __m128i {
    let mut b = [0u8; 8];
    b.copy_from_slice(&row[at..at + 8]);
    _mm_cvtsi64_si128(i64::from_le_bytes(b))
}

#[target_feature(enable = "ssse3")]
fn rgb_row(row: &[u8], taps: &FixedTaps, plan: &Plan, out: &mut [u8]) {
    // (r0, r1, g0, g1, b0, b1, 0, 0) as 16-bit lanes.
    let spread = _mm_setr_epi8(
        0, -128, 3, -128, 1, -128, 4, -128, 2, -128, 5, -128, -128, -128, -128, -128,
    );
    // Four (r, g, b, 0) outputs' bytes side by side.
    let compact = _mm_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -128, -128, -128, -128,
    );
    let half = _mm_set1_epi32(HALF);
    for group in &plan.classes[0] {
        for k in 0..GROUP {
            rgb_output(row, taps, group.first_output + k, spread, half, out);
        }
    }
    macro_rules! class {
        ($p:literal) => {
            for g in &plan.classes[$p] {
                let acc = group::<$p>(row, &g.at, &plan.weights[g.weights..], spread, half);
                store(acc, g, compact, out);
            }
        };
    }
    class!(1);
    class!(2);
    class!(3);
    class!(4);
    for j in taps.len() / GROUP * GROUP..taps.len() {
        rgb_output(row, taps, j, spread, half, out);
    }
}

/// Shifts, packs and writes a group's four outputs (12 bytes).
#[inline]
#[target_feature(enable = "ssse3")]
fn store(acc: [__m128i; GROUP], g: &Group, compact: __m128i, out: &mut [u8]) {
    let acc = acc.map(|a| _mm_srai_epi32::<{ BITS as i32 }>(a));
    let bytes = _mm_packus_epi16(
        _mm_packs_epi32(acc[0], acc[1]),
        _mm_packs_epi32(acc[2], acc[3]),
    );
    let bytes = _mm_shuffle_epi8(bytes, compact);
    let lo = _mm_cvtsi128_si64(bytes).to_le_bytes();
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(bytes, bytes)).to_le_bytes();
    let o = g.first_output * 3;
    out[o..o + 8].copy_from_slice(&lo);
    out[o + 8..o + 12].copy_from_slice(&hi[..4]);
}

/// Four outputs of `P` pairs each (rounding included, not yet shifted).
#[inline]
#[target_feature(enable = "ssse3")]
fn group<const P: usize>(
    row: &[u8],
    at: &[usize; GROUP],
    w: &[__m128i],
    spread: __m128i,
    half: __m128i,
) -> [__m128i; GROUP] {
    let w = &w[..P * GROUP];
    let mut acc = [half; GROUP];
    for p in 0..P {
        for k in 0..GROUP {
            let v = pixel_pair(row, at[k] + 6 * p, spread);
            acc[k] = _mm_add_epi32(acc[k], _mm_madd_epi16(v, w[p * GROUP + k]));
        }
    }
    acc
}

/// One output, its pairs in a loop; the scalar code where a read would
/// pass the row's end.
#[inline]
#[target_feature(enable = "ssse3")]
fn rgb_output(
    row: &[u8],
    taps: &FixedTaps,
    j: usize,
    spread: __m128i,
    half: __m128i,
    out: &mut [u8],
) {
    let (first, pairs) = taps.get(j);
    let o = j * 3;
    if (first + 2 * pairs.len()) * 3 + 2 > row.len() {
        output_scalar::<3>(row, first, pairs, &mut out[o..o + 3]);
        return;
    }
    let mut acc = half;
    for (p, &pair) in pairs.iter().enumerate() {
        let v = pixel_pair(row, (first + 2 * p) * 3, spread);
        acc = _mm_add_epi32(acc, _mm_madd_epi16(v, _mm_set1_epi32(pair)));
    }
    let v = _mm_srai_epi32::<{ BITS as i32 }>(acc);
    let v = _mm_packus_epi16(_mm_packs_epi32(v, v), v);
    let bytes = _mm_cvtsi128_si32(v).to_le_bytes();
    out[o..o + 3].copy_from_slice(&bytes[..3]);
}
