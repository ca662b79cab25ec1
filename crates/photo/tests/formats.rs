//! HEIC, AVIF and JPEG XL decoded against the field's own tools: files
//! made by libheif's `heif-enc` and libjxl's `cjxl`, decoded by us and by
//! `heif-convert` and `djxl` (the oracles), pixel for pixel within the
//! tolerance of two decoders' rounding. The tools come from Debian
//! (libheif-examples, libjxl-tools); without them each test says SKIPPED,
//! and fails under REQUIRE_IMAGE_TOOLS=1, which CI sets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;

#[path = "support/tools.rs"]
mod tools;
use tools::tool_present;

/// An image whose every pixel says where it is: red grows to the right,
/// green downwards, and a blue block marks the top-left corner, so any
/// rotation or mirror shows. 8-bit RGB, or 16-bit when `deep`.
fn write_png(path: &Path, w: u32, h: u32, deep: bool) -> Vec<[u8; 3]> {
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let corner = x < w / 4 && y < h / 4;
            px.push([
                (x * 255 / (w - 1).max(1)) as u8,
                (y * 255 / (h - 1).max(1)) as u8,
                if corner { 230 } else { 20 },
            ]);
        }
    }
    let f = std::fs::File::create(path).unwrap();
    let mut enc = png::Encoder::new(f, w, h);
    enc.set_color(png::ColorType::Rgb);
    let data: Vec<u8> = if deep {
        enc.set_depth(png::BitDepth::Sixteen);
        px.iter()
            .flat_map(|p| p.iter().flat_map(|&v| (u16::from(v) * 257).to_be_bytes()))
            .collect()
    } else {
        px.iter().flatten().copied().collect()
    };
    enc.write_header().unwrap().write_image_data(&data).unwrap();
    px
}

/// A PNG's pixels as RGBA (what the oracles write).
fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let mut decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::Rgba => buf,
        other => panic!("oracle wrote {other:?}"),
    };
    (info.width, info.height, rgba)
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Mean and largest difference of the colour channels.
fn difference(a: &[u8], b: &[u8]) -> (f64, u8) {
    assert_eq!(a.len(), b.len());
    let mut sum = 0u64;
    let mut max = 0u8;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if i % 4 == 3 {
            continue;
        }
        let d = x.abs_diff(*y);
        sum += u64::from(d);
        max = max.max(d);
    }
    (sum as f64 / (a.len() / 4 * 3) as f64, max)
}

/// Replaces each `pixi` property (what heif-enc writes for every image)
/// with a transform of the same box size, as a phone writes them: `irot`
/// (a quarter turn anticlockwise ×`turns`) or `imir` (about `axis`).
/// libheif reads a property box's first bytes and skips the rest.
fn with_transform(heic: &Path, out: &Path, kind: &[u8; 4], value: u8) {
    let mut d = std::fs::read(heic).unwrap();
    let mut i = 0;
    let mut replaced = 0;
    while let Some(at) = d[i..].windows(4).position(|w| w == b"pixi").map(|p| p + i) {
        let size = u32::from_be_bytes(d[at - 4..at].try_into().unwrap()) as usize;
        d[at..at + 4].copy_from_slice(kind);
        d[at + 4] = value;
        d[at + 5..at - 4 + size].fill(0);
        replaced += 1;
        i = at + 4;
    }
    assert!(replaced > 0, "heif-enc wrote no pixi property to replace");
    std::fs::write(out, d).unwrap();
}

/// An RGBA image with a HEIF transform applied: `irot` turns it a quarter
/// anticlockwise `value` times; `imir` 0 swaps top and bottom, 1 left and
/// right (libheif's reading of the axis, in 1.15 as in 1.23).
fn transformed(
    (w, h, rgba): &(u32, u32, Vec<u8>),
    kind: &[u8; 4],
    value: u8,
) -> (u32, u32, Vec<u8>) {
    let (w, h) = (*w as usize, *h as usize);
    let at = |x: usize, y: usize| &rgba[(y * w + x) * 4..(y * w + x) * 4 + 4];
    let mut out = Vec::with_capacity(rgba.len());
    let (ow, oh) = if kind == b"irot" && value % 2 == 1 {
        (h, w)
    } else {
        (w, h)
    };
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = match (kind, value) {
                (b"irot", 1) => (w - 1 - y, x),
                (b"irot", 2) => (w - 1 - x, h - 1 - y),
                (b"irot", 3) => (y, h - 1 - x),
                (b"imir", 0) => (x, h - 1 - y),
                (b"imir", _) => (w - 1 - x, y),
                _ => (x, y),
            };
            out.extend_from_slice(at(sx, sy));
        }
    }
    (ow as u32, oh as u32, out)
}

