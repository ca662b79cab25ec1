//! Thumbnails shared with other programs through the freedesktop.org
//! thumbnail specification: PNGs in `$XDG_CACHE_HOME/thumbnails/large`
//! (256 px; `normal` for 128, `x-large` for 512, `xx-large` for 1024),
//! named by the MD5 of the file's URI, carrying `Thumb::URI` and
//! `Thumb::MTime` (and here `Thumb::Size` and the image's size). A
//! thumbnail is used only when its URI, time and (if given) size match the
//! file, so an edited photo is made again, by us or by the file manager.
//! Writes go to a temporary file in the same folder, then are renamed:
//! another program never reads half a PNG.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use crate::cache::{CacheError, Key, ThumbStore};
use crate::thumbnail::{Source, Thumbnail};

/// The shared thumbnail folders.
pub struct FreedesktopCache {
    root: PathBuf,
}

impl FreedesktopCache {
    /// The cache under `root` (normally `$XDG_CACHE_HOME/thumbnails`,
    /// see [`FreedesktopCache::default_root`]).
    pub fn new(root: PathBuf) -> FreedesktopCache {
        FreedesktopCache { root }
    }

    /// `$XDG_CACHE_HOME/thumbnails`, or `~/.cache/thumbnails`.
    pub fn default_root() -> Option<PathBuf> {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(cache.join("thumbnails"))
    }

    /// The folder for thumbnails of `size` pixels.
    fn folder(&self, size: u32) -> PathBuf {
        let name = match size {
            0..=128 => "normal",
            129..=256 => "large",
            257..=512 => "x-large",
            _ => "xx-large",
        };
        self.root.join(name)
    }

    /// Where the thumbnail of the file at `path` lives.
    pub fn path_for(&self, path: &[u8], size: u32) -> PathBuf {
        let digest = md5::compute(file_uri(path).as_bytes());
        self.folder(size).join(format!("{digest:x}.png"))
    }
}

/// The `file://` URI of an absolute path, escaped as GLib's
/// `g_filename_to_uri` does (every byte but the unreserved characters and
/// `!$&'()*+,;=:@/` as `%XX`), so the name matches other programs'.
pub fn file_uri(path: &[u8]) -> String {
    let mut uri = String::from("file://");
    for &b in path {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The text chunks of a PNG, before its image data.
fn text_chunks(png: &[u8]) -> Option<Vec<(String, String)>> {
    let reader = png::Decoder::new(Cursor::new(png)).read_info().ok()?;
    Some(
        reader
            .info()
            .uncompressed_latin1_text
            .iter()
            .map(|t| (t.keyword.clone(), t.text.clone()))
            .collect(),
    )
}

impl ThumbStore for FreedesktopCache {
    fn get(&mut self, key: &Key) -> Option<Thumbnail> {
        let bytes = std::fs::read(self.path_for(&key.path, key.thumb)).ok()?;
        let text = text_chunks(&bytes)?;
        let field = |name: &str| {
            text.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if field("Thumb::URI")? != file_uri(&key.path) {
            return None;
        }
        if field("Thumb::MTime")?.parse::<i64>().ok()? != key.mtime_ns.div_euclid(1_000_000_000) {
            return None;
        }
        if let Some(size) = field("Thumb::Size")
            && size.parse::<u64>().ok()? != key.size
        {
            return None;
        }
        let img = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
            .ok()?
            .into_rgba8();
        let (width, height) = img.dimensions();
        // Another program's thumbnail may be smaller than asked: still a
        // thumbnail, the grid scales it.
        let dim = |name| field(name).and_then(|v| v.parse::<u32>().ok());
        let full_size = match (dim("Thumb::Image::Width"), dim("Thumb::Image::Height")) {
            (Some(w), Some(h)) => (w, h),
            _ => (width, height),
        };
        Some(Thumbnail {
            width,
            height,
            rgba: img.into_raw(),
            source: Source::Cached,
            full_size,
            problem: None,
        })
    }

    fn put(&mut self, key: &Key, thumb: &Thumbnail) -> Result<(), CacheError> {
        let target = self.path_for(&key.path, key.thumb);
        let folder = self.folder(key.thumb);
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| CacheError::Io { path, source }
        };
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
        #[cfg(unix)]
        {
            // The spec: thumbnail folders are private.
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&self.root, std::fs::Permissions::from_mode(0o700));
            let _ = std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700));
        }
        let mut png_bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut png_bytes, thumb.width, thumb.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let encode = |e: png::EncodingError| CacheError::Encode(e.to_string());
            for (k, v) in [
                ("Thumb::URI", file_uri(&key.path)),
                (
                    "Thumb::MTime",
                    key.mtime_ns.div_euclid(1_000_000_000).to_string(),
                ),
                ("Thumb::Size", key.size.to_string()),
                ("Thumb::Image::Width", thumb.full_size.0.to_string()),
                ("Thumb::Image::Height", thumb.full_size.1.to_string()),
                ("Software", "viewer2".to_owned()),
            ] {
                enc.add_text_chunk(k.to_owned(), v).map_err(encode)?;
            }
            let mut writer = enc.write_header().map_err(encode)?;
            writer.write_image_data(&thumb.rgba).map_err(encode)?;
        }
        // A temporary name in the same folder, then a rename: readers see
        // the old file or the whole new one.
        let temp = folder.join(format!(
            ".viewer2-{}-{:?}.png.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&temp, &png_bytes).map_err(io(&temp))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o600));
        }
        std::fs::rename(&temp, &target).map_err(io(&target))?;
        Ok(())
    }
}
