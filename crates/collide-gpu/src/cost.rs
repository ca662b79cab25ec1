//! The cost model that picks the path for a batch of mesh pairs: the GPU's
//! stencil and queries, or `collide::raster` on the CPU. Both paths are
//! timed on this machine the first time a choice is needed (a few small
//! batches), and each batch then goes where its estimate is lower.
//!
//! What the real-GPU figures say it should find: the CPU for small shapes
//! few at a time (a submission and a read-back cost more than a small
//! rasterisation), the GPU for many pairs and many triangles.

use std::time::Instant;

use crate::mesh::{MeshId, MeshPair, MeshPlacement};
use crate::{GpuCollider, GpuError};

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
        // The best of three runs after a warm-up: the least disturbed.
        let time = |f: &dyn Fn() -> Result<(), GpuError>| -> Result<f64, GpuError> {
            f()?;
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t = Instant::now();
                f()?;
                best = best.min(t.elapsed().as_secs_f64());
            }
            Ok(best)
        };
        let n = 128;
        let mut gpu = Vec::new();
        let mut cpu = Vec::new();
        let mut work = Vec::new();
        for &id in &ids {
            let pairs = batch(id, n);
            work.push(self.mesh_work(&pairs)?);
            gpu.push(time(&|| self.test_mesh_pairs_gpu(&pairs).map(|_| ()))?);
            cpu.push(time(&|| self.test_mesh_pairs_cpu(&pairs).map(|_| ()))?);
        }
        let single = batch(ids[0], 1);
        let gpu_single = time(&|| self.test_mesh_pairs_gpu(&single).map(|_| ()))?;
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
