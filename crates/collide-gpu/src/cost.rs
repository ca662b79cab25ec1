//! The cost model that picks the path for a batch: the GPU's stencil and
//! queries, or the CPU by the same pixel rule (`collide::mask` for
//! sprites, `collide::raster` for meshes). It starts from figures measured
//! on a software and a real GPU; `calibrate_sprite_costs` and
//! `calibrate_mesh_costs` time both paths on this machine (a few small
//! batches), and each batch then goes where its estimate is lower.
//!
//! What the real-GPU figures say it should find: the CPU for unturned
//! sprites and for small shapes few at a time (a submission and a
//! read-back cost more than a bit-mask AND or a small rasterisation), the
//! GPU for turned sprites, many pairs and many triangles.

use std::time::Instant;

use collide::mask::Mask;

use crate::mesh::{MeshId, MeshPair, MeshPlacement};
use crate::sprite_cpu::{boxes_meet, unturned};
use crate::{GpuCollider, GpuError, Pair, Placement, SpriteId};

/// Measured costs, in seconds, of the two paths for meshes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshCosts {
    /// One GPU submission: its start and its read-back.
    pub gpu_batch: f64,
    /// Each pair drawn on the GPU.
    pub gpu_pair: f64,
    /// Each triangle drawn on the GPU.
    pub gpu_triangle: f64,
    /// Each pair on the CPU.
    pub cpu_pair: f64,
    /// Each triangle placed and rasterised on the CPU.
    pub cpu_triangle: f64,
    /// Each pixel of the pair's overlap window rasterised on the CPU.
    pub cpu_pixel: f64,
}

/// The work a batch asks for, as the model counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeshWork {
    /// Pairs whose boxes meet (the others cost nothing on either path).
    pub pairs: f64,
    /// Their triangles, both meshes of each pair.
    pub triangles: f64,
    /// Pixels of their boxes' overlaps.
    pub pixels: f64,
}

impl MeshCosts {
    /// Costs to start from before calibrating: for a software adapter,
    /// lavapipe's on this project's 2-vCPU machine; for a hardware one, a
    /// discrete GPU's (the H200's submission and per-pair figures for
    /// sprites). The CPU side is the 2-vCPU machine's.
    pub fn default_for(software: bool) -> MeshCosts {
        let cpu = MeshCosts {
            gpu_batch: 0.0,
            gpu_pair: 0.0,
            gpu_triangle: 0.0,
            cpu_pair: 20e-6,
            cpu_triangle: 0.7e-6,
            cpu_pixel: 10e-9,
        };
        if software {
            MeshCosts {
                gpu_batch: 400e-6,
                gpu_pair: 60e-6,
                gpu_triangle: 0.24e-6,
                ..cpu
            }
        } else {
            MeshCosts {
                gpu_batch: 180e-6,
                gpu_pair: 4e-6,
                gpu_triangle: 2e-9,
                ..cpu
            }
        }
    }

    /// Estimated seconds on the GPU path.
    pub fn gpu(&self, w: &MeshWork) -> f64 {
        if w.pairs == 0.0 {
            return 0.0;
        }
        self.gpu_batch + self.gpu_pair * w.pairs + self.gpu_triangle * w.triangles
    }

    /// Estimated seconds on the CPU path.
    pub fn cpu(&self, w: &MeshWork) -> f64 {
        self.cpu_pair * w.pairs + self.cpu_triangle * w.triangles + self.cpu_pixel * w.pixels
    }
}

/// Measured costs, in seconds, of the two paths for sprite pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpriteCosts {
    /// One GPU submission: its start and its read-back.
    pub gpu_batch: f64,
    /// Each pair drawn on the GPU.
    pub gpu_pair: f64,
    /// Each candidate of a group test on the GPU (drawn against one
    /// stencil the first sprite wrote once).
    pub gpu_member: f64,
    /// Each pair on the CPU.
    pub cpu_pair: f64,
    /// Each pixel of an unturned pair's boxes' overlap, ANDed on the CPU.
    pub cpu_pixel: f64,
    /// Each pixel of a turned or scaled sprite's box, turned on the CPU
    /// (`Mask::rotated`, which a game pays every frame).
    pub cpu_turned_pixel: f64,
}

