//! Updates per second, ours against the crates users would pick instead:
//! `spring_damper` (Holden's springs), `one-euro`, `pid`, and the engine
//! `SmoothDamp` step. Unbatched: one system updated `N` times in a row, each
//! call computing its own exponential. Batched: `N` systems in a structure
//! of arrays with one shared dt (peers: the same loop over their step).
//!
//! cargo bench -p signals --bench updates
//!
//! Criterion reports the time for `N` updates; divide by `N` (the README
//! table does) for ns per update.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches: a failure is the report.

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use signals::{
    Batch, Debounce, Discrete, DiscreteBatch, Dwell, Dynamics, Edge, Exponential, GestureEvents,
    GestureTimings, Gestures, Hysteresis, Inertialiser, ModeLimiter, OneEuro, Pid, PidConfig,
    SmoothDamp, Smoother, SpringDamper, Stick, StickDirection, StickRule, System, WhileCooling,
};
use std::hint::black_box;

const N: usize = 4096;
const DT: f64 = 1.0 / 60.0;

/// Frame times that vary from call to call (a real frame rate), so every
/// call pays for its exponential; 16 values around 1/60 s.
fn varying_dts() -> Vec<f64> {
    (0..N)
        .map(|i| DT * (0.9 + 0.2 * ((i * 5) % 16) as f64 / 16.0))
        .collect()
}

fn targets_f32() -> Vec<f32> {
    (0..N).map(|i| ((i * 7919) % 1000) as f32 * 0.01).collect()
}

/// Ours, unbatched: one system updated `N` times, once with a steady dt
/// (the cached transition) and once with frame times that vary per call.
fn ours_unbatched<D: Dynamics>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    dynamics: D,
    targets: &[f32],
    dts: &[f64],
) {
    g.bench_function(BenchmarkId::new("unbatched, steady dt", "signals"), |b| {
        let mut s = Smoother::new(dynamics, 0.0f32).unwrap();
        b.iter(|| {
            for &t in targets {
                black_box(s.update(black_box(DT), t).unwrap());
            }
        })
    });
    g.bench_function(BenchmarkId::new("unbatched", "signals"), |b| {
        let mut s = Smoother::new(dynamics, 0.0f32).unwrap();
        b.iter(|| {
            for (&t, &dt) in targets.iter().zip(dts) {
                black_box(s.update(black_box(dt), t).unwrap());
            }
        })
    });
}

/// Ours, batched: `N` systems in one `Batch` with a shared dt.
fn ours_batched<D: Dynamics>(g: &mut BenchmarkGroup<'_, WallTime>, dynamics: D, targets: &[f32]) {
    g.bench_function(BenchmarkId::new("batched", "signals"), |b| {
        let mut batch = Batch::<f32>::with_len(N).unwrap();
        batch.set_targets(targets).unwrap();
        b.iter(|| batch.step(&dynamics, black_box(DT)).unwrap())
    });
}

fn exponential(c: &mut Criterion) {
    let targets = targets_f32();
    let half_life = 0.1f32;
    let mut g = c.benchmark_group("exponential");
    g.throughput(Throughput::Elements(N as u64));
    let dts = varying_dts();
    ours_unbatched(
        &mut g,
        Exponential::half_life(f64::from(half_life)).unwrap(),
        &targets,
        &dts,
    );
    g.bench_function(BenchmarkId::new("unbatched", "spring_damper"), |b| {
        let mut x = 0.0f32;
        b.iter(|| {
            for (&t, &dt) in targets.iter().zip(&dts) {
                x = spring_damper::damper_exact(x, t, half_life, black_box(dt as f32), 1e-5);
                black_box(x);
            }
        })
    });
    ours_batched(
        &mut g,
        Exponential::half_life(f64::from(half_life)).unwrap(),
        &targets,
    );
    g.bench_function(BenchmarkId::new("batched", "spring_damper"), |b| {
        let mut xs = vec![0.0f32; N];
        b.iter(|| {
            let dt = black_box(DT as f32);
            for (x, &t) in xs.iter_mut().zip(&targets) {
                *x = spring_damper::damper_exact(*x, t, half_life, dt, 1e-5);
            }
        })
    });
    g.finish();
}

