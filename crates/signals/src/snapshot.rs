//! A snapshot interpolation buffer for networked values: samples stamped
//! with the sender's clock arrive late, out of order, twice or never; the
//! buffer plays them back a fixed delay behind, smoothly.

use crate::error::{SignalError, check_dt, check_non_negative, check_positive};
use crate::interpolate::catmull_rom_timed;
use crate::space::{Space, Vector};
use alloc::vec::Vec;

/// Settings of a [`SnapshotBuffer`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnapshotConfig {
    /// How far playback runs behind the newest sample, seconds. At least
    /// twice the send interval survives one lost packet without extrapolating.
    pub delay: f64,
    /// How long playback may run past the newest sample, extrapolating
    /// along the last velocity, before it holds still. Seconds.
    pub max_extrapolation: f64,
    /// The largest change of playback speed used to keep the delay: 0.05
    /// plays between 95% and 105% speed.
    pub max_rate_change: f64,
    /// Seconds over which a delay error is corrected (before the rate limit).
    pub correction_time: f64,
    /// When the measured delay is off by more than this (seconds), playback
    /// jumps instead of drifting back (after a long stall, or a clock reset).
    pub resync_threshold: f64,
    /// Samples kept at most.
    pub capacity: usize,
}

impl SnapshotConfig {
    /// Sensible settings for a sender every `send_interval` seconds: delay
    /// 2.5 intervals, extrapolation up to 3 intervals (two lost packets in a
    /// row plus an interval of jitter), ±5% speed.
    pub fn for_send_interval(send_interval: f64) -> Self {
        SnapshotConfig {
            delay: 2.5 * send_interval,
            max_extrapolation: 3.0 * send_interval,
            max_rate_change: 0.05,
            correction_time: 1.0,
            resync_threshold: (10.0 * send_interval).max(0.5),
            capacity: 64,
        }
    }
}

/// What [`SnapshotBuffer::push`] did with a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushOutcome {
    /// Stored.
    Stored,
    /// A sample with the same time is already stored; dropped.
    Duplicate,
    /// Older than what playback still needs; dropped.
    TooLate,
}

/// How playback went, for tuning and tests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SnapshotStats {
    /// Samples stored.
    pub stored: u64,
    /// Samples dropped as duplicates.
    pub duplicates: u64,
    /// Samples dropped as too late.
    pub too_late: u64,
    /// Samples that arrived older than the newest one already stored.
    pub out_of_order: u64,
    /// Seconds of playback spent extrapolating past the newest sample.
    pub extrapolated: f64,
    /// Seconds of playback spent frozen (past the extrapolation limit).
    pub frozen: f64,
    /// Jumps of the playback clock.
    pub resyncs: u64,
    /// The lowest and highest playback rates used.
    pub rate_range: (f64, f64),
}

/// Plays back timestamped samples `delay` seconds behind the newest one,
/// interpolating between them (Catmull-Rom over their times, in the
/// value's [`Space`]), extrapolating briefly when samples are missing, and
/// speeding up or slowing down within ±`max_rate_change` so that the delay
/// stays where it was set.
#[derive(Debug, Clone)]
pub struct SnapshotBuffer<S: Space> {
    config: SnapshotConfig,
    samples: Vec<(f64, S)>,
    playback: Option<f64>,
    rate: f64,
    margin: Option<f64>,
    stats: SnapshotStats,
}

impl<S: Space> SnapshotBuffer<S> {
    /// An empty buffer; reserves room for `capacity` samples now.
    pub fn new(config: SnapshotConfig) -> Result<Self, SignalError> {
        check_non_negative("delay", config.delay)?;
        check_non_negative("max_extrapolation", config.max_extrapolation)?;
        check_positive("correction_time", config.correction_time)?;
        check_positive("resync_threshold", config.resync_threshold)?;
        if !(0.0..0.5).contains(&config.max_rate_change) {
            return Err(SignalError::InvalidParameter {
                name: "max_rate_change",
                value: config.max_rate_change,
                expected: "in [0, 0.5)",
            });
        }
        if config.capacity < 4 {
            return Err(SignalError::InvalidParameter {
                name: "capacity",
                value: config.capacity as f64,
                expected: "at least 4",
            });
        }
        let mut samples = Vec::new();
        samples
            .try_reserve_exact(config.capacity + 1)
            .map_err(|_| SignalError::OutOfMemory {
                items: config.capacity,
            })?;
        Ok(SnapshotBuffer {
            config,
            samples,
            playback: None,
            rate: 1.0,
            margin: None,
            stats: SnapshotStats {
                rate_range: (1.0, 1.0),
                ..SnapshotStats::default()
            },
        })
    }

    /// The settings.
    pub fn config(&self) -> &SnapshotConfig {
        &self.config
    }

    /// Counters so far.
    pub fn stats(&self) -> &SnapshotStats {
        &self.stats
    }

    /// The playback clock, in the sender's time, once a sample has arrived.
    pub fn playback_time(&self) -> Option<f64> {
        self.playback
    }

