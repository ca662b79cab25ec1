#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The loader's decodes in flight share one memory budget: three large
//! PNGs wanted at once by three workers never hold more together than the
//! budget (every allocation of this binary is counted, with no input but
//! the wanted set), and a decompression bomb whose decode could never fit
//! is refused before it starts, at once and without its memory.
//!
//! Each test runs alone in its binary's allocator, so they share a lock.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use photo::MemoryBudget;
use viewer2::loader::{Files, Loaded, Loader, Want};
use viewer2::thumbnail::{Limits, ThumbError, decode_peak};

#[path = "support/counting.rs"]
mod counting;
use counting::{NOW, PEAK};

static ALONE: Mutex<()> = Mutex::new(());

/// A `side`×`side` 8-bit grey PNG of a soft gradient (it compresses well,
/// as a bomb does, yet is a real picture).
fn grey_png(side: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, side, side);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().unwrap();
    let rows: Vec<u8> = (0..side * side)
        .map(|i| ((i % side) * 255 / side) as u8)
        .collect();
    w.write_image_data(&rows).unwrap();
    w.finish().unwrap();
    out
}

fn collect(loader: &Loader, n: usize) -> Vec<Loaded> {
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut got = Vec::new();
    while got.len() < n {
        assert!(Instant::now() < deadline, "answers did not arrive");
        match loader.try_recv() {
            Some(a) => got.push(a),
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    got
}

#[test]
fn three_large_decodes_at_once_stay_within_the_budget() {
    let _alone = ALONE.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let png = grey_png(2500);
    // Small thumbnails, so what is delivered is next to nothing beside
    // what each decode holds while it runs.
    let peak = decode_peak(std::io::Cursor::new(&png), 256, Limits::default()).unwrap();
    let mut wants = Vec::new();
    for i in 0..3u64 {
        let path = dir.path().join(format!("big-{i}.png"));
        std::fs::write(&path, &png).unwrap();
        wants.push(Want {
            id: i,
            path,
            priority: i as i64,
        });
    }
    drop(png);
    // Room for one decode and a half: two at once would not fit.
    let budget = peak * 3 / 2;
    let loader = Loader::with_budget(
        3,
        256,
        Limits::default(),
        Arc::new(Files),
        None,
        Arc::new(MemoryBudget::new(budget)),
    )
    .unwrap();
    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    loader.want(wants);
    let answers = collect(&loader, 3);
    let held = (PEAK.load(Ordering::SeqCst) - before) as u64;
    for a in &answers {
        let t = a.result.as_ref().expect("each decodes in its turn");
        assert_eq!((t.width, t.height), (256, 256));
    }
    assert!(
        held <= budget + (2 << 20),
        "held {} MB at once; the budget is {} MB",
        held >> 20,
        budget >> 20,
    );
}

#[test]
fn a_bomb_that_could_never_fit_is_refused_before_it_is_decoded() {
    let _alone = ALONE.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // 20000 × 20000 grey: 400 MB of pixels, 1.6 GB as RGBA, in a small file.
    let png = grey_png(20_000);
    let path = dir.path().join("bomb.png");
    std::fs::write(&path, &png).unwrap();
    drop(png);
    let loader = Loader::with_budget(
        2,
        4096,
        Limits::default(),
        Arc::new(Files),
        None,
        Arc::new(MemoryBudget::new(256 << 20)),
    )
    .unwrap();
    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    loader.want(vec![Want {
        id: 7,
        path,
        priority: 0,
    }]);
    let answers = collect(&loader, 1);
    let held = (PEAK.load(Ordering::SeqCst) - before) as u64;
    match &answers[0].result {
        Err(e @ ThumbError::OverBudget { needs, budget }) => {
            assert!(*needs > 1_600_000_000, "{e}");
            assert_eq!(*budget, 256 << 20);
            let text = e.to_string();
            assert!(text.contains("more than the 256 MB"), "{text}");
        }
        other => panic!("expected OverBudget, got {other:?}"),
    }
    assert!(held < 8 << 20, "held {} MB refusing it", held >> 20);
}
