//! A team of threads kept together for one parallel call (a rebuild, a
//! sweep, or both), so that its passes hand work over by spinning on
//! atomics instead of through rayon's sleep and wake.
//!
//! Why: a parallel build is five passes with short serial steps between
//! them, and at 10k objects each pass takes 10–40 µs. A rayon worker that
//! finds no work yields for a few microseconds and then sleeps; waking it
//! takes longer than such a pass on a virtual machine, so the second half
//! of a pass often ran on the first thread after all. Measured on the
//! 2-vCPU machine of the benchmark, two pieces of 4 µs each ran in 6.1–7.4
//! µs on rayon (8.3–8.5 one after the other) and in 4.3–4.8 µs on a
//! spinning helper (`collide-bench --bin handoff`).
//!
//! How: [`run`] asks rayon for `width - 1` helpers (spawned jobs) and runs
//! the call's body on the current thread, which is member 0. Each
//! [`Exec::map`] gives every member a block of consecutive pieces, the same
//! blocks in every pass, so that a member mostly reads back what it wrote
//! in the pass before (its own cache), as rayon's halving split does. A
//! member runs its block from the front, then takes pieces from the back
//! of the others' blocks; each block is one atomic word (epoch, end, next)
//! claimed by compare and swap. A helper that rayon starts late joins at
//! the next piece; one that never starts costs nothing (the caller runs
//! every piece, and the helper job, when rayon gets to it, sees the call is
//! over and returns). Helpers spin only while the call lasts.
//!
//! Determinism: pieces are fixed by their index, whatever thread runs
//! them, and results are returned in index order.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use super::layout::Exec;
use crate::CollideError;
use crate::error::try_reserve;

/// Spins between looks for work before a helper starts yielding its core
/// (a serial step of the caller can take milliseconds at a million objects).
const SPINS_BEFORE_YIELD: u32 = 1 << 14;

/// Most pieces of one `map` a block word can count; more run serially.
const MAX_PIECES: usize = u16::MAX as usize;

/// One member's block of the current pass, alone on its cache line.
#[repr(align(64))]
struct Block {
    /// Epoch (high 32 bits), end (16), next unclaimed piece (16): the
    /// member claims `next`, others claim `end - 1`. One word, so that a
    /// claim made against an old pass fails.
    word: AtomicU64,
}

/// What the team shares.
struct Shared {
    blocks: Vec<Block>,
    /// Pieces of the current pass that are finished (or unwound).
    done: AtomicUsize,
    /// The current pass's job: points at a `&(dyn Fn(usize) + Sync)` on the
    /// caller's stack, valid while the pass has unfinished claimed pieces.
    job: AtomicPtr<()>,
    /// Helpers that have started (each takes the next member number).
    joined: AtomicUsize,
    /// The call is over: helpers return.
    finished: AtomicBool,
    /// A piece panicked: its result was never written.
    panicked: AtomicBool,
    /// A pass is running: a `map` called from inside a piece runs its own
    /// pieces serially instead of replacing the pass.
    in_pass: AtomicBool,
    /// The last pass's epoch.
    epoch: AtomicU32,
}

type Job<'a> = &'a (dyn Fn(usize) + Sync);

fn encode(epoch: u32, end: usize, next: usize) -> u64 {
    (u64::from(epoch) << 32) | ((end as u64) << 16) | next as u64
}

/// (end, next) of a block word.
fn decode(word: u64) -> (usize, usize) {
    (((word >> 16) & 0xffff) as usize, (word & 0xffff) as usize)
}

/// Member `m`'s block of `k` pieces among `width` members.
fn block(m: usize, k: usize, width: usize) -> std::ops::Range<usize> {
    m * k / width..(m + 1) * k / width
}

/// Counts a claimed piece as done when dropped, also while unwinding.
struct DoneOnDrop<'a>(&'a Shared);

impl Drop for DoneOnDrop<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.panicked.store(true, Ordering::Relaxed);
        }
        self.0.done.fetch_add(1, Ordering::Release);
    }
}

impl Shared {
    /// Claims a piece of block `b`, its front (`own`) or its back.
    fn claim(&self, b: usize, own: bool) -> Option<usize> {
        let word = &self.blocks[b].word;
        let mut now = word.load(Ordering::Acquire);
        loop {
            let (end, next) = decode(now);
            if next >= end {
                return None;
            }
            let (after, piece) = if own {
                (now + 1, next)
            } else {
                (now - (1 << 16), end - 1)
            };
            match word.compare_exchange_weak(now, after, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(piece),
                Err(seen) => now = seen,
            }
        }
    }

