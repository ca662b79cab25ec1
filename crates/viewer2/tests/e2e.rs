#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The real binary under Xvfb: `viewer2 --catalog C DIR --screenshot P`
//! opens the window on a folder of generated photos, indexes it in the
//! background, paints the thumbnails and saves a screenshot; and, under a
//! window manager (openbox), the window on nested folders takes key
//! presses sent through the X server (XTEST): the folder tree, full screen
//! and quitting. Without Xvfb (or openbox) these are skipped, unless
//! REQUIRE_GPU=1 (CI), where they fail.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod photos;

fn find_in_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// An X server of its own, killed when dropped.
struct Xvfb(Child, String);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_xvfb(xvfb: &Path) -> Xvfb {
    // `-displayfd 1`: the server picks a free display and prints its
    // number once it accepts connections.
    let mut child = Command::new(xvfb)
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let display = format!(":{}", line.trim());
    assert!(line.trim().parse::<u32>().is_ok(), "Xvfb said {line:?}");
    Xvfb(child, display)
}

#[test]
fn the_binary_opens_a_folder_and_paints_it() {
    let Some(xvfb) = find_in_path("Xvfb") else {
        if std::env::var("REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("Xvfb is missing (Debian package xvfb), and REQUIRE_GPU=1");
        }
        eprintln!("SKIPPED the end-to-end window test: no Xvfb (Debian package xvfb)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("photos");
    std::fs::create_dir_all(folder.join("Holiday")).unwrap();
    for k in 0..30u32 {
        let mut img = photos::picture(480 + 8 * k, 360);
        for p in img.pixels_mut() {
            p.0[(k % 3) as usize] = p.0[(k % 3) as usize].wrapping_add((k * 37) as u8);
        }
        let name = format!("Holiday/Beach_{k:02}.jpg");
        std::fs::write(folder.join(name), photos::jpeg(&img, 85)).unwrap();
    }
    std::fs::write(folder.join("broken.jpg"), b"not a photo").unwrap();
    let runtime = dir.path().join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let x = start_xvfb(&xvfb);
    let shot = dir.path().join("shot.png");
    let cat = dir.path().join("cat.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_viewer2"))
        .arg("--catalog")
        .arg(&cat)
        .arg(&folder)
        .arg("--screenshot")
        .arg(&shot)
        .env("DISPLAY", &x.1)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", &runtime)
        // The thumbnail cache goes here, not in the user's.
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("viewer2 did not finish in 3 minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.success(), "viewer2 failed: {stderr}");
    let img = image::open(&shot)
        .unwrap_or_else(|e| panic!("no screenshot ({e}): {stderr}"))
        .to_rgba8();
    assert_eq!((img.width(), img.height()), (1280, 800));
    // Painted thumbnails, not an empty window: many colours.
    let colours: std::collections::HashSet<[u8; 4]> = img.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 2000, "only {} colours", colours.len());
    // The folder is in the catalogue.
    let c = catalog::Catalog::open(&cat).unwrap();
    assert_eq!(c.len().unwrap(), 31);
    // Kept for a look (the README's screenshot comes from the same run).
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("viewer2-e2e.png");
    let _ = std::fs::copy(&shot, keep);
}

/// A child process killed when dropped (a window manager, the viewer).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The X server as the test sees it: keys through XTEST, pixels and window
/// state read back.
struct X {
    conn: x11rb::rust_connection::RustConnection,
    root: u32,
}

impl X {
    fn atom(&self, name: &str) -> u32 {
        use x11rb::protocol::xproto::ConnectionExt as _;
        self.conn
            .intern_atom(false, name.as_bytes())
            .unwrap()
            .reply()
            .unwrap()
            .atom
    }

    /// A 32-bit list property (atoms, windows), empty when unset.
    fn list(&self, window: u32, property: &str) -> Vec<u32> {
        use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
        let reply = self
            .conn
            .get_property(false, window, self.atom(property), AtomEnum::ANY, 0, 1024)
            .unwrap()
            .reply();
        match reply {
            Ok(r) => r.value32().map(|v| v.collect()).unwrap_or_default(),
            Err(_) => Vec::new(),
        }
    }

    fn name(&self, window: u32) -> String {
        use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
        let utf8 = self.atom("UTF8_STRING");
        let net = self.atom("_NET_WM_NAME");
        for (property, kind) in [
            (net, utf8),
            (AtomEnum::WM_NAME.into(), AtomEnum::STRING.into()),
        ] {
            if let Ok(r) = self
                .conn
                .get_property(false, window, property, kind, 0, 256)
                .unwrap()
                .reply()
                && !r.value.is_empty()
            {
                return String::from_utf8_lossy(&r.value).into_owned();
            }
        }
        String::new()
    }

    /// The window's place and size on the screen.
    fn geometry(&self, window: u32) -> (i16, i16, u16, u16) {
        use x11rb::protocol::xproto::ConnectionExt as _;
        let g = self.conn.get_geometry(window).unwrap().reply().unwrap();
        let at = self
            .conn
            .translate_coordinates(window, self.root, 0, 0)
            .unwrap()
            .reply()
            .unwrap();
        (at.dst_x, at.dst_y, g.width, g.height)
    }

    /// The screen's pixels in a rectangle, as `[b, g, r, x]`.
    fn grab(&self, (x, y, w, h): (i16, i16, u16, u16)) -> Vec<[u8; 4]> {
        use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};
        let image = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.root, x, y, w, h, !0)
            .unwrap()
            .reply()
            .unwrap();
        image
            .data
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect()
    }

    fn keycode(&self, keysym: u32) -> u8 {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xproto::ConnectionExt as _;
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let map = self
            .conn
            .get_keyboard_mapping(min, max - min + 1)
            .unwrap()
            .reply()
            .unwrap();
        let per = map.keysyms_per_keycode as usize;
        let k = map
            .keysyms
            .chunks(per)
            .position(|syms| syms.contains(&keysym))
            .unwrap_or_else(|| panic!("no key for keysym {keysym:#x}"));
        min + k as u8
    }

    /// Presses and releases keys, the first ones held while the last goes
    /// down (`[Control_L, q]` is Ctrl+Q), as a keyboard would.
    fn press(&self, keysyms: &[u32]) {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xtest::ConnectionExt as _;
        let codes: Vec<u8> = keysyms.iter().map(|&k| self.keycode(k)).collect();
        for &c in &codes {
            self.conn
                .xtest_fake_input(2, c, 0, self.root, 0, 0, 0)
                .unwrap();
        }
        for &c in codes.iter().rev() {
            self.conn
                .xtest_fake_input(3, c, 0, self.root, 0, 0, 0)
                .unwrap();
        }
        self.conn.flush().unwrap();
    }

    /// Moves the pointer to a point of the screen.
    fn point_at(&self, x: i16, y: i16) {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xtest::ConnectionExt as _;
        self.conn
            .xtest_fake_input(6, 0, 0, self.root, x, y, 0)
            .unwrap();
        self.conn.flush().unwrap();
    }
}

