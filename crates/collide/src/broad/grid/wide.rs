//! Sweeps 1 and 2 of a plain `find_all_pairs` (a row against itself and
//! against the next row of its level), the windows of sweep 3 in a row,
//! and a moved-pairs query's windows in a level (`WideRows::moved_windows`),
//! many candidates at a time with AVX-512.
//!
//! Why: the scalar sweep (`sweep::rows_all_fast`) spends its time at the
//! ends of its windows. A window holds 0–3 candidates on a dense world, so
//! the branch that ends it goes one way or the other at random. Here an
//! object's two windows (its own row forward, the next row from its cursor)
//! take eight lanes each of one 16-lane compare per coordinate; a window's
//! length is a count of trailing ones, and its pairs one compress and one
//! store. An object costs no unpredictable branch unless a window holds
//! eight candidates or more, when the scalar loop carries on from the
//! eighth. Sweep 3's windows (`WideRows::window_in_own`) take sixteen lanes.
//!
//! A moved object's four windows (own row forward and backward, next and
//! previous row) take two such registers, with no branch per window.
//!
//! The pairs, their order and the test count are those of the scalar
//! sweeps (two tests hold them to it on random worlds). Rows are first
//! copied into structure-of-arrays form, each once: the copy of a row's
//! next row is its own-row copy when the sweep gets there.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::layout::{Entry, GAP, Row};
use super::sweep::{Ctx, Emit, FastOut, MovedIn};
use crate::error::try_reserve;
use crate::{CollideError, Pair};

/// Candidates per window compare.
const LANES: usize = 16;

/// The longest row the wide sweep copies, in a grid of `entries`: longer
/// rows are left to the scalar sweep. A sixty-fourth of the grid keeps the
/// two copies (24 bytes an entry) under a byte per object; a dense world's
/// rows hold a few hundred entries at 100k objects.
pub(crate) fn max_row(entries: usize) -> usize {
    (entries / 64).clamp(256, 1 << 13)
}

