//! One memory budget that every decode in flight shares.

use std::sync::{Condvar, Mutex, MutexGuard};

use crate::PhotoError;

/// Bytes that decodes in flight may hold together. Each decode reserves
/// its peak, known from the file's header, before it starts, and gives it
/// back when it ends, so that several large photos decoded at once (the
/// loupe decodes its neighbours ahead) never add up past the budget.
#[derive(Debug)]
pub struct MemoryBudget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// Memory held from a [`MemoryBudget`] until this is dropped.
#[derive(Debug)]
pub struct Reservation<'a> {
    budget: &'a MemoryBudget,
    bytes: u64,
}

impl MemoryBudget {
    /// A budget of `total` bytes.
    pub fn new(total: u64) -> MemoryBudget {
        MemoryBudget {
            total,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Its size in bytes.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes reserved now.
    pub fn in_use(&self) -> u64 {
        *self.lock()
    }

    fn lock(&self) -> MutexGuard<'_, u64> {
        self.used.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserves `bytes`, waiting while other decodes hold too much for it
    /// to fit. More than the whole budget is refused at once
    /// ([`PhotoError::OverBudget`]): it would never fit.
    pub fn reserve(&self, bytes: u64) -> Result<Reservation<'_>, PhotoError> {
        if bytes > self.total {
            return Err(self.over(bytes));
        }
        let mut used = self.lock();
        while *used + bytes > self.total {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += bytes;
        Ok(Reservation {
            budget: self,
            bytes,
        })
    }

    /// Reserves `bytes` if they fit now.
    pub fn try_reserve(&self, bytes: u64) -> Result<Option<Reservation<'_>>, PhotoError> {
        if bytes > self.total {
            return Err(self.over(bytes));
        }
        let mut used = self.lock();
        if *used + bytes > self.total {
            return Ok(None);
        }
        *used += bytes;
        Ok(Some(Reservation {
            budget: self,
            bytes,
        }))
    }

    fn over(&self, bytes: u64) -> PhotoError {
        PhotoError::OverBudget {
            needs: bytes.div_ceil(1 << 20),
            budget: self.total >> 20,
        }
    }
}

impl Reservation<'_> {
    /// The bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        let mut used = self.budget.lock();
        *used = used.saturating_sub(self.bytes);
        drop(used);
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Threads reserving random sizes at once: what is held together
        /// never passes the budget, everything fitting is granted, more
        /// than the budget is refused.
        #[test]
        fn reservations_never_add_up_past_the_budget(
            sizes in prop::collection::vec(1u64..150, 1..24),
            total in 50u64..200,
        ) {
            let budget = Arc::new(MemoryBudget::new(total));
            let peak = Arc::new(AtomicU64::new(0));
            let held = Arc::new(AtomicU64::new(0));
            let threads: Vec<_> = sizes.iter().map(|&n| {
                let (budget, peak, held) = (Arc::clone(&budget), Arc::clone(&peak), Arc::clone(&held));
                std::thread::spawn(move || {
                    match budget.reserve(n) {
                        Ok(r) => {
                            let now = held.fetch_add(n, Ordering::SeqCst) + n;
                            peak.fetch_max(now, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_micros(200));
                            held.fetch_sub(n, Ordering::SeqCst);
                            drop(r);
                            n <= total
                        }
                        Err(PhotoError::OverBudget { .. }) => n > total,
                        Err(_) => false,
                    }
                })
            }).collect();
            for t in threads {
                prop_assert!(t.join().unwrap());
            }
            prop_assert!(peak.load(Ordering::SeqCst) <= total);
            prop_assert_eq!(budget.in_use(), 0);
        }
    }
}