thread_local! {
    /// A log whose end a timed-out wait shows (the program's stderr).
    static WAIT_LOG: std::cell::RefCell<Option<PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// Waits up to `limit` for `ready` to give something; on timeout, fails
/// with the end of [`WAIT_LOG`].
fn wait_for<T>(limit: Duration, what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = ready() {
            return t;
        }
        if start.elapsed() >= limit {
            let log = WAIT_LOG
                .with(|l| l.borrow().clone())
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            panic!(
                "{what}: not in {limit:?}; the program's last words:\n{}",
                tail.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The part of a rectangle on the 1280 × 800 screen (a window manager may
/// place a window partly off it).
fn on_screen((x, y, w, h): (i16, i16, u16, u16)) -> (i16, i16, u16, u16) {
    let (x0, y0) = (x.max(0), y.max(0));
    let x1 = (i32::from(x) + i32::from(w)).min(1280);
    let y1 = (i32::from(y) + i32::from(h)).min(800);
    (
        x0,
        y0,
        (x1 - i32::from(x0)).max(1) as u16,
        (y1 - i32::from(y0)).max(1) as u16,
    )
}

fn colours(pixels: &[[u8; 4]]) -> usize {
    pixels
        .iter()
        .map(|p| [p[0], p[1], p[2]])
        .collect::<std::collections::HashSet<_>>()
        .len()
}

/// How many pixels of a column band (`x` from `from` to `to` of each row
/// of width `w`) differ between two grabs.
fn band_differs(a: &[[u8; 4]], b: &[[u8; 4]], w: usize, from: usize, to: usize) -> usize {
    a.chunks(w)
        .zip(b.chunks(w))
        .map(|(ra, rb)| {
            ra[from..to]
                .iter()
                .zip(&rb[from..to])
                .filter(|(p, q)| p[..3] != q[..3])
                .count()
        })
        .sum()
}

/// The real binary on a nested folder, under a real window manager
/// (openbox), driven by key presses through the X server as a person's
/// keyboard would: F9 turns the side panel to the folder tree and back,
/// F11 makes the window cover the screen (the window manager's full-screen
/// state) and back, and Ctrl+Q quits.
#[test]
fn keys_reach_the_window_folder_tree_and_full_screen() {
    let required = std::env::var("REQUIRE_GPU").as_deref() == Ok("1");
    let (Some(xvfb), Some(openbox)) = (find_in_path("Xvfb"), find_in_path("openbox")) else {
        if required {
            panic!("Xvfb or openbox is missing (Debian packages xvfb, openbox), and REQUIRE_GPU=1");
        }
        eprintln!(
            "SKIPPED the window-manager test: no Xvfb or openbox (Debian packages xvfb, openbox)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("Pictures");
    for (k, sub) in [
        "2019/06 Holiday Rome",
        "2019/06 Holiday Rome/day 2",
        "2019/08 Beach",
        "2020/Été",
    ]
    .iter()
    .enumerate()
    {
        std::fs::create_dir_all(folder.join(sub)).unwrap();
        for j in 0..6u32 {
            let n = k as u32 * 6 + j;
            let mut img = photos::picture(400 + 8 * n, 300);
            for p in img.pixels_mut() {
                p.0[(n % 3) as usize] = p.0[(n % 3) as usize].wrapping_add((n * 37) as u8);
            }
            let name = format!("{sub}/IMG_{n:04}.jpg");
            std::fs::write(folder.join(name), photos::jpeg(&img, 85)).unwrap();
        }
    }
    let runtime = dir.path().join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let server = start_xvfb(&xvfb);
    let (conn, screen) = x11rb::connect(Some(&server.1)).unwrap();
    let root = {
        use x11rb::connection::Connection as _;
        conn.setup().roots[screen].root
    };
    let x = X { conn, root };
    let _wm = Killed(
        Command::new(openbox)
            .arg("--sm-disable")
            .env("DISPLAY", &server.1)
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for(Duration::from_secs(20), "the window manager", || {
        (!x.list(root, "_NET_SUPPORTING_WM_CHECK").is_empty()).then_some(())
    });
    let cat = dir.path().join("cat.sqlite");
    // What the viewer said goes with any wait that times out.
    let viewer_log = dir.path().join("viewer2.log");
    WAIT_LOG.with(|l| *l.borrow_mut() = Some(viewer_log.clone()));
    let mut viewer = Killed(
        Command::new(env!("CARGO_BIN_EXE_viewer2"))
            .arg("--catalog")
            .arg(&cat)
            .arg(&folder)
            .env("DISPLAY", &server.1)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&viewer_log).unwrap())
            .spawn()
            .unwrap(),
    );
    let window = wait_for(Duration::from_secs(60), "the viewer's window", || {
        if let Ok(Some(status)) = viewer.0.try_wait() {
            let log = std::fs::read_to_string(&viewer_log).unwrap_or_default();
            panic!("the viewer ended before its window showed ({status}):\n{log}");
        }
        x.list(root, "_NET_CLIENT_LIST")
            .into_iter()
            .find(|&w| x.name(w) == "viewer2")
    });
    // Painted: the thumbnails are in.
    let area = x.geometry(window);
    wait_for(Duration::from_secs(120), "the thumbnails", || {
        (colours(&x.grab(on_screen(x.geometry(window)))) > 2000).then_some(())
    });
    let (wx, wy, ww, wh) = on_screen(x.geometry(window));
    // The pointer over the grid's foot, then a still screen: every
    // thumbnail in, nothing moving.
    x.point_at(wx + ww as i16 / 2, wy + wh as i16 - 40);
    let still = |what: &str| {
        let mut last = x.grab((wx, wy, ww, wh));
        wait_for(Duration::from_secs(60), what, || {
            std::thread::sleep(Duration::from_millis(700));
            let now = x.grab((wx, wy, ww, wh));
            let same = now == last;
            last = now;
            same.then(|| last.clone())
        })
    };
    still("a still window");
    let keep = |name: &str, pixels: &[[u8; 4]], (w, h): (u16, u16)| {
        let rgba: Vec<u8> = pixels
            .iter()
            .flat_map(|p| [p[2], p[1], p[0], 255])
            .collect();
        let img = image::RgbaImage::from_raw(w as u32, h as u32, rgba).unwrap();
        img.save(Path::new(env!("CARGO_TARGET_TMPDIR")).join(name))
            .unwrap();
    };
    let shot = (wx, wy, ww, wh);
    let tags = still("a still window");
    keep("viewer2-wm-tags.png", &tags, (ww, wh));
    const F9: u32 = 0xffc6;
    const F11: u32 = 0xffc8;
    let w = ww as usize;
    // The side panel is the window's left 230 points.
    x.press(&[F9]);
    let tree = wait_for(Duration::from_secs(10), "the folder tree after F9", || {
        let now = x.grab(shot);
        (band_differs(&tags, &now, w, 0, 230) > 500).then_some(now)
    });
    let _ = tree;
    let tree = still("a still window with the folder tree");
    keep("viewer2-wm-folders.png", &tree, (ww, wh));
    // Only the side panel changed.
    assert!(
        band_differs(&tags, &tree, w, 260, w - 260) < 200,
        "F9 changed more than the side panel"
    );
    x.press(&[F9]);
    wait_for(Duration::from_secs(10), "the tags back after F9", || {
        (band_differs(&tags, &x.grab(shot), w, 0, 230) < 200).then_some(())
    });
    // Full screen: the window manager's state, the whole screen.
    let fullscreen = x.atom("_NET_WM_STATE_FULLSCREEN");
    assert!(!x.list(window, "_NET_WM_STATE").contains(&fullscreen));
    assert_ne!(
        area,
        (0, 0, 1280, 800),
        "the window already covers the screen"
    );
    x.press(&[F11]);
    wait_for(Duration::from_secs(10), "full screen after F11", || {
        (x.list(window, "_NET_WM_STATE").contains(&fullscreen)
            && x.geometry(window) == (0, 0, 1280, 800))
            .then_some(())
    });
    std::thread::sleep(Duration::from_millis(800));
    keep(
        "viewer2-wm-full-screen.png",
        &x.grab((0, 0, 1280, 800)),
        (1280, 800),
    );
    x.press(&[F11]);
    wait_for(Duration::from_secs(10), "a window again after F11", || {
        (!x.list(window, "_NET_WM_STATE").contains(&fullscreen)).then_some(())
    });
    // Ctrl+Q closes it, promptly and cleanly.
    const CONTROL_L: u32 = 0xffe3;
    const Q: u32 = 0x71;
    let asked = Instant::now();
    x.press(&[CONTROL_L, Q]);
    let status = wait_for(
        Duration::from_secs(10),
        "the window to close after Ctrl+Q",
        || viewer.0.try_wait().unwrap(),
    );
    assert!(status.success(), "viewer2 exited with {status}");
    eprintln!("Ctrl+Q to exit: {:?}", asked.elapsed());
    // The nested folders are in the catalogue.
    let c = catalog::Catalog::open(&cat).unwrap();
    assert_eq!(c.len().unwrap(), 24);
}
