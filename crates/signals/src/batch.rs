//! Batched updates over a structure of arrays with a shared elapsed time:
//! the transition is computed once, then every item is two or four
//! multiply-adds, which the compiler vectorises.

use crate::error::{SignalError, check_dt};
use crate::math::Float;
use crate::smoother::{Dynamics, Transition};
use crate::space::Vector;
use alloc::vec::Vec;

/// Many independent scalar systems with the same [`Dynamics`], in a
/// structure of arrays: values, velocities (used by second-order dynamics)
/// and targets, held constant over each step (zero-order hold). Targets are
/// checked when they are set, so a step has nothing to check.
///
/// ```
/// use signals::{Batch, SpringDamper};
/// let mut batch = Batch::<f32>::with_len(1000)?;
/// batch.set_targets(&[1.0; 1000])?;
/// batch.step(&SpringDamper::critical(0.2)?, 1.0 / 60.0)?;
/// assert!(batch.values()[0] > 0.0);
/// # Ok::<(), signals::SignalError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Batch<F: Float> {
    values: Vec<F>,
    velocities: Vec<F>,
    targets: Vec<F>,
}

fn zeros<F: Float>(len: usize) -> Result<Vec<F>, SignalError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| SignalError::OutOfMemory { items: len })?;
    v.resize(len, F::ZERO);
    Ok(v)
}

impl<F: Float> Batch<F> {
    /// `len` systems at rest at 0, targets 0.
    pub fn with_len(len: usize) -> Result<Self, SignalError> {
        Ok(Batch {
            values: zeros(len)?,
            velocities: zeros(len)?,
            targets: zeros(len)?,
        })
    }

    /// Number of systems.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Outputs.
    pub fn values(&self) -> &[F] {
        &self.values
    }

    /// Teleports system `index` to `value`, at rest (checked: in range, finite).
    pub fn reset(&mut self, index: usize, value: F) -> Result<(), SignalError> {
        if !Vector::is_finite(value) {
            return Err(SignalError::NonFiniteInput {
                what: "batch value",
            });
        }
        let len = self.values.len();
        let (Some(x), Some(v)) = (self.values.get_mut(index), self.velocities.get_mut(index))
        else {
            return Err(SignalError::LengthMismatch {
                name: "index",
                found: index,
                expected: len,
            });
        };
        *x = value;
        *v = F::ZERO;
        Ok(())
    }

    /// Output velocities (zero for first-order dynamics).
    pub fn velocities(&self) -> &[F] {
        &self.velocities
    }

    /// Sets every target (checked: same length, all finite; on error
    /// nothing changes and the error names the first bad index).
    pub fn set_targets(&mut self, targets: &[F]) -> Result<(), SignalError> {
        if targets.len() != self.targets.len() {
            return Err(SignalError::LengthMismatch {
                name: "targets",
                found: targets.len(),
                expected: self.targets.len(),
            });
        }
        if !all_finite(targets) {
            let index = targets
                .iter()
                .position(|t| !Vector::is_finite(*t))
                .unwrap_or(0);
            return Err(SignalError::NonFiniteBatchTarget { index });
        }
        self.targets.copy_from_slice(targets);
        Ok(())
    }

    /// Sets the target of system `index` (checked: in range, finite).
    pub fn set_target(&mut self, index: usize, target: F) -> Result<(), SignalError> {
        if !Vector::is_finite(target) {
            return Err(SignalError::NonFiniteBatchTarget { index });
        }
        let len = self.targets.len();
        let slot = self
            .targets
            .get_mut(index)
            .ok_or(SignalError::LengthMismatch {
                name: "index",
                found: index,
                expected: len,
            })?;
        *slot = target;
        Ok(())
    }

    /// Targets.
    pub fn targets(&self) -> &[F] {
        &self.targets
    }

    /// Advances every system by `dt` seconds toward its target.
    pub fn step<D: Dynamics>(&mut self, dynamics: &D, dt: f64) -> Result<(), SignalError> {
        check_dt(dt)?;
        if dt == 0.0 {
            return Ok(());
        }
        let t = if F::SINGLE {
            dynamics.transition_single(dt)
        } else {
            dynamics.transition(dt)
        };
        if dynamics.second_order() {
            step_second_order(&t, &mut self.values, &mut self.velocities, &self.targets);
        } else {
            step_first_order(&t, &mut self.values, &self.targets);
        }
        Ok(())
    }
}

/// Whether every value is finite: `t − t` is 0 for finite values and NaN
/// otherwise, and NaN survives a sum; eight lanes so the loop vectorises.
#[allow(clippy::eq_op)] // t − t is the point.
fn all_finite<F: Float>(values: &[F]) -> bool {
    let mut lanes = [F::ZERO; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, &t) in lanes.iter_mut().zip(chunk) {
            *lane = *lane + (t - t);
        }
    }
    for (lane, &t) in lanes.iter_mut().zip(chunks.remainder()) {
        *lane = *lane + (t - t);
    }
    lanes.iter().all(|l| *l == F::ZERO)
}

/// The batch's first-order kernel on the caller's own slices: x ← g + a·(x − g)
/// with `a = t.ee`. No checks: the caller vouches that the targets are finite
/// (`Batch` does it when targets are set).
#[inline]
pub fn step_first_order<F: Float>(t: &Transition, values: &mut [F], targets: &[F]) {
    let a = F::from_f64(t.ee);
    for (x, &g) in values.iter_mut().zip(targets) {
        *x = g + a * (*x - g);
    }
}

/// The batch's second-order kernel on the caller's own slices:
/// (x, v) ← (g + ee·e + ed·v, de·e + dd·v) with e = x − g. No checks, as
/// [`step_first_order`].
#[inline]
pub fn step_second_order<F: Float>(
    t: &Transition,
    values: &mut [F],
    velocities: &mut [F],
    targets: &[F],
) {
    let [ee, ed, de, dd] = [t.ee, t.ed, t.de, t.dd].map(F::from_f64);
    for ((x, v), &g) in values.iter_mut().zip(velocities.iter_mut()).zip(targets) {
        let e = *x - g;
        let ev = *v;
        *x = g + ee * e + ed * ev;
        *v = de * e + dd * ev;
    }
}