/// Whether this CPU runs the wide sweep, found once. `COLLIDE_GRID_SIMD=
/// portable` turns it off, so the benchmark can show both on one machine.
pub(crate) fn available() -> bool {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        if std::env::var("COLLIDE_GRID_SIMD").is_ok_and(|v| v == "portable") {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            has!("avx512f") && has!("popcnt") && has!("bmi1") && has!("bmi2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    })
}

/// One row in structure-of-arrays form: six fields, each `len` values and
/// [`LANES`] of padding that ends every window and stops every cursor (min
/// x and reach +∞: nothing starts before an object ends, everything
/// reaches it; the rest failing every test). One allocation, so a window's
/// loads need one bounds check.
#[derive(Clone, Debug, Default)]
struct SoaRow {
    /// Index of the row held (global, in `Layout::rows`), if any.
    row: Option<usize>,
    len: usize,
    /// `len + LANES`: the distance between two fields.
    stride: usize,
    /// The fields one after another, as bits: min x, min y, max x, max y,
    /// reach, id.
    data: Vec<u32>,
}

// Field offsets in strides.
const MIN_X: usize = 0;
const MIN_Y: usize = 1;
const MAX_X: usize = 2;
const MAX_Y: usize = 3;
const REACH: usize = 4;
const ID: usize = 5;
const FIELDS: usize = 6;

impl SoaRow {
    /// Copies row `row` (entries `es`) in. Only with [`available`]: the
    /// copy is a transpose with AVX-512 permutes.
    fn fill(&mut self, row: usize, es: &[Entry]) -> Result<(), CollideError> {
        self.row = None;
        let stride = es.len() + LANES;
        self.data.clear();
        try_reserve(&mut self.data, FIELDS * stride, "wide sweep rows")?;
        let spare = &mut self.data.spare_capacity_mut()[..FIELDS * stride];
        // Entry fields in memory order (min x, min y, max x, max y, id,
        // reach) to their fields here, and each field's padding.
        let (inf, neg_inf) = (f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits());
        const TO: [usize; FIELDS] = [MIN_X, MIN_Y, MAX_X, MAX_Y, ID, REACH];
        let pad = [inf, inf, neg_inf, neg_inf, GAP, inf];
        let whole = es.len() / 8 * 8;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `fill` is only called where `available()` holds.
        unsafe {
            transpose(&es[..whole], spare, stride, TO)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let whole = 0;
        for (k, e) in es.iter().enumerate().skip(whole) {
            let bits = [
                e.min_x.to_bits(),
                e.min_y.to_bits(),
                e.max_x.to_bits(),
                e.max_y.to_bits(),
                e.id,
                e.reach.to_bits(),
            ];
            for (f, b) in bits.into_iter().enumerate() {
                spare[TO[f] * stride + k].write(b);
            }
        }
        for (f, &p) in pad.iter().enumerate() {
            for slot in &mut spare[TO[f] * stride + es.len()..(TO[f] + 1) * stride] {
                slot.write(p);
            }
        }
        // SAFETY: every field's `len` values and padding were written above.
        unsafe { self.data.set_len(FIELDS * stride) };
        self.len = es.len();
        self.stride = stride;
        self.row = Some(row);
        Ok(())
    }

    /// Field `field` of entry `i` as f32.
    #[inline(always)]
    fn get(&self, field: usize, i: usize) -> f32 {
        f32::from_bits(self.data[field * self.stride + i])
    }

    /// Where a window of [`LANES`] entries from `at` starts, in the first
    /// field; the others are `stride` apart. `at` is at most `len` (every
    /// index the sweep loads from is), so every field has sixteen values
    /// from there.
    #[inline(always)]
    fn lanes(&self, at: usize) -> Lanes {
        assert!(at <= self.len && self.data.len() == FIELDS * self.stride);
        // SAFETY: `at < stride`, inside the allocation.
        Lanes {
            ptr: unsafe { self.data.as_ptr().add(at) },
            stride: self.stride,
        }
    }

    fn bytes(&self) -> usize {
        self.data.capacity() * 4
    }
}

impl WideRows {
    /// Sweep 3's window of outer object `a` in the own row's copy (the row
    /// just swept, which `cross_into` is at): from the first entry at or
    /// after `cursor` that reaches `a`, the entries that start before `a`
    /// ends. Returns where the window starts (the next object's cursor).
    /// Same windows, tests and pair order as the scalar loop.
    pub(crate) fn window_in_own(
        &self,
        cursor: usize,
        a: &Entry,
        tests: &mut u64,
        out: &mut FastOut<'_>,
    ) -> Result<usize, CollideError> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the own row is only filled where `available()` holds.
            unsafe { window(&self.own, cursor, a, tests, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (cursor, a, tests, out);
            unreachable!("the wide sweep is only available on x86-64")
        }
    }
}

/// The first entry of `row` at or after `cursor` whose reach is at least
/// `x` (in every lane), sixteen at a time. The padding reaches everything,
/// so the answer is at most the row's length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,bmi1")]
#[inline]
fn seek(row: &SoaRow, mut cursor: usize, x: __m512) -> usize {
    loop {
        let reaches = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(row.lanes(cursor).f32s(REACH), x);
        if reaches != 0 {
            return cursor + reaches.trailing_zeros() as usize;
        }
        cursor += LANES;
    }
}

/// See [`WideRows::window_in_own`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
fn window(
    row: &SoaRow,
    cursor: usize,
    a: &Entry,
    tests: &mut u64,
    out: &mut FastOut<'_>,
) -> Result<usize, CollideError> {
    let (v_min_x, v_min_y) = (_mm512_set1_ps(a.min_x), _mm512_set1_ps(a.min_y));
    let (v_max_x, v_max_y) = (_mm512_set1_ps(a.max_x), _mm512_set1_ps(a.max_y));
    let cursor = seek(row, cursor, v_min_x);
    let v_id = _mm_set1_epi32(a.id as i32);
    let mut j = cursor;
    loop {
        // `j` stays within the row: a full window's lanes all started
        // before `a` ends, so none was padding.
        let w = row.lanes(j);
        let starts = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(w.f32s(MIN_X), v_max_x);
        let right = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(w.f32s(MAX_X), v_min_x);
        let below = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(w.f32s(MIN_Y), v_max_y);
        let above = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(w.f32s(MAX_Y), v_min_y);
        // The run of candidates from the first lane that start in time.
        let run = u32::from(starts);
        let win = (run & !(run + 1)) as u16;
        out.room_for(LANES)?;
        let ids = _mm512_castps_si512(w.f32s(ID));
        // SAFETY: `room_for` made 16 slots writable.
        let written = unsafe { emit(out.end_ptr(), v_id, ids, win & right & below & above) };
        // SAFETY: `emit` wrote them.
        unsafe { out.advance(written) };
        *tests += u64::from(win.count_ones());
        if win != u16::MAX {
            return Ok(cursor);
        }
        j += LANES;
    }
}

/// Writes the fields of `es` (a multiple of eight entries) into `out`,
/// field `f` of entry `k` at `to[f] * stride + k`: eight entries (three
/// registers) at a time, each field gathered by two permutes.
///
/// # Safety
/// The CPU has AVX-512F; `out` holds six strides of at least `es.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn transpose(
    es: &[Entry],
    out: &mut [std::mem::MaybeUninit<u32>],
    stride: usize,
    to: [usize; FIELDS],
) {
    const _: () = assert!(std::mem::size_of::<Entry>() == FIELDS * 4);
    assert!(es.len().is_multiple_of(8) && es.len() <= stride && out.len() >= FIELDS * stride);
    // Field f of entry j is dword 6j + f of the 48 loaded: from the first
    // two registers (dwords 0-31) by one permute, the rest from the third.
    let index = |f: usize, base: usize| {
        let mut lanes = [0i32; 16];
        for (j, lane) in lanes.iter_mut().enumerate().take(8) {
            *lane = ((6 * j + f).wrapping_sub(base) & 31) as i32;
        }
        lanes
    };
    let mut low = [_mm512_setzero_si512(); FIELDS];
    let mut high = [_mm512_setzero_si512(); FIELDS];
    let mut third = [0u16; FIELDS];
    for f in 0..FIELDS {
        // SAFETY: 16 i32s each.
        unsafe {
            low[f] = _mm512_loadu_si512(index(f, 0).as_ptr().cast());
            high[f] = _mm512_loadu_si512(index(f, 32).as_ptr().cast());
        }
        third[f] = (0..8)
            .filter(|&j| 6 * j + f >= 32)
            .fold(0, |m, j| m | 1 << j);
    }
    let src = es.as_ptr().cast::<u32>();
    let dst = out.as_mut_ptr().cast::<u32>();
    for k in (0..es.len()).step_by(8) {
        // SAFETY: entries k..k + 8 are 48 dwords inside `es`; the stores
        // write eight dwords of each field inside `out` (k + 8 <= stride).
        unsafe {
            let at = src.add(6 * k);
            let r0 = _mm512_loadu_si512(at.cast());
            let r1 = _mm512_loadu_si512(at.add(16).cast());
            let r2 = _mm512_loadu_si512(at.add(32).cast());
            for f in 0..FIELDS {
                let v = _mm512_permutex2var_epi32(r0, low[f], r1);
                let v = _mm512_mask_permutexvar_epi32(v, third[f], high[f], r2);
                _mm256_storeu_si256(
                    dst.add(to[f] * stride + k).cast(),
                    _mm512_castsi512_si256(v),
                );
            }
        }
    }
}

/// Sixteen entries of a [`SoaRow`], field by field.
#[derive(Clone, Copy)]
struct Lanes {
    ptr: *const u32,
    stride: usize,
}

#[cfg(target_arch = "x86_64")]
impl Lanes {
    /// Sixteen values of `field` as f32s.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn f32s(self, field: usize) -> __m512 {
        // SAFETY: `SoaRow::lanes` checked that each field has sixteen
        // values from `ptr`; the load is unaligned.
        unsafe { _mm512_loadu_ps(self.ptr.add(field * self.stride).cast()) }
    }

    /// The first eight values of `field`, as bits.
    #[target_feature(enable = "avx")]
    #[inline]
    fn half(self, field: usize) -> __m256i {
        // SAFETY: as in `f32s`.
        unsafe { _mm256_loadu_si256(self.ptr.add(field * self.stride).cast()) }
    }
}

/// The row copies a sweep works with: a row's own and its next row's, and
/// for the moved sweep its previous row's.
#[derive(Clone, Debug, Default)]
pub(crate) struct WideRows {
    prev: SoaRow,
    own: SoaRow,
    next: SoaRow,
}

impl WideRows {
    pub(crate) fn bytes(&self) -> usize {
        self.prev.bytes() + self.own.bytes() + self.next.bytes()
    }

    /// Forgets the rows held: the layout may have changed since.
    pub(crate) fn forget(&mut self) {
        self.prev.row = None;
        self.own.row = None;
        self.next.row = None;
    }

    /// Holds copies of the rows `want` (previous, own, next: index and
    /// row), copying only those not held already: going up the rows of a
    /// level, a row's next row becomes the next one's own row, its own row
    /// the previous.
    fn hold(
        &mut self,
        ctx: &Ctx<'_>,
        want: [Option<(usize, &Row)>; 3],
    ) -> Result<(), CollideError> {
        let mut slots = [
            std::mem::take(&mut self.prev),
            std::mem::take(&mut self.own),
            std::mem::take(&mut self.next),
        ];
        for (t, w) in want.iter().enumerate() {
            let Some((ri, _)) = *w else { continue };
            // Rows wanted are distinct, so a slot before `t` holding `ri`
            // is not wanted where it is.
            if let Some(k) = (0..3).find(|&k| slots[k].row == Some(ri)) {
                slots.swap(t, k);
            }
        }
        let mut result = Ok(());
        for (slot, w) in slots.iter_mut().zip(want) {
            if let Some((ri, row)) = w
                && slot.row != Some(ri)
                && result.is_ok()
            {
                result = slot.fill(ri, ctx.row_entries(row));
            }
        }
        [self.prev, self.own, self.next] = slots;
        result
    }

    /// The moved entries of row `ri` against their own level, as
    /// `sweep::same_level_moved` finds them (pairs, order, tests), from
    /// copies of the row and its neighbours `next` and `prev` (index and
    /// row). The caller has checked [`available`] and that the rows are at
    /// most [`max_row`] long.
    pub(crate) fn moved_windows(
        &mut self,
        ctx: &Ctx<'_>,
        (ri, row): (usize, &Row),
        next: Option<(usize, &Row)>,
        prev: Option<(usize, &Row)>,
        tests: &mut u64,
        emit: &mut impl Emit,
    ) -> Result<(), CollideError> {
        self.hold(ctx, [prev, Some((ri, row)), next])?;
        let next = next.map(|(_, r)| (r.start as usize, &self.next));
        let prev = prev.map(|(_, r)| (r.start as usize, &self.prev));
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the caller checked `available()`: this CPU has the
            // target features `moved_rows` is compiled for.
            unsafe {
                moved_rows(
                    ctx,
                    (row.start as usize, &self.own),
                    next,
                    prev,
                    tests,
                    emit,
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (next, prev, tests, emit);
            unreachable!("the wide sweep is only available on x86-64")
        }
    }

    /// Sweeps 1 and 2 for row `ri` (entries `es`) and its next row `up`
    /// (index and entries), as `sweep::rows_all_fast` does. The caller has
    /// checked [`available`] and that both rows are at most [`max_row`] long.
    pub(crate) fn sweep(
        &mut self,
        ri: usize,
        es: &[Entry],
        up: Option<(usize, &[Entry])>,
        tests: &mut u64,
        out: &mut FastOut<'_>,
    ) -> Result<(), CollideError> {
        if self.next.row == Some(ri) {
            std::mem::swap(&mut self.own, &mut self.next);
        }
        if self.own.row != Some(ri) {
            self.own.fill(ri, es)?;
        }
        if let Some((ui, ups)) = up
            && self.next.row != Some(ui)
        {
            self.next.fill(ui, ups)?;
        }
        let next = up.map(|_| &self.next);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: the caller checked `available()`: this CPU has the
            // target features `rows` is compiled for.
            unsafe { rows(&self.own, next, tests, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (next, tests, out);
            unreachable!("the wide sweep is only available on x86-64")
        }
    }
}

/// Writes the pairs of `a_id` with the `ids` whose bits are set in `hit`,
/// at `at`, in lane order; returns how many.
///
/// The ids are compressed first and the pairs made four at a time, so the
/// usual object (0–4 pairs) costs one compress and one 32-byte store.
///
/// # Safety
/// 16 slots from `at` are writable.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt")]
#[inline]
unsafe fn emit(at: *mut Pair, a_id: __m128i, ids: __m512i, hit: u16) -> usize {
    const _: () = assert!(std::mem::size_of::<Pair>() == 8);
    // Pair is repr(C) { a, b }: the smaller id, then the larger.
    let four = |ids: __m128i| {
        let (lo, hi) = (_mm_min_epu32(a_id, ids), _mm_max_epu32(a_id, ids));
        _mm256_set_m128i(_mm_unpackhi_epi32(lo, hi), _mm_unpacklo_epi32(lo, hi))
    };
    // SAFETY: the caller's 16 slots of 8 bytes.
    unsafe { store_fours(at.cast(), _mm512_maskz_compress_epi32(hit, ids), hit, four) }
}

/// Stores the first `hit.count_ones()` lanes of `kept` (compressed values)
/// as 8-byte slots at `at`, each group of four made into four slots by
/// `four`, a 32-byte store each: the usual object (0–4 slots) costs one.
/// Returns how many slots hold values.
///
/// # Safety
/// 16 slots of 8 bytes from `at` are writable.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt")]
#[inline]
unsafe fn store_fours(
    at: *mut [u32; 2],
    kept: __m512i,
    hit: u16,
    four: impl Fn(__m128i) -> __m256i,
) -> usize {
    let count = hit.count_ones() as usize;
    // SAFETY: the caller's 16 slots: 4 written here, 4 more per step below.
    unsafe {
        _mm256_storeu_si256(at.cast(), four(_mm512_castsi512_si128(kept)));
        if count > 4 {
            _mm256_storeu_si256(at.add(4).cast(), four(_mm512_extracti32x4_epi32::<1>(kept)));
            _mm256_storeu_si256(at.add(8).cast(), four(_mm512_extracti32x4_epi32::<2>(kept)));
            _mm256_storeu_si256(
                at.add(12).cast(),
                four(_mm512_extracti32x4_epi32::<3>(kept)),
            );
        }
    }
    count
}

/// The run of set bits at the bottom of each byte of `m`: the windows of
/// candidates that start before the object ends (past a gap the rest need
/// not be sorted, so lanes after the first that fails do not count). Each
/// byte is `b & !(b + 1)`, the additions kept from carrying into the next
/// byte.
#[inline(always)]
fn windows(m: u16) -> u16 {
    let plus_one = ((m & 0x7f7f) + 0x0101) ^ (m & 0x8080);
    m & !plus_one
}

/// Candidates per window: the two windows of an object share one register.
const HALF: usize = LANES / 2;
/// Objects per check of the output's room.
const BLOCK: usize = 32;
/// Room one block of objects may write: two windows each.
const BLOCK_ROOM: usize = BLOCK * LANES;

/// Eight values of a field from each of two windows, in one register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn joined(own: Lanes, up: Lanes, field: usize) -> __m512 {
    _mm512_castsi512_ps(_mm512_inserti64x4::<1>(
        _mm512_castsi256_si512(own.half(field)),
        up.half(field),
    ))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
fn rows(
    own: &SoaRow,
    up: Option<&SoaRow>,
    tests: &mut u64,
    out: &mut FastOut<'_>,
) -> Result<(), CollideError> {
    let n = own.len;
    let mut cursor = 0usize;
    let mut count = 0u64;
    // Without a next row, its half of the register reads the own row's
    // padding, which starts no window.
    let no_up = own.lanes(n);
    let mut block_start = 0;
    while block_start < n {
        let block_end = (block_start + BLOCK).min(n);
        out.room_for(BLOCK_ROOM)?;
        // Pairs go to `at + written`, kept by `advance` at the block's end
        // (or before a tail, which pushes its own).
        let mut at = out.end_ptr();
        let mut written = 0usize;
        for i in block_start..block_end {
            let id = own.data[ID * own.stride + i];
            if id == GAP {
                continue;
            }
            let (min_x, min_y) = (own.get(MIN_X, i), own.get(MIN_Y, i));
            let (max_x, max_y) = (own.get(MAX_X, i), own.get(MAX_Y, i));
            let (v_min_x, v_min_y) = (_mm512_set1_ps(min_x), _mm512_set1_ps(min_y));
            let (v_max_x, v_max_y) = (_mm512_set1_ps(max_x), _mm512_set1_ps(max_y));

            // Next row: from the first entry reaching `a` (the padding
            // reaches everything, so the cursor stops by the row's end).
            let up_lanes = match up {
                Some(up) => {
                    cursor = seek(up, cursor, v_min_x);
                    up.lanes(cursor)
                }
                None => no_up,
            };
            // Low half: own row, forward from the next entry. High half:
            // the next row from the cursor. Each window is the run of
            // candidates that start before `a` ends; in the own row x
            // overlap is implied by the sort, so the x test passes there.
            let own_lanes = own.lanes(i + 1);
            let f = |field| joined(own_lanes, up_lanes, field);
            let starts = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(f(MIN_X), v_max_x);
            let right = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(f(MAX_X), v_min_x);
            let below = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(f(MIN_Y), v_max_y);
            let above = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(f(MAX_Y), v_min_y);
            let win = windows(starts);
            let hit = win & right & below & above;
            count += u64::from(win.count_ones());
            let v_id = _mm_set1_epi32(id as i32);
            let ids = _mm512_castps_si512(f(ID));
            if win & 0x8080 == 0 {
                // SAFETY: the block's room covers 16 pairs per object.
                written += unsafe { emit(at.add(written), v_id, ids, hit) };
                continue;
            }
            // A window of eight or more: the scalar loop carries it on, in
            // the scalar sweep's order (own row, then next row).
            // SAFETY: as above.
            written += unsafe { emit(at.add(written), v_id, ids, hit & 0x00ff) };
            // SAFETY: `written` slots from the old end were written.
            unsafe { out.advance(written) };
            written = 0;
            let a = [min_x, min_y, max_x, max_y];
            if win & 0x0080 != 0 {
                count += tail(own, i + 1 + HALF, id, a, false, out)?;
            }
            out.room_for(BLOCK_ROOM)?;
            at = out.end_ptr();
            // SAFETY: room for a block.
            written += unsafe { emit(at, v_id, ids, hit & 0xff00) };
            if let Some(up) = up.filter(|_| win & 0x8000 != 0) {
                // SAFETY: as above.
                unsafe { out.advance(written) };
                written = 0;
                count += tail(up, cursor + HALF, id, a, true, out)?;
                out.room_for(BLOCK_ROOM)?;
                at = out.end_ptr();
            }
        }
        // SAFETY: `written` slots from `at` were written.
        unsafe { out.advance(written) };
        block_start = block_end;
    }
    *tests += count;
    Ok(())
}

/// A window past its first eight candidates, one at a time: candidates
/// from `from` that start before `a` ends. Returns how many it tested.
#[cold]
fn tail(
    row: &SoaRow,
    from: usize,
    a_id: u32,
    [min_x, min_y, max_x, max_y]: [f32; 4],
    test_x: bool,
    out: &mut FastOut<'_>,
) -> Result<u64, CollideError> {
    let mut j = from;
    while j < row.len && row.get(MIN_X, j) <= max_x {
        let hit = (!test_x || min_x <= row.get(MAX_X, j))
            && row.get(MIN_Y, j) <= max_y
            && min_y <= row.get(MAX_Y, j);
        if hit {
            out.push(Pair::ordered(a_id, row.data[ID * row.stride + j]))?;
        }
        j += 1;
    }
    Ok((j - from) as u64)
}

/// A row is copied for the moved sweep if it holds at least one moved
/// entry per this many entries. Copying costs about a nanosecond an entry
/// and is shared by three rows' sweeps; a moved entry's scalar windows cost
/// about 100 ns, the wide ones a third to a quarter of that. At 10k, rows
/// of about 100 entries with 5–6 moved were left scalar with 16.
pub(crate) const MOVED_PER_COPIED: usize = 32;

/// An object's box, in every lane.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Probe {
    min_x: __m512,
    min_y: __m512,
    max_x: __m512,
    max_y: __m512,
}

#[cfg(target_arch = "x86_64")]
impl Probe {
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn new(a: &Entry) -> Self {
        Self {
            min_x: _mm512_set1_ps(a.min_x),
            min_y: _mm512_set1_ps(a.min_y),
            max_x: _mm512_set1_ps(a.max_x),
            max_y: _mm512_set1_ps(a.max_y),
        }
    }

    /// The lanes of `w` whose boxes intersect this one (closed boxes).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn hits(&self, w: Lanes) -> u16 {
        _mm512_cmp_ps_mask::<_CMP_LE_OQ>(w.f32s(MIN_X), self.max_x)
            & _mm512_cmp_ps_mask::<_CMP_GE_OQ>(w.f32s(MAX_X), self.min_x)
            & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(w.f32s(MIN_Y), self.max_y)
            & _mm512_cmp_ps_mask::<_CMP_GE_OQ>(w.f32s(MAX_Y), self.min_y)
    }
}

/// Sixteen bits of `bits` from bit `at` (bits past the end are clear),
/// without a branch.
#[inline(always)]
fn bits16(bits: &[u64], at: usize) -> u16 {
    let (w, s) = (at / 64, at % 64);
    let low = bits.get(w).copied().unwrap_or(0);
    let high = bits.get(w + 1).copied().unwrap_or(0);
    ((u128::from(high) << 64 | u128::from(low)) >> s) as u16
}

/// Pairs found, held as (moved position, partner position) until `emit`
/// takes them: the windows write them without a branch per window, and
/// `emit` is called in one predictable loop. Uninitialised storage: a
/// zeroed one cost a 2 KB memset per row, 3% of a 10% moving frame at 10k.
struct Found {
    /// `pairs[..len]` are written.
    pairs: [std::mem::MaybeUninit<[u32; 2]>; FOUND],
    len: usize,
}

/// Pairs [`Found`] holds: room for several objects' windows.
const FOUND: usize = 256;

impl Found {
    /// Makes room for `k` more pairs (at most [`FOUND`]), handing those
    /// held to `emit` if need be.
    #[inline]
    fn room(&mut self, k: usize, ctx: &Ctx<'_>, emit: &mut impl Emit) -> Result<(), CollideError> {
        if self.len + k > FOUND {
            self.flush(ctx, emit)?;
        }
        Ok(())
    }

    /// Hands every pair held to `emit`, in the order found.
    fn flush(&mut self, ctx: &Ctx<'_>, emit: &mut impl Emit) -> Result<(), CollideError> {
        for pair in &self.pairs[..self.len] {
            // SAFETY: the first `len` slots were written by `add_at`.
            let [p, q] = unsafe { pair.assume_init() };
            let (p, q) = (p as usize, q as usize);
            emit(p, &ctx.entries[p], q, &ctx.entries[q])?;
        }
        self.len = 0;
        Ok(())
    }

    /// Adds the pairs of moved position `p` (in every lane) with the lanes
    /// of `hit` among positions `first..first + 16`, in lane order. Needs
    /// room for sixteen.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,popcnt")]
    #[inline]
    fn add(&mut self, p: __m128i, first: usize, hit: u16) {
        self.add_at(
            p,
            _mm512_add_epi32(_mm512_set1_epi32(first as i32), lane_index()),
            hit,
        );
    }

    /// Adds the pairs of moved position `p` (in every lane) with the
    /// positions `at` whose lanes are set in `hit`, in lane order. Needs
    /// room for sixteen: it writes four slots at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,popcnt")]
    #[inline]
    fn add_at(&mut self, p: __m128i, at: __m512i, hit: u16) {
        assert!(self.len + LANES <= FOUND);
        let four =
            |qs: __m128i| _mm256_set_m128i(_mm_unpackhi_epi32(p, qs), _mm_unpacklo_epi32(p, qs));
        let to = self.pairs[self.len..].as_mut_ptr().cast::<[u32; 2]>();
        let kept = _mm512_maskz_compress_epi32(hit, at);
        // SAFETY: sixteen slots from `to` are inside `pairs` (asserted).
        self.len += unsafe { store_fours(to, kept, hit, four) };
    }
}

/// A forward window's first sixteen lanes in `w`: the run of entries that
/// start before `v` ends, and its hits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn run_and_hits(w: Lanes, v: &Probe) -> (u16, u16) {
    let run = u32::from(_mm512_cmp_ps_mask::<_CMP_LE_OQ>(w.f32s(MIN_X), v.max_x));
    let win = (run & !(run + 1)) as u16;
    (win, win & v.hits(w))
}

