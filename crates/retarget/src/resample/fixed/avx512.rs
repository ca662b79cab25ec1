//! The AVX-512 VBMI kernel: sixteen output samples per instruction.
//!
//! An output row is cut into chunks of 16 bytes (a chunk's samples are
//! whole or part outputs: 5⅓ RGB pixels or 16 grey ones). Everything a
//! chunk reads lies in one window of its source row, 64 bytes where that
//! is enough (one load, `vpermb`) and 128 where not (two loads, the
//! two-table `vpermt2b`). Per pair of taps, one byte permute puts each
//! sample's (left, right) bytes side by side in a 32-bit lane, ready for
//! one multiply-add of both weights (`vpmaddwd`). The permute indices and
//! weights are worked out once per image and shared by four rows at a
//! time, so a row is loads, permutes and multiply-adds with nothing to
//! decide per output. Chunks are sorted by window and by how many pairs
//! they need, as in the AVX2 kernel; chunks whose reads fit no window go
//! output by output in scalar code. The last chunk of a row overlaps the
//! one before it rather than passing the row's end: both write the same
//! values there.

use super::{BITS, FixedTaps, HALF, output_scalar};
use std::arch::x86_64::*;

/// Output bytes per chunk: one per 32-bit lane of a 512-bit register.
const CHUNK: usize = 16;
/// Source bytes one load brings in.
const LOAD: usize = 64;
/// Most pairs of taps a chunk takes in the kernel.
const MOST_PAIRS: usize = 4;
/// Rows that share each chunk's indices and weights.
const ROWS: usize = 4;

/// Whether this kernel can take an image with rows of these lengths (in
/// bytes).
pub(super) fn fits(in_stride: usize, out_stride: usize) -> bool {
    in_stride >= 2 * LOAD && out_stride >= CHUNK
}

/// One chunk, ready for the kernel.
struct Chunk {
    /// Its first byte in the output row.
    out: usize,
    /// Its window's first byte in the source row.
    base: usize,
}

/// The chunks of one kind: one window size, one number of pairs `P`, with
/// their permute indices and weights (`P` of each per chunk, in order).
#[derive(Default)]
struct Class {
    chunks: Vec<Chunk>,
    indices: Vec<__m512i>,
    weights: Vec<__m512i>,
}

/// The taps regrouped into chunks: `narrow[p]` read 64 bytes, `wide[p]`
/// 128; `scalar` go output by output.
struct Plan {
    narrow: [Class; MOST_PAIRS + 1],
    wide: [Class; MOST_PAIRS + 1],
    scalar: Vec<usize>,
}

impl Plan {
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn new<const C: usize>(taps: &FixedTaps, in_stride: usize, out_stride: usize) -> Plan {
        let mut plan = Plan {
            narrow: Default::default(),
            wide: Default::default(),
            scalar: Vec::new(),
        };
        for start in (0..out_stride).step_by(CHUNK) {
            let out = start.min(out_stride - CHUNK);
            let outputs = out / C..(out + CHUNK).div_ceil(C);
            // Every byte the chunk's pairs read, whichever channels it
            // holds. A right weight of zero (an output's odd last tap) reads
            // nothing: its index points at the left byte, which may be the
            // row's last.
            let (mut lowest, mut highest, mut most) = (usize::MAX, 0, 0);
            for j in outputs.clone() {
                let (first, pairs) = taps.get(j);
                let last = pairs.len().saturating_sub(1);
                let right = pairs.last().is_some_and(|&pair| pair >> 16 != 0);
                lowest = lowest.min(first * C);
                highest = highest.max((first + 2 * last + usize::from(right)) * C + C - 1);
                most = most.max(pairs.len());
            }
            let fits = |window: usize| {
                let base = lowest.min(in_stride - window);
                (highest < base + window && highest < in_stride).then_some(base)
            };
            let (class, base) = match (most, fits(LOAD), fits(2 * LOAD)) {
                (1..=MOST_PAIRS, Some(base), _) => (&mut plan.narrow[most], base),
                (1..=MOST_PAIRS, None, Some(base)) => (&mut plan.wide[most], base),
                _ => {
                    plan.scalar.extend(outputs);
                    continue;
                }
            };
            class.chunks.push(Chunk { out, base });
            for p in 0..most {
                let mut index = [0u8; 64];
                let mut weight = [0i32; CHUNK];
                for t in 0..CHUNK {
                    let (j, c) = ((out + t) / C, (out + t) % C);
                    let (first, pairs) = taps.get(j);
                    if let Some(&pair) = pairs.get(p) {
                        let left = (first + 2 * p) * C + c - base;
                        let right = if pair >> 16 != 0 { left + C } else { left };
                        index[4 * t] = left as u8;
                        index[4 * t + 2] = right as u8;
                        weight[t] = pair;
                    }
                }
                class.indices.push(bytes64(&index));
                class.weights.push(lanes32(&weight));
            }
        }
        plan.scalar.dedup();
        plan
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn bytes64(b: &[u8; 64]) -> __m512i {
    let q: [i64; 8] =
        std::array::from_fn(|i| i64::from_le_bytes(std::array::from_fn(|k| b[8 * i + k])));
    _mm512_setr_epi64(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7])
}

#[inline]
#[target_feature(enable = "avx512f")]
fn lanes32(w: &[i32; CHUNK]) -> __m512i {
    _mm512_setr_epi32(
        w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12], w[13],
        w[14], w[15],
    )
}

