#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Quality probes on generated images: a salient disc keeps its shape, a
//! grid of lines stays straight, every layout and depth comes out at the
//! exact target size.

use retarget::{Mode, Options, Raster, retarget};

/// A red disc of radius `r` on a smooth grey ramp, `w × h`, RGB.
fn disc_on_ramp(w: u32, h: u32, r: f64) -> Raster<u8> {
    let mut data = Vec::new();
    let (cx, cy) = (f64::from(w) / 2.0, f64::from(h) / 2.0);
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = (f64::from(x) + 0.5 - cx, f64::from(y) + 0.5 - cy);
            let ramp = (100.0 + 60.0 * f64::from(x) / f64::from(w)) as u8;
            if (dx * dx + dy * dy).sqrt() < r {
                data.extend_from_slice(&[210, 40, 40]);
            } else {
                data.extend_from_slice(&[ramp, ramp, ramp]);
            }
        }
    }
    Raster::from_vec(w, h, 3, data).unwrap()
}

/// The disc's width and height in pixels (red where r − g > 80).
fn disc_extent(img: &Raster<u8>) -> (u32, u32) {
    let red = |x, y| {
        let p = img.pixel(x, y);
        i32::from(p[0]) - i32::from(p[1]) > 80
    };
    let cy = img.height() / 2;
    let cx = (0..img.width()).filter(|&x| red(x, cy)).sum::<u32>()
        / (0..img.width()).filter(|&x| red(x, cy)).count().max(1) as u32;
    let w = (0..img.width()).filter(|&x| red(x, cy)).count() as u32;
    let h = (0..img.height()).filter(|&y| red(cx, y)).count() as u32;
    (w, h)
}

#[test]
fn salient_disc_keeps_its_aspect_at_half_width() {
    let src = disc_on_ramp(400, 300, 60.0);
    let (w0, h0) = disc_extent(&src);
    assert_eq!((w0, h0), (120, 120));
    let out = retarget(&src, 200, 300, &Options::default()).unwrap();
    let (w, h) = disc_extent(&out);
    let aspect = f64::from(w) / f64::from(h);
    eprintln!("disc at half width: {w}x{h}, aspect {aspect:.3}");
    assert!(aspect >= 0.9, "disc came out {w}x{h}, aspect {aspect:.3}");
    // Uniform scaling (strength 0) halves it: the probe can tell.
    let uniform = retarget(
        &src,
        200,
        300,
        &Options {
            strength: 0.0,
            ..Options::default()
        },
    )
    .unwrap();
    let (wu, hu) = disc_extent(&uniform);
    assert!(
        (f64::from(wu) / f64::from(hu) - 0.5).abs() < 0.03,
        "uniform gave {wu}x{hu}"
    );
}

#[test]
fn salient_disc_keeps_its_aspect_at_half_height() {
    let src = disc_on_ramp(300, 400, 60.0);
    let out = retarget(&src, 300, 200, &Options::default()).unwrap();
    let (w, h) = disc_extent(&out);
    assert!(f64::from(h) / f64::from(w) >= 0.9, "disc came out {w}x{h}");
}

/// Black lines every 23 px on white (with a few detailed blobs so the map
/// is far from uniform): after resizing both axes, every row off the
/// horizontal lines is identical, and so is every column off the vertical
/// ones: vertical lines stay vertical, horizontal ones horizontal.
#[test]
fn grid_lines_stay_straight() {
    let (w, h) = (300u32, 200u32);
    let mut data = vec![255u8; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            if x % 23 == 5 || y % 23 == 5 {
                data[(y * w + x) as usize] = 0;
            }
        }
    }
    // Texture in a band of columns and rows.
    for y in 0..h {
        for x in 60..110 {
            if (x * 7 + y * 3) % 5 == 0 {
                data[(y * w + x) as usize] = 128;
            }
        }
    }
    let src = Raster::from_vec(w, h, 1, data).unwrap();
    let out = retarget(&src, 170, 260, &Options::default()).unwrap();
    // Source rows (columns) that hold a horizontal (vertical) line or the
    // texture band land somewhere; compare the output rows whose whole
    // source footprint is plain, by the map.
    let plan = retarget::plan(&src, 170, 260, &Options::default()).unwrap();
    let plain_rows: Vec<u32> = (0..260)
        .filter(|&j| {
            let a = plan.y.inverse(f64::from(j)).floor() as i64 - 1;
            let b = plan.y.inverse(f64::from(j + 1)).ceil() as i64 + 1;
            (a..=b).all(|y| y < 0 || y >= i64::from(h) || y % 23 != 5)
        })
        .collect();
    assert!(plain_rows.len() > 50);
    // Every plain row has the same pixels across (it crosses the same
    // vertical lines at the same places)... except where the texture band
    // differs by row in the source, so compare only columns outside it.
    let band_out = plan.x.edges()[60].floor() as u32..plan.x.edges()[110].ceil() as u32 + 1;
    let row_of = |j: u32| -> Vec<u8> {
        (0..170)
            .filter(|x| !band_out.contains(x))
            .map(|x| out.pixel(x, j)[0])
            .collect()
    };
    let first = row_of(plain_rows[0]);
    // A 1-pixel line shrunk to 170/300 blends with its neighbours; it still
    // shows well below the white background.
    assert!(
        first.iter().filter(|&&v| v < 200).count() >= 6,
        "the plain row crosses no vertical line: {first:?}"
    );
    for &j in &plain_rows[1..] {
        assert_eq!(row_of(j), first, "row {j} differs: a vertical line bent");
    }
}

