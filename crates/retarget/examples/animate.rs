//! Animates the width: one energy computation, then a plan per frame. Every
//! pixel moves one way only as the width shrinks (see `warp`), so nothing
//! pops. Writes an animated GIF and a PNG strip of a few frames.
//!
//! `cargo run --release -p retarget --example animate -- IN.png [OUT.gif]`
//! (without IN, a generated picture).

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use anyhow::{Context, Result};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};
use retarget::io::{self, AnyRaster};
use retarget::{Limits, Options, Raster};

fn generated() -> Raster<u8> {
    let (w, h) = (480u32, 300u32);
    let mut d = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (f64::from(x), f64::from(y));
            let disc = ((fx - 150.0).powi(2) + (fy - 150.0).powi(2)).sqrt() < 70.0;
            let square = (300.0..380.0).contains(&fx) && (110.0..190.0).contains(&fy);
            let sky = (140.0 + 60.0 * fy / 300.0) as u8;
            let px = if disc {
                [220, 60, 50, 255]
            } else if square {
                [40, 90, 200, 255]
            } else {
                [sky, sky, 230, 255]
            };
            d.extend_from_slice(&px);
        }
    }
    Raster::from_vec(w, h, 4, d).unwrap_or_else(|_| unreachable!("sized above"))
}

fn rgba(r: &Raster<u8>) -> Vec<u8> {
    let c = usize::from(r.channels());
    r.as_slice()
        .chunks_exact(c)
        .flat_map(|p| match c {
            1 => [p[0], p[0], p[0], 255],
            2 => [p[0], p[0], p[0], p[1]],
            3 => [p[0], p[1], p[2], 255],
            _ => [p[0], p[1], p[2], p[3]],
        })
        .collect()
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let src = match args.next() {
        Some(p) => match io::read(&PathBuf::from(&p), &Limits::default())?.raster {
            AnyRaster::U8(r) => r,
            AnyRaster::U16(_) => anyhow::bail!("{p}: use an 8-bit image"),
        },
        None => generated(),
    };
    let out = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "target/retarget-animation.gif".into()),
    );
    let (w, h) = (src.width(), src.height());
    let opts = Options::default();
    let profiles = retarget::energy::profiles(&src, &opts.energy)?;
    let frames = 40u32;
    let widths: Vec<u32> = (0..=frames)
        .chain((0..frames).rev())
        .map(|i| w - (f64::from(w) * 0.6 * f64::from(i) / f64::from(frames)).round() as u32)
        .collect();
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut gif = GifEncoder::new_with_speed(
        BufWriter::new(File::create(&out).with_context(|| out.display().to_string())?),
        10,
    );
    gif.set_repeat(Repeat::Infinite)?;
    let mut strip: Vec<Raster<u8>> = Vec::new();
    for (k, &tw) in widths.iter().enumerate() {
        let plan = retarget::plan_from_profiles(&profiles, tw, h, &opts)?;
        let img = retarget::render(&src, &plan, tw, h, &opts.limits)?;
        // Left-aligned on a full-width canvas.
        let mut canvas = RgbaImage::from_pixel(w, h, image::Rgba([30, 30, 30, 255]));
        let px = rgba(&img);
        for y in 0..h {
            for x in 0..tw {
                let i = ((y * tw + x) * 4) as usize;
                canvas.put_pixel(x, y, image::Rgba([px[i], px[i + 1], px[i + 2], px[i + 3]]));
            }
        }
        gif.encode_frame(Frame::from_parts(
            canvas,
            0,
            0,
            Delay::from_numer_denom_ms(50, 1),
        ))?;
        if k <= frames as usize && k % 10 == 0 {
            strip.push(img);
        }
    }
    drop(gif);
    // The strip: every tenth frame of the shrinking half, side by side.
    let gap = 8;
    let sw: u32 = strip.iter().map(|r| r.width() + gap).sum::<u32>() - gap;
    let mut data = vec![30u8; (sw * h * 4) as usize];
    let mut x0 = 0;
    for r in &strip {
        let px = rgba(r);
        for y in 0..h {
            let row = &px[(y * r.width() * 4) as usize..((y + 1) * r.width() * 4) as usize];
            let at = ((y * sw + x0) * 4) as usize;
            data[at..at + row.len()].copy_from_slice(row);
        }
        x0 += r.width() + gap;
    }
    let strip_path = out.with_extension("png");
    io::write(
        &strip_path,
        &AnyRaster::U8(Raster::from_vec(sw, h, 4, data)?),
        None,
        None,
    )?;
    println!(
        "wrote {} ({} frames) and {}",
        out.display(),
        widths.len(),
        strip_path.display()
    );
    Ok(())
}