fn critical(c: &mut Criterion) {
    let targets = targets_f32();
    let smooth_time = 0.2f32;
    // Holden's parameter for the same spring: his decay rate is y = 2·ln2 / half-life,
    // and y = ω = 2 / smooth_time, so half-life = ln2 · smooth_time.
    let half_life = 2.0 * std::f32::consts::LN_2 / (2.0 / smooth_time);
    let spring = SpringDamper::critical(f64::from(smooth_time)).unwrap();
    let mut g = c.benchmark_group("critical spring");
    g.throughput(Throughput::Elements(N as u64));
    let dts = varying_dts();
    ours_unbatched(&mut g, spring, &targets, &dts);
    g.bench_function(BenchmarkId::new("unbatched", "spring_damper"), |b| {
        let (mut x, mut v) = (0.0f32, 0.0f32);
        b.iter(|| {
            for (&t, &dt) in targets.iter().zip(&dts) {
                spring_damper::critical_spring_damper_exact(
                    &mut x,
                    &mut v,
                    t,
                    0.0,
                    half_life,
                    black_box(dt as f32),
                );
                black_box(x);
            }
        })
    });
    g.bench_function(BenchmarkId::new("unbatched", "engine SmoothDamp"), |b| {
        let (mut x, mut v) = (0.0f32, 0.0f32);
        b.iter(|| {
            for (&t, &dt) in targets.iter().zip(&dts) {
                (x, v) =
                    SmoothDamp::step(x, t, v, smooth_time, f32::INFINITY, black_box(dt as f32));
                black_box(x);
            }
        })
    });
    ours_batched(&mut g, spring, &targets);
    g.bench_function(BenchmarkId::new("batched", "spring_damper"), |b| {
        let (mut xs, mut vs) = (vec![0.0f32; N], vec![0.0f32; N]);
        b.iter(|| {
            let dt = black_box(DT as f32);
            for ((x, v), &t) in xs.iter_mut().zip(vs.iter_mut()).zip(&targets) {
                spring_damper::critical_spring_damper_exact(x, v, t, 0.0, half_life, dt);
            }
        })
    });
    g.bench_function(BenchmarkId::new("batched", "engine SmoothDamp"), |b| {
        let (mut xs, mut vs) = (vec![0.0f32; N], vec![0.0f32; N]);
        b.iter(|| {
            let dt = black_box(DT as f32);
            for ((x, v), &t) in xs.iter_mut().zip(vs.iter_mut()).zip(&targets) {
                (*x, *v) = SmoothDamp::step(*x, t, *v, smooth_time, f32::INFINITY, dt);
            }
        })
    });
    g.finish();
}

fn underdamped(c: &mut Criterion) {
    let targets = targets_f32();
    let mut g = c.benchmark_group("spring, damping ratio 0.5");
    g.throughput(Throughput::Elements(N as u64));
    // Holden's parameters: damping d = 4 ln2 / half-life = 2ζω.
    let (zeta, half_life) = (0.5f32, 0.1f32);
    let omega = 4.0 * std::f32::consts::LN_2 / half_life / (2.0 * zeta);
    let spring = SpringDamper::new(f64::from(omega), f64::from(zeta)).unwrap();
    let dts = varying_dts();
    ours_unbatched(&mut g, spring, &targets, &dts);
    g.bench_function(BenchmarkId::new("unbatched", "spring_damper"), |b| {
        let (mut x, mut v) = (0.0f32, 0.0f32);
        b.iter(|| {
            for (&t, &dt) in targets.iter().zip(&dts) {
                spring_damper::spring_damper_exact_ratio(
                    &mut x,
                    &mut v,
                    t,
                    0.0,
                    zeta,
                    half_life,
                    black_box(dt as f32),
                    1e-5,
                );
                black_box(x);
            }
        })
    });
    ours_batched(&mut g, spring, &targets);
    g.bench_function(BenchmarkId::new("batched", "spring_damper"), |b| {
        let (mut xs, mut vs) = (vec![0.0f32; N], vec![0.0f32; N]);
        b.iter(|| {
            let dt = black_box(DT as f32);
            for ((x, v), &t) in xs.iter_mut().zip(vs.iter_mut()).zip(&targets) {
                spring_damper::spring_damper_exact_ratio(x, v, t, 0.0, zeta, half_life, dt, 1e-5);
            }
        })
    });
    g.finish();
}

