//! Large buffers on huge pages, where the system allows it.
//!
//! A grid of a million objects keeps about 40 MB, and its updates and
//! queries touch it at places spread over all of it. With 4 KB pages most
//! such touches also miss the processor's address cache (TLB: a few
//! thousand pages) and wait for a page-table walk. Linux backs memory with
//! 2 MB pages where a program asks for them (`madvise(MADV_HUGEPAGE)`, the
//! default "madvise" setting of transparent huge pages). The crate's
//! `try_reserve` helpers ask right after a buffer grows (the caller's
//! output vector too, when the grid grows it): for a fresh allocation that
//! is before its memory is first written, so its pages are huge from the
//! start; pages a reallocation already copied into may only be merged
//! later, by the kernel.

/// Below this, a buffer spans few pages anyway.
const MIN_BYTES: usize = 4 << 20;

/// Asks for huge pages for `v`'s whole capacity, if it is large. A hint:
/// nothing changes where the system does not support it.
pub(crate) fn advise<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes >= MIN_BYTES {
        advise_range(v.as_ptr().cast::<u8>(), bytes);
    }
}

/// Page size that `madvise` works in (4 KB on the systems with 2 MB huge
/// pages).
const PAGE: usize = 4096;

/// The whole pages inside `[start, start + bytes)`: `(first, end)`, both
/// page-aligned, or `None` if no whole page fits.
fn whole_pages(start: usize, bytes: usize) -> Option<(usize, usize)> {
    let first = start.checked_next_multiple_of(PAGE)?;
    let end = start.checked_add(bytes)? / PAGE * PAGE;
    (end > first).then_some((first, end))
}

#[cfg(target_os = "linux")]
fn advise_range(start: *const u8, bytes: usize) {
    use std::ffi::{c_int, c_void};
    const MADV_HUGEPAGE: c_int = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    if let Some((first, end)) = whole_pages(start.addr(), bytes) {
        // SAFETY: the pages lie inside one live allocation that this
        // process owns; MADV_HUGEPAGE changes how they are backed, never
        // their contents, and a failure (an old kernel, huge pages off)
        // leaves everything as it was, so the result is ignored.
        unsafe {
            madvise(
                start.with_addr(first).cast_mut().cast::<c_void>(),
                end - first,
                MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_range(_start: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn whole_pages_are_the_aligned_pages_inside(start in 0usize..1 << 40, bytes in 0usize..1 << 24) {
            match whole_pages(start, bytes) {
                Some((first, end)) => {
                    prop_assert!(first % PAGE == 0 && end % PAGE == 0);
                    prop_assert!(start <= first && end <= start + bytes);
                    // No whole page left out at either end.
                    prop_assert!(first - start < PAGE);
                    prop_assert!(start + bytes - end < PAGE);
                }
                None => {
                    // Not even one whole page inside.
                    let first = start.next_multiple_of(PAGE);
                    prop_assert!(first + PAGE > start + bytes);
                }
            }
        }
    }

    #[test]
    fn an_advised_buffer_keeps_its_contents() {
        let mut v: Vec<u64> = Vec::new();
        crate::error::try_reserve(&mut v, 1 << 20, "test").unwrap();
        v.extend(0..1u64 << 20);
        crate::error::try_reserve(&mut v, 1 << 21, "test").unwrap();
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
