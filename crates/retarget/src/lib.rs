//! Content-aware image resizing by accumulated energy.
//!
//! Three modes share one idea, from a 2009 blog post (see the crate's
//! README): give each part of the image a slope proportional to its energy,
//! look at it from an angle θ, and flat (dull) parts shrink while steep
//! (detailed) parts keep their size.
//!
//! - [`Mode::Separable`] (the default): one energy profile per column and per
//!   row; the output is exactly rectangular, straight axis-aligned lines stay
//!   straight, and the map is monotone. θ is picked in closed form per target
//!   ([`warp`]).
//! - [`Mode::Mesh`]: the seed's method as written: a 2-D summed-area table as
//!   the height of a mesh, rotated and drawn by a depth-tested software
//!   rasteriser ([`mesh`]).
//! - [`Mode::Parallax`]: the same surface as one quad with a per-pixel
//!   height-map lookup, as the seed suggests for a fragment shader.
//!
//! ```
//! use retarget::{Options, Raster, retarget};
//! let src = Raster::<u8>::from_vec(4, 2, 1, vec![0, 0, 255, 0, 0, 0, 255, 0]).unwrap();
//! let out = retarget(&src, 2, 2, &Options::default()).unwrap();
//! assert_eq!((out.width(), out.height()), (2, 2));
//! ```

pub mod coords;
pub mod energy;
mod error;
pub mod mesh;
pub mod raster;
pub mod resample;
pub mod warp;

#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "io")]
pub mod io;

pub use coords::Coords;
pub use energy::{EnergyOptions, Profiles};
pub use error::RetargetError;
pub use raster::{Limits, Mask, Raster, Sample};
pub use warp::{AxisMap, BlendOptions};

/// Which method resizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Per-axis energy profiles: rectangular output, straight lines, monotone.
    #[default]
    Separable,
    /// The seed's rotated mesh (2-D summed-area table), software-rasterised.
    Mesh,
    /// The seed's surface as a single quad with a height-map lookup.
    Parallax,
}

impl Mode {
    /// The mode's name, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Separable => "separable",
            Mode::Mesh => "mesh",
            Mode::Parallax => "parallax",
        }
    }
}

/// The peak memory of a resize, in bytes, from what was measured per mode
/// (the crate's README): the source and the result, plus per source pixel
/// about 1 byte in the separable mode (its energy planes are a sixteenth
/// of the image, and its two passes go down the image in one band), 20
/// bytes plus 12 per output pixel in the mesh mode (the full-resolution
/// energy, the surface's heights, and a depth and two coordinates per
/// output pixel), and 24 in the parallax mode; then a quarter of the
/// source again (the decoder's row buffers and the allocator's slack,
/// which grow with the sample size) and 16 MiB for the program itself. A
/// bound, a little above what `retarget-bench memory` measures.
pub fn peak_memory(
    mode: Mode,
    (width, height): (u32, u32),
    channels: u8,
    bytes_per_sample: u8,
    (target_width, target_height): (u32, u32),
) -> u64 {
    let src = u64::from(width) * u64::from(height);
    let dst = u64::from(target_width) * u64::from(target_height);
    let per = u64::from(channels) * u64::from(bytes_per_sample);
    let images = (src + dst) * per;
    let work = match mode {
        Mode::Separable => src,
        Mode::Mesh => 20 * src + 12 * dst,
        Mode::Parallax => 24 * src,
    };
    images
        .saturating_add(work)
        .saturating_add(src * per / 4)
        .saturating_add(16 << 20)
}

/// What a resize may take by default: three quarters of the memory the
/// system says is available (Linux's `MemAvailable`), or 4 GiB where it
/// does not say.
pub fn default_memory_limit() -> u64 {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    available.map_or(4 << 30, |a| a / 4 * 3)
}

/// Everything that steers a resize.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The method.
    pub mode: Mode,
    /// How energy is computed.
    pub energy: EnergyOptions,
    /// Separable mode: how much of the allowed content-awareness to use, 0
    /// (uniform scaling) to 1 (the default).
    pub strength: f64,
    /// Mesh and parallax modes: the mesh's total height over its width (the
    /// seed's slope scale). `None` picks [`mesh::default_k`].
    pub k: Option<f64>,
    /// Pixels to keep at full size where the target allows.
    pub protect: Option<Mask>,
    /// Pixels to take away first when shrinking.
    pub remove: Option<Mask>,
    /// Largest images and targets accepted.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Separable,
            energy: EnergyOptions::default(),
            strength: 1.0,
            k: None,
            protect: None,
            remove: None,
            limits: Limits::default(),
        }
    }
}

