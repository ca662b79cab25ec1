#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Nothing the user wrote is lost: interrupted index runs after renames,
//! unreadable and renamed folders, a damaged catalogue, a single file
//! indexed twice (issue 38, items 1–5). Each test runs the real command.

use std::path::{Path, PathBuf};
use std::process::Command;

use catalog::{Catalog, Presence};

mod common;
use common::{touch, viewer2};

/// Sets `caption` on the record at `path` (as the window's caption editor
/// does); returns its id.
fn caption(cat: &Path, path: &Path, caption: &str) -> i64 {
    let mut c = Catalog::open(cat).unwrap();
    let st = c.stamps_at(path.to_str().unwrap()).unwrap();
    assert_eq!(st.len(), 1, "{}: {st:?}", path.display());
    assert!(c.set_caption(st[0].id, caption).unwrap());
    st[0].id
}

/// Every record: (path, caption, presence).
fn records(cat: &Path) -> Vec<(String, String, Presence)> {
    let c = Catalog::open(cat).unwrap();
    let mut out: Vec<_> = c
        .stamps_under("/")
        .unwrap()
        .into_iter()
        .map(|st| {
            let (path, caption) = c.file(st.id).unwrap().unwrap();
            (path, caption, st.presence)
        })
        .collect();
    out.sort();
    out
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}

