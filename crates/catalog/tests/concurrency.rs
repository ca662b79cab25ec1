#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 45 item 11: an index run and searches at once, in separate
//! connections as separate processes have them. Every writer takes its
//! lock up front and waits for others within the busy timeout; a search
//! (whose first run may store the search index or the seed's tables, a
//! cache) never makes a writer fail, nor fails itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use catalog::{Catalog, Mode, parse};

#[test]
fn indexing_and_searching_at_once_never_fail() {
    for round in 0..2 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cat.sqlite");
        Catalog::open(&path).unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|k| {
                let (path, done) = (path.clone(), Arc::clone(&done));
                std::thread::spawn(move || -> Result<usize, String> {
                    let q = parse("trip").unwrap();
                    let mut searches = 0;
                    while !done.load(Ordering::Relaxed) {
                        // A fresh open each time, as `viewer2 search` does.
                        let c = Catalog::open(&path).map_err(|e| format!("open: {e}"))?;
                        let found = if (searches + k) % 3 == 0 {
                            c.search_seed(&q).map_err(|e| format!("seed search: {e}"))?
                        } else {
                            c.search(&q, Mode::Default)
                                .map_err(|e| format!("search: {e}"))?
                        };
                        let _ = found.len();
                        searches += 1;
                    }
                    Ok(searches)
                })
            })
            .collect();
        let mut writer = Catalog::open(&path).unwrap();
        let mut outcome = Ok(());
        for batch in 0..30 {
            let names: Vec<String> = (0..300)
                .map(|i| format!("/photos/{round}/{batch:03} trip/IMG_{i:04}.jpg"))
                .collect();
            let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "")).collect();
            let step = writer
                .add_files(&files)
                .and_then(|ids| {
                    writer.set_caption(ids[0], "a trip")?;
                    writer.set_marks(&ids[..10], Some(3), Some("green"))
                })
                .and_then(|()| writer.refresh_index().map(|_| ()));
            if let Err(e) = step {
                outcome = Err(format!("batch {batch}: {e}"));
                break;
            }
        }
        done.store(true, Ordering::Relaxed);
        let searched: Vec<_> = readers.into_iter().map(|r| r.join().unwrap()).collect();
        outcome.unwrap_or_else(|e| panic!("round {round}: the writer failed: {e}"));
        for s in searched {
            let n = s.unwrap_or_else(|e| panic!("round {round}: a search failed: {e}"));
            assert!(n > 0);
        }
    }
}