/// The work a sprite batch asks for, as the model counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpriteWork {
    /// Pairs whose boxes meet.
    pub pairs: f64,
    /// Pixels of their boxes' overlaps.
    pub pixels: f64,
    /// Pixels of the boxes of their turned or scaled sprites.
    pub turned_pixels: f64,
}

impl SpriteCosts {
    /// Costs to start from before calibrating: for a software adapter,
    /// lavapipe's on this project's 2-vCPU machine; for a hardware one,
    /// the H200's (issue 37's figures: 180 µs a submission, about 5 µs a
    /// pair, 0.3 µs a group's candidate; its host's CPU 0.15 µs an unturned
    /// pair of 32–64 px blobs and 85 µs a turned one).
    pub fn default_for(software: bool) -> SpriteCosts {
        if software {
            SpriteCosts {
                gpu_batch: 610e-6,
                gpu_pair: 70e-6,
                gpu_member: 15e-6,
                cpu_pair: 0.05e-6,
                cpu_pixel: 0.05e-9,
                cpu_turned_pixel: 7e-9,
            }
        } else {
            SpriteCosts {
                gpu_batch: 180e-6,
                gpu_pair: 5e-6,
                gpu_member: 0.3e-6,
                cpu_pair: 0.1e-6,
                cpu_pixel: 0.05e-9,
                cpu_turned_pixel: 11e-9,
            }
        }
    }

    /// Estimated seconds on the GPU path for pairs.
    pub fn gpu(&self, w: &SpriteWork) -> f64 {
        if w.pairs == 0.0 {
            return 0.0;
        }
        self.gpu_batch + self.gpu_pair * w.pairs
    }

    /// Estimated seconds on the GPU path for a group test.
    pub fn gpu_group(&self, w: &SpriteWork) -> f64 {
        if w.pairs == 0.0 {
            return 0.0;
        }
        self.gpu_batch + self.gpu_member * w.pairs
    }

    /// Estimated seconds on the CPU path.
    pub fn cpu(&self, w: &SpriteWork) -> f64 {
        self.cpu_pair * w.pairs
            + self.cpu_pixel * w.pixels
            + self.cpu_turned_pixel * w.turned_pixels
    }
}