/// Item 1: a re-index after a folder rename, stopped part-way by SIGINT,
/// SIGTERM or SIGKILL at many moments, never costs a caption: the next
/// run finds every file moved, none removed.
#[cfg(unix)]
#[test]
fn an_interrupted_reindex_after_a_folder_rename_keeps_every_caption() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p");
    std::fs::create_dir_all(p.join("a")).unwrap();
    for i in 1..=4000 {
        std::fs::write(p.join(format!("a/img{i:05}.jpg")), b"").unwrap();
    }
    let cat = dir.path().join("c.db");
    let (ok, _, err) = viewer2(&cat, &["index", p.to_str().unwrap()]);
    assert!(ok, "{err}");
    {
        let mut c = Catalog::open(&cat).unwrap();
        for f in c.files().unwrap() {
            if f.path.ends_with("00.jpg") {
                c.set_caption(f.id, "mine").unwrap();
            }
        }
    }
    std::fs::rename(p.join("a"), p.join("b")).unwrap();
    let mut seed = 7u64;
    for (round, signal) in ["INT", "TERM", "KILL", "INT", "KILL", "TERM", "KILL", "INT"]
        .iter()
        .enumerate()
    {
        let mut child = Command::new(env!("CARGO_BIN_EXE_viewer2"))
            .arg("--catalog")
            .arg(&cat)
            .args(["index", p.to_str().unwrap()])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let ms = 5 + (round as u64) * 60 + (seed >> 33) % 60;
        std::thread::sleep(std::time::Duration::from_millis(ms));
        Command::new("kill")
            .args(["-s", signal, &child.id().to_string()])
            .status()
            .unwrap();
        let _ = child.wait();
        // Between runs, every caption is somewhere in the catalogue.
        let kept = records(&cat).iter().filter(|r| r.1 == "mine").count();
        assert_eq!(kept, 40, "round {round} (SIG{signal} after {ms} ms)");
    }
    let (ok, _, err) = viewer2(&cat, &["index", p.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(err.contains(" 0 removed, 4000 in the catalogue"), "{err}");
    let all = records(&cat);
    assert_eq!(all.len(), 4000);
    let b = canonical(&p.join("b"));
    assert!(
        all.iter().all(|r| Path::new(&r.0).starts_with(&b)),
        "stale paths left"
    );
    let mine: Vec<_> = all.iter().filter(|r| r.1 == "mine").collect();
    assert_eq!(mine.len(), 40);
    // The captions stay on their own files.
    for r in mine {
        let n: i64 = r.0[r.0.len() - 9..r.0.len() - 4].parse().unwrap();
        assert_eq!(n % 100, 0, "{r:?}");
    }
}

/// Item 1, an older version's leftovers: an interrupted run of the old
/// indexer added the moved files as new records beside the old ones. The
/// next run merges each pair, the caption on the survivor.
#[test]
fn records_left_by_an_older_interrupted_run_are_merged() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p");
    for i in 0..20 {
        std::fs::create_dir_all(p.join("a")).unwrap();
        std::fs::write(p.join(format!("a/IMG_{i:02}.jpg")), format!("photo {i}")).unwrap();
    }
    let cat = dir.path().join("c.db");
    let (ok, _, err) = viewer2(&cat, &["index", p.to_str().unwrap()]);
    assert!(ok, "{err}");
    let a = canonical(&p.join("a"));
    caption(&cat, &a.join("IMG_03.jpg"), "first day");
    caption(&cat, &a.join("IMG_17.jpg"), "last day");
    std::fs::rename(p.join("a"), p.join("b")).unwrap();
    let b = canonical(&p.join("b"));
    // What the old indexer wrote before it was stopped: new records for
    // the first half of the moved files, no inode, no hash.
    {
        let mut c = Catalog::open(&cat).unwrap();
        let paths: Vec<String> = (0..10)
            .map(|i| {
                b.join(format!("IMG_{i:02}.jpg"))
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let files: Vec<catalog::NewFile<'_>> = paths
            .iter()
            .enumerate()
            .map(|(i, path)| catalog::NewFile {
                path,
                size: format!("photo {i}").len() as i64,
                mtime: std::fs::metadata(path)
                    .unwrap()
                    .modified()
                    .unwrap()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_secs() as i64,
                ..Default::default()
            })
            .collect();
        c.add(&files).unwrap();
    }
    // And the old records from before inodes were kept.
    {
        let c = rusqlite::Connection::open(&cat).unwrap();
        c.execute(
            "UPDATE files SET dev = NULL, ino = NULL, born = NULL WHERE path LIKE '%/a/%'",
            [],
        )
        .unwrap();
    }
    let (ok, _, err) = viewer2(&cat, &["index", p.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(err.contains(" 0 removed, 20 in the catalogue"), "{err}");
    let all = records(&cat);
    assert_eq!(all.len(), 20, "{all:?}");
    let cap = |n: &str| {
        all.iter()
            .find(|r| r.0.ends_with(n))
            .map(|r| r.1.clone())
            .unwrap()
    };
    assert_eq!(cap("b/IMG_03.jpg"), "first day");
    assert_eq!(cap("b/IMG_17.jpg"), "last day");
}

/// Item 2: a folder that cannot be read keeps its records (marked
/// unavailable) and its captions; when it is readable again they are
/// present again. A root that cannot be read is an error that changes
/// nothing, as a missing one is.
#[cfg(unix)]
#[test]
fn an_unreadable_folder_keeps_its_records() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    std::fs::create_dir_all(photos.join("open")).unwrap();
    std::fs::create_dir_all(photos.join("locked")).unwrap();
    std::fs::write(photos.join("open/seen.jpg"), b"seen").unwrap();
    std::fs::write(photos.join("locked/hidden.jpg"), b"hidden").unwrap();
    let cat = dir.path().join("cat.sqlite");
    // The photos' folder is the user's (the test changes its mode later).
    std::fs::set_permissions(&photos, std::fs::Permissions::from_mode(0o777)).unwrap();
    let run = |args: &[&str]| {
        let out = common::as_ordinary_user(dir.path(), &[dir.path()])
            .arg("--catalog")
            .arg(&cat)
            .args(args)
            .output()
            .expect("setpriv (util-linux) runs the index as another user");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let index = ["index", photos.to_str().unwrap()];
    let (ok, err) = run(&index);
    assert!(ok, "{err}");
    let hidden = canonical(&photos.join("locked/hidden.jpg"));
    caption(&cat, &hidden, "the only photo of grandpa");
    let mode = |p: &Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    };
    // A subfolder: reported, kept, marked unavailable.
    mode(&photos.join("locked"), 0o000);
    let (ok, err) = run(&index);
    mode(&photos.join("locked"), 0o777);
    assert!(ok, "{err}");
    assert!(err.contains("0 removed, 2 in the catalogue"), "{err}");
    assert!(
        err.contains("1 in folders that could not be read, kept as they were"),
        "{err}"
    );
    assert!(
        err.contains("warning: skipped:"),
        "the warning is printed: {err}"
    );
    let all = records(&cat);
    let h = all.iter().find(|r| r.0.ends_with("hidden.jpg")).unwrap();
    assert_eq!(
        (h.1.as_str(), h.2),
        ("the only photo of grandpa", Presence::Unavailable)
    );
    // The folder given itself: an error, nothing changed.
    mode(&photos, 0o000);
    let (ok, err) = run(&index);
    mode(&photos, 0o777);
    assert!(!ok && err.contains("cannot read this folder"), "{err}");
    assert_eq!(records(&cat), all);
    // Readable again: present, caption intact.
    let (ok, err) = run(&index);
    assert!(ok, "{err}");
    let all = records(&cat);
    let h = all.iter().find(|r| r.0.ends_with("hidden.jpg")).unwrap();
    assert_eq!(
        (h.1.as_str(), h.2),
        ("the only photo of grandpa", Presence::Present)
    );
}

/// Item 3: renaming the indexed folder itself and indexing it under its
/// new name is a move (one tree, captions kept); `forget` drops a folder
/// that is gone on purpose, asking first where the user wrote captions.
#[test]
fn a_renamed_root_is_a_move_and_forget_drops_what_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let mid = dir.path().join("mid");
    std::fs::create_dir_all(mid.join("x")).unwrap();
    std::fs::create_dir_all(mid.join("y")).unwrap();
    std::fs::write(mid.join("x/a.jpg"), b"photo a").unwrap();
    std::fs::write(mid.join("y/b.jpg"), b"photo b").unwrap();
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", mid.to_str().unwrap()]);
    assert!(ok, "{err}");
    caption(&cat, &canonical(&mid.join("x/a.jpg")), "harbour at dawn");
    let mid2 = dir.path().join("mid2");
    std::fs::rename(&mid, &mid2).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", mid2.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("0 new, 0 changed, 2 moved or renamed, 0 removed, 2 in the catalogue"),
        "{err}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "harbour"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("/mid2/x/a.jpg"), "{out}");
    let (_, out, _) = viewer2(&cat, &["search", "--limit", "10", "jpg"]);
    assert_eq!(out.lines().count(), 2, "one tree: {out}");

    // A folder deleted on purpose: indexing it is an error that keeps
    // everything; `forget` drops it, asking first.
    let gone = dir.path().join("old trip");
    std::fs::create_dir_all(&gone).unwrap();
    std::fs::write(gone.join("c.jpg"), b"photo c").unwrap();
    std::fs::write(gone.join("d.jpg"), b"photo d").unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", gone.to_str().unwrap()]);
    assert!(ok, "{err}");
    caption(&cat, &canonical(&gone.join("c.jpg")), "the old car");
    std::fs::remove_dir_all(&gone).unwrap();
    let (ok, _, _) = viewer2(&cat, &["index", gone.to_str().unwrap()]);
    assert!(!ok);
    let (ok, _, err) = viewer2(&cat, &["forget", gone.to_str().unwrap()]);
    assert!(
        !ok && err.contains("1 of the 2 records hold captions or placements you made"),
        "{err}"
    );
    assert_eq!(records(&cat).len(), 4);
    let (ok, _, err) = viewer2(&cat, &["forget", gone.to_str().unwrap(), "--yes"]);
    assert!(ok && err.contains("forgot 2 records"), "{err}");
    assert_eq!(records(&cat).len(), 2);
    let (ok, _, err) = viewer2(&cat, &["forget", gone.to_str().unwrap()]);
    assert!(ok && err.contains("nothing to forget"), "{err}");

    // A captioned photo deleted is kept (hidden) for its caption and
    // comes back with it when the file does; `forget --missing` drops it.
    let a = mid2.join("x/a.jpg");
    let bytes = std::fs::read(&a).unwrap();
    let time = std::fs::metadata(&a).unwrap().modified().unwrap();
    std::fs::remove_file(&a).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", mid2.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("0 removed, 1 in the catalogue")
            && err.contains("; 1 gone from disk but kept"),
        "{err}"
    );
    let (_, out, _) = viewer2(&cat, &["search", "harbour"]);
    assert!(out.is_empty(), "a missing file is not shown: {out}");
    // Restored elsewhere (a new inode), with its bytes and time.
    std::fs::write(mid2.join("y/a.jpg"), &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(mid2.join("y/a.jpg"))
        .unwrap()
        .set_modified(time)
        .unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", mid2.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(err.contains("1 moved or renamed, 0 removed"), "{err}");
    let (_, out, _) = viewer2(&cat, &["search", "harbour"]);
    assert!(out.contains("/mid2/y/a.jpg"), "{out}");
    std::fs::remove_file(mid2.join("y/a.jpg")).unwrap();
    let (ok, _, err) = viewer2(&cat, &["index", mid2.to_str().unwrap()]);
    assert!(ok && err.contains("1 gone from disk but kept"), "{err}");
    let (ok, _, err) = viewer2(&cat, &["forget", "--missing", "--yes"]);
    assert!(ok && err.contains("forgot 1 records"), "{err}");
    assert_eq!(records(&cat).len(), 1);
}

/// Overwrites the given pages of an SQLite file with pseudo-random bytes.
fn scribble(file: &Path, pages: &[i64], page_size: i64, seed: u64) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    let mut x = seed;
    for &p in pages {
        let bytes: Vec<u8> = (0..page_size)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        f.seek(SeekFrom::Start(((p - 1) * page_size) as u64))
            .unwrap();
        f.write_all(&bytes).unwrap();
    }
    f.sync_all().unwrap();
}

/// The pages of one table (dbstat) and the page size.
fn pages_of(file: &Path, table: &str) -> (Vec<i64>, i64) {
    let c = rusqlite::Connection::open(file).unwrap();
    let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    let mut st = c
        .prepare("SELECT pageno FROM dbstat WHERE name = ?1 ORDER BY pageno")
        .unwrap();
    let pages = st
        .query_map([table], |r| r.get(0))
        .unwrap()
        .collect::<Result<Vec<i64>, _>>()
        .unwrap();
    (pages, size)
}

fn integrity(file: &Path) -> String {
    let c = rusqlite::Connection::open(file).unwrap();
    c.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string())
}

