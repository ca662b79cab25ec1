//! Batched updates over a structure of arrays with a shared elapsed time:
//! the transition is computed once, then every item is two or four
//! multiply-adds, which the compiler vectorises.

use crate::error::{SignalError, check_dt};
use crate::math::Float;
use crate::smoother::{Dynamics, Transition};
use alloc::vec::Vec;

/// Many independent scalar systems with the same [`Dynamics`], in a
/// structure of arrays: values, velocities (used by second-order dynamics)
/// and targets, held constant over each step (zero-order hold).
///
/// ```
/// use signals::{Batch, SpringDamper};
/// let mut batch = Batch::<f32>::with_len(1000)?;
/// batch.targets_mut().fill(1.0);
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

    /// Outputs, to teleport some of them.
    pub fn values_mut(&mut self) -> &mut [F] {
        &mut self.values
    }

    /// Output velocities (zero for first-order dynamics).
    pub fn velocities(&self) -> &[F] {
        &self.velocities
    }

    /// Targets, to set before a step.
    pub fn targets_mut(&mut self) -> &mut [F] {
        &mut self.targets
    }

    /// Targets.
    pub fn targets(&self) -> &[F] {
        &self.targets
    }

    /// Advances every system by `dt` seconds toward its target. A
    /// non-finite target is an error naming its index, and nothing moves.
    pub fn step<D: Dynamics>(&mut self, dynamics: &D, dt: f64) -> Result<(), SignalError> {
        check_dt(dt)?;
        // A branch-free scan (it vectorises); find the culprit only on failure.
        if !all_finite(&self.targets) {
            return Err(SignalError::NonFiniteInput {
                what: "batch target",
            });
        }
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

/// x ← g + a·(x − g).
#[inline]
pub fn step_first_order<F: Float>(t: &Transition, values: &mut [F], targets: &[F]) {
    let a = F::from_f64(t.ee);
    for (x, &g) in values.iter_mut().zip(targets) {
        *x = g + a * (*x - g);
    }
}

/// (x, v) ← (g + ee·e + ed·v, de·e + dd·v) with e = x − g.
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
