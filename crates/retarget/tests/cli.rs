//! The command on a batch: one output per input in the folder, a broken
//! input named and the others still written, the exit code saying so.

use std::process::Command;

#[test]
fn a_batch_writes_each_image_and_names_the_one_that_failed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut inputs = Vec::new();
    for k in 0..3u32 {
        let path = dir.path().join(format!("in{k}.png"));
        let img = image::RgbImage::from_fn(40 + k, 30, |x, y| {
            image::Rgb([(x * 6) as u8, (y * 8) as u8, (k * 60) as u8])
        });
        img.save(&path).unwrap_or_else(|e| panic!("{e}"));
        inputs.push(path);
    }
    let broken = dir.path().join("broken.png");
    std::fs::write(&broken, b"not a png").unwrap_or_else(|e| panic!("{e}"));
    let out_dir = dir.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .args(&inputs)
        .arg(&broken)
        .args(["--width", "50%", "-o"])
        .arg(&out_dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("broken.png"), "{stderr}");
    assert!(stderr.contains("1 of 4 images failed"), "{stderr}");
    for (k, input) in inputs.iter().enumerate() {
        let written = out_dir.join(input.file_name().unwrap_or_default());
        let img = image::open(&written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
        assert_eq!(img.width(), ((40 + k as u32) as f64 * 0.5).round() as u32);
        assert_eq!(img.height(), 30);
    }
}

/// `--gpu` on a batch resizes the first image both ways and sends the rest
/// the faster way, saying which (on lavapipe, a software GPU: the CPU).
#[test]
fn a_gpu_batch_keeps_the_faster_path() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let inputs: Vec<std::path::PathBuf> = (0..3u32)
        .map(|k| {
            let path = dir.path().join(format!("p{k}.png"));
            image::RgbImage::from_fn(120, 80, |x, y| {
                image::Rgb([(x * 2) as u8, (y * 3) as u8, (k * 70) as u8])
            })
            .save(&path)
            .unwrap_or_else(|e| panic!("{e}"));
            path
        })
        .collect();
    let out_dir = dir.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .args(&inputs)
        .args(["--width", "60%", "--gpu", "--any-adapter", "-o"])
        .arg(&out_dir)
        .env("NODEVICE_SELECT", "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let chose = stderr.contains("the rest on the GPU") || stderr.contains("the rest on the CPU");
    if std::env::var("REQUIRE_GPU").as_deref() == Ok("1") {
        assert!(chose, "{stderr}");
    } else if !chose {
        eprintln!("SKIPPED: no GPU adapter for the batch choice: {stderr}");
    }
    for input in &inputs {
        let written = out_dir.join(input.file_name().unwrap_or_default());
        let img = image::open(&written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
        assert_eq!((img.width(), img.height()), (72, 80));
    }
}

fn small_png(path: &std::path::Path, seed: u8) {
    image::RgbImage::from_fn(12, 8, |x, y| {
        image::Rgb([(x * 20) as u8, (y * 30) as u8, seed])
    })
    .save(path)
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn retarget(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retarget"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut all = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
        {
            let ft = e.file_type().unwrap_or_else(|e| panic!("{e}"));
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                all.insert(
                    e.path(),
                    std::fs::read(e.path()).unwrap_or_else(|e| panic!("{e}")),
                );
            }
        }
    }
    all
}

/// The report's two cases: a batch into the inputs' own folder, and two
/// inputs of one name into one folder. Both are refused before any work,
/// naming both files, and nothing is written.
#[test]
fn outputs_over_inputs_or_over_each_other_are_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let batch = dir.path().join("batch");
    std::fs::create_dir(&batch).unwrap_or_else(|e| panic!("{e}"));
    let (one, three) = (batch.join("one.png"), batch.join("three.png"));
    small_png(&one, 1);
    small_png(&three, 3);
    let before = snapshot(dir.path());
    let (code, err) = retarget(&[
        one.as_os_str(),
        three.as_os_str(),
        "--width".as_ref(),
        "50%".as_ref(),
        "-o".as_ref(),
        batch.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("would be written over the input"), "{err}");
    assert!(err.contains("one.png"), "{err}");
    assert_eq!(snapshot(dir.path()), before, "{err}");

    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir(&a).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(&b).unwrap_or_else(|e| panic!("{e}"));
    small_png(&a.join("x.png"), 10);
    small_png(&b.join("x.png"), 20);
    let before = snapshot(dir.path());
    let out = dir.path().join("out");
    let (code, err) = retarget(&[
        a.join("x.png").as_os_str(),
        b.join("x.png").as_os_str(),
        "--width".as_ref(),
        "50%".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("would both be written to"), "{err}");
    assert!(err.contains("a/x.png") && err.contains("b/x.png"), "{err}");
    assert_eq!(snapshot(dir.path()), before, "{err}");
    assert!(
        !out.exists(),
        "the output folder was made before the refusal"
    );
}

/// One input written over itself by name, through a symbolic link and
/// through a hard link: refused, even with --force. An existing output
/// that is no input needs --force.
#[test]
fn an_input_is_never_replaced_and_outputs_only_with_force() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("in.png");
    small_png(&input, 7);
    let soft = dir.path().join("soft.png");
    let hard = dir.path().join("hard.png");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&input, &soft).unwrap_or_else(|e| panic!("{e}"));
    std::fs::hard_link(&input, &hard).unwrap_or_else(|e| panic!("{e}"));
    let original = std::fs::read(&input).unwrap_or_else(|e| panic!("{e}"));
    for target in [&input, &soft, &hard] {
        for force in [false, true] {
            let mut args = vec![
                input.as_os_str(),
                "--width".as_ref(),
                "6".as_ref(),
                "-o".as_ref(),
                target.as_os_str(),
            ];
            if force {
                args.push("--force".as_ref());
            }
            let (code, err) = retarget(&args);
            assert_eq!(code, Some(2), "{}: {err}", target.display());
            assert!(err.contains("would be written over the input"), "{err}");
            assert_eq!(std::fs::read(&input).unwrap_or_default(), original);
        }
    }
    let other = dir.path().join("other.png");
    small_png(&other, 9);
    let kept = std::fs::read(&other).unwrap_or_else(|e| panic!("{e}"));
    let args = [
        input.as_os_str(),
        "--width".as_ref(),
        "6".as_ref(),
        "-o".as_ref(),
        other.as_os_str(),
    ];
    let (code, err) = retarget(&args);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("exists already: pass --force"), "{err}");
    assert_eq!(std::fs::read(&other).unwrap_or_default(), kept);
    let mut forced = args.to_vec();
    forced.push("--force".as_ref());
    let (code, err) = retarget(&forced);
    assert_eq!(code, Some(0), "{err}");
    let img = image::open(&other).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(img.width(), 6);
}

