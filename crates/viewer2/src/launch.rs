//! Handing things to the desktop: a link to the browser, a photo to its
//! default application, a file to the file manager (selected there, through
//! the freedesktop `org.freedesktop.FileManager1` D-Bus interface that
//! Nautilus, Dolphin, Nemo and Thunar implement; its folder opened where
//! that is missing).
//!
//! The window reaches the desktop through [`Launch`], so tests record what
//! would have been opened instead of starting programs.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// What the window asks of the desktop.
pub trait Launch: Send + Sync {
    /// Opens a web address in the browser.
    fn open_url(&self, url: &str) -> std::io::Result<()>;
    /// Opens a file with its default application.
    fn open_file(&self, path: &Path) -> std::io::Result<()>;
    /// Shows a file in the file manager, selected.
    fn show_in_folder(&self, path: &Path) -> std::io::Result<()>;
}

/// The real desktop.
pub struct Desktop;

impl Launch for Desktop {
    fn open_url(&self, url: &str) -> std::io::Result<()> {
        open::that_detached(url)
    }

    fn open_file(&self, path: &Path) -> std::io::Result<()> {
        open::that_detached(path)
    }

    fn show_in_folder(&self, path: &Path) -> std::io::Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let uri = crate::freedesktop::file_uri(path.as_os_str().as_bytes());
        let asked = Command::new("dbus-send")
            .args([
                "--session",
                "--dest=org.freedesktop.FileManager1",
                "--type=method_call",
                "/org/freedesktop/FileManager1",
                "org.freedesktop.FileManager1.ShowItems",
                &format!("array:string:{uri}"),
                "string:",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match asked {
            Ok(s) if s.success() => Ok(()),
            // No D-Bus or no file manager that answers: open the folder.
            _ => match path.parent() {
                Some(dir) => open::that_detached(dir),
                None => open::that_detached(path),
            },
        }
    }
}

/// What was asked, for tests: nothing is started.
#[derive(Default)]
pub struct Recorded {
    /// Each request, as `url URL`, `open PATH` or `show PATH`.
    pub asked: Mutex<Vec<String>>,
}

impl Recorded {
    fn note(&self, what: String) {
        if let Ok(mut a) = self.asked.lock() {
            a.push(what);
        }
    }

    /// What was asked so far.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

impl Launch for Recorded {
    fn open_url(&self, url: &str) -> std::io::Result<()> {
        self.note(format!("url {url}"));
        Ok(())
    }

    fn open_file(&self, path: &Path) -> std::io::Result<()> {
        self.note(format!("open {}", path.display()));
        Ok(())
    }

    fn show_in_folder(&self, path: &Path) -> std::io::Result<()> {
        self.note(format!("show {}", path.display()));
        Ok(())
    }
}