/// The best of three runs of `f` after a warm-up (the least disturbed), in
/// seconds.
fn best_time(f: &dyn Fn() -> Result<(), GpuError>) -> Result<f64, GpuError> {
    f()?;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// A star of `spikes` points and radius `r`, as a fan from its centre.
fn star(spikes: u32, r: f32) -> (Vec<[f32; 2]>, Vec<[u32; 3]>) {
    let n = 2 * spikes;
    let mut v = vec![[0.0f32, 0.0]];
    v.extend((0..n).map(|k| {
        let a = k as f32 * std::f32::consts::TAU / n as f32;
        let rr = if k % 2 == 0 { r } else { r * 0.6 };
        [rr * a.cos(), rr * a.sin()]
    }));
    let t = (0..n).map(|k| [0, 1 + k, 1 + (k + 1) % n]).collect();
    (v, t)
}

impl GpuCollider {
    /// The mesh work of a batch: pairs whose boxes meet, their triangles
    /// and their overlap windows.
    pub fn mesh_work(&self, pairs: &[MeshPair]) -> Result<MeshWork, GpuError> {
        let mut w = MeshWork::default();
        for (index, p) in pairs.iter().enumerate() {
            let (ba, ta) = self.mesh_box(index, p.a, p.at_a)?;
            let (bb, tb) = self.mesh_box(index, p.b, p.at_b)?;
            let (dx, dy) = (
                ba[2].min(bb[2]) - ba[0].max(bb[0]),
                ba[3].min(bb[3]) - ba[1].max(bb[1]),
            );
            if dx > 0.0 && dy > 0.0 {
                w.pairs += 1.0;
                w.triangles += (ta + tb) as f64;
                w.pixels += dx * dy;
            }
        }
        Ok(w)
    }

    /// The costs the choice uses: [`GpuCollider::calibrate_mesh_costs`]'s
    /// if it ran, else [`MeshCosts::default_for`] this adapter.
    pub fn mesh_costs(&self) -> MeshCosts {
        self.mesh_costs
    }

    /// Sets the costs (from an earlier calibration, say).
    pub fn set_mesh_costs(&mut self, costs: MeshCosts) {
        self.mesh_costs = costs;
    }

    /// Times both paths on three small workloads (few and many triangles;
    /// small and large shapes) and one single pair, solves for the model's
    /// coefficients and keeps them. Takes about two seconds on a software
    /// adapter, a fraction of that on a real GPU.
    ///
    /// # Errors
    /// As the tests it runs.
    pub fn calibrate_mesh_costs(&mut self) -> Result<MeshCosts, GpuError> {
        let kept = self.meshes.len();
        let costs = self.time_mesh_paths();
        // The calibration's meshes go again; ids given out stay valid.
        self.meshes.truncate(kept);
        self.mesh_costs = costs?;
        Ok(self.mesh_costs)
    }

    fn time_mesh_paths(&mut self) -> Result<MeshCosts, GpuError> {
        let shapes = [(8u32, 40.0f32), (512, 40.0), (8, 80.0)];
        let mut ids = Vec::new();
        for (spikes, r) in shapes {
            let (v, t) = star(spikes, r);
            ids.push(self.add_mesh(&v, &t)?);
        }
        let batch = |id: MeshId, n: usize| -> Vec<MeshPair> {
            (0..n)
                .map(|k| MeshPair {
                    a: id,
                    at_a: MeshPlacement::at(100.0, 100.0),
                    b: id,
                    at_b: MeshPlacement {
                        angle: k as f32 * 0.1,
                        ..MeshPlacement::at(105.0, 103.0)
                    },
                })
                .collect()
        };
        let n = 128;
        let mut gpu = Vec::new();
        let mut cpu = Vec::new();
        let mut work = Vec::new();
        for &id in &ids {
            let pairs = batch(id, n);
            work.push(self.mesh_work(&pairs)?);
            gpu.push(best_time(&|| self.test_mesh_pairs_gpu(&pairs).map(|_| ()))?);
            cpu.push(best_time(&|| self.test_mesh_pairs_cpu(&pairs).map(|_| ()))?);
        }
        let single = batch(ids[0], 1);
        let gpu_single = best_time(&|| self.test_mesh_pairs_gpu(&single).map(|_| ()))?;
        // Per pair: a + b·triangles (+ c·pixels on the CPU), from the three
        // workloads (same pairs; triangles or pixels changed one at a time).
        let per = |t: f64, w: &MeshWork| t / w.pairs.max(1.0);
        let tri = |w: &MeshWork| w.triangles / w.pairs.max(1.0);
        let px = |w: &MeshWork| w.pixels / w.pairs.max(1.0);
        let slope = |t0: f64, t1: f64, x0: f64, x1: f64| ((t1 - t0) / (x1 - x0).max(1e-9)).max(0.0);
        let gpu_triangle = slope(
            per(gpu[0], &work[0]),
            per(gpu[1], &work[1]),
            tri(&work[0]),
            tri(&work[1]),
        );
        let cpu_triangle = slope(
            per(cpu[0], &work[0]),
            per(cpu[1], &work[1]),
            tri(&work[0]),
            tri(&work[1]),
        );
        let cpu_pixel = slope(
            per(cpu[0], &work[0]),
            per(cpu[2], &work[2]),
            px(&work[0]),
            px(&work[2]),
        );
        let gpu_pair = (per(gpu[0], &work[0]) - gpu_triangle * tri(&work[0])).max(0.0);
        let cpu_pair =
            (per(cpu[0], &work[0]) - cpu_triangle * tri(&work[0]) - cpu_pixel * px(&work[0]))
                .max(0.0);
        let gpu_batch = (gpu_single - gpu_pair - gpu_triangle * tri(&work[0])).max(0.0);
        Ok(MeshCosts {
            gpu_batch,
            gpu_pair,
            gpu_triangle,
            cpu_pair,
            cpu_triangle,
            cpu_pixel,
        })
    }
}

impl GpuCollider {
    /// The work of a batch of sprite pairs: pairs whose boxes meet, their
    /// overlaps, and the boxes of their turned sprites.
    pub fn sprite_work(&self, pairs: &[Pair]) -> Result<SpriteWork, GpuError> {
        let mut w = SpriteWork::default();
        for (index, p) in pairs.iter().enumerate() {
            let (_, ba) = self.draw(index, p.a, p.at_a)?;
            let (_, bb) = self.draw(index, p.b, p.at_b)?;
            add_sprite_work(&mut w, (ba, p.at_a), (bb, p.at_b), true);
        }
        Ok(w)
    }

    /// The work of one sprite against many ([`GpuCollider::test_group`]):
    /// the first is turned once.
    pub fn group_work(
        &self,
        first: SpriteId,
        at: Placement,
        others: &[(SpriteId, Placement)],
    ) -> Result<SpriteWork, GpuError> {
        let (_, b0) = self.draw(0, first, at)?;
        let mut w = SpriteWork::default();
        for (k, &(id, p)) in others.iter().enumerate() {
            let (_, b) = self.draw(k, id, p)?;
            add_sprite_work(&mut w, (b0, at), (b, p), false);
        }
        if w.pairs > 0.0 && !unturned(at) {
            w.turned_pixels += area(b0);
        }
        Ok(w)
    }

    /// The costs the choice for sprites uses:
    /// [`GpuCollider::calibrate_sprite_costs`]'s if it ran, else
    /// [`SpriteCosts::default_for`] this adapter.
    pub fn sprite_costs(&self) -> SpriteCosts {
        self.sprite_costs
    }

    /// Sets the sprite costs (from an earlier calibration, say).
    pub fn set_sprite_costs(&mut self, costs: SpriteCosts) {
        self.sprite_costs = costs;
    }

    /// Times both paths on small and large unturned sprites, turned ones
    /// and one single pair, solves for the model's coefficients and keeps
    /// them. Well under a second on a software adapter.
    ///
    /// # Errors
    /// As the tests it runs.
    pub fn calibrate_sprite_costs(&mut self) -> Result<SpriteCosts, GpuError> {
        let kept = self.sprites.len();
        let costs = self.time_sprite_paths();
        // The calibration's sprites go again; ids given out stay valid.
        self.sprites.truncate(kept);
        self.sprite_costs = costs?;
        Ok(self.sprite_costs)
    }

    fn time_sprite_paths(&mut self) -> Result<SpriteCosts, GpuError> {
        let full = |side: usize| Mask::full(side, side).map_err(|e| GpuError::Mask(e.to_string()));
        // Sizes that fit any target: a pair spans 1.25 sprites.
        let big = (self.side / 3).clamp(8, 128) as i32;
        let little = (big / 4).max(4);
        let small = self.add_sprite(&full(little as usize)?)?;
        let large = self.add_sprite(&full(big as usize)?)?;
        let batch = |id: SpriteId, side: i32, n: usize, turned: bool| -> Vec<Pair> {
            (0..n)
                .map(|k| Pair {
                    a: id,
                    at_a: Placement::at(100, 100),
                    b: id,
                    at_b: Placement {
                        angle: if turned { 0.3 + k as f32 * 0.01 } else { 0.0 },
                        ..Placement::at(100 + side / 4, 100 + side / 8)
                    },
                })
                .collect()
        };
        let n = 128;
        let workloads = [
            batch(small, little, n, false),
            batch(large, big, n, false),
            batch(small, little, n, true),
        ];
        let mut cpu = Vec::new();
        let mut work = Vec::new();
        for pairs in &workloads {
            work.push(self.sprite_work(pairs)?);
            cpu.push(best_time(&|| self.test_pairs_cpu(pairs).map(|_| ()))?);
        }
        let gpu_many = best_time(&|| self.test_pairs_gpu(&workloads[0]).map(|_| ()))?;
        let members: Vec<(SpriteId, Placement)> =
            workloads[0].iter().map(|p| (p.b, p.at_b)).collect();
        let gpu_group = best_time(&|| {
            self.test_group_on(
                small,
                Placement::at(100, 100),
                &members,
                crate::PathChoice::Gpu,
            )
            .map(|_| ())
        })?;
        let single = batch(small, little, 1, false);
        let gpu_single = best_time(&|| self.test_pairs_gpu(&single).map(|_| ()))?;
        let gpu_pair = ((gpu_many - gpu_single) / (n - 1) as f64).max(0.0);
        let gpu_batch = (gpu_single - gpu_pair).max(0.0);
        let gpu_member = ((gpu_group - gpu_batch) / n as f64).max(0.0);
        // Per pair: a + b·overlap pixels (+ c·turned pixels).
        let per = |t: f64, w: &SpriteWork| t / w.pairs.max(1.0);
        let px = |w: &SpriteWork| w.pixels / w.pairs.max(1.0);
        let cpu_pixel = ((per(cpu[1], &work[1]) - per(cpu[0], &work[0]))
            / (px(&work[1]) - px(&work[0])).max(1e-9))
        .max(0.0);
        let cpu_pair = (per(cpu[0], &work[0]) - cpu_pixel * px(&work[0])).max(0.0);
        let turned = work[2].turned_pixels / work[2].pairs.max(1.0);
        let cpu_turned_pixel = ((per(cpu[2], &work[2]) - cpu_pair - cpu_pixel * px(&work[2]))
            / turned.max(1e-9))
        .max(0.0);
        Ok(SpriteCosts {
            gpu_batch,
            gpu_pair,
            gpu_member,
            cpu_pair,
            cpu_pixel,
            cpu_turned_pixel,
        })
    }
}

/// A pixel box's area.
fn area(b: [i64; 4]) -> f64 {
    ((b[2] - b[0]).max(0) * (b[3] - b[1]).max(0)) as f64
}

/// Adds one pair's work, if its boxes meet (`turn_first`: the first
/// sprite's turn counts too; a group turns it once).
fn add_sprite_work(
    w: &mut SpriteWork,
    (ba, pa): ([i64; 4], Placement),
    (bb, pb): ([i64; 4], Placement),
    turn_first: bool,
) {
    if !boxes_meet(ba, bb) {
        return;
    }
    w.pairs += 1.0;
    let overlap = [
        ba[0].max(bb[0]),
        ba[1].max(bb[1]),
        ba[2].min(bb[2]),
        ba[3].min(bb[3]),
    ];
    w.pixels += area(overlap);
    if turn_first && !unturned(pa) {
        w.turned_pixels += area(ba);
    }
    if !unturned(pb) {
        w.turned_pixels += area(bb);
    }
}

#[cfg(test)]
mod tests {
    use super::{SpriteCosts, SpriteWork};

    /// With the H200's figures the model makes the choices those figures
    /// call for (issue 37): the CPU for unturned sprites, the GPU for
    /// turned ones and for one player against many bullets. The works are
    /// the benchmark's: 10,000 pairs of 32–64 px blobs (about 1,000
    /// pixels of overlap each; turned and scaled, about 3,900 pixels a
    /// sprite's box).
    #[test]
    fn real_gpu_figures_choose_as_measured() {
        let costs = SpriteCosts::default_for(false);
        let unturned = SpriteWork {
            pairs: 1e4,
            pixels: 1e7,
            turned_pixels: 0.0,
        };
        assert!(costs.cpu(&unturned) < costs.gpu(&unturned));
        let turned = SpriteWork {
            turned_pixels: 2.0 * 3900.0 * 1e4,
            ..unturned
        };
        assert!(costs.gpu(&turned) < costs.cpu(&turned));
        let bullets = SpriteWork {
            turned_pixels: 3900.0 * 1e4,
            ..unturned
        };
        assert!(costs.gpu_group(&bullets) < costs.cpu(&bullets));
        // One turned pair alone: a submission costs more than turning two
        // small masks.
        let one = SpriteWork {
            pairs: 1.0,
            pixels: 1000.0,
            turned_pixels: 2.0 * 3900.0,
        };
        assert!(costs.cpu(&one) < costs.gpu(&one));
        // Nothing meets: nothing to pay on either path.
        assert_eq!(costs.gpu(&SpriteWork::default()), 0.0);
        assert_eq!(costs.cpu(&SpriteWork::default()), 0.0);
    }
}