mod layouts {
    use super::*;
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};

    /// Where a path would land once its folder's links are resolved (the
    /// oracle's way: text of canonical paths, not inodes).
    fn resolved(p: &Path) -> PathBuf {
        if let Ok(c) = std::fs::canonicalize(p) {
            return c;
        }
        let parent = p.parent().unwrap_or(Path::new("."));
        match std::fs::canonicalize(parent) {
            Ok(d) => d.join(p.file_name().unwrap_or_default()),
            Err(_) => p.to_path_buf(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Random inputs among two folders and a link to one of them,
        /// written to one of those folders, the link, a fresh folder, or
        /// (one input) a file: the command writes exactly when no output is
        /// an input, no two outputs coincide and (without --force) none
        /// exists; inputs are never changed, and a refusal writes nothing.
        #[test]
        fn the_command_writes_only_where_it_may(
            picks in prop::collection::vec((0usize..3, 0usize..3), 1..4),
            target in 0usize..5,
            force in any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
            let root = dir.path();
            let folders = [root.join("a"), root.join("b")];
            for (k, f) in folders.iter().enumerate() {
                std::fs::create_dir(f).unwrap_or_else(|e| panic!("{e}"));
                for (n, name) in ["x.png", "y.png", "z.png"].iter().enumerate() {
                    small_png(&f.join(name), (10 * k + n) as u8);
                }
            }
            #[cfg(unix)]
            std::os::unix::fs::symlink(&folders[0], root.join("link")).unwrap_or_else(|e| panic!("{e}"));
            let places = [folders[0].clone(), folders[1].clone(), root.join("link")];
            let names = ["x.png", "y.png", "z.png"];
            let inputs: Vec<PathBuf> = picks.iter().map(|&(f, n)| places[f].join(names[n])).collect();
            let batch = inputs.len() > 1;
            let output = match target {
                0 => folders[0].clone(),
                1 => folders[1].clone(),
                2 => root.join("link"),
                3 | 4 if batch => root.join("fresh"),
                3 => root.join("fresh.png"),
                _ => folders[1].join("y.png"),
            };
            let outputs: Vec<PathBuf> = if batch {
                inputs.iter().map(|i| output.join(i.file_name().unwrap_or_default())).collect()
            } else if output.is_dir() {
                // One input and a folder as -o: the folder is the output
                // path itself, which cannot be written as an image.
                vec![output.clone()]
            } else {
                vec![output.clone()]
            };
            let ins: Vec<PathBuf> = inputs.iter().map(|p| resolved(p)).collect();
            let outs: Vec<PathBuf> = outputs.iter().map(|p| resolved(p)).collect();
            let over_input = outs.iter().any(|o| ins.contains(o));
            let shared = outs.iter().enumerate().any(|(i, o)| outs[..i].contains(o));
            let exists = outputs.iter().any(|o| std::fs::symlink_metadata(o).is_ok());
            let refused = over_input || shared || (exists && !force);

            let before = snapshot(root);
            let mut args: Vec<&std::ffi::OsStr> = inputs.iter().map(|p| p.as_os_str()).collect();
            args.extend(["--width".as_ref(), "50%".as_ref(), "-o".as_ref(), output.as_os_str()]);
            if force {
                args.push("--force".as_ref());
            }
            let (code, err) = retarget(&args);
            let after = snapshot(root);
            for i in &ins {
                prop_assert_eq!(after.get(i), before.get(i), "input {} changed: {}", i.display(), err);
            }
            if refused {
                prop_assert_eq!(code, Some(2), "{}", err);
                prop_assert_eq!(&after, &before, "a refusal wrote: {}", err);
            } else if output.is_dir() && !batch {
                // A folder as one input's output is an error of its own.
                prop_assert_ne!(code, Some(0), "{}", err);
            } else {
                prop_assert_eq!(code, Some(0), "{}", err);
                for o in &outs {
                    prop_assert!(after.contains_key(o), "{} not written: {}", o.display(), err);
                }
            }
        }
    }
}