    /// Member `m` claims a piece (its own block first) and runs it.
    /// Returns false when no block had one left.
    fn run_one(&self, m: usize) -> bool {
        let width = self.blocks.len();
        let piece = self
            .claim(m, true)
            .or_else(|| (1..width).find_map(|d| self.claim((m + d) % width, false)));
        let Some(piece) = piece else {
            return false;
        };
        // SAFETY: the claim succeeded against this pass's word, so the pass
        // cannot end (nor its job go out of scope) before this piece is
        // counted done; the caller stored the job before publishing the
        // words, and the acquiring claim sees it.
        let job = unsafe { *self.job.load(Ordering::Acquire).cast::<Job<'_>>() };
        let _done = DoneOnDrop(self);
        job(piece);
        true
    }

    /// A helper: runs pieces as they come until the call is over.
    fn help(&self) {
        let m = self.joined.fetch_add(1, Ordering::Relaxed) + 1;
        if m >= self.blocks.len() {
            return;
        }
        let mut idle = 0u32;
        loop {
            if self.run_one(m) {
                idle = 0;
                continue;
            }
            if self.finished.load(Ordering::Acquire) {
                return;
            }
            idle = idle.saturating_add(1);
            if idle < SPINS_BEFORE_YIELD {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// The team as the build and the sweeps see it: member 0's view.
pub(crate) struct Team<'a> {
    shared: &'a Shared,
}

/// Runs `body` with a team of `width` threads (the current one and up to
/// `width - 1` rayon workers).
///
/// # Errors
/// [`CollideError::OutOfMemory`] if the team's blocks cannot be allocated.
pub(crate) fn run<R>(
    width: usize,
    body: impl FnOnce(&Team<'_>) -> Result<R, CollideError>,
) -> Result<R, CollideError> {
    let width = width.max(1);
    let mut blocks = Vec::new();
    try_reserve(&mut blocks, width, "grid thread team")?;
    blocks.extend((0..width).map(|_| Block {
        word: AtomicU64::new(0),
    }));
    let shared = Shared {
        blocks,
        done: AtomicUsize::new(0),
        job: AtomicPtr::new(std::ptr::null_mut()),
        joined: AtomicUsize::new(0),
        finished: AtomicBool::new(false),
        panicked: AtomicBool::new(false),
        in_pass: AtomicBool::new(false),
        epoch: AtomicU32::new(0),
    };
    rayon::in_place_scope(|scope| {
        for _ in 1..width {
            let shared = &shared;
            scope.spawn(move |_| shared.help());
        }
        // Helpers return once this is set, also if the body panics.
        struct Finish<'a>(&'a Shared);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                self.0.finished.store(true, Ordering::Release);
            }
        }
        let _finish = Finish(&shared);
        body(&Team { shared: &shared })
    })
}

impl Exec for Team<'_> {
    fn width(&self) -> usize {
        self.shared.blocks.len()
    }

    fn map<T: Send, F: Fn(usize) -> T + Sync>(&self, k: usize, f: F) -> Vec<T> {
        let shared = self.shared;
        let width = shared.blocks.len();
        if width == 1 || k <= 1 || k > MAX_PIECES || shared.in_pass.swap(true, Ordering::Acquire) {
            return (0..k).map(f).collect();
        }
        let mut results: Vec<MaybeUninit<T>> = Vec::with_capacity(k);
        let slots = SendPtr(results.as_mut_ptr());
        let write = move |i: usize| {
            let value = f(i);
            // SAFETY: each piece index is claimed once, so each slot is
            // written by one thread; `i < k`, within the capacity.
            unsafe { slots.get().add(i).write(MaybeUninit::new(value)) };
        };
        let job: Job<'_> = &write;
        shared.done.store(0, Ordering::Relaxed);
        shared.job.store(
            std::ptr::from_ref(&job).cast_mut().cast(),
            Ordering::Release,
        );
        let epoch = shared.epoch.load(Ordering::Relaxed).wrapping_add(1);
        shared.epoch.store(epoch, Ordering::Relaxed);
        // Closes every block and waits for every claimed piece before the
        // job leaves scope, also when a piece of this thread panics.
        struct Close<'a>(&'a Shared, u32, usize);
        impl Drop for Close<'_> {
            fn drop(&mut self) {
                let (shared, epoch, k) = (self.0, self.1, self.2);
                let width = shared.blocks.len();
                let mut claimed = 0;
                for (m, b) in shared.blocks.iter().enumerate() {
                    let r = block(m, k, width);
                    let (end, next) = decode(b.word.swap(encode(epoch, 0, 0), Ordering::AcqRel));
                    claimed += (next - r.start) + (r.end - end);
                }
                while shared.done.load(Ordering::Acquire) < claimed {
                    std::hint::spin_loop();
                }
                shared.in_pass.store(false, Ordering::Release);
            }
        }
        for (m, b) in shared.blocks.iter().enumerate() {
            let r = block(m, k, width);
            b.word
                .store(encode(epoch, r.end, r.start), Ordering::Release);
        }
        {
            let _close = Close(shared, epoch, k);
            while shared.run_one(0) {}
        }
        assert!(
            !shared.panicked.load(Ordering::Relaxed),
            "a piece of a parallel grid pass panicked"
        );
        // SAFETY: every piece was claimed and finished without a panic, so
        // slots `0..k` are written; `MaybeUninit<T>` has `T`'s layout.
        unsafe {
            results.set_len(k);
            let mut results = std::mem::ManuallyDrop::new(results);
            Vec::from_raw_parts(results.as_mut_ptr().cast::<T>(), k, results.capacity())
        }
    }
}