/// Item 4: a catalogue that fails SQLite's check is never written to
/// (`index` says so and leaves every byte as it was); `repair` copies what
/// it holds into a new file that takes its place, keeping the damaged one.
#[test]
fn a_damaged_catalogue_is_left_untouched_and_repair_recovers_it() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    for i in 0..3000 {
        touch(
            &photos.join(format!(
                "{:02} trip to the mountains/IMG_{i:05} with a rather long name.jpg",
                i % 40
            )),
            i % 13,
        );
    }
    let cat = dir.path().join("cat.sqlite");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    let id = caption(
        &cat,
        &canonical(&photos.join("07 trip to the mountains/IMG_00007 with a rather long name.jpg")),
        "summit",
    );
    let (pages, size) = pages_of(&cat, "search_index");
    assert!(pages.len() > 8, "{pages:?}");
    let hit: Vec<i64> = pages.iter().step_by(pages.len() / 4).copied().collect();
    scribble(&cat, &hit, size, 99);
    assert_ne!(integrity(&cat), "ok");
    let before = std::fs::read(&cat).unwrap();
    touch(&photos.join("new/IMG_new.jpg"), 3);
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("is damaged, so nothing was written to it")
            && err.contains("viewer2 repair --catalog"),
        "{err}"
    );
    assert!(std::fs::read(&cat).unwrap() == before, "the file changed");
    let (ok, _, err) = viewer2(&cat, &["repair"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("recovered 3000 files (1 with captions you wrote)"),
        "{err}"
    );
    assert_eq!(integrity(&cat), "ok");
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".damaged-"))
        .collect();
    assert!(!kept.is_empty(), "the damaged file is kept");
    let (ok, out, err) = viewer2(&cat, &["search", "summit"]);
    assert!(ok && out.contains("IMG_00007"), "{out}{err}");
    // The record kept its id (its placements and caption go with it).
    assert_eq!(
        Catalog::open(&cat).unwrap().file(id).unwrap().unwrap().1,
        "summit"
    );
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok && err.contains("1 new"), "{err}");
    // A sound catalogue: repair rebuilds the search index only.
    let (ok, _, err) = viewer2(&cat, &["repair"]);
    assert!(ok && err.contains("passes SQLite's check"), "{err}");

    // Pages of the file table itself: what reads is recovered, and the
    // rest is named.
    let (pages, size) = pages_of(&cat, "files");
    scribble(&cat, &pages[pages.len() / 2..pages.len() / 2 + 1], size, 5);
    let (ok, _, err) = viewer2(&cat, &["repair"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("file records: ") && err.contains(" lost"),
        "{err}"
    );
    let left = Catalog::open(&cat).unwrap().len().unwrap();
    assert!((2000..3001).contains(&left), "{left}: {err}");
    assert_eq!(integrity(&cat), "ok");
}