/// A forward window of `v` past its first sixteen lanes (rare on any
/// world: a stack of objects at one x), from `from` in `row` (whose first
/// entry is at position `start`); `still` keeps only partners that did
/// not move. Returns how many entries it tested.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt")]
#[allow(clippy::too_many_arguments)]
fn forward_rest(
    (start, row): (usize, &SoaRow),
    from: usize,
    v: &Probe,
    vp: __m128i,
    still: bool,
    found: &mut Found,
    ctx: &Ctx<'_>,
    emit: &mut impl Emit,
) -> Result<u64, CollideError> {
    let mut j = from;
    let mut count = 0u64;
    loop {
        // `j` stays within the row: a full window's lanes all started
        // before the object ends, so none was padding.
        let (win, mut hit) = run_and_hits(row.lanes(j), v);
        if still {
            hit &= !bits16(ctx.moved, start + j);
        }
        count += u64::from(win.count_ones());
        found.room(LANES, ctx, emit)?;
        found.add(vp, start + j, hit);
        if win != u16::MAX {
            return Ok(count);
        }
        j += LANES;
    }
}

/// Lane `k` holds `k`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn lane_index() -> __m512i {
    _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
}

/// Positions `low..low + 8` in the low eight lanes, `high..high + 8` in
/// the high eight.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn two_runs(low: usize, high: usize) -> __m512i {
    let starts = _mm512_inserti64x4::<1>(
        _mm512_castsi256_si512(_mm256_set1_epi32(low as i32)),
        _mm256_set1_epi32(high as i32),
    );
    let k = _mm512_set_epi32(7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0);
    _mm512_add_epi32(starts, k)
}

