//! The thumbnail loader: a pool of worker threads taking the wanted photos
//! in priority order.
//!
//! The window says which photos it wants with [`Loader::want`], each with
//! a priority (visible first, then the next screens in the scrolling
//! direction). A new call replaces the whole wanted set: photos scrolled
//! away leave the queue at once, and the answer of one already being read
//! is dropped when it arrives. The window collects answers with
//! [`Loader::try_recv`], which never blocks, so a share that answers in
//! seconds, or hangs, holds up a worker, never the window.
//!
//! A photo whose file carries an EXIF thumbnail is answered with it first
//! (it is in the first 64 KB, so it comes before the decode), then with the
//! real thumbnail.
//!
//! Before a decode starts, its peak memory is estimated from the file's
//! header ([`decode_peak`]) and reserved from the loader's
//! [`MemoryBudget`], which several loaders may share: decodes wait while
//! the ones in flight hold too much, and one that could never fit is
//! refused ([`ThumbError::OverBudget`]) without being started.
//!
//! Files are opened through a [`Source`], so tests can put a slow or
//! stalling reader behind it.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::io::{Read, Seek};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::cache::{Key, ThumbStore};
use crate::thumbnail::{
    Limits, PREVIEW_HEAD, ThumbError, Thumbnail, decode_peak, embedded_preview, thumbnail,
};
use photo::MemoryBudget;

/// The memory the system says is available now (`MemAvailable`), or 4 GiB
/// where it cannot say.
pub fn available_bytes() -> u64 {
    let from_meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    from_meminfo.unwrap_or(4 << 30)
}

/// Something that reads and seeks (a file, or a test's slow reader).
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

/// Opens photos for the workers.
pub trait Source: Send + Sync + 'static {
    /// Opens the photo at `path`.
    fn open(&self, path: &std::path::Path) -> std::io::Result<Box<dyn ReadSeek>>;

    /// The photo's size in bytes and modification time (nanoseconds since
    /// the epoch): the cache's key, so an edited photo is made again.
    fn stamp(&self, path: &std::path::Path) -> std::io::Result<(u64, i64)>;
}

/// The file system.
pub struct Files;

impl Source for Files {
    fn open(&self, path: &std::path::Path) -> std::io::Result<Box<dyn ReadSeek>> {
        Ok(Box::new(std::fs::File::open(path)?))
    }

    fn stamp(&self, path: &std::path::Path) -> std::io::Result<(u64, i64)> {
        let meta = std::fs::metadata(path)?;
        let mtime = meta
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        Ok((meta.len(), mtime))
    }
}

/// A photo the window wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Want {
    /// The window's id for it (the catalogue's file id).
    pub id: u64,
    /// Where it is.
    pub path: PathBuf,
    /// Lower first.
    pub priority: i64,
}

/// A thumbnail, or why there is none. A photo with an embedded EXIF
/// thumbnail is answered twice: first with that (its `source` is
/// [`crate::thumbnail::Source::Embedded`]), then with the real one.
#[derive(Debug)]
pub struct Loaded {
    /// The id from the [`Want`].
    pub id: u64,
    /// The thumbnail or the error.
    pub result: Result<Thumbnail, ThumbError>,
}

struct Queue {
    /// Wanted and not started, by id.
    waiting: HashMap<u64, Want>,
    /// `waiting` by (priority, id); entries whose photo left `waiting` are
    /// skipped when popped.
    order: BinaryHeap<Reverse<(i64, u64)>>,
    /// Being made by a worker.
    in_flight: HashSet<u64>,
    /// The ids of the current wanted set (waiting or in flight).
    wanted: HashSet<u64>,
    stop: bool,
}