impl Options {
    fn check<S: Sample>(
        &self,
        src: &Raster<S>,
        width: u32,
        height: u32,
    ) -> Result<(), RetargetError> {
        self.limits
            .check("source", u64::from(src.width()), u64::from(src.height()))?;
        self.limits
            .check("target", u64::from(width), u64::from(height))?;
        self.energy.check()?;
        if !(0.0..=1.0).contains(&self.strength) {
            return Err(RetargetError::BadOption {
                name: "strength",
                value: self.strength,
                range: "[0, 1]",
            });
        }
        for (which, mask) in [("protect", &self.protect), ("remove", &self.remove)] {
            if let Some(m) = mask {
                m.check_size(which, src.width(), src.height())?;
            }
        }
        Ok(())
    }
}

/// The separable mode's two axis maps.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Where each source column lands.
    pub x: AxisMap,
    /// Where each source row lands.
    pub y: AxisMap,
}

impl Plan {
    /// Checks that the plan was made for a `width × height` source.
    pub fn check(&self, width: u32, height: u32) -> Result<(), RetargetError> {
        let (pw, ph) = (self.x.source_len() as u64, self.y.source_len() as u64);
        if pw != u64::from(width) || ph != u64::from(height) {
            return Err(RetargetError::PlanMismatch {
                plan_width: pw,
                plan_height: ph,
                width,
                height,
            });
        }
        Ok(())
    }
}

/// Works out the separable maps for a `width × height` target (the costly
/// part is the energy; [`plan_from_profiles`] reuses it across targets).
pub fn plan<S: Sample>(
    src: &Raster<S>,
    width: u32,
    height: u32,
    opts: &Options,
) -> Result<Plan, RetargetError> {
    opts.check(src, width, height)?;
    let profiles = energy::profiles(src, &opts.energy)?;
    plan_from_profiles(&profiles, width, height, opts)
}

/// The separable maps from energy profiles already computed.
pub fn plan_from_profiles(
    profiles: &Profiles,
    width: u32,
    height: u32,
    opts: &Options,
) -> Result<Plan, RetargetError> {
    let blend = BlendOptions {
        strength: opts.strength,
        floor: f64::from(opts.energy.floor),
    };
    let cols = |m: &Option<Mask>| m.as_ref().map(Mask::columns).unwrap_or_default();
    let rows = |m: &Option<Mask>| m.as_ref().map(Mask::rows).unwrap_or_default();
    let x = if width as usize == profiles.columns.len() && opts.remove.is_none() {
        AxisMap::identity(profiles.columns.len())?
    } else {
        warp::separable_map(
            &profiles.columns,
            &cols(&opts.protect),
            &cols(&opts.remove),
            width,
            &blend,
        )?
    };
    let y = if height as usize == profiles.rows.len() && opts.remove.is_none() {
        AxisMap::identity(profiles.rows.len())?
    } else {
        warp::separable_map(
            &profiles.rows,
            &rows(&opts.protect),
            &rows(&opts.remove),
            height,
            &blend,
        )?
    };
    Ok(Plan { x, y })
}

/// Draws `src` through a separable plan into `width × height`.
pub fn render<S: Sample>(
    src: &Raster<S>,
    plan: &Plan,
    width: u32,
    height: u32,
    limits: &Limits,
) -> Result<Raster<S>, RetargetError> {
    limits.check("target", u64::from(width), u64::from(height))?;
    plan.check(src.width(), src.height())?;
    let across = resample::taps(&plan.x, width as usize)?;
    let rows_unmoved = plan
        .y
        .edges()
        .iter()
        .enumerate()
        .all(|(i, &e)| e == i as f64);
    if height == src.height() && rows_unmoved {
        return resample::resample_width(src, &across, limits);
    }
    let down = resample::taps(&plan.y, height as usize)?;
    resample::resample(src, &across, &down, limits)
}

/// Resizes `src` to `width × height`.
pub fn retarget<S: Sample>(
    src: &Raster<S>,
    width: u32,
    height: u32,
    opts: &Options,
) -> Result<Raster<S>, RetargetError> {
    opts.check(src, width, height)?;
    match opts.mode {
        Mode::Separable => {
            let p = plan(src, width, height, opts)?;
            render(src, &p, width, height, &opts.limits)
        }
        Mode::Mesh | Mode::Parallax => mesh_retarget(src, width, height, opts),
    }
}

