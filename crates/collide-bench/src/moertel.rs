//! Moertel's own experiment, replayed: his timing table with today's
//! figures beside his 1994 ones, his duplicate reports, and his 20× analysis
//! of four shifts against the 9-sector method, measured.

use collide::moertel::{self, CRand, RESULTS_1994, run_experiment};
use collide::{AdjacentSectors, BroadPhase, Grid, SectorMode, Sectors};

use crate::workloads::Rng;

pub struct TableRow {
    pub objects: usize,
    pub his_68040: f64,
    pub his_ppc601: f64,
    /// (method, checks per second today).
    pub today: Vec<(&'static str, f64)>,
}

/// His table, today.
pub fn table(seconds: f64) -> anyhow::Result<Vec<TableRow>> {
    let mut rows = Vec::new();
    for &(n, m68k, ppc) in &RESULTS_1994 {
        let mut today = Vec::new();
        let mut methods: [(&'static str, Box<dyn BroadPhase>); 3] = [
            (
                "sectors-raw",
                Box::new(Sectors::new(moertel::SECTOR_SIZE, SectorMode::Raw)?),
            ),
            (
                "sectors-exact",
                Box::new(Sectors::new(moertel::SECTOR_SIZE, SectorMode::Exact)?),
            ),
            ("grid", Box::new(Grid::new())),
        ];
        for (name, bp) in &mut methods {
            let e = run_experiment(bp.as_mut(), n, seconds, &mut CRand::new(1994))?;
            today.push((*name, e.checks_per_second()));
        }
        rows.push(TableRow {
            objects: n,
            his_68040: m68k,
            his_ppc601: ppc,
            today,
        });
    }
    Ok(rows)
}

/// Raw reports against distinct collisions at 200 objects, over many worlds.
pub struct Duplicates {
    pub worlds: usize,
    pub collisions: u64,
    pub raw_reports: u64,
    pub raw_tests: u64,
    pub exact_tests: u64,
    pub coincident_reports: usize,
}

pub fn duplicates(worlds: usize) -> anyhow::Result<Duplicates> {
    let mut rng = CRand::new(1);
    let mut raw = Sectors::new(moertel::SECTOR_SIZE, SectorMode::Raw)?;
    let mut exact = Sectors::new(moertel::SECTOR_SIZE, SectorMode::Exact)?;
    let mut d = Duplicates {
        worlds,
        collisions: 0,
        raw_reports: 0,
        raw_tests: 0,
        exact_tests: 0,
        coincident_reports: 0,
    };
    let mut out = Vec::new();
    for _ in 0..worlds {
        let boxes = moertel::random_sprites(&mut rng, 200);
        out.clear();
        raw.find_pairs(&boxes, &mut out)?;
        d.raw_reports += out.len() as u64;
        d.raw_tests += raw.last_stats().tests;
        out.clear();
        exact.find_pairs(&boxes, &mut out)?;
        d.collisions += out.len() as u64;
        d.exact_tests += exact.last_stats().tests;
    }
    let b = moertel::sprite(100, 100);
    out.clear();
    raw.find_pairs(&[b, b], &mut out)?;
    d.coincident_reports = out.len();
    Ok(d)
}

/// One row of the four-shifts / adjacent-sectors comparison.
pub struct AnalysisRow {
    /// Objects per sector on average.
    pub k: f64,
    pub shifts_tests_per_sector: f64,
    pub adjacent_tests_per_sector: f64,
    /// His formulas: 2K(K-1) and (81K² - 9K)/2.
    pub his_shifts: f64,
    pub his_adjacent: f64,
}

/// 30×30 sprites uniformly over a 64×64-sector world (4,096 px a side), K
/// per sector on average; tests counted by both methods.
pub fn analysis(ks: &[f64]) -> anyhow::Result<Vec<AnalysisRow>> {
    const SECTORS_PER_SIDE: f64 = 64.0;
    let side = SECTORS_PER_SIDE * 64.0;
    let sectors = SECTORS_PER_SIDE * SECTORS_PER_SIDE;
    let mut rows = Vec::new();
    let mut out = Vec::new();
    for &k in ks {
        let n = (k * sectors).round() as usize;
        let mut rng = Rng::new(k.to_bits());
        let boxes: Vec<collide::Aabb> = (0..n)
            .map(|_| {
                let x = (rng.unit() * (side - 1.0)).floor() as i32;
                let y = (rng.unit() * (side - 1.0)).floor() as i32;
                moertel::sprite(x, y)
            })
            .collect();
        let mut raw = Sectors::new(64.0, SectorMode::Raw)?;
        out.clear();
        raw.find_pairs(&boxes, &mut out)?;
        let mut adj = AdjacentSectors::new(64.0)?;
        out.clear();
        adj.find_pairs(&boxes, &mut out)?;
        rows.push(AnalysisRow {
            k,
            shifts_tests_per_sector: raw.last_stats().tests as f64 / sectors,
            adjacent_tests_per_sector: adj.last_stats().tests as f64 / sectors,
            his_shifts: 2.0 * k * (k - 1.0),
            his_adjacent: (81.0 * k * k - 9.0 * k) / 2.0,
        });
    }
    Ok(rows)
}
