//! The loader: priority order, cancellation when the view moves, a slow
//! reader, a reader that hangs, and broken files.

use std::collections::{HashMap, HashSet};
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use viewer2::cache::{ThumbCache, ThumbStore};
use viewer2::loader::{Loaded, Loader, ReadSeek, Source, Want};

mod photos;
use viewer2::thumbnail::{self, Limits, ThumbError};

/// Photos in memory; some paths hang until released, some read slowly,
/// and every open is recorded in order.
#[derive(Default)]
struct TestSource {
    files: HashMap<PathBuf, Vec<u8>>,
    hang: HashSet<PathBuf>,
    slow: bool,
    released: Mutex<bool>,
    release: Condvar,
    opened: Mutex<Vec<PathBuf>>,
    /// Modification times by path (0 when absent).
    times: Mutex<HashMap<PathBuf, i64>>,
}

impl TestSource {
    fn release(&self) {
        *self.released.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.release.notify_all();
    }
}

impl Source for TestSource {
    fn stamp(&self, path: &Path) -> std::io::Result<(u64, i64)> {
        let size = self
            .files
            .get(path)
            .map(|f| f.len() as u64)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such photo"))?;
        let time = self
            .times
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .copied()
            .unwrap_or(0);
        Ok((size, time))
    }

    fn open(&self, path: &Path) -> std::io::Result<Box<dyn ReadSeek>> {
        self.opened
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(path.to_path_buf());
        if self.hang.contains(path) {
            let mut released = self.released.lock().unwrap_or_else(|p| p.into_inner());
            while !*released {
                released = self
                    .release
                    .wait(released)
                    .unwrap_or_else(|p| p.into_inner());
            }
        }
        let data =
            self.files.get(path).cloned().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such photo")
            })?;
        if self.slow {
            Ok(Box::new(Slow(Cursor::new(data))))
        } else {
            Ok(Box::new(Cursor::new(data)))
        }
    }
}

/// A reader that takes 1 ms per read, like a distant share.
struct Slow(Cursor<Vec<u8>>);

impl Read for Slow {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        std::thread::sleep(Duration::from_millis(1));
        self.0.read(buf)
    }
}

impl Seek for Slow {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.0.seek(pos)
    }
}