/// The source coordinates the mesh or parallax mode gives for a width-only
/// resize (what the tests compare between the two).
pub fn mesh_coords<S: Sample>(
    src: &Raster<S>,
    width: u32,
    opts: &Options,
) -> Result<Coords, RetargetError> {
    opts.check(src, width, src.height())?;
    let energy = masked_energy(
        src,
        opts.protect.as_ref(),
        opts.remove.as_ref(),
        &opts.energy,
    )?;
    let k = opts
        .k
        .unwrap_or_else(|| mesh::default_k(src.width(), width));
    let m = mesh::Mesh::new(&energy, src.width(), src.height(), width, k)?;
    match opts.mode {
        Mode::Parallax => mesh::parallax(&m, &opts.limits),
        _ => mesh::rasterise(&m, &opts.limits),
    }
}

/// The energy map with protected pixels raised well above the rest and
/// removed ones set to zero.
fn masked_energy<S: Sample>(
    src: &Raster<S>,
    protect: Option<&Mask>,
    remove: Option<&Mask>,
    opts: &EnergyOptions,
) -> Result<Vec<f32>, RetargetError> {
    let mut e = energy::energy_map(src, opts)?;
    let w = src.width() as usize;
    let high = 10.0 * e.iter().copied().fold(1.0f32, f32::max);
    for (i, v) in e.iter_mut().enumerate() {
        let (x, y) = ((i % w) as u32, (i / w) as u32);
        if protect.is_some_and(|m| m.get(x, y)) {
            *v = high;
        } else if remove.is_some_and(|m| m.get(x, y)) {
            *v = 0.0;
        }
    }
    Ok(e)
}

/// A mask carried through the coordinates of a pass (nearest pixel).
fn warp_mask(mask: &Mask, coords: &Coords) -> Result<Mask, RetargetError> {
    let bits = coords
        .u
        .iter()
        .zip(&coords.v)
        .map(|(&u, &v)| {
            !u.is_nan()
                && mask.get(
                    (u.max(0.0) as u32).min(mask.width() - 1),
                    (v.max(0.0) as u32).min(mask.height() - 1),
                )
        })
        .collect();
    Mask::from_vec(coords.width, coords.height, bits)
}

fn transpose_mask(mask: &Mask) -> Result<Mask, RetargetError> {
    let (w, h) = (mask.width(), mask.height());
    let mut bits = Vec::new();
    bits.try_reserve_exact(w as usize * h as usize)
        .map_err(|_| RetargetError::OutOfMemory {
            what: "mask",
            bytes: u64::from(w) * u64::from(h),
        })?;
    for x in 0..w {
        for y in 0..h {
            bits.push(mask.get(x, y));
        }
    }
    Mask::from_vec(h, w, bits)
}

/// Mesh and parallax: a width pass (rotation about Y), then a height pass
/// (rotation about X) done as a width pass on the transposed result; masks
/// follow the image through the first pass.
fn mesh_retarget<S: Sample>(
    src: &Raster<S>,
    width: u32,
    height: u32,
    opts: &Options,
) -> Result<Raster<S>, RetargetError> {
    let mut img = src.clone();
    let mut protect = opts.protect.clone();
    let mut remove = opts.remove.clone();
    if width != src.width() {
        let coords = mesh_coords(
            &img,
            width,
            &Options {
                protect: protect.clone(),
                remove: remove.clone(),
                ..opts.clone()
            },
        )?;
        img = coords::sample(&img, &coords, &opts.limits)?;
        protect = protect.map(|m| warp_mask(&m, &coords)).transpose()?;
        remove = remove.map(|m| warp_mask(&m, &coords)).transpose()?;
    }
    if height != src.height() {
        let t = coords::transpose(&img, &opts.limits)?;
        let pass = Options {
            protect: protect.as_ref().map(transpose_mask).transpose()?,
            remove: remove.as_ref().map(transpose_mask).transpose()?,
            ..opts.clone()
        };
        let coords = mesh_coords(&t, height, &pass).map_err(|e| match e {
            RetargetError::OutOfReach {
                target,
                mode,
                min,
                max,
                ..
            } => RetargetError::OutOfReach {
                axis: "height",
                target,
                mode,
                min,
                max,
            },
            other => other,
        })?;
        img = coords::transpose(&coords::sample(&t, &coords, &opts.limits)?, &opts.limits)?;
    }
    Ok(img)
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