/// See [`WideRows::moved_windows`]: rows as (position of the first entry,
/// copy). An object's four windows take two registers of two eight-lane
/// halves each (own row forward and backward; next row and previous), so
/// it costs no unpredictable branch unless a window holds more than eight
/// candidates.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt,bmi1,bmi2")]
fn moved_rows(
    ctx: &Ctx<'_>,
    own: (usize, &SoaRow),
    next: Option<(usize, &SoaRow)>,
    prev: Option<(usize, &SoaRow)>,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    let (own_start, own_row) = own;
    let (mut own_cursor, mut next_cursor, mut prev_cursor) = (0, 0, 0);
    let mut count = 0u64;
    let mut found = Found {
        pairs: [std::mem::MaybeUninit::uninit(); FOUND],
        len: 0,
    };
    // A missing neighbour's half reads the own row's padding, which starts
    // no window.
    let padding = own_row.lanes(own_row.len);
    for p in MovedIn::new(ctx.moved, own_start, own_start + own_row.len) {
        found.room(2 * LANES, ctx, emit)?;
        let i = p - own_start;
        let v = Probe::new(&ctx.entries[p]);
        let vp = _mm_set1_epi32(p as i32);
        // Own row: forward from the next entry (every partner), backward
        // from the first entry that reaches `a` (partners that did not
        // move; reach never decreases along a row).
        own_cursor = seek(own_row, own_cursor, v.min_x);
        let first = own_cursor.min(i);
        let before = i - first;
        let own_halves = |f| joined(own_row.lanes(i + 1), own_row.lanes(first), f);
        let (starts, hits) = halves_hits(own_halves, &v);
        let forward = windows(starts) & 0x00ff;
        let backward = (_bzhi_u32(0xff, before.min(HALF) as u32) as u16) << 8;
        let still_back = !(bits16(ctx.moved, own_start + first) << 8);
        let own_hits = (forward | backward & still_back) & hits;
        count += u64::from(forward.count_ones()) + before as u64;
        // Next row (every partner) and previous row (partners that did not
        // move), each from its cursor.
        let (next_at, next_lanes) = match next {
            Some((start, row)) => {
                next_cursor = seek(row, next_cursor, v.min_x);
                (start + next_cursor, row.lanes(next_cursor))
            }
            None => (0, padding),
        };
        let (prev_at, prev_lanes) = match prev {
            Some((start, row)) => {
                prev_cursor = seek(row, prev_cursor, v.min_x);
                (start + prev_cursor, row.lanes(prev_cursor))
            }
            None => (0, padding),
        };
        let (starts, hits) = halves_hits(|f| joined(next_lanes, prev_lanes, f), &v);
        let near = windows(starts);
        let still_prev = !(bits16(ctx.moved, prev_at) << 8);
        let near_hits = near & hits & still_prev;
        count += u64::from(near.count_ones());
        let own_at = two_runs(p + 1, own_start + first);
        let near_at = two_runs(next_at, prev_at);
        if forward != 0x00ff && before <= HALF && near & 0x8080 == 0 {
            found.add_at(vp, own_at, own_hits);
            found.add_at(vp, near_at, near_hits);
            continue;
        }
        // A window of more than eight: each window in turn, its first eight
        // candidates from the registers and the rest after them.
        found.add_at(vp, own_at, own_hits & 0x00ff);
        if forward == 0x00ff {
            count += forward_rest(own, i + 1 + HALF, &v, vp, false, &mut found, ctx, emit)?;
        }
        found.room(LANES, ctx, emit)?;
        found.add_at(vp, own_at, own_hits & 0xff00);
        let mut j = first + HALF;
        while j < i {
            found.room(LANES, ctx, emit)?;
            let lanes = _bzhi_u32(0xffff, (i - j).min(LANES) as u32) as u16;
            let still = !bits16(ctx.moved, own_start + j);
            found.add(vp, own_start + j, lanes & still & v.hits(own_row.lanes(j)));
            j += LANES;
        }
        found.room(LANES, ctx, emit)?;
        found.add_at(vp, near_at, near_hits & 0x00ff);
        if let Some(next) = next.filter(|_| near & 0x0080 != 0) {
            let from = next_cursor + HALF;
            count += forward_rest(next, from, &v, vp, false, &mut found, ctx, emit)?;
        }
        found.room(LANES, ctx, emit)?;
        found.add_at(vp, near_at, near_hits & 0xff00);
        if let Some(prev) = prev.filter(|_| near & 0x8000 != 0) {
            let from = prev_cursor + HALF;
            count += forward_rest(prev, from, &v, vp, true, &mut found, ctx, emit)?;
        }
    }
    found.flush(ctx, emit)?;
    *tests += count;
    Ok(())
}

/// For two windows of eight lanes each (`field` gives a field's sixteen
/// values): which lanes start before `v` ends, and which intersect it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn halves_hits(field: impl Fn(usize) -> __m512, v: &Probe) -> (u16, u16) {
    let starts = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(field(MIN_X), v.max_x);
    let hits = starts
        & _mm512_cmp_ps_mask::<_CMP_GE_OQ>(field(MAX_X), v.min_x)
        & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(field(MIN_Y), v.max_y)
        & _mm512_cmp_ps_mask::<_CMP_GE_OQ>(field(MAX_Y), v.min_y);
    (starts, hits)
}