fn photo(seed: u8) -> Vec<u8> {
    let img = image::RgbImage::from_fn(320, 240, |x, y| {
        image::Rgb([(x as u8).wrapping_add(seed), y as u8, seed])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&img)
        .unwrap_or_else(|e| panic!("{e}"));
    out
}

fn source(n: u64) -> TestSource {
    let mut s = TestSource::default();
    for i in 0..n {
        s.files.insert(path(i), photo(i as u8));
    }
    s
}

fn path(i: u64) -> PathBuf {
    PathBuf::from(format!("/photos/{i}.jpg"))
}

fn want(i: u64, priority: i64) -> Want {
    Want {
        id: i,
        path: path(i),
        priority,
    }
}

/// Answers until `n` have arrived or 20 s have passed.
fn collect(loader: &Loader, n: usize) -> Vec<Loaded> {
    let start = Instant::now();
    let mut out = Vec::new();
    while out.len() < n && start.elapsed() < Duration::from_secs(20) {
        match loader.try_recv() {
            Some(a) => out.push(a),
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    out
}

#[test]
fn the_most_urgent_photos_come_first() {
    let source = Arc::new(source(20));
    let loader = Loader::new(1, 64, Limits::default(), source.clone(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    // Priorities in a scrambled order: (i * 7) mod 20.
    loader.want((0..20).map(|i| want(i, ((i * 7) % 20) as i64)).collect());
    let answers = collect(&loader, 20);
    assert_eq!(answers.len(), 20);
    let priorities: Vec<i64> = answers.iter().map(|a| ((a.id * 7) % 20) as i64).collect();
    let mut sorted = priorities.clone();
    sorted.sort();
    assert_eq!(priorities, sorted);
    assert!(
        answers
            .iter()
            .all(|a| a.result.as_ref().is_ok_and(|t| t.width == 64))
    );
}

#[test]
fn photos_scrolled_away_are_dropped() {
    let mut s = source(30);
    s.hang.insert(path(0));
    let source = Arc::new(s);
    let loader = Loader::new(1, 64, Limits::default(), source.clone(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    loader.want((0..30).map(|i| want(i, i as i64)).collect());
    // Wait until the one worker is inside photo 0 (hanging).
    let start = Instant::now();
    while source
        .opened
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .is_empty()
    {
        assert!(start.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(1));
    }
    // The view moves: only 25..30 are wanted now.
    loader.want((25..30).map(|i| want(i, i as i64)).collect());
    assert_eq!(loader.waiting(), 5);
    source.release();
    let answers = collect(&loader, 5);
    let ids: HashSet<u64> = answers.iter().map(|a| a.id).collect();
    assert_eq!(ids, (25..30).collect());
    // Nothing else arrives, photo 0's answer included.
    std::thread::sleep(Duration::from_millis(50));
    assert!(loader.try_recv().is_none());
    let opened = source
        .opened
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    assert_eq!(opened.len(), 6, "{opened:?}");
}

#[test]
fn a_hanging_share_holds_one_worker_not_the_rest() {
    let mut s = source(12);
    s.hang.insert(path(0));
    s.slow = true;
    let source = Arc::new(s);
    let loader = Loader::new(2, 64, Limits::default(), source.clone(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    loader.want((0..12).map(|i| want(i, i as i64)).collect());
    // Photo 0 hangs on one worker; the other makes the eleven others.
    let answers = collect(&loader, 11);
    let ids: HashSet<u64> = answers.iter().map(|a| a.id).collect();
    assert_eq!(ids, (1..12).collect());
    // Asking never blocks while the share hangs.
    assert!(loader.try_recv().is_none());
    source.release();
    let last = collect(&loader, 1);
    assert_eq!(last.first().map(|a| a.id), Some(0));
}

#[test]
fn broken_and_missing_files_are_answers_with_reasons() {
    let mut s = source(1);
    s.files.insert(path(1), b"not a photo at all".to_vec());
    s.files.insert(path(2), Vec::new());
    let loader =
        Loader::new(2, 64, Limits::default(), Arc::new(s), None).unwrap_or_else(|e| panic!("{e}"));
    loader.want((0..4).map(|i| want(i, i as i64)).collect());
    let mut answers = collect(&loader, 4);
    answers.sort_by_key(|a| a.id);
    assert!(answers[0].result.is_ok());
    assert!(matches!(answers[1].result, Err(ThumbError::NotAnImage(_))));
    assert!(matches!(answers[2].result, Err(ThumbError::Empty)));
    assert!(matches!(answers[3].result, Err(ThumbError::Io(_))));
}

#[test]
fn the_cache_answers_until_the_photo_changes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let source = Arc::new(source(3));
    let open = || -> Box<dyn ThumbStore> {
        Box::new(ThumbCache::open(dir.path()).unwrap_or_else(|e| panic!("{e}")))
    };
    let run = |loader: &Loader| {
        loader.want((0..3).map(|i| want(i, i as i64)).collect());
        let mut answers = collect(loader, 3);
        answers.sort_by_key(|a| a.id);
        answers
            .into_iter()
            .map(|a| a.result.map(|t| t.source).map_err(|e| e.to_string()))
            .collect::<Vec<_>>()
    };
    let made = thumbnail::Source::Decoded { scale: 4 };
    let cached = thumbnail::Source::Cached;
    let loader = |cache| {
        Loader::new(2, 64, Limits::default(), source.clone(), Some(cache))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_eq!(run(&loader(open())), vec![Ok(made), Ok(made), Ok(made)]);
    assert_eq!(
        run(&loader(open())),
        vec![Ok(cached), Ok(cached), Ok(cached)]
    );
    // Photo 1 is edited (a new time): only it is made again.
    source
        .times
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(path(1), 99);
    assert_eq!(run(&loader(open())), vec![Ok(cached), Ok(made), Ok(cached)]);
}

/// A photo with an EXIF thumbnail is painted first with it, then with the
/// real one.
#[test]
fn the_embedded_preview_comes_first() {
    let small = photos::jpeg(&photos::picture(160, 120), 80);
    let big = photos::with_app1(
        &photos::jpeg(&photos::picture(1200, 900), 90),
        &photos::exif_app1(1, Some(&small)),
    );
    let mut s = TestSource::default();
    s.files.insert(path(0), big);
    let loader =
        Loader::new(1, 256, Limits::default(), Arc::new(s), None).unwrap_or_else(|e| panic!("{e}"));
    loader.want(vec![want(0, 0)]);
    let answers = collect(&loader, 2);
    let sources: Vec<_> = answers
        .iter()
        .map(|a| a.result.as_ref().map(|t| (t.source, t.width)).ok())
        .collect();
    assert_eq!(
        sources,
        [
            Some((viewer2::thumbnail::Source::Embedded, 160)),
            Some((viewer2::thumbnail::Source::Decoded { scale: 4 }, 256))
        ]
    );
}