fn one_euro(c: &mut Criterion) {
    let samples: Vec<f64> = targets_f32().into_iter().map(f64::from).collect();
    let mut g = c.benchmark_group("1€ filter");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function(BenchmarkId::new("unbatched", "signals"), |b| {
        let mut f = OneEuro::<f64>::new(1.0, 0.5, 1.0).unwrap();
        b.iter(|| {
            for &x in &samples {
                black_box(f.update(black_box(DT), x).unwrap());
            }
        })
    });
    g.bench_function(
        BenchmarkId::new("unbatched, raw derivative", "signals"),
        |b| {
            let mut f = OneEuro::<f64>::new(1.0, 0.5, 1.0)
                .unwrap()
                .with_raw_derivative();
            b.iter(|| {
                for &x in &samples {
                    black_box(f.update(black_box(DT), x).unwrap());
                }
            })
        },
    );
    g.bench_function(BenchmarkId::new("unbatched", "one-euro"), |b| {
        let mut filter = one_euro::OneEuroFilter::<f64>::default();
        filter.set_mincutoff(1.0);
        filter.set_beta(0.5);
        filter.set_dcutoff(1.0);
        let mut state = one_euro::OneEuroState::<f64, 1>::new([samples[0]].into());
        b.iter(|| {
            for &x in &samples {
                filter.filter(&mut state, &[x].into(), black_box(1.0 / DT));
                black_box(state.data());
            }
        })
    });
    g.finish();
}

fn pid(c: &mut Criterion) {
    let samples: Vec<f64> = targets_f32().into_iter().map(f64::from).collect();
    let mut g = c.benchmark_group("PID");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function(BenchmarkId::new("unbatched", "signals"), |b| {
        let mut p = Pid::new(PidConfig {
            kp: 1.0,
            ki: 0.5,
            kd: 0.1,
            output_limits: (-10.0, 10.0),
            ..PidConfig::default()
        })
        .unwrap();
        b.iter(|| {
            for &m in &samples {
                black_box(p.update(black_box(DT), 5.0, m).unwrap());
            }
        })
    });
    g.bench_function(BenchmarkId::new("unbatched", "pid"), |b| {
        let mut p = pid::Pid::<f64>::new(5.0, 10.0);
        p.p(1.0, 10.0).i(0.5 * DT, 10.0).d(0.1 / DT, 10.0);
        b.iter(|| {
            for &m in &samples {
                black_box(p.next_control_output(black_box(m)));
            }
        })
    });
    g.finish();
}

