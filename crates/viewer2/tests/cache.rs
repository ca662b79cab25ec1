//! The packed thumbnail cache: round trips, invalidation by size and time,
//! persistence, and damaged files.

use viewer2::cache::{Key, ThumbCache};
use viewer2::thumbnail::{Source, Thumbnail};

fn thumb(w: u32, h: u32, alpha: bool) -> Thumbnail {
    let mut rgba = Vec::new();
    for y in 0..h {
        for x in 0..w {
            rgba.extend_from_slice(&[
                (x * 3) as u8,
                (y * 5) as u8,
                128,
                if alpha { (x % 256) as u8 } else { 255 },
            ]);
        }
    }
    Thumbnail {
        width: w,
        height: h,
        rgba,
        source: Source::Decoded { scale: 8 },
        full_size: (w * 8, h * 8),
        problem: None,
    }
}

fn key(name: &str, mtime_ns: i64) -> Key {
    Key {
        path: format!("/photos/{name}").into_bytes(),
        size: 1234,
        mtime_ns,
        thumb: 256,
    }
}

fn mean_difference(a: &[u8], b: &[u8]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(x.abs_diff(*y)))
        .sum::<f64>()
        / a.len() as f64
}

#[test]
fn entries_round_trip_and_survive_reopening() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let opaque = thumb(256, 171, false);
    let clear = thumb(100, 60, true);
    {
        let mut c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.is_empty());
        c.put(&key("a.jpg", 1), &opaque)
            .unwrap_or_else(|e| panic!("{e}"));
        c.put(&key("b.png", 1), &clear)
            .unwrap_or_else(|e| panic!("{e}"));
        let got = c.get(&key("a.jpg", 1)).unwrap_or_else(|| panic!("a miss"));
        assert_eq!((got.width, got.height), (256, 171));
        // The photo's own size comes back too (the metadata panel shows it).
        assert_eq!(got.full_size, (256 * 8, 171 * 8));
        assert_eq!(got.source, Source::Cached);
        assert!(mean_difference(&got.rgba, &opaque.rgba) < 3.0);
    }
    let mut c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.len(), 2);
    // Transparency is kept exactly (PNG).
    let got = c.get(&key("b.png", 1)).unwrap_or_else(|| panic!("b miss"));
    assert_eq!(got.rgba, clear.rgba);
    // An edited photo (new time) misses; so does another size.
    assert!(c.get(&key("a.jpg", 2)).is_none());
    let mut other = key("a.jpg", 1);
    other.thumb = 128;
    assert!(c.get(&other).is_none());
    c.clear().unwrap_or_else(|e| panic!("{e}"));
    assert!(c.get(&key("a.jpg", 1)).is_none());
}

#[test]
fn a_torn_write_costs_only_the_last_entry() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    {
        let mut c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        for i in 0..5 {
            c.put(&key(&format!("{i}.jpg"), 1), &thumb(64, 64, false))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    // A crash mid-way through the last entry's data.
    let pack = dir.path().join("thumbs.pack");
    let len = std::fs::metadata(&pack).map(|m| m.len()).unwrap_or(0);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&pack)
        .and_then(|f| f.set_len(len - 10))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.len(), 4);
    for i in 0..4 {
        assert!(c.get(&key(&format!("{i}.jpg"), 1)).is_some());
    }
    assert!(c.get(&key("4.jpg", 1)).is_none());
    // New entries go on working after the torn one.
    c.put(&key("5.jpg", 1), &thumb(32, 32, false))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(c.get(&key("5.jpg", 1)).is_some());
}

#[test]
fn damaged_entries_are_misses_not_crashes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    {
        let mut c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        c.put(&key("a.jpg", 1), &thumb(64, 64, false))
            .unwrap_or_else(|e| panic!("{e}"));
        c.put(&key("b.jpg", 1), &thumb(64, 64, false))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // Scribble over the whole pack but its length.
    let pack = dir.path().join("thumbs.pack");
    let len = std::fs::metadata(&pack).map(|m| m.len()).unwrap_or(0) as usize;
    std::fs::write(&pack, vec![0x5Au8; len]).unwrap_or_else(|e| panic!("{e}"));
    let mut c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.get(&key("a.jpg", 1)).is_none());
    assert!(c.get(&key("b.jpg", 1)).is_none());
    // A garbage index is ignored too.
    std::fs::write(dir.path().join("thumbs.idx"), vec![0xFFu8; 100])
        .unwrap_or_else(|e| panic!("{e}"));
    let c = ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.is_empty());
}
