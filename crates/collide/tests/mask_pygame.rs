#![allow(clippy::unwrap_used, clippy::expect_used)]
//! collide's masks against pygame-ce's, bit for bit, on 10⁴ random cases
//! (`MASK_CASES` for more). The cases come from seeds through SplitMix64 on
//! both sides (`tests/reference/pygame_masks.py`), so only pygame's answers
//! cross over. Result masks are compared by count, by overlap area with a
//! random probe mask, and by the first overlap point with it.
//!
//! The Python side needs pygame-ce and numpy (the test command installs them
//! into `target/py-venv`). Without them the test prints why it skipped, and
//! fails when `REQUIRE_PY_REFERENCE=1`.

use std::path::PathBuf;
use std::process::Command;

use collide::mask::Mask;
use serde_json::Value;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const EDGE_WIDTHS: [usize; 11] = [1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193];

fn size(rng: &mut Rng) -> (usize, usize) {
    let w = if rng.below(4) == 0 {
        EDGE_WIDTHS[rng.below(EDGE_WIDTHS.len() as u64) as usize]
    } else {
        1 + rng.below(300) as usize
    };
    (w, 1 + rng.below(90) as usize)
}

fn word(rng: &mut Rng, kind: u64) -> u64 {
    match kind {
        0 => rng.next(),
        1 => rng.next() & rng.next(),
        2 => rng.next() & rng.next() & rng.next() & rng.next(),
        3 => rng.next() | rng.next(),
        4 => (0..6).fold(!0, |w, _| w & rng.next()),
        5 => 0,
        _ => !0,
    }
}

fn gen_mask(rng: &mut Rng, w: usize, h: usize, kind: u64) -> Mask {
    let stripes = w.div_ceil(64);
    let mut words = vec![0u64; stripes * h];
    for s in 0..stripes {
        for y in 0..h {
            words[s * h + y] = word(rng, kind);
        }
    }
    Mask::from_fn(w, h, |x, y| words[(x / 64) * h + y] >> (x % 64) & 1 == 1).unwrap()
}

fn probe(m: &Mask, p: &Mask) -> Value {
    let hit = m
        .overlap(p, 0, 0)
        .map(|(x, y)| vec![x, y])
        .unwrap_or_default();
    serde_json::json!([m.count(), m.overlap_area(p, 0, 0), hit])
}

fn ours(i: u64) -> serde_json::Map<String, Value> {
    let mut rng = Rng(i);
    let (wa, ha) = size(&mut rng);
    let (wb, hb) = size(&mut rng);
    let ka = rng.below(7);
    let a = gen_mask(&mut rng, wa, ha, ka);
    let kb = rng.below(7);
    let b = gen_mask(&mut rng, wb, hb, kb);
    let dx = rng.below((wa + wb + 10) as u64) as i64 - wb as i64 - 5;
    let dy = rng.below((ha + hb + 10) as u64) as i64 - hb as i64 - 5;
    let (sw, sh) = (
        1 + rng.below(2 * wa as u64) as usize,
        1 + rng.below(2 * ha as u64) as usize,
    );
    let pa = gen_mask(&mut rng, wa, ha, 0);
    let ps = gen_mask(&mut rng, sw, sh, 0);
    let mut out = serde_json::Map::new();
    out.insert("i".into(), i.into());
    out.insert(
        "overlap".into(),
        a.overlap(&b, dx, dy)
            .map_or(Value::Null, |(x, y)| serde_json::json!([x, y])),
    );
    out.insert("area".into(), a.overlap_area(&b, dx, dy).into());
    out.insert(
        "overlap_mask".into(),
        probe(&a.overlap_mask(&b, dx, dy).unwrap(), &pa),
    );
    let mut d = a.clone();
    d.draw(&b, dx, dy);
    out.insert("draw".into(), probe(&d, &pa));
    let mut e = a.clone();
    e.erase(&b, dx, dy);
    out.insert("erase".into(), probe(&e, &pa));
    let mut v = a.clone();
    v.invert();
    out.insert("invert".into(), probe(&v, &pa));
    out.insert("scale".into(), probe(&a.scale(sw, sh).unwrap(), &ps));
    if wa > 1 {
        let mut rects: Vec<Vec<usize>> = a
            .bounding_rects()
            .unwrap()
            .iter()
            .map(|r| vec![r.x, r.y, r.w, r.h])
            .collect();
        rects.sort();
        out.insert("rects".into(), serde_json::json!(rects));
        let mut sizes: Vec<u64> = a
            .connected_components(0)
            .unwrap()
            .iter()
            .map(Mask::count)
            .collect();
        sizes.sort_unstable();
        out.insert("components".into(), serde_json::json!(sizes));
    }
    out
}

fn python() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("COLLIDE_PYTHON") {
        return Some(p.into());
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/py-venv/bin/python");
    venv.exists().then_some(venv)
}

#[test]
fn masks_match_pygame_ce() {
    let cases: u64 = std::env::var("MASK_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference/pygame_masks.py");
    let required = std::env::var("REQUIRE_PY_REFERENCE").as_deref() == Ok("1");
    let output = python().and_then(|py| {
        Command::new(py)
            .arg(&script)
            .args(["--cases", &cases.to_string()])
            .output()
            .ok()
    });
    let output = match output {
        Some(o) if o.status.success() => o,
        other => {
            let why = match other {
                Some(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                None => "no Python found (set COLLIDE_PYTHON, or run ./scripts/test.sh, which makes target/py-venv)".into(),
            };
            assert!(
                !required,
                "REQUIRE_PY_REFERENCE=1 but pygame-ce could not run: {why}"
            );
            eprintln!("SKIPPED: the pygame-ce mask comparison: {why}");
            return;
        }
    };
    let text = String::from_utf8(output.stdout).unwrap();
    let mut checked = 0;
    for line in text.lines() {
        let theirs: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
        let i = theirs["i"].as_u64().unwrap();
        let mine = ours(i);
        for (key, value) in &theirs {
            assert_eq!(
                mine.get(key),
                Some(value),
                "case {i}, {key}: ours {:?}, pygame-ce {value}",
                mine.get(key)
            );
        }
        assert_eq!(mine.len(), theirs.len(), "case {i}: different fields");
        checked += 1;
    }
    assert_eq!(
        checked, cases,
        "pygame-ce answered {checked} of {cases} cases"
    );
    eprintln!("{checked} cases agree with pygame-ce");
}