    /// The playback rate of the last [`Self::advance`].
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The stored samples, oldest first.
    pub fn samples(&self) -> impl Iterator<Item = (f64, S)> + '_ {
        self.samples.iter().copied()
    }

    /// Offers a sample stamped `time` (seconds, the sender's clock).
    pub fn push(&mut self, time: f64, value: S) -> Result<PushOutcome, SignalError> {
        if !time.is_finite() {
            return Err(SignalError::NonFiniteInput {
                what: "sample time",
            });
        }
        if !value.is_valid() {
            return Err(SignalError::NonFiniteInput { what: "sample" });
        }
        let pos = self.samples.partition_point(|(t, _)| *t < time);
        if self.samples.get(pos).is_some_and(|(t, _)| *t == time) {
            self.stats.duplicates += 1;
            return Ok(PushOutcome::Duplicate);
        }
        // Playback only needs samples from the one before the playback time.
        if let Some(p) = self.playback {
            let needed_from = self
                .samples
                .iter()
                .rev()
                .find(|(t, _)| *t <= p)
                .map_or(p, |(t, _)| *t);
            if time < needed_from {
                self.stats.too_late += 1;
                return Ok(PushOutcome::TooLate);
            }
        }
        let newest = self.samples.last().map(|(t, _)| *t);
        if newest.is_some_and(|n| time < n) {
            self.stats.out_of_order += 1;
        }
        self.samples.insert(pos, (time, value));
        self.stats.stored += 1;
        if self.samples.len() > self.config.capacity {
            self.samples.remove(0);
        }
        // Measure the delay each time the newest sample moves forward.
        if newest.is_none_or(|n| time > n)
            && let Some(p) = self.playback
        {
            let m = time - p;
            self.margin = Some(match self.margin {
                // A slow average: jitter should not steer the rate.
                Some(avg) => avg + 0.1 * (m - avg),
                None => m,
            });
        }
        Ok(PushOutcome::Stored)
    }

    /// Advances playback by `dt` local seconds and returns the value at the
    /// new playback time, or `None` before the first sample.
    pub fn advance(&mut self, dt: f64) -> Result<Option<S>, SignalError> {
        check_dt(dt)?;
        let Some(&(newest, _)) = self.samples.last() else {
            return Ok(None);
        };
        let delay = self.config.delay;
        let playback = match self.playback {
            None => {
                self.margin = Some(delay);
                newest - delay
            }
            Some(p) => {
                let error = self.margin.unwrap_or(delay) - delay;
                if error.abs() > self.config.resync_threshold
                    || (newest - p) > delay + self.config.resync_threshold
                {
                    self.stats.resyncs += 1;
                    self.margin = Some(delay);
                    self.rate = 1.0;
                    newest - delay
                } else {
                    let limit = self.config.max_rate_change;
                    self.rate = 1.0 + (error / self.config.correction_time).clamp(-limit, limit);
                    let (lo, hi) = self.stats.rate_range;
                    self.stats.rate_range = (lo.min(self.rate), hi.max(self.rate));
                    p + dt * self.rate
                }
            }
        };
        self.playback = Some(playback);
        let ahead = playback - newest;
        if ahead > 0.0 {
            let prev_ahead = ahead - dt * self.rate;
            let span_start = prev_ahead.max(0.0);
            let extrap_end = ahead.min(self.config.max_extrapolation);
            if extrap_end > span_start {
                self.stats.extrapolated += extrap_end - span_start;
            }
            let frozen_start = span_start.max(self.config.max_extrapolation);
            if ahead > frozen_start {
                self.stats.frozen += ahead - frozen_start;
            }
        }
        self.prune(playback);
        Ok(Some(self.sample_at(playback)))
    }

    /// Drops samples playback no longer needs (keeps one before the
    /// bracketing pair, for the spline).
    fn prune(&mut self, playback: f64) {
        let before = self.samples.partition_point(|(t, _)| *t <= playback);
        // samples[before - 1] ≤ playback; keep it and one more before it.
        let drop = before.saturating_sub(2);
        if drop > 0 {
            self.samples.drain(..drop);
        }
    }

    /// The value at sender time `time` from the stored samples.
    fn sample_at(&self, time: f64) -> S {
        let s = &self.samples;
        let n = s.len();
        let after = s.partition_point(|(t, _)| *t <= time);
        if after == 0 {
            return s[0].1;
        }
        if after == n {
            // Past the newest sample: extrapolate along the last velocity, up to the limit.
            let (tn, pn) = s[n - 1];
            if n < 2 {
                return pn;
            }
            let (tp, pp) = s[n - 2];
            let ahead = (time - tn).min(self.config.max_extrapolation);
            let velocity = pn.difference(pp).scale_f64(1.0 / (tn - tp));
            return pn.offset(velocity.scale_f64(ahead));
        }
        let (t1, p1) = s[after - 1];
        let (t2, p2) = s[after];
        // Work in the tangent space at p1: exact for vectors, the short way
        // for angles and rotations.
        let q2 = p2.difference(p1);
        let zero = <S::Tangent as Vector>::zero();
        let (t0, q0) = if after >= 2 {
            let (t, p) = s[after - 2];
            (t, p.difference(p1))
        } else {
            (2.0 * t1 - t2, q2.scale_f64(-1.0))
        };
        let (t3, q3) = if after + 1 < n {
            let (t, p) = s[after + 1];
            (t, p.difference(p1))
        } else {
            (2.0 * t2 - t1, q2.scale_f64(2.0))
        };
        match catmull_rom_timed([q0, zero, q2, q3], [t0, t1, t2, t3], time) {
            Some(q) => p1.offset(q),
            None => p1.offset(q2.scale_f64((time - t1) / (t2 - t1))),
        }
    }
}