impl Queue {
    /// The most urgent waiting photo.
    fn pop(&mut self) -> Option<Want> {
        while let Some(Reverse((priority, id))) = self.order.pop() {
            if self
                .waiting
                .get(&id)
                .is_some_and(|w| w.priority == priority)
            {
                return self.waiting.remove(&id);
            }
        }
        None
    }
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Shared {
    /// The queue, even if a worker panicked while holding it (the queue
    /// itself is always consistent between statements).
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The worker pool.
pub struct Loader {
    shared: Arc<Shared>,
    answers: Receiver<Loaded>,
    workers: Vec<JoinHandle<()>>,
}

impl Loader {
    /// Starts `threads` workers making `size`-pixel thumbnails of what
    /// `source` opens, reading and filling `cache` when given (a cache
    /// that fails to store is only logged: the thumbnail still arrives).
    /// Its decodes share a budget of a quarter of the memory available now.
    pub fn new(
        threads: usize,
        size: u32,
        limits: Limits,
        source: Arc<dyn Source>,
        cache: Option<Box<dyn ThumbStore>>,
    ) -> std::io::Result<Loader> {
        let budget = Arc::new(MemoryBudget::new(available_bytes() / 4));
        Loader::with_budget(threads, size, limits, source, cache, budget)
    }

    /// As [`Loader::new`], with decodes in flight holding at most what
    /// `budget` allows (shared with whoever else holds it).
    pub fn with_budget(
        threads: usize,
        size: u32,
        limits: Limits,
        source: Arc<dyn Source>,
        cache: Option<Box<dyn ThumbStore>>,
        budget: Arc<MemoryBudget>,
    ) -> std::io::Result<Loader> {
        let cache = cache.map(|c| Arc::new(Mutex::new(c)));
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                waiting: HashMap::new(),
                order: BinaryHeap::new(),
                in_flight: HashSet::new(),
                wanted: HashSet::new(),
                stop: false,
            }),
            ready: Condvar::new(),
        });
        let (tx, answers) = channel();
        let mut workers = Vec::new();
        for i in 0..threads.max(1) {
            let shared = Arc::clone(&shared);
            let tx: Sender<Loaded> = tx.clone();
            let source = Arc::clone(&source);
            let cache = cache.clone();
            let budget = Arc::clone(&budget);
            workers.push(
                std::thread::Builder::new()
                    .name(format!("thumbnails-{i}"))
                    .spawn(move || {
                        work(
                            &shared,
                            &tx,
                            source.as_ref(),
                            cache.as_deref(),
                            &budget,
                            size,
                            limits,
                        )
                    })?,
            );
        }
        Ok(Loader {
            shared,
            answers,
            workers,
        })
    }

    /// Replaces the wanted set. Photos no longer wanted are dropped from
    /// the queue, and their answers, if already being made, are dropped.
    pub fn want(&self, wants: Vec<Want>) {
        let mut q = self.shared.lock();
        q.wanted = wants.iter().map(|w| w.id).collect();
        q.waiting.clear();
        q.order.clear();
        for w in wants {
            // One being made already will be answered.
            if !q.in_flight.contains(&w.id) {
                q.order.push(Reverse((w.priority, w.id)));
                q.waiting.insert(w.id, w);
            }
        }
        drop(q);
        self.shared.ready.notify_all();
    }

    /// How many wanted photos have not been started.
    pub fn waiting(&self) -> usize {
        self.shared.lock().waiting.len()
    }

    /// An answer, if one is ready; never blocks.
    pub fn try_recv(&self) -> Option<Loaded> {
        loop {
            let answer = self.answers.try_recv().ok()?;
            // Dropped if it was scrolled away while being made.
            if self.shared.lock().wanted.contains(&answer.id) {
                return Some(answer);
            }
        }
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.ready.notify_all();
        // Workers blocked in a stalled read are left to finish on their
        // own; the others end now.
        for w in self.workers.drain(..) {
            if w.is_finished() {
                let _ = w.join();
            }
        }
    }
}

fn lock(c: &Mutex<Box<dyn ThumbStore>>) -> MutexGuard<'_, Box<dyn ThumbStore>> {
    c.lock().unwrap_or_else(|p| p.into_inner())
}

/// One photo: from the cache when its size and time still match, made and
/// stored otherwise (after giving `early` the embedded preview, if the photo
/// has one).
fn make(
    source: &dyn Source,
    cache: Option<&Mutex<Box<dyn ThumbStore>>>,
    budget: &MemoryBudget,
    want: &Want,
    size: u32,
    limits: Limits,
    early: &mut dyn FnMut(Thumbnail),
) -> Result<Thumbnail, ThumbError> {
    let (bytes, mtime_ns) = source.stamp(&want.path)?;
    let key = Key {
        path: want.path.as_os_str().as_encoded_bytes().to_vec(),
        size: bytes,
        mtime_ns,
        thumb: size,
    };
    if let Some(hit) = cache.and_then(|c| lock(c).get(&key)) {
        return Ok(hit);
    }
    let mut file = source.open(&want.path)?;
    // The first paint: the photo's embedded EXIF thumbnail, from its first
    // bytes, while the real one is made.
    let mut head = Vec::new();
    (&mut file)
        .take(PREVIEW_HEAD as u64)
        .read_to_end(&mut head)?;
    if let Some(preview) = embedded_preview(&head) {
        early(preview);
    }
    file.seek(std::io::SeekFrom::Start(0))?;
    let peak = decode_peak(&mut file, size, limits)?;
    let _held = budget.reserve(peak).map_err(|_| ThumbError::OverBudget {
        needs: peak,
        budget: budget.total(),
    })?;
    file.seek(std::io::SeekFrom::Start(0))?;
    let t = thumbnail(file, size, limits)?;
    // A damaged file's part is not kept: its reason is shown each time.
    if let Some(c) = cache.filter(|_| t.problem.is_none())
        && let Err(e) = lock(c).put(&key, &t)
    {
        tracing::warn!("{e}");
    }
    Ok(t)
}

fn work(
    shared: &Shared,
    tx: &Sender<Loaded>,
    source: &dyn Source,
    cache: Option<&Mutex<Box<dyn ThumbStore>>>,
    budget: &MemoryBudget,
    size: u32,
    limits: Limits,
) {
    loop {
        let want = {
            let mut q = shared.lock();
            loop {
                if q.stop {
                    return;
                }
                if let Some(w) = q.pop() {
                    q.in_flight.insert(w.id);
                    break w;
                }
                q = shared.ready.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        let mut early = |preview| {
            let _ = tx.send(Loaded {
                id: want.id,
                result: Ok(preview),
            });
        };
        let result = make(source, cache, budget, &want, size, limits, &mut early);
        shared.lock().in_flight.remove(&want.id);
        if tx
            .send(Loaded {
                id: want.id,
                result,
            })
            .is_err()
        {
            return;
        }
    }
}