/// Each layout and depth: exact target size, down to 1 pixel, and up.
#[test]
fn every_layout_and_depth_hits_the_target() {
    for channels in 1..=4u8 {
        let (w, h) = (37u32, 23u32);
        let n = (w * h * u32::from(channels)) as usize;
        let bytes: Vec<u8> = (0..n).map(|i| ((i * 7919) % 251) as u8).collect();
        let words: Vec<u16> = bytes.iter().map(|&b| u16::from(b) * 257).collect();
        let s8 = Raster::from_vec(w, h, channels, bytes).unwrap();
        let s16 = Raster::from_vec(w, h, channels, words).unwrap();
        for mode in [Mode::Separable, Mode::Mesh, Mode::Parallax] {
            let opts = Options {
                mode,
                ..Options::default()
            };
            for (tw, th) in [
                (1, 1),
                (1, 23),
                (37, 1),
                (18, 23),
                (37, 11),
                (60, 40),
                (20, 50),
            ] {
                let o8 = retarget(&s8, tw, th, &opts).unwrap();
                assert_eq!(
                    (o8.width(), o8.height(), o8.channels()),
                    (tw, th, channels),
                    "{mode:?} u8"
                );
                let o16 = retarget(&s16, tw, th, &opts).unwrap();
                assert_eq!(
                    (o16.width(), o16.height(), o16.channels()),
                    (tw, th, channels),
                    "{mode:?} u16"
                );
            }
        }
    }
}

/// 16-bit keeps what 8-bit cannot: a ramp of 16-bit steps resized stays a
/// ramp of distinct values.
#[test]
fn sixteen_bit_precision_is_kept() {
    let w = 512u32;
    let data: Vec<u16> = (0..w).map(|x| (x * 3) as u16).collect();
    let src = Raster::from_vec(w, 1, 1, data).unwrap();
    let out = retarget(
        &src,
        256,
        1,
        &Options {
            strength: 0.0,
            ..Options::default()
        },
    )
    .unwrap();
    let v = out.as_slice();
    for x in 1..256 {
        assert!(
            v[x] > v[x - 1],
            "16-bit ramp flattened at {x}: {} {}",
            v[x - 1],
            v[x]
        );
    }
}

/// Alpha: a fully transparent region's colour does not bleed into opaque
/// neighbours when shrinking.
#[test]
fn transparent_colour_does_not_bleed() {
    let (w, h) = (64u32, 4u32);
    let mut data: Vec<u8> = Vec::new();
    for _ in 0..h {
        for x in 0..w {
            if x % 2 == 0 {
                data.extend_from_slice(&[0, 255, 0, 0])
            } else {
                data.extend_from_slice(&[200, 0, 0, 255])
            }
        }
    }
    let src = Raster::from_vec(w, h, 4, data).unwrap();
    let out = retarget(
        &src,
        16,
        4,
        &Options {
            strength: 0.0,
            ..Options::default()
        },
    )
    .unwrap();
    for p in out.as_slice().chunks_exact(4) {
        assert_eq!(
            &p[..3],
            &[200, 0, 0],
            "green from transparent pixels bled in: {p:?}"
        );
        assert!((126..=129).contains(&p[3]), "alpha {}", p[3]);
    }
}

/// A mask over `disc_on_ramp(400, 300, 60.0)`'s disc, with a pixel to spare.
fn disc_mask() -> retarget::Mask {
    let bits = (0..300u32 * 400).map(|i| {
        let (x, y) = (
            f64::from(i % 400) + 0.5 - 200.0,
            f64::from(i / 400) + 0.5 - 150.0,
        );
        (x * x + y * y).sqrt() < 62.0
    });
    retarget::Mask::from_vec(400, 300, bits.collect()).unwrap()
}

/// Protecting the disc keeps it at exactly full size.
#[test]
fn protect_mask_keeps_full_size() {
    let src = disc_on_ramp(400, 300, 60.0);
    let mask = disc_mask();
    let opts = Options {
        protect: Some(mask),
        ..Options::default()
    };
    let out = retarget(&src, 160, 300, &opts).unwrap();
    assert_eq!(disc_extent(&out), (120, 120));
}

/// Removing the disc's columns takes it out first.
#[test]
fn remove_mask_goes_first() {
    let src = disc_on_ramp(400, 300, 60.0);
    let mask = disc_mask();
    let opts = Options {
        remove: Some(mask),
        ..Options::default()
    };
    let out = retarget(&src, 270, 300, &opts).unwrap();
    assert_eq!(disc_extent(&out).0, 0, "the removed disc is still there");
}

/// Public pieces used wrongly get errors, not panics.
#[test]
fn misuse_is_an_error() {
    let a = disc_on_ramp(40, 30, 5.0);
    let b = disc_on_ramp(50, 30, 5.0);
    let plan = retarget::plan(&a, 20, 30, &Options::default()).unwrap();
    let err = retarget::render(&b, &plan, 20, 30, &retarget::Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            retarget::RetargetError::PlanMismatch {
                plan_width: 40,
                width: 50,
                ..
            }
        ),
        "{err}"
    );
    assert!(retarget::mesh::Mesh::new(&[1.0; 5], 4, 2, 3, 0.5).is_err());
    assert!(retarget::mesh::Mesh::new(&[], 0, 0, 3, 0.5).is_err());
    assert_eq!(
        retarget::AxisMap::from_widths(&[]).unwrap().inverse(3.0),
        0.0
    );
}
