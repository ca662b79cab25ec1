//! The snapshot buffer on seeded network traces: 20 Hz sends, 5% loss,
//! 0–50 ms jitter, duplicates, out-of-order arrivals, clock drift.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::too_many_arguments,
    clippy::collapsible_if
)] // Tests: a failure is the report.

use proptest::prelude::*;
use signals::{PushOutcome, SnapshotBuffer, SnapshotConfig};

/// A tiny seeded generator for the traces.
struct Rng(u64);
impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn truth(t: f64) -> f64 {
    (0.5 * std::f64::consts::TAU * t).sin() + 0.3 * (1.3 * t).cos()
}

struct Outcome {
    frozen: f64,
    extrapolated: f64,
    rate_range: (f64, f64),
    mean_arrival_margin: f64,
    worst_error: f64,
    final_rate: f64,
    duplicates: u64,
}

/// Sender every `interval` s (its clock runs `1 + drift` times as fast as
/// ours); client frames at 60 Hz for `seconds`.
fn run(seed: u64, interval: f64, loss: f64, jitter: f64, drift: f64, seconds: f64) -> Outcome {
    let mut rng = Rng(seed | 1);
    let mut packets = Vec::new();
    let mut k = 0u64;
    while (k as f64) * interval < seconds * (1.0 + drift) {
        let sent = k as f64 * interval;
        k += 1;
        if rng.uniform() < loss {
            continue;
        }
        let arrive = sent / (1.0 + drift) + 0.03 + jitter * rng.uniform();
        packets.push((arrive, sent));
        if rng.uniform() < 0.03 {
            packets.push((arrive + 0.02 * rng.uniform(), sent)); // a duplicate
        }
    }
    packets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let config = SnapshotConfig {
        delay: 2.0 * interval,
        ..SnapshotConfig::for_send_interval(interval)
    };
    let mut buffer = SnapshotBuffer::new(config).unwrap();
    let mut next = 0;
    let (mut margins, mut n_margins) = (0.0, 0usize);
    let mut worst: f64 = 0.0;
    let frames = (seconds * 60.0) as usize;
    for frame in 1..=frames {
        let now = frame as f64 / 60.0;
        while let Some(&(arrive, sent)) = packets.get(next) {
            if arrive > now {
                break;
            }
            next += 1;
            let newest = buffer.samples().last().map(|(t, _)| t);
            if buffer.push(sent, truth(sent)).unwrap() == PushOutcome::Stored
                && newest.is_some_and(|n| sent > n)
                && now > 10.0
            {
                margins += sent - buffer.playback_time().unwrap();
                n_margins += 1;
            }
        }
        if let Some(v) = buffer.advance(1.0 / 60.0).unwrap() {
            if now > 10.0 {
                worst = worst.max((v - truth(buffer.playback_time().unwrap())).abs());
            }
        }
    }
    let s = *buffer.stats();
    Outcome {
        frozen: s.frozen,
        extrapolated: s.extrapolated,
        rate_range: s.rate_range,
        mean_arrival_margin: margins / n_margins as f64,
        worst_error: worst,
        final_rate: buffer.rate(),
        duplicates: s.duplicates,
    }
}

#[test]
fn lossy_jittery_trace_plays_without_freezing() {
    for seed in 1..=10 {
        let o = run(seed, 0.05, 0.05, 0.05, 0.0, 120.0);
        assert_eq!(o.frozen, 0.0, "seed {seed}: froze for {} s", o.frozen);
        assert!(
            o.rate_range.0 >= 0.95 - 1e-12 && o.rate_range.1 <= 1.05 + 1e-12,
            "seed {seed}: rate {:?}",
            o.rate_range
        );
        assert!(
            (o.mean_arrival_margin - 0.1).abs() < 0.015,
            "seed {seed}: delay kept at {} s, asked 0.1",
            o.mean_arrival_margin
        );
        // A smooth signal sampled at 20 Hz: Catmull-Rom (and brief extrapolation) stays close to it.
        assert!(
            o.worst_error < 0.05,
            "seed {seed}: worst error {}",
            o.worst_error
        );
        assert!(o.duplicates > 0);
        assert!(
            o.extrapolated < 0.05 * 120.0,
            "seed {seed}: extrapolated {} s",
            o.extrapolated
        );
    }
}

#[test]
fn clock_drift_is_absorbed_by_the_playback_rate() {
    // The sender's clock runs 2% fast: playback must run at about 1.02 to keep its delay.
    let o = run(3, 0.05, 0.05, 0.05, 0.02, 120.0);
    assert!((o.final_rate - 1.02).abs() < 0.01, "rate {}", o.final_rate);
    assert_eq!(o.frozen, 0.0);
    assert!(
        (o.mean_arrival_margin - 0.1).abs() < 0.03,
        "delay {}",
        o.mean_arrival_margin
    );
}

proptest! {
    #[test]
    fn any_arrival_order_gives_sorted_unique_samples(times in prop::collection::vec(0u32..200, 1..100)) {
        let config = SnapshotConfig { capacity: 256, ..SnapshotConfig::for_send_interval(0.05) };
        let mut b = SnapshotBuffer::new(config).unwrap();
        let mut distinct = std::collections::BTreeSet::new();
        for &t in &times {
            let outcome = b.push(f64::from(t) * 0.05, f64::from(t)).unwrap();
            prop_assert_eq!(outcome == PushOutcome::Duplicate, !distinct.insert(t));
        }
        let stored: Vec<f64> = b.samples().map(|(t, _)| t).collect();
        prop_assert!(stored.windows(2).all(|w| w[0] < w[1]));
        prop_assert_eq!(stored.len(), distinct.len());
        // Values stay with their times.
        prop_assert!(b.samples().all(|(t, v)| (t / 0.05 - v).abs() < 1e-9));
    }
}

#[test]
fn bad_samples_are_refused() {
    let mut b = SnapshotBuffer::new(SnapshotConfig::for_send_interval(0.05)).unwrap();
    assert!(b.push(f64::NAN, 1.0).is_err());
    assert!(b.push(1.0, f64::INFINITY).is_err());
    assert!(b.advance(-1.0).is_err());
    assert_eq!(b.advance(0.1).unwrap(), None);
    assert!(
        SnapshotBuffer::<f64>::new(SnapshotConfig {
            max_rate_change: 0.9,
            ..SnapshotConfig::for_send_interval(0.05)
        })
        .is_err()
    );
}