/// Issue 45 item 2: with the first page destroyed, or the file cut off,
/// `repair` still salvages the ratings and labels, says per table what it
/// kept, and leaves nothing but the new catalogue and the damaged one.
#[test]
fn repair_salvages_marks_from_a_catalogue_that_does_not_open() {
    for damage in ["first page", "cut off"] {
        let dir = tempfile::tempdir().unwrap();
        let photos = dir.path().join("photos");
        for i in 0..2000 {
            touch(&photos.join(format!("{:02}/IMG_{i:05}.jpg", i % 20)), i % 7);
        }
        let cat = dir.path().join("cat.sqlite");
        let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
        assert!(ok, "{err}");
        {
            let mut c = Catalog::open(&cat).unwrap();
            let ids: Vec<_> = c
                .stamps_under("/")
                .unwrap()
                .into_iter()
                .map(|s| s.id)
                .collect();
            c.set_marks(&ids, Some(3), Some("green")).unwrap();
        }
        let size = pages_of(&cat, "files").1;
        match damage {
            "first page" => scribble(&cat, &[1], size, 7),
            _ => {
                let len = std::fs::metadata(&cat).unwrap().len();
                let f = std::fs::OpenOptions::new().write(true).open(&cat).unwrap();
                // The last two pages (the marks, written last, end there).
                f.set_len(len - 2 * size as u64).unwrap();
            }
        }
        let (ok, _, err) = viewer2(&cat, &["repair"]);
        assert!(ok, "{damage}: {err}");
        assert!(err.contains("ratings and labels: "), "{damage}: {err}");
        assert_eq!(integrity(&cat), "ok", "{damage}");
        let c = Catalog::open(&cat).unwrap();
        let marks = c.marks().unwrap();
        // Cut off, the rows on the lost pages are gone; a first page
        // mended loses none.
        let least = if damage == "cut off" { 1500 } else { 2000 };
        assert!(
            marks.len() >= least,
            "{damage}: {} marks: {err}",
            marks.len()
        );
        assert!(
            marks
                .iter()
                .all(|(_, m)| m.rating == 3 && m.label == "green")
        );
        drop(c);
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            // The index runs' lock file stays, as after any `index`.
            .filter(|n| n != "photos" && n != "cat.index-lock")
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "{damage}: {names:?}");
        assert_eq!(names[0], "cat.sqlite", "{damage}: {names:?}");
        assert!(
            names[1].starts_with("cat.sqlite.damaged-"),
            "{damage}: {names:?}"
        );
        let (ok, out, err) = viewer2(&cat, &["search", "IMG_00042"]);
        assert!(ok && out.contains("IMG_00042"), "{damage}: {out}{err}");
    }
}