/// A pointer to the result slots that pieces may carry to other threads.
struct SendPtr<T>(*mut MaybeUninit<T>);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}

impl<T> SendPtr<T> {
    fn get(self) -> *mut MaybeUninit<T> {
        self.0
    }
}

// SAFETY: pieces write disjoint slots (see `map`).
unsafe impl<T: Send> Send for SendPtr<T> {}
unsafe impl<T: Send> Sync for SendPtr<T> {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests may panic on failure

    use super::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Many passes of every size, on teams of one to four: each piece runs
    /// exactly once and the results come back in index order.
    #[test]
    fn every_piece_runs_once_and_results_keep_their_order() {
        for threads in 1..=4 {
            pool(threads).install(|| {
                run(threads, |team| {
                    assert_eq!(team.width(), threads);
                    for k in 0..70 {
                        let runs: Vec<AtomicUsize> = (0..k).map(|_| AtomicUsize::new(0)).collect();
                        let got = team.map(k, |i| {
                            runs[i].fetch_add(1, Ordering::Relaxed);
                            // Uneven pieces, so that members steal.
                            if i % 7 == 0 {
                                std::thread::sleep(std::time::Duration::from_micros(50));
                            }
                            i * i
                        });
                        assert_eq!(got, (0..k).map(|i| i * i).collect::<Vec<_>>());
                        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
                    }
                    Ok(())
                })
                .unwrap();
            });
        }
    }

    /// Results that own memory are moved out whole (none dropped twice or
    /// lost), also when pieces run on the helpers.
    #[test]
    fn owned_results_arrive_intact() {
        pool(3).install(|| {
            let got = run(3, |team| Ok(team.map(40, |i| vec![i; i % 5]))).unwrap();
            for (i, v) in got.iter().enumerate() {
                assert_eq!(v, &vec![i; i % 5]);
            }
        });
    }

    /// A `map` inside a piece runs serially and does not replace the pass
    /// around it.
    #[test]
    fn a_map_inside_a_piece_runs_serially() {
        pool(2).install(|| {
            let got = run(2, |team| {
                Ok(team.map(8, |i| team.map(3, |j| i * 10 + j).iter().sum::<usize>()))
            })
            .unwrap();
            let want: Vec<usize> = (0..8).map(|i| 3 * i * 10 + 3).collect();
            assert_eq!(got, want);
        });
    }

    /// A panicking piece ends the call with a panic, not a hang, and the
    /// next call works.
    #[test]
    fn a_panicking_piece_panics_the_call() {
        let p = pool(2);
        for bad in [0, 5] {
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.install(|| {
                    run(2, |team| {
                        Ok(team.map(6, |i| {
                            assert!(i != bad, "piece {i} fails");
                            i
                        }))
                    })
                })
            }));
            assert!(caught.is_err());
        }
        let fine = p
            .install(|| run(2, |team| Ok(team.map(6, |i| i + 1))))
            .unwrap();
        assert_eq!(fine, vec![1, 2, 3, 4, 5, 6]);
    }

    /// Called from a thread outside any pool, the team still forms (from
    /// the global pool) and gives the same results.
    #[test]
    fn works_from_outside_a_pool() {
        let got = run(rayon::current_num_threads(), |team| {
            let a = team.map(33, |i| i as u64 * 3);
            let b = team.map(5, |i| a[i] + 1);
            Ok(b)
        })
        .unwrap();
        assert_eq!(got, vec![1, 4, 7, 10, 13]);
    }
}