/// The discrete systems, batched: `N` systems with one shared dt, inputs
/// that cross their thresholds; beside them the naive loop each replaces.
fn discrete(c: &mut Criterion) {
    let mut g = c.benchmark_group("discrete");
    g.throughput(Throughput::Elements(N as u64));
    let analog: Vec<f64> = (0..N).map(|i| ((i * 7919) % 1000) as f64 * 0.001).collect();
    let bools: Vec<bool> = (0..N).map(|i| (i * 7919) % 3 == 0).collect();
    g.bench_function(
        BenchmarkId::new("threshold, batched", "naive x >= 0.5"),
        |b| {
            let mut out = vec![false; N];
            b.iter(|| {
                for (o, &x) in out.iter_mut().zip(black_box(&analog)) {
                    *o = x >= 0.5;
                }
                black_box(&out);
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("threshold, batched", "signals hysteresis"),
        |b| {
            let mut batch = DiscreteBatch::new(Hysteresis::unity(), N).unwrap();
            let mut out = vec![false; N];
            b.iter(|| batch.update(black_box(DT), &analog, &mut out).unwrap())
        },
    );
    let sticks: Vec<[f64; 2]> = (0..N)
        .map(|i| {
            let a = i as f64 * 0.1;
            [a.cos() * 0.8, a.sin() * 0.8]
        })
        .collect();
    g.bench_function(
        BenchmarkId::new("stick, batched", "signals radial, 8 sectors"),
        |b| {
            let rule = StickRule::Radial {
                sectors: 8,
                margin_degrees: 5.0,
            };
            let mut batch = DiscreteBatch::new(Stick::new(0.5, 0.375, rule).unwrap(), N).unwrap();
            let mut out = vec![StickDirection::CENTRE; N];
            b.iter(|| batch.update(black_box(DT), &sticks, &mut out).unwrap())
        },
    );
    g.bench_function(
        BenchmarkId::new("debounce, batched", "signals trailing"),
        |b| {
            let mut batch =
                DiscreteBatch::new(Debounce::new(false, 0.02, Edge::Trailing).unwrap(), N).unwrap();
            let mut out = vec![false; N];
            b.iter(|| batch.update(black_box(DT), &bools, &mut out).unwrap())
        },
    );
    g.bench_function(BenchmarkId::new("gestures, batched", "signals"), |b| {
        let mut batch =
            DiscreteBatch::new(Gestures::new(GestureTimings::default()).unwrap(), N).unwrap();
        let mut out = vec![GestureEvents::default(); N];
        b.iter(|| batch.update(black_box(DT), &bools, &mut out).unwrap())
    });
    let requests: Vec<Option<u8>> = (0..N)
        .map(|i| (i % 5 == 0).then_some((i % 3) as u8))
        .collect();
    g.bench_function(BenchmarkId::new("mode limiter, batched", "signals"), |b| {
        let mut batch = DiscreteBatch::new(
            ModeLimiter::new(0u8, 0.25, WhileCooling::KeepLatest).unwrap(),
            N,
        )
        .unwrap();
        let mut out = vec![0u8; N];
        b.iter(|| batch.update(black_box(DT), &requests, &mut out).unwrap())
    });
    // Dwell over 8 candidates, one update per call (its input is a slice).
    let scores: Vec<[f64; 8]> = (0..N)
        .map(|i| core::array::from_fn(|k| (((i + k) * 7919) % 1000) as f64 * 0.001))
        .collect();
    g.bench_function(
        BenchmarkId::new("dwell, 8 candidates", "naive argmax"),
        |b| {
            b.iter(|| {
                for s in black_box(&scores) {
                    let mut best = 0;
                    for k in 1..8 {
                        if s[k] > s[best] {
                            best = k;
                        }
                    }
                    black_box(best);
                }
            })
        },
    );
    g.bench_function(BenchmarkId::new("dwell, 8 candidates", "signals"), |b| {
        let mut d = Dwell::new(0.05, 0.25).unwrap();
        b.iter(|| {
            for s in black_box(&scores) {
                black_box(d.update(DT, &s[..]).unwrap());
            }
        })
    });
    let positions: Vec<f32> = (0..N)
        .map(|i| if i % 600 < 300 { i as f32 * 0.01 } else { 50.0 })
        .collect();
    g.bench_function(
        BenchmarkId::new("inertialiser, unbatched", "signals"),
        |b| {
            let mut s = Inertialiser::new(SpringDamper::critical(0.2).unwrap(), 0.0f32)
                .unwrap()
                .with_jump_threshold(1.0)
                .unwrap();
            b.iter(|| {
                for &x in black_box(&positions) {
                    black_box(s.update(DT, x).unwrap());
                }
            })
        },
    );
    g.finish();
}

#[allow(missing_docs)] // criterion_group! makes an undocumented fn.
mod group {
    use super::*;
    criterion_group!(
        benches,
        exponential,
        critical,
        underdamped,
        one_euro,
        pid,
        discrete
    );
}
criterion_main!(group::benches);