/// 64 bytes of `row` from `at`.
#[inline]
#[target_feature(enable = "avx512f")]
fn load64(row: &[u8], at: usize) -> __m512i {
    let bytes = &row[at..at + LOAD];
    // SAFETY: `bytes` is 64 readable bytes; the load has no alignment
    // requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

/// Writes 16 bytes to `out` at `at`.
#[inline]
#[target_feature(enable = "avx512f")]
fn store16(out: &mut [u8], at: usize, v: __m128i) {
    let bytes = &mut out[at..at + CHUNK];
    // SAFETY: `bytes` is 16 writable bytes; the store has no alignment
    // requirement.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), v) }
}

/// Every row of an image of `C` channels (1 or 3). The caller checks
/// [`fits`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn rows<const C: usize>(
    input: &[u8],
    in_stride: usize,
    taps: &FixedTaps,
    output: &mut [u8],
    out_stride: usize,
) {
    let plan = Plan::new::<C>(taps, in_stride, out_stride);
    let mut ins = input.chunks_exact(ROWS * in_stride);
    let mut outs = output.chunks_exact_mut(ROWS * out_stride);
    for (input, output) in (&mut ins).zip(&mut outs) {
        let mut rows = input.chunks_exact(in_stride);
        let mut outs = output.chunks_exact_mut(out_stride);
        let rows: [&[u8]; ROWS] = std::array::from_fn(|_| rows.next().unwrap_or_default());
        let mut outs: [&mut [u8]; ROWS] = std::array::from_fn(|_| outs.next().unwrap_or_default());
        rows_of::<C, ROWS>(&rows, taps, &plan, &mut outs);
    }
    for (row, out) in ins
        .remainder()
        .chunks_exact(in_stride)
        .zip(outs.into_remainder().chunks_exact_mut(out_stride))
    {
        rows_of::<C, 1>(&[row], taps, &plan, &mut [out]);
    }
}

/// `R` rows through every chunk.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn rows_of<const C: usize, const R: usize>(
    rows: &[&[u8]; R],
    taps: &FixedTaps,
    plan: &Plan,
    outs: &mut [&mut [u8]; R],
) {
    for &j in &plan.scalar {
        let (first, pairs) = taps.get(j);
        for (row, out) in rows.iter().zip(outs.iter_mut()) {
            output_scalar::<C>(row, first, pairs, &mut out[j * C..j * C + C]);
        }
    }
    macro_rules! class {
        ($class:expr, $p:literal, $wide:literal) => {
            let class = &$class[$p];
            let (indices, weights) = (
                class.indices.chunks_exact($p),
                class.weights.chunks_exact($p),
            );
            for ((chunk, indices), weights) in class.chunks.iter().zip(indices).zip(weights) {
                let indices: [__m512i; $p] = std::array::from_fn(|p| indices[p]);
                let weights: [__m512i; $p] = std::array::from_fn(|p| weights[p]);
                for (row, out) in rows.iter().zip(outs.iter_mut()) {
                    let v = chunk_of::<$p, $wide>(row, chunk.base, &indices, &weights);
                    store16(out, chunk.out, v);
                }
            }
        };
    }
    class!(plan.narrow, 1, false);
    class!(plan.narrow, 2, false);
    class!(plan.narrow, 3, false);
    class!(plan.narrow, 4, false);
    class!(plan.wide, 1, true);
    class!(plan.wide, 2, true);
    class!(plan.wide, 3, true);
    class!(plan.wide, 4, true);
}

/// One chunk of `P` pairs from a window of 64 bytes, or 128 if `WIDE`: its
/// 16 output bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn chunk_of<const P: usize, const WIDE: bool>(
    row: &[u8],
    base: usize,
    indices: &[__m512i; P],
    weights: &[__m512i; P],
) -> __m128i {
    let low = load64(row, base);
    let high = if WIDE { load64(row, base + LOAD) } else { low };
    // Every other byte: each selected byte becomes the low half of a
    // 16-bit lane, its high half zero.
    let even: __mmask64 = 0x5555_5555_5555_5555;
    let mut acc = _mm512_set1_epi32(HALF);
    for p in 0..P {
        let v = if WIDE {
            _mm512_maskz_permutex2var_epi8(even, low, indices[p], high)
        } else {
            _mm512_maskz_permutexvar_epi8(even, indices[p], low)
        };
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(v, weights[p]));
    }
    // Bits 14..22 of each 32-bit lane are its level, and nothing lies
    // above: the weights sum to one and none is negative (at most 8 taps
    // here, so rounding takes less than 4 from the heaviest, which has at
    // least an eighth of the whole). One multishift
    // takes them out into bytes 0 and 1 of each 64-bit lane, one permute
    // gathers those.
    let levels = _mm512_multishift_epi64_epi8(
        _mm512_set1_epi64(i64::from(BITS) | (i64::from(32 + BITS) << 8)),
        acc,
    );
    // Bytes 0 and 1 of each 64-bit lane, in order.
    let gather = _mm512_setr_epi64(
        0x1918_1110_0908_0100,
        0x3938_3130_2928_2120,
        0,
        0,
        0,
        0,
        0,
        0,
    );
    _mm512_castsi512_si128(_mm512_permutexvar_epi8(gather, levels))
}
