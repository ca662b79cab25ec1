//! Tom Moertel's 1994 experiment, run today.
//!
//! ```text
//! cargo run --release -p collide --example sectors [-- --seconds 1 --out moertel-sectors.png]
//! ```
//!
//! Times his four-shift sector method (as he wrote it, and exact), and the
//! default `Grid`, on 0, 50, 100 and 200 random 30×30 sprites on a 640×480
//! screen, prints his 1994 table beside today's figures, and draws the last
//! check at 200 objects as he did: sprites in a collision outlined in
//! black, the others painted with a 50% grey dither.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use collide::moertel::{self, CRand, Experiment, RESULTS_1994};
use collide::{BroadPhase, Grid, Pair, SectorMode, Sectors};

struct Options {
    seconds: f64,
    out: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        seconds: 1.0,
        out: PathBuf::from("moertel-sectors.png"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => {
                let v = args.next().ok_or("--seconds needs a number")?;
                o.seconds = v
                    .parse()
                    .map_err(|_| format!("--seconds: not a number: {v:?}"))?;
            }
            "--out" => o.out = args.next().ok_or("--out needs a path")?.into(),
            "-h" | "--help" => {
                println!("usage: sectors [--seconds S (per cell, default 1)] [--out FILE.png]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(o)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let opts = options()?;
    println!("Collision testing... (Moertel 1994: 30×30 sprites, 640×480 screen, 64-px sectors)");
    println!("full checks per second:");
    println!(
        "{:>8} {:>11} {:>11} │ {:>13} {:>13} {:>13} │ {:>9}",
        "objects", "68040 1994", "PPC 1994", "his method", "exact", "Grid", "his/PPC"
    );
    let mut last: Option<Experiment> = None;
    for &(n, m68k, ppc) in &RESULTS_1994 {
        let mut raw = Sectors::new(moertel::SECTOR_SIZE, SectorMode::Raw)?;
        let mut exact = Sectors::new(moertel::SECTOR_SIZE, SectorMode::Exact)?;
        let mut grid = Grid::new();
        let r = moertel::run_experiment(&mut raw, n, opts.seconds, &mut CRand::new(1994))?;
        let e = moertel::run_experiment(&mut exact, n, opts.seconds, &mut CRand::new(1994))?;
        let g = moertel::run_experiment(&mut grid, n, opts.seconds, &mut CRand::new(1994))?;
        println!(
            "{:>8} {:>11.0} {:>11.0} │ {:>13.0} {:>13.0} {:>13.0} │ {:>8.0}×",
            n,
            m68k,
            ppc,
            r.checks_per_second(),
            e.checks_per_second(),
            g.checks_per_second(),
            r.checks_per_second() / ppc
        );
        if n == 200 {
            last = Some(r);
        }
    }
    let Some(last) = last else {
        return Err("no 200-object experiment ran".into());
    };

    // The duplicates he warned about, on the drawn world.
    let mut raw_pairs: Vec<Pair> = Vec::new();
    Sectors::new(moertel::SECTOR_SIZE, SectorMode::Raw)?.find_pairs(&last.last, &mut raw_pairs)?;
    let mut exact_pairs: Vec<Pair> = Vec::new();
    Grid::new().find_pairs(&last.last, &mut exact_pairs)?;
    let colliding = last.collided.iter().filter(|&&c| c).count();
    println!();
    println!(
        "last check at 200 objects: {} collisions, reported {} times by his method ({:.2}× each); \
         {} objects in a collision",
        exact_pairs.len(),
        raw_pairs.len(),
        raw_pairs.len() as f64 / exact_pairs.len().max(1) as f64,
        colliding
    );

    draw(&last, &opts.out)?;
    println!("drew it as he did: {}", opts.out.display());
    Ok(())
}

/// His `_ShowLastIteration`: white screen; a sprite in a collision is a
/// black `FrameRect`, any other a `PaintRect` in his grey pattern
/// (0xaa, 0x55: a checkerboard).
fn draw(e: &Experiment, path: &PathBuf) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (
        moertel::SCREEN_WIDTH as usize,
        moertel::SCREEN_HEIGHT as usize,
    );
    let mut px = vec![255u8; w * h];
    for (b, &hit) in e.last.iter().zip(&e.collided) {
        let (x0, y0) = (b.min().x as usize, b.min().y as usize);
        let (x1, y1) = (
            (b.max().x as usize).min(w - 1),
            (b.max().y as usize).min(h - 1),
        );
        for y in y0..=y1 {
            for x in x0..=x1 {
                let edge = x == x0 || x == x1 || y == y0 || y == y1;
                if hit {
                    if edge {
                        px[y * w + x] = 0;
                    }
                } else if (x + y) % 2 == 0 {
                    px[y * w + x] = 0;
                } else {
                    px[y * w + x] = 255;
                }
            }
        }
    }
    let file =
        File::create(path).map_err(|err| format!("cannot create {}: {err}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header()?;
    writer.write_image_data(&px)?;
    Ok(())
}