fn ours_heif(path: &Path, cover: Option<u32>) -> photo::RgbaImage {
    let file = std::fs::File::open(path).unwrap();
    photo::decode_heif(
        std::io::BufReader::new(file),
        &photo::Limits::default(),
        cover,
    )
    .unwrap()
}

fn oracle_heif(path: &Path, dir: &Path) -> (u32, u32, Vec<u8>) {
    let out = dir.join("oracle.png");
    run(Command::new("heif-convert").arg(path).arg(&out));
    read_png(&out)
}

fn heif_enc(dir: &Path, name: &str, args: &[&str], deep: bool) -> PathBuf {
    let src = dir.join(format!("{name}.png"));
    write_png(&src, 96, 64, deep);
    let out = dir.join(name);
    run(Command::new("heif-enc")
        .args(args)
        .arg(&src)
        .arg("-o")
        .arg(&out));
    out
}

#[test]
fn heic_and_avif_match_heif_convert_every_way_up() {
    if !tool_present(
        "heif-enc",
        "libheif-examples",
        "heic_and_avif_match_heif_convert",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, args, deep) in [
        ("plain.heic", &["-q", "90"][..], false),
        ("ten-bit.heic", &["-q", "90", "-b", "10"][..], true),
        ("plain.avif", &["-A", "-q", "90"][..], false),
    ] {
        let made = heif_enc(dir.path(), name, args, deep);
        let info = photo::heif_info(std::fs::File::open(&made).unwrap()).unwrap();
        assert_eq!((info.width, info.height), (96, 64), "{name}");
        assert_eq!(
            info.kind,
            if name.ends_with("avif") {
                photo::HeifKind::Avif
            } else {
                photo::HeifKind::Heic
            }
        );
        if deep {
            assert_eq!(info.bit_depth, 10, "{name}");
        }
        let upright = oracle_heif(&made, dir.path());
        for (kind, value) in [
            (b"irot", 0u8),
            (b"irot", 1),
            (b"irot", 2),
            (b"irot", 3),
            (b"imir", 0),
            (b"imir", 1),
        ] {
            let turned = dir
                .path()
                .join(format!("{}-{value}-{name}", String::from_utf8_lossy(kind)));
            with_transform(&made, &turned, kind, value);
            let ours = ours_heif(&turned, None);
            let shown = if kind == b"irot" && value % 2 == 1 {
                (64, 96)
            } else {
                (96, 64)
            };
            assert_eq!((ours.width, ours.height), shown, "{name} {kind:?} {value}");
            assert_eq!(ours.full_size, shown);
            // The oracle: heif-convert of the upright file, turned here.
            // Where heif-convert can turn the file itself (libheif 1.15
            // mirrors only 8-bit images), the two agree.
            let oracle = transformed(&upright, kind, value);
            if !(deep && kind == b"imir") {
                let (ow, oh, theirs) = oracle_heif(&turned, dir.path());
                assert_eq!((ow, oh), (oracle.0, oracle.1), "{name} {kind:?}={value}");
                assert!(
                    theirs == oracle.2,
                    "{name} {kind:?}={value}: heif-convert turned it otherwise than this test does (difference {:?})",
                    difference(&theirs, &oracle.2)
                );
            }
            assert_eq!((oracle.0, oracle.1), shown);
            let (mean, max) = difference(&ours.rgba, &oracle.2);
            assert!(
                mean <= 2.0 && max <= 40,
                "{name} {kind:?}={value}: mean difference {mean:.2}, largest {max} from heif-convert"
            );
        }
    }
}

