//! liblqr, the seam carver behind ImageMagick's `-liquid-rescale`, loaded at
//! run time (Debian package `liblqr-1-0`, which `imagemagick` pulls in), so
//! that the report can carve with a second layer attached: each pixel's
//! source column. That gives the exact forward map of a black box.

use std::ffi::{c_int, c_void};

use anyhow::{Context, Result, bail};
use libloading::{Library, Symbol};

type Carver = c_void;
const LQR_OK: c_int = 1;
const COLDEPTH_8I: c_int = 0;
const COLDEPTH_16I: c_int = 1;

unsafe extern "C" {
    // liblqr frees the buffers it is given with g_free, which is free()
    // since GLib 2.46: so they must come from malloc.
    fn malloc(size: usize) -> *mut c_void;
}

/// The loaded library.
pub struct Lqr {
    lib: Library,
}

/// A carve's result: the pixels and, per output pixel, its source column.
pub struct Carved {
    /// Output width.
    pub width: u32,
    /// Output height.
    pub height: u32,
    /// Interleaved samples, `channels` per pixel.
    pub pixels: Vec<u8>,
    /// Source column of each output pixel, row by row.
    pub source_x: Vec<u16>,
}

impl Lqr {
    /// Loads liblqr, or says which package holds it.
    pub fn load() -> Result<Lqr> {
        // SAFETY: loading a well-known system library whose initialisers have
        // no preconditions.
        let lib = unsafe { Library::new("liblqr-1.so.0") }
            .context("liblqr-1.so.0 not found: install it with `apt-get install liblqr-1-0` (imagemagick pulls it in)")?;
        Ok(Lqr { lib })
    }

    fn copy_to_malloc<T: Copy>(data: &[T]) -> Result<*mut c_void> {
        let bytes = std::mem::size_of_val(data);
        // SAFETY: malloc of a non-zero size; the copy stays within both buffers.
        unsafe {
            let p = malloc(bytes.max(1));
            if p.is_null() {
                bail!("malloc of {bytes} bytes failed");
            }
            std::ptr::copy_nonoverlapping(data.as_ptr().cast::<u8>(), p.cast::<u8>(), bytes);
            Ok(p)
        }
    }

    /// Carves an 8-bit image to `new_width` columns with ImageMagick's
    /// command-line settings (delta_x = 1, rigidity = 0).
    pub fn carve(
        &self,
        pixels: &[u8],
        width: u32,
        height: u32,
        channels: u8,
        new_width: u32,
    ) -> Result<Carved> {
        type New = unsafe extern "C" fn(*mut c_void, c_int, c_int, c_int, c_int) -> *mut Carver;
        type Init = unsafe extern "C" fn(*mut Carver, c_int, f32) -> c_int;
        type Attach = unsafe extern "C" fn(*mut Carver, *mut Carver) -> c_int;
        type Resize = unsafe extern "C" fn(*mut Carver, c_int, c_int) -> c_int;
        type Reset = unsafe extern "C" fn(*mut Carver);
        type Scan =
            unsafe extern "C" fn(*mut Carver, *mut c_int, *mut c_int, *mut *mut c_void) -> c_int;
        type Dim = unsafe extern "C" fn(*mut Carver) -> c_int;
        type Destroy = unsafe extern "C" fn(*mut Carver);
        // SAFETY: the signatures are liblqr 0.4's (lqr_carver.h); every
        // carver is created, used and destroyed here, buffers come from
        // malloc and are owned by liblqr once passed.
        unsafe {
            let new: Symbol<New> = self.lib.get(b"lqr_carver_new_ext\0")?;
            let init: Symbol<Init> = self.lib.get(b"lqr_carver_init\0")?;
            let attach: Symbol<Attach> = self.lib.get(b"lqr_carver_attach\0")?;
            let resize: Symbol<Resize> = self.lib.get(b"lqr_carver_resize\0")?;
            let reset: Symbol<Reset> = self.lib.get(b"lqr_carver_scan_reset\0")?;
            let scan: Symbol<Scan> = self.lib.get(b"lqr_carver_scan_ext\0")?;
            let get_w: Symbol<Dim> = self.lib.get(b"lqr_carver_get_width\0")?;
            let get_h: Symbol<Dim> = self.lib.get(b"lqr_carver_get_height\0")?;
            let destroy: Symbol<Destroy> = self.lib.get(b"lqr_carver_destroy\0")?;

            let (w, h) = (width as c_int, height as c_int);
            let carver = new(
                Self::copy_to_malloc(pixels)?,
                w,
                h,
                c_int::from(channels),
                COLDEPTH_8I,
            );
            let xs: Vec<u16> = (0..height).flat_map(|_| 0..width as u16).collect();
            let aux = new(Self::copy_to_malloc(&xs)?, w, h, 1, COLDEPTH_16I);
            if carver.is_null() || aux.is_null() {
                bail!("lqr_carver_new_ext failed");
            }
            let ok = init(carver, 1, 0.0) == LQR_OK
                && attach(carver, aux) == LQR_OK
                && resize(carver, new_width as c_int, h) == LQR_OK;
            if !ok {
                destroy(carver);
                bail!("liblqr could not carve {width}x{height} to width {new_width}");
            }
            let (ow, oh) = (get_w(carver) as u32, get_h(carver) as u32);
            let c = usize::from(channels);
            let mut out = vec![0u8; ow as usize * oh as usize * c];
            let mut source_x = vec![0u16; ow as usize * oh as usize];
            let (mut x, mut y, mut px) = (0, 0, std::ptr::null_mut());
            reset(carver);
            while scan(carver, &mut x, &mut y, &mut px) != 0 {
                let i = y as usize * ow as usize + x as usize;
                std::ptr::copy_nonoverlapping(px.cast::<u8>(), out[i * c..].as_mut_ptr(), c);
            }
            reset(aux);
            while scan(aux, &mut x, &mut y, &mut px) != 0 {
                source_x[y as usize * ow as usize + x as usize] = *px.cast::<u16>();
            }
            // Destroying the root carver destroys the attached one too.
            destroy(carver);
            Ok(Carved {
                width: ow,
                height: oh,
                pixels: out,
                source_x,
            })
        }
    }
}
