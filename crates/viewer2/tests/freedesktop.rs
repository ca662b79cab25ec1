#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Thumbnails shared through the freedesktop.org thumbnail spec: names,
//! text chunks, validity, other programs' thumbnails, and the loader
//! reading them back.

use std::sync::Arc;

use viewer2::cache::{Key, ThumbStore};
use viewer2::freedesktop::{FreedesktopCache, file_uri};
use viewer2::loader::{Files, Loader, Want};
use viewer2::thumbnail::{Limits, Source, Thumbnail};

mod photos;

fn thumb(w: u32, h: u32) -> Thumbnail {
    let mut rgba = Vec::new();
    for y in 0..h {
        for x in 0..w {
            rgba.extend_from_slice(&[x as u8, y as u8, (x ^ y) as u8, 255]);
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

fn key(path: &str, mtime_s: i64) -> Key {
    Key {
        path: path.as_bytes().to_vec(),
        size: 1234,
        mtime_ns: mtime_s * 1_000_000_000 + 999,
        thumb: 256,
    }
}

fn text_chunks(png_path: &std::path::Path) -> Vec<(String, String)> {
    let bytes = std::fs::read(png_path).unwrap();
    let reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .map(|t| (t.keyword.clone(), t.text.clone()))
        .collect()
}

#[test]
fn names_follow_the_spec() {
    let c = FreedesktopCache::new("/c/thumbnails".into());
    // The spec's own example.
    assert_eq!(
        c.path_for(b"/home/jens/photos/me.png", 256),
        std::path::Path::new("/c/thumbnails/large/c6ee772d9e49320e97ec29a7eb5b1697.png")
    );
    assert!(
        c.path_for(b"/a.png", 128)
            .starts_with("/c/thumbnails/normal")
    );
    assert!(
        c.path_for(b"/a.png", 512)
            .starts_with("/c/thumbnails/x-large")
    );
    assert!(
        c.path_for(b"/a.png", 1024)
            .starts_with("/c/thumbnails/xx-large")
    );
    // Escaped as GLib escapes: spaces, non-ASCII bytes and `%` become %XX.
    assert_eq!(
        file_uri("/home/me/My Photos/é 100%.jpg".as_bytes()),
        "file:///home/me/My%20Photos/%C3%A9%20100%25.jpg"
    );
    assert_eq!(
        file_uri(b"/a/b-c_d.e~f(1)+x=y@z"),
        "file:///a/b-c_d.e~f(1)+x=y@z"
    );
    assert_eq!(file_uri(b"/\xff#?"), "file:///%FF%23%3F");
}

#[test]
fn a_thumbnail_round_trips_and_goes_stale_with_its_photo() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = FreedesktopCache::new(dir.path().join("thumbnails"));
    let t = thumb(200, 150);
    let k = key("/photos/a b.jpg", 1_700_000_000);
    c.put(&k, &t).unwrap();
    let file = c.path_for(&k.path, 256);
    let text = text_chunks(&file);
    let field = |name: &str| text.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    assert_eq!(
        field("Thumb::URI").as_deref(),
        Some("file:///photos/a%20b.jpg")
    );
    assert_eq!(field("Thumb::MTime").as_deref(), Some("1700000000"));
    assert_eq!(field("Thumb::Size").as_deref(), Some("1234"));
    assert_eq!(field("Thumb::Image::Width").as_deref(), Some("1600"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let got = c.get(&k).unwrap();
    assert_eq!(
        (got.width, got.height, got.full_size),
        (200, 150, (1600, 1200))
    );
    assert_eq!(got.rgba, t.rgba);
    assert_eq!(got.source, Source::Cached);
    // An edited photo (new time or size) misses.
    assert!(c.get(&key("/photos/a b.jpg", 1_700_000_001)).is_none());
    let mut resized = k.clone();
    resized.size = 99;
    assert!(c.get(&resized).is_none());
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

#[test]
fn other_programs_thumbnails_are_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = FreedesktopCache::new(dir.path().join("thumbnails"));
    let k = key("/photos/b.jpg", 1_600_000_000);
    let file = c.path_for(&k.path, 256);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // As a file manager writes it: URI and MTime only, 128 px, RGB.
    let write = |uri: &str, mtime: &str| {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, 128, 96);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_text_chunk("Thumb::URI".into(), uri.into()).unwrap();
        enc.add_text_chunk("Thumb::MTime".into(), mtime.into())
            .unwrap();
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&vec![90u8; 128 * 96 * 3]).unwrap();
        drop(w);
        std::fs::write(&file, out).unwrap();
    };
    write("file:///photos/b.jpg", "1600000000");
    let got = c.get(&k).unwrap();
    assert_eq!((got.width, got.height, got.full_size), (128, 96, (128, 96)));
    assert_eq!(&got.rgba[..4], &[90, 90, 90, 255]);
    // Another file's thumbnail under this name, or an older one: misses.
    write("file:///photos/other.jpg", "1600000000");
    assert!(c.get(&k).is_none());
    write("file:///photos/b.jpg", "1500000000");
    assert!(c.get(&k).is_none());
    // Garbage: a miss, not a crash.
    std::fs::write(&file, b"\x89PNG\r\n\x1a\nnot really").unwrap();
    assert!(c.get(&k).is_none());
}

#[test]
fn the_loader_shares_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("p.jpg");
    std::fs::write(&photo, photos::jpeg(&photos::picture(640, 480), 85)).unwrap();
    let root = dir.path().join("thumbnails");
    let run = || {
        let store: Box<dyn ThumbStore> = Box::new(FreedesktopCache::new(root.clone()));
        let loader = Loader::new(1, 256, Limits::default(), Arc::new(Files), Some(store)).unwrap();
        loader.want(vec![Want {
            id: 1,
            path: photo.clone(),
            priority: 0,
        }]);
        let start = std::time::Instant::now();
        loop {
            if let Some(a) = loader.try_recv() {
                break a.result.unwrap();
            }
            assert!(start.elapsed() < std::time::Duration::from_secs(20));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    let first = run();
    assert!(matches!(first.source, Source::Decoded { .. }));
    let second = run();
    assert_eq!(second.source, Source::Cached);
    assert_eq!(
        (second.width, second.height, second.full_size),
        (256, 192, (640, 480))
    );
}