/// Item 5: one path, one record, however often its file is indexed alone.
#[test]
fn a_file_indexed_alone_keeps_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("DIR");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("good.jpg"), b"good").unwrap();
    std::fs::write(d.join("other.jpg"), b"other").unwrap();
    std::fs::write(d.join("notes.txt"), b"notes").unwrap();
    let cat = dir.path().join("c.db");
    let (ok, _, err) = viewer2(&cat, &["index", d.to_str().unwrap()]);
    assert!(ok, "{err}");
    let good = d.join("good.jpg");
    for _ in 0..2 {
        let (ok, _, err) = viewer2(&cat, &["index", good.to_str().unwrap()]);
        assert!(ok, "{err}");
        assert!(err.contains("0 new, 0 changed"), "{err}");
    }
    let (_, out, _) = viewer2(&cat, &["search", "name:good"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert_eq!(records(&cat).len(), 2);
    let (ok, _, err) = viewer2(&cat, &["index", d.join("notes.txt").to_str().unwrap()]);
    assert!(!ok && err.contains("not an image file"), "{err}");
}

/// The disk fills up during an index run (the catalogue's files may grow
/// by 64 KB, as `prlimit --fsize` allows, and no more): the run fails with
/// SQLite's reason and the catalogue's path, nothing half-written is
/// kept, every caption stays, and the next run with room finishes the job.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_mid_index_fails_cleanly_and_loses_nothing() {
    // prlimit is util-linux's, which every Debian has (and .ci/run and
    // scripts/test.sh install): no skipping.
    assert!(
        Command::new("prlimit").arg("--version").output().is_ok(),
        "prlimit is missing: install util-linux"
    );
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    for i in 0..500 {
        touch(&photos.join(format!("old/IMG_{i:05}.jpg")), i % 7);
    }
    let cat = dir.path().join("c.db");
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    let id = caption(
        &cat,
        &canonical(&photos.join("old/IMG_00042.jpg")),
        "harbour at dawn",
    );
    for i in 0..20_000 {
        touch(
            &photos.join(format!(
                "new {}/a photo with a long name {i:05}.jpg",
                i % 50
            )),
            i % 11,
        );
    }
    let size = std::fs::metadata(&cat).unwrap().len();
    // SIGXFSZ ignored (as the shell's trap leaves it for the command), so a
    // write past the limit fails with EFBIG, as one past a full disk does.
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"trap "" XFSZ; exec prlimit --fsize="$1" "$2" --catalog "$3" index "$4""#)
        .arg("sh")
        .arg((size + 65_536).to_string())
        .arg(env!("CARGO_BIN_EXE_viewer2"))
        .arg(&cat)
        .arg(&photos)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(cat.to_str().unwrap()) && (err.contains("full") || err.contains("I/O")),
        "{err}"
    );
    assert_eq!(integrity(&cat), "ok");
    let c = Catalog::open(&cat).unwrap();
    assert_eq!(c.file(id).unwrap().unwrap().1, "harbour at dawn");
    drop(c);
    let (ok, _, err) = viewer2(&cat, &["index", photos.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(err.contains("20500 in the catalogue"), "{err}");
    let (ok, out, _) = viewer2(&cat, &["search", "harbour"]);
    assert!(ok && out.contains("IMG_00042"), "{out}");
}