#[test]
fn the_grid_takes_the_files_thumbnail_when_it_covers() {
    if !tool_present(
        "heif-enc",
        "libheif-examples",
        "the_grid_takes_the_files_thumbnail",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let made = heif_enc(dir.path(), "thumbed.heic", &["-q", "90", "-t", "48"], false);
    let rotated = dir.path().join("rotated.heic");
    with_transform(&made, &rotated, b"irot", 1);
    let info = photo::heif_info(std::fs::File::open(&rotated).unwrap()).unwrap();
    assert_eq!(info.thumbnails, vec![(32, 48)]);
    // 40 px a side is covered by the 48 px thumbnail: it is decoded, and
    // says which photo it stands for; 64 is not, so the primary is.
    let small = ours_heif(&rotated, Some(40));
    assert_eq!(
        (small.width, small.height, small.full_size),
        (32, 48, (64, 96))
    );
    let large = ours_heif(&rotated, Some(64));
    assert_eq!((large.width, large.height), (64, 96));
    // The thumbnail is the same picture the same way up: its corner block
    // (blue, top left after the turn: the source's top right) is there.
    let at = |img: &photo::RgbaImage, x: u32, y: u32| {
        let i = ((y * img.width + x) * 4) as usize;
        [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]
    };
    let big_corner = at(&large, 2, 93);
    let small_corner = at(&small, 1, 46);
    assert!(
        big_corner[2] > 150 && small_corner[2] > 150,
        "{big_corner:?} {small_corner:?}"
    );
}

#[test]
fn jpeg_xl_matches_djxl() {
    if !tool_present("cjxl", "libjxl-tools", "jpeg_xl_matches_djxl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in [
        ("lossless.jxl", &["-d", "0"][..]),
        ("lossy.jxl", &["-d", "1"][..]),
    ] {
        let src = dir.path().join("src.png");
        let px = write_png(&src, 80, 50, false);
        let made = dir.path().join(name);
        run(Command::new("cjxl").arg(&src).arg(&made).args(args));
        let ours = photo::decode_jxl(
            std::fs::File::open(&made).unwrap(),
            &photo::Limits::default(),
        )
        .unwrap();
        let out = dir.path().join("oracle.png");
        run(Command::new("djxl").arg(&made).arg(&out));
        let (w, h, oracle) = read_png(&out);
        assert_eq!((ours.width, ours.height), (w, h));
        let (mean, max) = difference(&ours.rgba, &oracle);
        assert!(
            mean <= 1.0 && max <= 8,
            "{name}: mean {mean:.2}, largest {max} from djxl"
        );
        if name.starts_with("lossless") {
            let source: Vec<u8> = px.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect();
            assert_eq!(ours.rgba, source, "lossless is exact");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Truncated or damaged HEIF files are an error naming the format (or
    /// the limit a damaged size breaks) or a picture of the right size,
    /// never a panic or a hang.
    #[test]
    fn broken_heif_never_panics(cut in 0.0f64..1.0, flip in proptest::option::of((0.0f64..1.0, any::<u8>()))) {
        let Some(made) = HEIF_SAMPLE.as_ref() else { return Ok(()); };
        let mut bytes = made.clone();
        let n = ((bytes.len() as f64) * cut) as usize;
        bytes.truncate(n.max(1));
        if let Some((at, v)) = flip {
            let i = ((bytes.len() as f64) * at) as usize;
            if let Some(b) = bytes.get_mut(i) { *b ^= v; }
        }
        match photo::decode_heif(std::io::Cursor::new(&bytes), &photo::Limits::default(), None) {
            Ok(img) => prop_assert_eq!(img.rgba.len(), (img.width * img.height * 4) as usize),
            // libheif's reason, a read error, or a damaged size (none, or
            // over the limits) refused before anything is decoded.
            Err(e) => prop_assert!(
                e.to_string().contains("HEIF")
                    || e.to_string().contains("read")
                    || matches!(e, photo::PhotoError::TooLarge { .. } | photo::PhotoError::Empty { .. }),
                "{}",
                e
            ),
        }
    }
}

static HEIF_SAMPLE: std::sync::LazyLock<Option<Vec<u8>>> = std::sync::LazyLock::new(|| {
    if !tool_present("heif-enc", "libheif-examples", "broken_heif_never_panics") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let made = heif_enc(dir.path(), "sample.heic", &["-q", "60", "-t", "32"], false);
    Some(std::fs::read(made).unwrap())
});
