//! [`Grid`]: the default broad phase. Exact, any sizes, any coordinates,
//! incremental, filtered, and optionally parallel with identical output.
//!
//! The data (see `layout.rs`) is one flat array of entries sorted by
//! (level, row, min x); the sweeps are in `sweep.rs`. This file holds the
//! public API: handles, insertion, updates, removal, and the relayout policy.
//! Updates wait a few calls before they are applied (`lag.rs`).

mod lag;
mod layout;
#[cfg(feature = "rayon")]
mod parallel;
mod sweep;
#[cfg(feature = "rayon")]
mod team;
mod wide;

use lag::{LAG, UpdateLag};
use layout::{BuildScratch, Entry, Exec, Layout, Serial, prefetch, row_key};
use sweep::{Ctx, Scratch};

use super::BroadPhase;
use crate::error::{try_fill, try_reserve};
use crate::pair::PairSink;
use crate::{Aabb, CollideError, Pair, QueryStats, Real, Vec2};

/// Most objects a grid holds at once.
pub(crate) const MAX_OBJECTS: u32 = (1 << 30) - 1;
/// Entry positions (live and gaps) stay below this.
pub(crate) const POS_LIMIT: u32 = 1 << 31;

/// The reach refresh after a batch of updates covers one slot per this
/// many updates (see `Grid::refresh_reach`).
const REFRESH_SHARE: usize = 2;
/// Pending objects that make a bulk-loaded (gapless) layout relaid out
/// with gaps (see `Grid::tidy`).
const GAPLESS_PENDING: usize = 8;
/// How far into a neighbour row [`Grid::borrow_gap`] looks for a gap (a
/// relayout leaves one per eight entries): a bound on the entries one
/// borrowing shifts.
const BORROW_REACH: usize = 64;

/// Slot states, in the top bits of a slot's position code.
const PENDING: u32 = 1 << 31;
const FREE: u32 = 0b11 << 30;
const INDEX_MASK: u32 = (1 << 30) - 1;
/// End of the free list.
const NO_SLOT: u32 = INDEX_MASK;

/// A slot's position code says where its object is: a position in the
/// layout's entries (< `PENDING`), `PENDING | i` for the i-th pending entry,
/// or `FREE | next free slot`.
fn is_free(pos: u32) -> bool {
    pos & FREE == FREE
}

fn pending_index(pos: u32) -> Option<usize> {
    (pos & FREE == PENDING).then_some((pos & INDEX_MASK) as usize)
}

/// Names an object in a [`Grid`]. Stale handles (of removed objects) are
/// detected: operations on them return [`CollideError::StaleHandle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    index: u32,
    generation: u32,
}

impl Handle {
    /// The slot index: what [`Pair`]s report. Indices are reused after
    /// removal; the generation tells old handles from new ones.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many times the slot was reused before this handle.
    pub fn generation(self) -> u32 {
        self.generation
    }
}

/// Collision filtering, as Box2D's category and mask bits: two objects can
/// pair only if each one's category is in the other's mask.
///
/// "No enemy against enemy": give enemies category `ENEMY` and a mask
/// without `ENEMY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    /// The groups this object belongs to (bits).
    pub category: u32,
    /// The groups this object may collide with (bits).
    pub mask: u32,
}

impl Filter {
    /// Category 1, colliding with everything.
    pub const DEFAULT: Filter = Filter {
        category: 1,
        mask: u32::MAX,
    };

    /// Whether objects with filters `self` and `other` may pair.
    #[inline]
    pub fn allows(self, other: Filter) -> bool {
        self.category & other.mask != 0 && other.category & self.mask != 0
    }
}

impl Default for Filter {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How a [`Grid`] runs its queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Execution {
    /// One thread.
    #[default]
    Serial,
    /// On rayon's current thread pool. Pairs, their order and the
    /// statistics are bit-identical to [`Execution::Serial`], whatever the
    /// number of threads: each worker fills its own buffer for a fixed run of
    /// rows, and the buffers are joined in row order.
    #[cfg(feature = "rayon")]
    Parallel,
}

/// Options of a [`Grid`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GridConfig {
    /// Serial or parallel queries and rebuilds.
    pub execution: Execution,
}

/// The default broad phase: a hierarchical grid of sorted rows.
///
/// * **Exact:** each intersecting pair is reported once (closed boxes:
///   touching counts), in an order fixed by the sequence of operations.
/// * **Any sizes:** objects are grouped into levels by height (row heights
///   are powers of two chosen from the data); a coarse row sweeps the fine
///   rows under it, so a few huge objects never slow the small ones down.
/// * **Any coordinates:** rows exist only where objects are; no array is
///   sized by the world.
/// * **Incremental:** objects keep a [`Handle`]; [`update`](Self::update)
///   re-files only what moved, usually in place;
///   [`find_moved_pairs`](Self::find_moved_pairs) reports only pairs
///   touching objects that moved (or were [`touch`](Self::touch)ed).
/// * **Filtered:** [`Filter`] category and mask bits, checked before a pair
///   is reported.
/// * **Parallel:** `Execution::Parallel` (feature `rayon`), bit-identical.
///
/// Memory: 24 bytes per entry (plus about one gap slot per eight entries
/// after incremental changes), 8 per handle, 8 more per handle once any
/// filter is set, and about 8 of build scratch: see
/// [`memory_bytes`](Self::memory_bytes). When most objects move every frame,
/// [`rebuild`](Self::rebuild) is faster than [`update`](Self::update) per
/// object.
///
/// ```
/// use collide::{Aabb, Grid};
/// let mut grid = Grid::new();
/// let a = grid.insert(Aabb::new([0.0, 0.0], [10.0, 10.0])?)?;
/// let b = grid.insert(Aabb::new([10.0, 5.0], [20.0, 6.0])?)?; // touches a
/// let _c = grid.insert(Aabb::new([50.0, 50.0], [60.0, 60.0])?)?;
/// let mut pairs = Vec::new();
/// grid.find_all_pairs(&mut pairs)?;
/// assert_eq!(pairs.len(), 1);
/// assert_eq!((pairs[0].a, pairs[0].b), (a.index(), b.index()));
/// # Ok::<(), collide::CollideError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Grid {
    config: GridConfig,
    /// Per handle index: position code (see `is_free`, `pending_index`).
    /// Exact only while `handles_placed`; after a rebuild, a position in
    /// the object's row.
    slot_pos: Vec<u32>,
    /// Per handle index: generation, to catch stale handles; plus `epoch`.
    slot_gen: Vec<u32>,
    /// Added to every slot's generation: `clear` and `rebuild` make every
    /// handle stale at once by raising it, instead of raising each slot's.
    /// A slot's generation only ever rises by one (a removal, or a new
    /// epoch), so a handle matches again only after 2^32 of them.
    epoch: u32,
    free_head: u32,
    live: usize,
    /// Per handle; empty while every object has the default filter.
    filters: Vec<Filter>,
    layout: Layout,
    /// Objects not yet placed in the layout (new rows, full rows, new levels).
    pending: Vec<Entry>,
    /// Per pending entry: moved since the last moved-pairs query.
    pending_moved: Vec<bool>,
    /// Pending entries in order of min x, while they are queried.
    pending_order: Vec<u32>,
    /// One bit per entry position: moved since the last moved-pairs query.
    moved: Vec<u64>,
    /// Updates not yet applied. While it is not empty, `pending` has room
    /// for one more entry per waiting update, so applying never fails.
    lag: UpdateLag,
    /// The layout is a bulk load's, without gaps, and has not been relaid
    /// out since.
    bulk_loaded: bool,
    /// Every layout object's slot holds its exact position. A rebuild
    /// leaves each a position in its row instead, and the first operation
    /// that needs exact ones sets them (`place_handles`): a caller that
    /// rebuilds every frame and asks only for pairs never pays for them.
    handles_placed: bool,
    /// Updates applied since the last reach refresh, and the entry position
    /// the next refresh starts at (see `refresh_reach`).
    updates_since_refresh: usize,
    refresh_pos: usize,
    build_scratch: BuildScratch,
    sweep_scratch: Scratch,
    /// Per run of rows of a parallel query: its pairs, before they are
    /// joined in row order, and its sweep's scratch.
    #[cfg(feature = "rayon")]
    par_buffers: Vec<(Vec<Pair>, Scratch)>,
    stats: QueryStats,
}

impl Default for Grid {
    fn default() -> Self {
        Self::new()
    }
}

/// How a layout entry reports: the moved bits tell which pairs to keep.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    All,
    EitherMoved,
}

impl Grid {
    /// An empty serial grid.
    pub fn new() -> Self {
        Self::with_config(GridConfig::default())
    }

    /// An empty grid with `config`.
    pub fn with_config(config: GridConfig) -> Self {
        Self {
            config,
            slot_pos: Vec::new(),
            slot_gen: Vec::new(),
            epoch: 0,
            free_head: NO_SLOT,
            live: 0,
            filters: Vec::new(),
            layout: Layout::default(),
            pending: Vec::new(),
            pending_moved: Vec::new(),
            pending_order: Vec::new(),
            moved: Vec::new(),
            lag: UpdateLag::default(),
            bulk_loaded: false,
            handles_placed: true,
            updates_since_refresh: 0,
            refresh_pos: 0,
            build_scratch: BuildScratch::default(),
            sweep_scratch: Scratch::default(),
            #[cfg(feature = "rayon")]
            par_buffers: Vec::new(),
            stats: QueryStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> GridConfig {
        self.config
    }

    /// Changes how queries run; takes effect at the next query.
    pub fn set_execution(&mut self, execution: Execution) {
        self.config.execution = execution;
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when the grid holds no object.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Counters from the last pair query.
    pub fn last_stats(&self) -> QueryStats {
        self.stats
    }

    /// Bytes held by the grid's buffers (capacities, not lengths).
    pub fn memory_bytes(&self) -> usize {
        (self.slot_pos.capacity() + self.slot_gen.capacity()) * 4
            + self.filters.capacity() * std::mem::size_of::<Filter>()
            + self.layout.bytes()
            + self.pending.capacity() * std::mem::size_of::<Entry>()
            + self.pending_moved.capacity()
            + self.pending_order.capacity() * 4
            + self.moved.capacity() * 8
            + self.build_scratch.bytes()
            + self.sweep_scratch.bytes()
            + self.par_buffer_bytes()
    }

    fn par_buffer_bytes(&self) -> usize {
        #[cfg(feature = "rayon")]
        {
            self.par_buffers
                .iter()
                .map(|(b, scratch)| b.capacity() * std::mem::size_of::<Pair>() + scratch.bytes())
                .sum()
        }
        #[cfg(not(feature = "rayon"))]
        {
            0
        }
    }

    /// The live handle whose index is `index`, if any (pairs report indices).
    pub fn handle(&self, index: u32) -> Option<Handle> {
        let pos = *self.slot_pos.get(index as usize)?;
        (!is_free(pos)).then(|| self.handle_of(index))
    }

    /// The handle of slot `index` as it is now (live or not).
    fn handle_of(&self, index: u32) -> Handle {
        Handle {
            index,
            generation: self.slot_gen[index as usize].wrapping_add(self.epoch),
        }
    }

    /// The position code of a live handle.
    fn slot(&self, h: Handle) -> Result<u32, CollideError> {
        match self.slot_pos.get(h.index as usize) {
            Some(&pos) if !is_free(pos) && self.handle_of(h.index) == h => Ok(pos),
            _ => Err(CollideError::StaleHandle {
                index: h.index,
                generation: h.generation,
            }),
        }
    }

    /// The box of `h`, or `None` for a stale handle.
    ///
    /// Right after a [`rebuild`](Self::rebuild), until an `insert`,
    /// `update`, `touch` or `remove` places the handles, this searches the
    /// object's row (hundreds of entries in a dense world) instead of
    /// reading one entry.
    pub fn get(&self, h: Handle) -> Option<Aabb> {
        let pos = self.slot(h).ok()?;
        if let Some(waiting) = self.lag.latest(h.index) {
            return waiting.aabb();
        }
        match pending_index(pos) {
            Some(i) => self.pending[i].aabb(),
            None if self.handles_placed => self.layout.entries[pos as usize].aabb(),
            None => self.find_in_row(pos as usize, h.index)?.aabb(),
        }
    }

    /// The entry of object `id`, searched in the row holding position
    /// `pos` (where a rebuild leaves an object's slot pointing).
    fn find_in_row(&self, pos: usize, id: u32) -> Option<&Entry> {
        let row = self.layout.rows.get(self.layout.row_at(pos))?;
        self.layout.entries[row.start as usize..row.end as usize]
            .iter()
            .find(|e| !e.is_gap() && e.id == id)
    }

    /// Gives every layout object's slot its exact position, if a rebuild
    /// left them approximate: one pass over the entries, each a write to
    /// its slot.
    fn place_handles(&mut self) {
        if self.handles_placed {
            return;
        }
        for (p, e) in self.layout.entries.iter().enumerate() {
            if !e.is_gap() {
                self.slot_pos[e.id as usize] = p as u32;
            }
        }
        self.handles_placed = true;
    }

    /// The filter of `h`, or `None` for a stale handle.
    pub fn filter(&self, h: Handle) -> Option<Filter> {
        self.slot(h).ok()?;
        Some(
            self.filters
                .get(h.index as usize)
                .copied()
                .unwrap_or_default(),
        )
    }

    /// Adds an object with the default filter.
    ///
    /// # Errors
    /// [`CollideError::TooManyObjects`] beyond 2^30 - 1 objects,
    /// [`CollideError::OutOfMemory`] if a buffer cannot grow; the grid is
    /// unchanged either way.
    pub fn insert(&mut self, aabb: Aabb) -> Result<Handle, CollideError> {
        self.insert_with_filter(aabb, Filter::DEFAULT)
    }

    /// Adds an object with `filter`. Errors as [`insert`](Self::insert).
    pub fn insert_with_filter(
        &mut self,
        aabb: Aabb,
        filter: Filter,
    ) -> Result<Handle, CollideError> {
        if self.live >= MAX_OBJECTS as usize {
            return Err(CollideError::TooManyObjects {
                count: self.live + 1,
                limit: MAX_OBJECTS as usize,
            });
        }
        self.apply_waiting_updates();
        // Filing may shift other entries, which moves their slots.
        self.place_handles();
        // Reserve everything first, so a failure leaves the grid unchanged.
        try_reserve(&mut self.slot_pos, 1, "grid handles")?;
        try_reserve(&mut self.slot_gen, 1, "grid handles")?;
        try_reserve(&mut self.pending, 1, "grid pending objects")?;
        try_reserve(&mut self.pending_moved, 1, "grid pending objects")?;
        if filter != Filter::DEFAULT || !self.filters.is_empty() {
            let want = (self.slot_pos.len() + 1).saturating_sub(self.filters.len());
            try_reserve(&mut self.filters, want, "grid filters")?;
        }
        let index = if self.free_head != NO_SLOT {
            let i = self.free_head;
            self.free_head = self.slot_pos[i as usize] & INDEX_MASK;
            i
        } else {
            self.slot_pos.push(FREE);
            self.slot_gen.push(0);
            (self.slot_pos.len() - 1) as u32
        };
        if filter != Filter::DEFAULT || !self.filters.is_empty() {
            if self.filters.len() < self.slot_pos.len() {
                self.filters.resize(self.slot_pos.len(), Filter::DEFAULT);
            }
            self.filters[index as usize] = filter;
        }
        self.live += 1;
        let e = Entry::new(&aabb, index);
        self.slot_pos[index as usize] = self.file(e);
        Ok(self.handle_of(index))
    }

    /// Moves `h` to `aabb`. Re-files it only if its row or level changed;
    /// otherwise the entry is rewritten in place and nudged along its row.
    /// Marks it moved (unless the box is unchanged).
    ///
    /// The change is applied a few updates later (every other call sees it
    /// at once), so that a burst of updates fetches its entries from memory
    /// together instead of one after another.
    ///
    /// # Errors
    /// [`CollideError::StaleHandle`] for a removed object,
    /// [`CollideError::OutOfMemory`] if the buffer of objects waiting for a
    /// row cannot grow; the grid is unchanged either way.
    pub fn update(&mut self, h: Handle, aabb: Aabb) -> Result<(), CollideError> {
        self.place_handles();
        let slot = self.slot(h)?;
        // Each waiting update may re-file its object as pending: room for
        // all of them, so that applying them later cannot fail.
        try_reserve(&mut self.pending, LAG + 1, "grid pending objects")?;
        try_reserve(&mut self.pending_moved, LAG + 1, "grid pending objects")?;
        if pending_index(slot).is_none() {
            // The entry and its two neighbours (which the nudge compares
            // with): 72 bytes, on at most three cache lines, each of which
            // holds one of these three bytes.
            let around = self
                .layout
                .entries
                .as_ptr()
                .wrapping_add(slot as usize)
                .wrapping_sub(1);
            for offset in [0, 36, 3 * std::mem::size_of::<Entry>() - 1] {
                prefetch(around.cast::<u8>().wrapping_add(offset));
            }
        }
        if self.lag.is_full()
            && let Some(oldest) = self.lag.pop()
        {
            self.apply_update(oldest);
        }
        self.lag.push(Entry::new(&aabb, h.index));
        self.updates_since_refresh += 1;
        Ok(())
    }

    /// Applies every waiting update, oldest first.
    fn apply_waiting_updates(&mut self) {
        while let Some(e) = self.lag.pop() {
            self.apply_update(e);
        }
    }

    /// Applies one update: `new.id` is a live handle index (removal applies
    /// the waiting updates first), and `pending` has room for one more.
    fn apply_update(&mut self, new: Entry) {
        let slot = self.slot_pos[new.id as usize];
        if let Some(i) = pending_index(slot) {
            if !self.pending[i].same_box(&new) {
                self.pending[i] = new;
                self.pending_moved[i] = true;
            }
            return;
        }
        let p = slot as usize;
        let old = self.layout.entries[p];
        if old.same_box(&new) {
            return;
        }
        let stays = self.stays_in_row(&old, &new);
        if stays {
            // The old reach still covers everything before; raise it (and
            // the row's after it) only if the object now reaches further.
            self.layout.entries[p] = Entry {
                reach: old.reach,
                ..new
            };
            self.set_moved(p, true);
            if new.max_x > old.reach {
                self.raise_reach_in_row(p, old.min_x, new.max_x);
            }
            self.nudge(p);
        } else {
            debug_assert!(self.pending.len() < self.pending.capacity());
            self.bury(p);
            self.slot_pos[new.id as usize] = self.file(new);
        }
    }

    /// Whether an object moving from `old` (in the layout) to `new` keeps
    /// its level and row.
    #[inline]
    fn stays_in_row(&self, old: &Entry, new: &Entry) -> bool {
        // The common case, cheaply: the same height class keeps the level,
        // and rows nest (a row is a union of rows of every finer level), so
        // the same row at the finest level's height is the same row at
        // every level. Not where keys saturate, which breaks the nesting.
        if same_height_class(old, new)
            && let Some(finest) = self.layout.levels.first()
        {
            let key = row_key(new.min_y, finest.exp);
            if key == row_key(old.min_y, finest.exp) && key != i64::MAX && key != i64::MIN {
                return true;
            }
        }
        let level = self.layout.level_for_height(old.height_up());
        level.is_some_and(|l| {
            let exp = self.layout.levels[l].exp;
            (same_height_class(old, new)
                || self.layout.level_for_height(new.height_up()) == Some(l))
                && row_key(new.min_y, exp) == row_key(old.min_y, exp)
        })
    }

    /// Marks `h` as moved without changing its box: the next
    /// [`find_moved_pairs`](Self::find_moved_pairs) reports its pairs. For
    /// an object that stays where it is but starts to act on what it
    /// overlaps (a card let go over another, a body woken up); `update`
    /// with the same box marks nothing.
    ///
    /// # Errors
    /// [`CollideError::StaleHandle`] for a removed object.
    pub fn touch(&mut self, h: Handle) -> Result<(), CollideError> {
        // A waiting update may still move the object: apply it first, so
        // the mark lands where the object is.
        self.apply_waiting_updates();
        self.place_handles();
        let slot = self.slot(h)?;
        match pending_index(slot) {
            Some(i) => self.pending_moved[i] = true,
            None => self.set_moved(slot as usize, true),
        }
        Ok(())
    }

    /// Removes `h`, returning its box. Pairs are never reported for it again.
    ///
    /// # Errors
    /// [`CollideError::StaleHandle`] for a removed object.
    pub fn remove(&mut self, h: Handle) -> Result<Aabb, CollideError> {
        self.apply_waiting_updates();
        self.place_handles();
        let slot = self.slot(h)?;
        let old = match pending_index(slot) {
            Some(i) => {
                let old = self.pending.swap_remove(i);
                self.pending_moved.swap_remove(i);
                if let Some(moved_in) = self.pending.get(i) {
                    self.slot_pos[moved_in.id as usize] = PENDING | i as u32;
                }
                old
            }
            None => {
                let p = slot as usize;
                let old = self.layout.entries[p];
                self.bury(p);
                old
            }
        };
        let i = h.index as usize;
        self.slot_gen[i] = self.slot_gen[i].wrapping_add(1);
        self.slot_pos[i] = FREE | self.free_head;
        self.free_head = h.index;
        if let Some(f) = self.filters.get_mut(h.index as usize) {
            *f = Filter::DEFAULT;
        }
        self.live -= 1;
        old.aabb().ok_or(CollideError::StaleHandle {
            index: h.index,
            generation: h.generation,
        })
    }

    /// Sets the filter of `h`.
    ///
    /// # Errors
    /// [`CollideError::StaleHandle`] for a removed object,
    /// [`CollideError::OutOfMemory`] if the filter table cannot be allocated.
    pub fn set_filter(&mut self, h: Handle, filter: Filter) -> Result<(), CollideError> {
        self.slot(h)?;
        if self.filters.is_empty() {
            if filter == Filter::DEFAULT {
                return Ok(());
            }
            try_fill(
                &mut self.filters,
                self.slot_pos.len(),
                Filter::DEFAULT,
                "grid filters",
            )?;
        }
        self.filters[h.index as usize] = filter;
        Ok(())
    }

    /// Removes every object. Old handles become stale.
    pub fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        self.free_head = NO_SLOT;
        for i in (0..self.slot_pos.len()).rev() {
            self.slot_pos[i] = FREE | self.free_head;
            self.free_head = i as u32;
        }
        self.clear_objects();
    }

    /// Everything `clear` empties but the handle slots.
    fn clear_objects(&mut self) {
        self.live = 0;
        self.filters.clear();
        self.layout.clear();
        self.pending.clear();
        self.pending_moved.clear();
        self.moved.clear();
        self.lag.clear();
        self.bulk_loaded = false;
        self.handles_placed = true;
    }

    /// [`clear`](Self::clear) before a rebuild, which gives every slot it
    /// fills a position and the others their place in the free list
    /// (`finish_rebuild`), or clears again if it fails: the slots are left
    /// as they are meanwhile, and a new epoch makes every handle stale
    /// without a pass over them (at a million objects that pass and the
    /// free list that `clear` threads through every slot cost 0.4–0.8 ms,
    /// 2–3% of a rebuild).
    fn clear_for_rebuild(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        self.free_head = NO_SLOT;
        self.clear_objects();
    }

    /// Replaces the contents with `boxes`: the object of `boxes[i]` gets
    /// handle index `i` ([`handle`](Self::handle) gives the handle). All
    /// objects count as moved. The fast path for rebuilding every frame:
    /// one counting sort; once the buffers have grown, it allocates nothing
    /// sized by the objects. The handles' exact places in the layout are
    /// set later, by the first `insert`, `update`, `touch` or `remove` (one
    /// pass over the objects), so rebuilding only to ask for pairs never
    /// pays for them; [`get`](Self::get) before that searches a row.
    ///
    /// # Errors
    /// [`CollideError::TooManyObjects`], [`CollideError::OutOfMemory`]; the
    /// grid is left empty.
    pub fn rebuild(&mut self, boxes: &[Aabb]) -> Result<(), CollideError> {
        #[cfg(feature = "rayon")]
        if self.config.execution == Execution::Parallel {
            return team::run(rayon::current_num_threads(), |team| {
                self.rebuild_on(boxes, team)
            });
        }
        self.rebuild_on(boxes, &Serial)
    }

    /// [`rebuild`](Self::rebuild), its passes run by `exec`.
    fn rebuild_on(&mut self, boxes: &[Aabb], exec: &impl Exec) -> Result<(), CollideError> {
        let n = boxes.len();
        let result = if n > MAX_OBJECTS as usize {
            Err(CollideError::TooManyObjects {
                count: n,
                limit: MAX_OBJECTS as usize,
            })
        } else {
            self.clear_for_rebuild();
            self.rebuild_inner(boxes, exec)
        };
        if result.is_err() {
            self.clear();
        }
        debug_assert!(n == self.live || result.is_err());
        result
    }

    fn rebuild_inner(&mut self, boxes: &[Aabb], exec: &impl Exec) -> Result<(), CollideError> {
        let n = boxes.len();
        if self.slot_pos.len() < n {
            let more = n - self.slot_pos.len();
            try_reserve(&mut self.slot_pos, more, "grid handles")?;
            try_reserve(&mut self.slot_gen, more, "grid handles")?;
            self.slot_pos.resize(n, FREE);
            self.slot_gen.resize(n, 0);
        }
        let src = |i: usize| Entry::new(&boxes[i], i as u32);
        let positions = Some(&mut self.slot_pos[..n]);
        self.layout
            .build(n, src, false, &mut self.build_scratch, exec, positions)?;
        self.finish_rebuild(n)
    }

    /// After a rebuild placed objects 0..n: the rest of the slots are free,
    /// and every object counts as moved.
    fn finish_rebuild(&mut self, n: usize) -> Result<(), CollideError> {
        self.bulk_loaded = true;
        // The build left each slot a position in its object's row.
        self.handles_placed = false;
        self.free_head = NO_SLOT;
        for i in (n..self.slot_pos.len()).rev() {
            self.slot_pos[i] = FREE | self.free_head;
            self.free_head = i as u32;
        }
        self.live = n;
        let words = self.layout.entries.len().div_ceil(64);
        try_fill(&mut self.moved, words, !0u64, "grid moved bits")?;
        if let Some(last) = self.moved.last_mut() {
            let tail = self.layout.entries.len() % 64;
            if tail != 0 {
                *last = (1u64 << tail) - 1;
            }
        }
        Ok(())
    }

    /// Every pair of intersecting objects (allowed by their filters), each
    /// once, as `Pair { a, b }` with `a < b` (handle indices), appended to
    /// `out`.
    ///
    /// # Errors
    /// [`CollideError::OutOfMemory`] if `out` or a buffer cannot grow.
    pub fn find_all_pairs(&mut self, out: &mut Vec<Pair>) -> Result<(), CollideError> {
        self.tidy()?;
        self.find(out, Keep::All)
    }

    /// The pairs in which at least one object was inserted or updated since
    /// the last call (or since a [`rebuild`](Self::rebuild)), each once;
    /// then forgets what moved. Pairs of two objects that both stayed still
    /// are not reported: keep them from an earlier call.
    ///
    /// # Errors
    /// [`CollideError::OutOfMemory`] if `out` or a buffer cannot grow; the
    /// moved set is kept, so the call can be repeated.
    pub fn find_moved_pairs(&mut self, out: &mut Vec<Pair>) -> Result<(), CollideError> {
        self.tidy()?;
        self.find(out, Keep::EitherMoved)?;
        self.forget_moved();
        Ok(())
    }

    /// Forgets which objects moved, without reporting their pairs: after a
    /// bulk load whose pairs are not wanted, the next
    /// [`find_moved_pairs`](Self::find_moved_pairs) reports only what moves
    /// from now on.
    pub fn forget_moved(&mut self) {
        self.apply_waiting_updates();
        self.moved.fill(0);
        self.pending_moved.fill(false);
    }

    fn moved_count(&self) -> usize {
        self.moved
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>()
            + self.pending_moved.iter().filter(|&&m| m).count()
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            entries: &self.layout.entries,
            rows: &self.layout.rows,
            levels: &self.layout.levels,
            moved: &self.moved,
        }
    }

    fn find(&mut self, out: &mut Vec<Pair>, keep: Keep) -> Result<(), CollideError> {
        self.find_on::<Serial>(out, keep, None)
    }

    /// [`find`](Self::find); a parallel grid's sweep runs on `team` if
    /// given (a call that also rebuilt), else on a team of its own.
    fn find_on<E: Exec>(
        &mut self,
        out: &mut Vec<Pair>,
        keep: Keep,
        team: Option<&E>,
    ) -> Result<(), CollideError> {
        let before = out.len();
        let moved = if keep == Keep::EitherMoved {
            self.moved_count()
        } else {
            self.live
        };
        // Everything moved: every pair touches a moved object.
        let keep = if moved == self.live { Keep::All } else { keep };
        // Sparse when few moved: sweeping from the moved entries alone costs
        // about twice as much per entry as the full sweep, so switch at ~1/3.
        let sparse = keep == Keep::EitherMoved && moved * 3 < self.live;
        let mut tests = 0u64;
        #[cfg(feature = "rayon")]
        let parallel = self.config.execution == Execution::Parallel;
        #[cfg(not(feature = "rayon"))]
        let parallel = {
            // Only a parallel grid sweeps on a team.
            let _ = team;
            false
        };
        if parallel {
            #[cfg(feature = "rayon")]
            {
                let mut buffers = std::mem::take(&mut self.par_buffers);
                let moved_only = keep == Keep::EitherMoved;
                let r = match team {
                    Some(t) => {
                        parallel::find_in_layout(self, t, &mut buffers, out, moved_only, sparse)
                    }
                    None => team::run(rayon::current_num_threads(), |t| {
                        parallel::find_in_layout(self, t, &mut buffers, out, moved_only, sparse)
                    }),
                };
                self.par_buffers = buffers;
                tests += r?;
            }
        } else {
            let mut scratch = std::mem::take(&mut self.sweep_scratch);
            let ctx = self.ctx();
            let filters = &self.filters;
            let rows = 0..ctx.rows.len();
            let result = if keep == Keep::All && filters.is_empty() {
                let mut fast = sweep::FastOut::new(out);
                let r = sweep::sweep_rows_all(&ctx, rows, &mut scratch, &mut tests, &mut fast);
                fast.finish();
                r
            } else if sparse {
                let mut sink = PairSink::new(out);
                sweep::sweep_moved_rows(&ctx, rows, &mut scratch, &mut tests, &mut |_, a, _, b| {
                    push_pair(&mut sink, filters, a.id, b.id)
                })
            } else if keep == Keep::EitherMoved {
                let mut sink = PairSink::new(out);
                sweep::sweep_rows(&ctx, rows, &mut scratch, &mut tests, &mut |pa, a, pb, b| {
                    if ctx.moved(pa) || ctx.moved(pb) {
                        push_pair(&mut sink, filters, a.id, b.id)
                    } else {
                        Ok(())
                    }
                })
            } else {
                let mut sink = PairSink::new(out);
                sweep::sweep_rows(&ctx, rows, &mut scratch, &mut tests, &mut |_, a, _, b| {
                    push_pair(&mut sink, filters, a.id, b.id)
                })
            };
            self.sweep_scratch = scratch;
            result?;
        }
        let mut order = std::mem::take(&mut self.pending_order);
        let pending = self.find_pending(out, keep, &mut order);
        self.pending_order = order;
        tests += pending?;
        self.stats = QueryStats {
            tests,
            reported: (out.len() - before) as u64,
        };
        Ok(())
    }

    /// Pairs involving pending objects: each queries the layout, and they
    /// are swept against each other in order of min x (`order` is scratch).
    fn find_pending(
        &self,
        out: &mut Vec<Pair>,
        keep: Keep,
        order: &mut Vec<u32>,
    ) -> Result<u64, CollideError> {
        let ctx = self.ctx();
        let mut sink = PairSink::new(out);
        let mut tests = 0u64;
        for (k, p) in self.pending.iter().enumerate() {
            let p_moved = keep == Keep::All || self.pending_moved[k];
            for level in &self.layout.levels {
                sweep::query_level(&ctx, level, p, &mut tests, |pos, b| {
                    if p_moved || ctx.moved(pos) {
                        push_pair(&mut sink, &self.filters, p.id, b.id)
                    } else {
                        Ok(())
                    }
                })?;
            }
        }
        // Pending objects against each other: up to a thousand of them, so
        // not each against each (half a million tests), but swept in order
        // of min x.
        order.clear();
        try_reserve(order, self.pending.len(), "grid pending order")?;
        order.extend(0..self.pending.len() as u32);
        let pending = &self.pending;
        order.sort_unstable_by(|&i, &j| {
            let (a, b) = (&pending[i as usize], &pending[j as usize]);
            a.min_x.total_cmp(&b.min_x).then(i.cmp(&j))
        });
        for (k, &i) in order.iter().enumerate() {
            let p = &pending[i as usize];
            let p_moved = keep == Keep::All || self.pending_moved[i as usize];
            for &j in &order[k + 1..] {
                let q = &pending[j as usize];
                if q.min_x > p.max_x {
                    break;
                }
                tests += 1;
                if p.overlaps(q) && (p_moved || self.pending_moved[j as usize]) {
                    push_pair(&mut sink, &self.filters, p.id, q.id)?;
                }
            }
        }
        Ok(tests)
    }

    /// Every pair (object of `self`, object of `other`) whose boxes
    /// intersect and whose filters allow it, as `Pair { a: self index, b:
    /// other index }`. For "player against all enemy bullets": keep the two
    /// sets in two grids.
    ///
    /// # Errors
    /// [`CollideError::OutOfMemory`] if `out` or a buffer cannot grow.
    pub fn find_pairs_between(
        &mut self,
        other: &mut Grid,
        out: &mut Vec<Pair>,
    ) -> Result<(), CollideError> {
        self.tidy()?;
        other.tidy()?;
        let before = out.len();
        let mut scratch = std::mem::take(&mut self.sweep_scratch);
        let (a, b) = (self.ctx(), other.ctx());
        let mut sink = PairSink::new(out);
        let mut tests = 0u64;
        let (fa, fb) = (&self.filters, &other.filters);
        let allowed = |x: u32, y: u32| match (fa.get(x as usize), fb.get(y as usize)) {
            (None, None) => true,
            (p, q) => p
                .copied()
                .unwrap_or_default()
                .allows(q.copied().unwrap_or_default()),
        };
        let mut run = || -> Result<(), CollideError> {
            for la in a.levels {
                for lb in b.levels {
                    // The cheaper side's rows sweep the other level.
                    let a_outer = sweep::prefer_outer(
                        sweep::level_count(la, a.rows),
                        la.exp,
                        sweep::level_count(lb, b.rows),
                        lb.exp,
                    );
                    if a_outer {
                        for row in &a.rows[la.row_start as usize..la.row_end as usize] {
                            sweep::cross(
                                &a,
                                row,
                                la.exp,
                                &b,
                                lb,
                                false,
                                &mut scratch,
                                &mut tests,
                                &mut |_, x, _, y| {
                                    if allowed(x.id, y.id) {
                                        sink.push(Pair { a: x.id, b: y.id })
                                    } else {
                                        Ok(())
                                    }
                                },
                            )?;
                        }
                    } else {
                        for row in &b.rows[lb.row_start as usize..lb.row_end as usize] {
                            sweep::cross(
                                &b,
                                row,
                                lb.exp,
                                &a,
                                la,
                                false,
                                &mut scratch,
                                &mut tests,
                                &mut |_, y, _, x| {
                                    if allowed(x.id, y.id) {
                                        sink.push(Pair { a: x.id, b: y.id })
                                    } else {
                                        Ok(())
                                    }
                                },
                            )?;
                        }
                    }
                }
            }
            // Pending objects of either side query the other's layout, and
            // each other.
            for p in &self.pending {
                for lb in b.levels {
                    sweep::query_level(&b, lb, p, &mut tests, |_, y| {
                        if allowed(p.id, y.id) {
                            sink.push(Pair { a: p.id, b: y.id })
                        } else {
                            Ok(())
                        }
                    })?;
                }
                for q in &other.pending {
                    tests += 1;
                    if p.overlaps(q) && allowed(p.id, q.id) {
                        sink.push(Pair { a: p.id, b: q.id })?;
                    }
                }
            }
            for q in &other.pending {
                for la in a.levels {
                    sweep::query_level(&a, la, q, &mut tests, |_, x| {
                        if allowed(x.id, q.id) {
                            sink.push(Pair { a: x.id, b: q.id })
                        } else {
                            Ok(())
                        }
                    })?;
                }
            }
            Ok(())
        };
        let result = run();
        self.sweep_scratch = scratch;
        result?;
        self.stats = QueryStats {
            tests,
            reported: (out.len() - before) as u64,
        };
        Ok(())
    }

    /// Handles of every object intersecting `region`, appended to `out`.
    ///
    /// # Errors
    /// [`CollideError::OutOfMemory`] if `out` cannot grow.
    pub fn query_region(&self, region: &Aabb, out: &mut Vec<Handle>) -> Result<(), CollideError> {
        let q = Entry::new(region, layout::GAP);
        let ctx = self.ctx();
        let mut tests = 0u64;
        // An object with a waiting update answers with its newest box.
        let waits = |id: u32| !self.lag.is_empty() && self.lag.latest(id).is_some();
        let mut push = |id: u32| -> Result<(), CollideError> {
            if waits(id) {
                return Ok(());
            }
            if out.len() == out.capacity() {
                try_reserve(out, out.capacity().max(16), "query output")?;
            }
            out.push(self.handle_of(id));
            Ok(())
        };
        for level in &self.layout.levels {
            sweep::query_level(&ctx, level, &q, &mut tests, |_, e| push(e.id))?;
        }
        for p in &self.pending {
            if p.overlaps(&q) {
                push(p.id)?;
            }
        }
        for e in self.lag.iter() {
            let newest = self.lag.latest(e.id).is_some_and(|l| std::ptr::eq(l, e));
            if newest && e.overlaps(&q) {
                try_reserve(out, 1, "query output")?;
                out.push(self.handle_of(e.id));
            }
        }
        Ok(())
    }

    /// Handles of every object containing `point` (edges included).
    ///
    /// # Errors
    /// [`CollideError::NonFinite`] for a NaN or infinite point,
    /// [`CollideError::OutOfMemory`] if `out` cannot grow.
    pub fn query_point(&self, point: Vec2, out: &mut Vec<Handle>) -> Result<(), CollideError> {
        self.query_region(&Aabb::from_point(point)?, out)
    }

    /// Places `e` in its row if a gap is near, else queues it as pending.
    /// Returns the slot position code. Marks it moved.
    fn file(&mut self, e: Entry) -> u32 {
        if let Some(p) = self.place_in_gap(e) {
            self.set_moved(p, true);
            p as u32
        } else {
            // Room was reserved by the caller (insert, or update for every
            // waiting update).
            self.pending.push(e);
            self.pending_moved.push(true);
            PENDING | (self.pending.len() - 1) as u32
        }
    }

    /// Turns the entry at `p` into a gap.
    fn bury(&mut self, p: usize) {
        let e = self.layout.entries[p];
        // The gap keeps the reach: it still bounds the entries before it.
        self.layout.entries[p] = Entry::gap(e.min_x, e.reach);
        self.set_moved(p, false);
        self.layout.live -= 1;
        let r = self.layout.row_at(p);
        self.layout.rows[r].gaps += 1;
    }

    /// Puts `e` into its row by shifting the entries between its sorted
    /// position and the nearest gap. `None` if its level or row does not
    /// exist, or the row has no gap.
    fn place_in_gap(&mut self, e: Entry) -> Option<usize> {
        let l = self.layout.level_for_height(e.height_up())?;
        let exp = self.layout.levels[l].exp;
        let key = row_key(e.min_y, exp);
        let r = match self.layout.find_row(l, key) {
            Some(r) => r,
            None => self.add_row(l, key)?,
        };
        if self.layout.rows[r].gaps == 0 && !self.borrow_gap(r) {
            return None;
        }
        let row = self.layout.rows[r];
        let (s, t) = (row.start as usize, row.end as usize);
        let at = s + layout::count_starting_by(&self.layout.entries[s..t], e.min_x);
        let mut dist = 0usize;
        let pos = loop {
            let right = at + dist;
            if right < t && self.layout.entries[right].is_gap() {
                for q in (at..right).rev() {
                    self.shift_entry(q, q + 1);
                }
                break at;
            }
            if dist < at - s && self.layout.entries[at - 1 - dist].is_gap() {
                let left = at - 1 - dist;
                for q in left + 1..at {
                    self.shift_entry(q, q - 1);
                }
                break at - 1;
            }
            dist += 1;
            if at + dist >= t && dist > at - s {
                return None; // unreachable while row.gaps > 0
            }
        };
        // Its reach is the row's before it, raised by its own max x; the
        // entries after it must reach at least as far.
        let before = if pos > s {
            self.layout.entries[pos - 1].reach
        } else {
            Real::NEG_INFINITY
        };
        self.layout.entries[pos] = Entry {
            reach: before.max(e.max_x),
            ..e
        };
        self.raise_reach(pos + 1, t, before.max(e.max_x));
        self.layout.live += 1;
        self.layout.rows[r].gaps -= 1;
        Some(pos)
    }

    /// Gives row `r` (which has no gap) a gap from a neighbour in memory:
    /// the next row's first slot, or else the previous row's last (see
    /// [`free_first_slot`](Self::free_first_slot)). False if neither can
    /// spare one. The caller fills the gap at once (it is the row's only
    /// one), but it is a valid gap meanwhile.
    ///
    /// Why: gaps are spread evenly by a relayout, but objects crossing rows
    /// take them unevenly (a row's gap count is a random walk), and an
    /// object with no gap in its new row waits as pending, which costs a
    /// query of its own at every query until the next relayout. Rows tile
    /// the entries, so a row's end can move into its neighbour's.
    fn borrow_gap(&mut self, r: usize) -> bool {
        if let Some(s) = self.free_first_slot(r + 1) {
            // The new gap ends row `r`: it sorts at its last entry and
            // keeps its reach.
            let last = self.layout.entries[s - 1];
            self.layout.entries[s] = Entry::gap(last.min_x, last.reach);
            self.layout.rows[r].end += 1;
        } else if let Some(t) = r.checked_sub(1).and_then(|p| self.free_last_slot(p)) {
            // The new gap starts row `r`: it sorts at its first entry, and
            // nothing before it reaches anywhere.
            let first = self.layout.entries[t + 1];
            self.layout.entries[t] = Entry::gap(first.min_x, Real::NEG_INFINITY);
            self.layout.rows[r].start -= 1;
        } else {
            return false;
        }
        self.layout.rows[r].gaps += 1;
        true
    }

    /// Adds row `key` to level `l` (which lacks it), one gap long, with a
    /// slot freed from the row after it in memory or else the row before.
    /// Returns its index; `None` if neither can spare a slot or the rows
    /// cannot grow. Why: an object that crosses the world's edge (or into
    /// an empty band) has no row to go to, and would wait as pending.
    fn add_row(&mut self, l: usize, key: i64) -> Option<usize> {
        let lv = self.layout.levels[l];
        let rows = &self.layout.rows[lv.row_start as usize..lv.row_end as usize];
        let ri = lv.row_start as usize + rows.partition_point(|r| r.key < key);
        self.layout.rows.try_reserve(1).ok()?;
        let pos = match self.free_first_slot(ri) {
            Some(s) => s,
            None => ri.checked_sub(1).and_then(|p| self.free_last_slot(p))?,
        };
        self.layout.entries[pos] = Entry::gap(Real::NEG_INFINITY, Real::NEG_INFINITY);
        let row = layout::Row {
            key,
            start: pos as u32,
            end: pos as u32 + 1,
            gaps: 1,
        };
        self.layout.rows.insert(ri, row);
        let levels = &mut self.layout.levels;
        levels[l].row_end += 1;
        for lv in &mut levels[l + 1..] {
            lv.row_start += 1;
            lv.row_end += 1;
        }
        Some(ri)
    }

    /// Row `r`, if it can lend a slot: it has a gap and would not be left
    /// empty.
    fn lender(&self, r: usize) -> Option<layout::Row> {
        let row = *self.layout.rows.get(r)?;
        (row.gaps > 0 && row.end - row.start > 1).then_some(row)
    }

    /// Frees row `r`'s first slot for the row before it in memory, by
    /// shifting its entries up to its first gap right by one; returns the
    /// slot's position. `None` if there is no row `r`, it would be left
    /// empty, or it has no gap within [`BORROW_REACH`] slots of its start.
    /// The caller writes the slot (it holds a stale entry, never moved).
    fn free_first_slot(&mut self, r: usize) -> Option<usize> {
        let row = self.lender(r)?;
        let (s, t) = (row.start as usize, row.end as usize);
        let es = &self.layout.entries[s..t.min(s + BORROW_REACH)];
        let g = s + es.iter().position(Entry::is_gap)?;
        // The entries keep their reach: removing a gap from a row leaves
        // every running maximum after it as it was.
        for q in (s..g).rev() {
            self.shift_entry(q, q + 1);
        }
        self.set_moved(s, false);
        let row = &mut self.layout.rows[r];
        row.start += 1;
        row.gaps -= 1;
        Some(s)
    }

    /// As [`free_first_slot`](Self::free_first_slot), row `r`'s last slot
    /// for the row after it, shifting its entries after its last gap left.
    fn free_last_slot(&mut self, r: usize) -> Option<usize> {
        let row = self.lender(r)?;
        let (s, t) = (row.start as usize, row.end as usize);
        let from = s.max(t.saturating_sub(BORROW_REACH));
        let g = from
            + self.layout.entries[from..t]
                .iter()
                .rposition(Entry::is_gap)?;
        for q in g + 1..t {
            self.shift_entry(q, q - 1);
        }
        self.set_moved(t - 1, false);
        let row = &mut self.layout.rows[r];
        row.end -= 1;
        row.gaps -= 1;
        Some(t - 1)
    }

    /// Raises the reach of entries `from..end` (one row) to at least `value`,
    /// stopping where it already is: reach never decreases along a row.
    fn raise_reach(&mut self, from: usize, end: usize, value: Real) {
        for e in &mut self.layout.entries[from..end] {
            if e.reach >= value {
                break;
            }
            e.reach = value;
        }
    }

    /// As [`raise_reach`](Self::raise_reach), from the entry at `from` (just
    /// rewritten in place, which had min x `old_min_x`) to the end of its
    /// row, usually without finding the row. The entries after it are
    /// still sorted, so it stops where the reach is high enough or min x
    /// falls (a row starts at its left end). A next row that starts right
    /// of where this one's last entry starts is not seen to start, so its
    /// first entries may be raised too (their reach is then merely loose);
    /// past `RAISE_WALK` entries, the row the walk is in is looked up and
    /// raised to its end, so a column of one-object rows does not carry the
    /// raise down the whole column.
    fn raise_reach_in_row(&mut self, from: usize, old_min_x: Real, value: Real) {
        const RAISE_WALK: usize = 16;
        let es = &mut self.layout.entries;
        let Some(first) = es.get_mut(from) else {
            return;
        };
        first.reach = first.reach.max(value);
        let mut last_x = old_min_x;
        let walk_end = (from + 1 + RAISE_WALK).min(es.len());
        for e in &mut es[from + 1..walk_end] {
            if e.reach >= value || e.min_x < last_x {
                return;
            }
            e.reach = value;
            last_x = e.min_x;
        }
        if walk_end < es.len() {
            // Finish the row the walk is in (its own, or one it ran into,
            // which must not be left with a reach that falls).
            let end = self.layout.rows[self.layout.row_at(walk_end - 1)].end as usize;
            self.raise_reach(walk_end, end, value);
        }
    }

    /// Moves the entry at `from` to `to` (overwriting it), with its slot and
    /// moved bit.
    fn shift_entry(&mut self, from: usize, to: usize) {
        let e = self.layout.entries[from];
        self.layout.entries[to] = e;
        let m = self.is_moved(from);
        self.set_moved(to, m);
        if !e.is_gap() {
            self.slot_pos[e.id as usize] = to as u32;
        }
    }

    /// Restores the row's order after the entry at `p` changed its min x, by
    /// swapping it past its neighbours.
    fn nudge(&mut self, p: usize) {
        let x = self.layout.entries[p].min_x;
        let entries = &self.layout.entries;
        let left = p > 0 && entries[p - 1].min_x > x;
        let right = p + 1 < entries.len() && entries[p + 1].min_x < x;
        if !(left || right) {
            return;
        }
        // A neighbour out of order may just be in the next or previous row.
        let row = self.layout.rows[self.layout.row_at(p)];
        let mut q = p;
        while q > row.start as usize && self.layout.entries[q - 1].min_x > x {
            self.swap_entries(q - 1, q);
            q -= 1;
        }
        if q == p {
            while q + 1 < row.end as usize && self.layout.entries[q + 1].min_x < x {
                self.swap_entries(q, q + 1);
                q += 1;
            }
        }
    }

    /// Swaps two neighbours `i < j` of one row. The later position takes
    /// the larger reach: both values bound everything up to `j`.
    fn swap_entries(&mut self, i: usize, j: usize) {
        self.layout.entries.swap(i, j);
        let reach = self.layout.entries[i]
            .reach
            .max(self.layout.entries[j].reach);
        self.layout.entries[j].reach = reach;
        let (mi, mj) = (self.is_moved(i), self.is_moved(j));
        self.set_moved(i, mj);
        self.set_moved(j, mi);
        for k in [i, j] {
            let e = self.layout.entries[k];
            if !e.is_gap() {
                self.slot_pos[e.id as usize] = k as u32;
            }
        }
    }

    fn is_moved(&self, p: usize) -> bool {
        self.moved
            .get(p / 64)
            .is_some_and(|w| w >> (p % 64) & 1 == 1)
    }

    fn set_moved(&mut self, p: usize, on: bool) {
        if let Some(w) = self.moved.get_mut(p / 64) {
            if on {
                *w |= 1 << (p % 64);
            } else {
                *w &= !(1 << (p % 64));
            }
        }
    }

    /// Most pending objects before a relayout: each pending object queries
    /// the layout on its own at every query, so keep them few.
    fn pending_limit(&self) -> usize {
        (64 + self.live / 256).min(1024)
    }

    /// Sets the reach afresh in one slot per `REFRESH_SHARE` updates applied
    /// since the last call, from where it stopped, round robin over the
    /// entries (a long row is done a piece at a time, so a frame with a few
    /// updates never pays for a whole row). Updates only raise the reach,
    /// so without this windows grow until a relayout happens to reset them:
    /// tests per query rose 1.8-fold over 1,750 frames of 10% moving at
    /// 100k objects, and one object's trip far right and back can make
    /// every window of its row reach back to the row's start (a test). A
    /// sequential pass, under a nanosecond a slot.
    fn refresh_reach(&mut self) {
        let slots = self.layout.entries.len();
        let updates = std::mem::take(&mut self.updates_since_refresh);
        // At most an eighth of the grid per call: when most objects move,
        // a fresher reach costs more raises in the next frame's updates
        // than it saves in tests.
        let mut budget = (updates / REFRESH_SHARE).min(slots / 8 + 1).min(slots);
        while budget > 0 {
            if self.refresh_pos >= slots {
                self.refresh_pos = 0;
            }
            let from = self.refresh_pos;
            let r = self.layout.row_at(from);
            let to = (self.layout.rows[r].end as usize).min(from + budget);
            self.layout.refresh_reach(r, from, to);
            budget -= to - from;
            self.refresh_pos = to;
        }
    }

    /// Relayouts if pending objects or gaps have piled up.
    fn tidy(&mut self) -> Result<(), CollideError> {
        self.apply_waiting_updates();
        self.refresh_reach();
        let gaps = self.layout.entries.len() - self.layout.live;
        // A layout as `rebuild` leaves it has no gaps, so nearly every
        // object that changes rows goes to `pending`, where it is queried
        // on its own at every query until the next relayout, and their
        // number only grows: the first relayout comes as soon as a few
        // wait. (At 64, 10k objects 10% moving took 30 frames to get
        // there, each paying for up to 60 pending objects' queries.)
        let gapless = self.bulk_loaded && self.pending.len() > GAPLESS_PENDING;
        if gapless || self.pending.len() > self.pending_limit() || gaps > self.layout.live / 2 + 64
        {
            self.relayout()?;
        }
        Ok(())
    }

    /// Rebuilds the layout from its live entries and the pending ones, with
    /// gaps in every row, keeping handles and moved marks.
    fn relayout(&mut self) -> Result<(), CollideError> {
        // Moved marks by handle index, to carry them across.
        let mut moved_ids = Vec::new();
        try_fill(
            &mut moved_ids,
            self.slot_pos.len().div_ceil(64),
            0u64,
            "grid relayout",
        )?;
        let mark = |bits: &mut [u64], id: u32| bits[id as usize / 64] |= 1 << (id % 64);
        for (p, e) in self.layout.entries.iter().enumerate() {
            if !e.is_gap() && self.is_moved(p) {
                mark(&mut moved_ids, e.id);
            }
        }
        for (e, &m) in self.pending.iter().zip(&self.pending_moved) {
            if m {
                mark(&mut moved_ids, e.id);
            }
        }
        // Room for the moved bits of the new layout, before the layout
        // changes: every row holds its live entries plus at most as many
        // gaps, so at most twice the objects, and nothing below can fail.
        let bound_words = (2 * self.live).div_ceil(64) + 1;
        if self.moved.capacity() < bound_words {
            let more = bound_words - self.moved.len();
            crate::error::try_reserve_exact(&mut self.moved, more, "grid moved bits")?;
        }
        // In place when the levels still fit; otherwise a fresh layout,
        // swapped in only once it is complete.
        if !self.layout.respread(&self.pending)? {
            let mut src = Vec::new();
            try_reserve(&mut src, self.live, "grid relayout")?;
            src.extend(self.layout.entries.iter().filter(|e| !e.is_gap()));
            src.extend_from_slice(&self.pending);
            let mut fresh = Layout::default();
            fresh.build(
                src.len(),
                |i| src[i],
                true,
                &mut self.build_scratch,
                &Serial,
                None,
            )?;
            self.layout = fresh;
        }
        self.bulk_loaded = false;
        // A big batch of insertions leaves a big pending buffer: give it back.
        self.pending.clear();
        self.pending_moved.clear();
        self.pending.shrink_to(self.pending_limit() + 1);
        self.pending_moved.shrink_to(self.pending_limit() + 1);
        let words = self.layout.entries.len().div_ceil(64);
        debug_assert!(words <= self.moved.capacity(), "moved bits reserved above");
        self.moved.clear();
        self.moved.resize(words, 0);
        for p in 0..self.layout.entries.len() {
            let e = self.layout.entries[p];
            if e.is_gap() {
                continue;
            }
            self.slot_pos[e.id as usize] = p as u32;
            if moved_ids[e.id as usize / 64] >> (e.id % 64) & 1 == 1 {
                self.moved[p / 64] |= 1 << (p % 64);
            }
        }
        self.handles_placed = true;
        Ok(())
    }

    /// Rebuilds the layout now, with gaps (normally done when pending objects
    /// or gaps pile up). For tests.
    #[doc(hidden)]
    pub fn relayout_now(&mut self) -> Result<(), CollideError> {
        self.apply_waiting_updates();
        self.relayout()
    }

    /// Checks every invariant; panics naming the first broken one. For tests.
    #[doc(hidden)]
    pub fn validate(&self) {
        self.layout.validate();
        let mut live = 0;
        for (i, &pos) in self.slot_pos.iter().enumerate() {
            if is_free(pos) {
                continue;
            }
            live += 1;
            match pending_index(pos) {
                Some(k) => assert_eq!(self.pending[k].id as usize, i, "pending slot"),
                None if self.handles_placed => assert_eq!(
                    self.layout.entries[pos as usize].id as usize, i,
                    "placed slot"
                ),
                None => assert!(
                    self.find_in_row(pos as usize, i as u32).is_some(),
                    "a rebuilt slot points into its object's row"
                ),
            }
        }
        assert_eq!(live, self.live, "live handles");
        assert_eq!(
            self.layout.live + self.pending.len(),
            self.live,
            "placed + pending"
        );
        assert_eq!(self.pending.len(), self.pending_moved.len());
        for (p, e) in self.layout.entries.iter().enumerate() {
            assert!(!(e.is_gap() && self.is_moved(p)), "gaps are never moved");
        }
        let mut free = self.free_head;
        let mut n_free = 0;
        while free != NO_SLOT {
            let pos = self.slot_pos[free as usize];
            assert!(is_free(pos), "free list holds free slots");
            free = pos & INDEX_MASK;
            n_free += 1;
            assert!(n_free <= self.slot_pos.len(), "free list is acyclic");
        }
        assert_eq!(
            n_free + self.live,
            self.slot_pos.len(),
            "every slot is live or free"
        );
    }
}

/// Whether `a` and `b` surely have heights of the same class, cheaply: the
/// rounded heights are equal and not a power of two (rounding can move a
/// true height across a power of two only onto it). Moving objects of
/// constant size take this path.
#[inline]
fn same_height_class(a: &Entry, b: &Entry) -> bool {
    let (ha, hb) = (a.max_y - a.min_y, b.max_y - b.min_y);
    ha == hb && ha.to_bits() & 0x007f_ffff != 0
}

#[inline]
fn push_pair(
    sink: &mut PairSink<'_>,
    filters: &[Filter],
    a: u32,
    b: u32,
) -> Result<(), CollideError> {
    if !filters.is_empty() {
        let (fa, fb) = (filters[a as usize], filters[b as usize]);
        if !fa.allows(fb) {
            return Ok(());
        }
    }
    sink.push(Pair::ordered(a, b))
}

impl BroadPhase for Grid {
    fn find_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<Pair>) -> Result<(), CollideError> {
        // One team for both, so its helpers are started once.
        #[cfg(feature = "rayon")]
        if self.config.execution == Execution::Parallel {
            return team::run(rayon::current_num_threads(), |team| {
                self.rebuild_on(boxes, team)?;
                self.tidy()?;
                self.find_on(out, Keep::All, Some(team))
            });
        }
        self.rebuild(boxes)?;
        self.find_all_pairs(out)
    }

    fn last_stats(&self) -> QueryStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests may panic on failure

    use super::*;

    /// A column of one-object rows: a raise that ran on as long as min x
    /// does not fall would carry one object's reach up the whole column,
    /// and a frame of such updates would cost the square of the column.
    #[test]
    fn a_raise_stays_near_its_row() {
        let boxes: Vec<Aabb> = (0..2000)
            .map(|k| Aabb::new([0.0, k as Real * 40.0], [10.0, k as Real * 40.0 + 30.0]).unwrap())
            .collect();
        let mut grid = Grid::new();
        grid.rebuild(&boxes).unwrap();
        grid.relayout_now().unwrap();
        let before: Vec<Real> = grid.layout.entries.iter().map(|e| e.reach).collect();
        let p = grid.slot_pos[0] as usize;
        grid.raise_reach_in_row(p, 0.0, 1000.0);
        let raised = grid
            .layout
            .entries
            .iter()
            .zip(&before)
            .filter(|(e, r)| e.reach != **r)
            .count();
        assert!(raised <= 1 + 16 + 2, "{raised} entries raised");
        grid.validate();
    }

    /// Ten rows of 64 objects, 32 px apart, 20 × 20 boxes.
    fn ten_rows() -> Vec<Aabb> {
        (0..640)
            .map(|k| {
                let (x, y) = ((k % 64) as Real * 30.0, (k / 64) as Real * 32.0 + 1.0);
                Aabb::new([x, y], [x + 20.0, y + 20.0]).unwrap()
            })
            .collect()
    }

    /// Objects crossing into a row that has no gap, or that does not exist
    /// (below the world's edge), take a slot from a neighbour row instead
    /// of waiting as pending, which would cost a query of their own at
    /// every query until the next relayout.
    #[test]
    fn rows_borrow_gaps_and_grow_instead_of_leaving_objects_pending() {
        let boxes = ten_rows();
        let mut grid = Grid::new();
        grid.rebuild(&boxes).unwrap();
        grid.relayout_now().unwrap();
        let rows = grid.layout.rows.len();
        let gaps = grid.layout.rows[1].gaps as usize;
        // Row 1 takes more objects from row 2 than it has gaps; row 0's
        // objects all go below y = 0, where no row is.
        let down = |b: &Aabb, dy: Real| {
            Aabb::new([b.min().x, b.min().y - dy], [b.max().x, b.max().y - dy]).unwrap()
        };
        for (i, b) in boxes.iter().enumerate().skip(128).take(gaps + 4) {
            let h = grid.handle(i as u32).unwrap();
            grid.update(h, down(b, 32.0)).unwrap();
        }
        for (i, b) in boxes.iter().enumerate().take(64) {
            let h = grid.handle(i as u32).unwrap();
            grid.update(h, down(b, 40.0)).unwrap();
        }
        let mut out = Vec::new();
        grid.find_moved_pairs(&mut out).unwrap();
        grid.validate();
        assert!(grid.pending.is_empty(), "{} pending", grid.pending.len());
        assert_eq!(grid.layout.rows.len(), rows + 1, "one row added");
        let exp = grid.layout.levels[0].exp;
        assert_eq!(
            grid.layout.rows[0].key,
            row_key(-39.0, exp),
            "the new row is first"
        );
        assert_eq!(grid.layout.rows[1].key, 0, "then the old first row");
    }

    /// After a bulk load (no gaps), objects that change rows wait as
    /// pending, each queried on its own at every query: a few of them make
    /// the next query relay the layout out with gaps.
    #[test]
    fn a_bulk_load_is_relaid_out_once_a_few_objects_wait() {
        let boxes = ten_rows();
        let mut grid = Grid::new();
        grid.rebuild(&boxes).unwrap();
        let mut out = Vec::new();
        let mut moved = 0;
        // Objects of row 2 move two rows down, to row 0, whose only
        // neighbour (row 1) has no gap to lend, a few a frame.
        for _frame in 0..4 {
            for _ in 0..3 {
                let (i, b) = (128 + moved, &boxes[128 + moved]);
                let down = Aabb::new([b.min().x, b.min().y - 64.0], [b.max().x, b.max().y - 64.0]);
                grid.update(grid.handle(i as u32).unwrap(), down.unwrap())
                    .unwrap();
                moved += 1;
            }
            grid.find_moved_pairs(&mut out).unwrap();
            grid.validate();
            let waiting = grid.pending.len();
            if moved > GAPLESS_PENDING {
                assert!(!grid.bulk_loaded, "relaid out with {moved} moved");
                assert_eq!(waiting, 0);
            } else {
                assert_eq!(waiting, moved, "each waits until then");
            }
        }
        assert!(
            !grid.bulk_loaded,
            "twelve waiting objects relay the layout out"
        );
    }

    /// A world of one row longer than the row sort's buffers (cut into
    /// buckets of x before it is sorted), with many objects at equal x:
    /// the row comes out sorted by min x with ties in input order, and the
    /// pairs are the brute-force ones.
    #[test]
    fn a_row_longer_than_the_row_sort_buffers_is_sorted_as_a_short_one() {
        let n = 3 * layout::RowSort::LONGEST + 123;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                // A few thousand distinct x over the strip: many ties.
                let x = (rng % 4096) as Real * 40.0;
                let y = (rng >> 40) as Real / (1u64 << 24) as Real;
                Aabb::new([x, y], [x + 30.0, y + 30.0]).unwrap()
            })
            .collect();
        let mut grid = Grid::new();
        grid.rebuild(&boxes).unwrap();
        grid.validate();
        assert_eq!(grid.layout.rows.len(), 1, "one row");
        let es = &grid.layout.entries;
        for w in es.windows(2) {
            let ((a, b), (ia, ib)) = ((w[0].min_x, w[1].min_x), (w[0].id, w[1].id));
            assert!(a < b || (a == b && ia < ib), "{a}#{ia} before {b}#{ib}");
        }
        let mut got = Vec::new();
        grid.find_all_pairs(&mut got).unwrap();
        got.sort_unstable();
        let mut want = Vec::new();
        crate::SweepAndPrune::new()
            .find_pairs(&boxes, &mut want)
            .unwrap();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    /// Every pair of the layout's sweep, its order and its test count,
    /// through the wide sweep or the scalar one.
    fn sweep_all(grid: &Grid, wide: bool) -> (Vec<Pair>, u64) {
        let mut out = Vec::new();
        let mut tests = 0;
        let mut fast = sweep::FastOut::new(&mut out);
        let ctx = grid.ctx();
        let rows = 0..ctx.rows.len();
        sweep::sweep_rows_all_with(
            &ctx,
            rows,
            &mut Scratch::default(),
            &mut tests,
            &mut fast,
            wide,
        )
        .unwrap();
        fast.finish();
        (out, tests)
    }

    /// The moved sweep's pairs as (moved position, partner position), in
    /// order, and its test count, through the wide windows or the scalar.
    fn sweep_moved(grid: &Grid, wide: bool) -> (Vec<(usize, usize)>, u64) {
        let mut out = Vec::new();
        let mut tests = 0;
        let ctx = grid.ctx();
        let rows = 0..ctx.rows.len();
        let mut emit = |p: usize, _: &layout::Entry, q: usize, _: &layout::Entry| {
            out.push((p, q));
            Ok(())
        };
        sweep::sweep_moved_rows_with(
            &ctx,
            rows,
            &mut Scratch::default(),
            &mut tests,
            &mut emit,
            wide,
        )
        .unwrap();
        (out, tests)
    }

    /// The numbers of one [`world_box`].
    fn raw_box() -> impl proptest::strategy::Strategy<Value = (u8, u8, u8, u8, bool)> {
        (
            0u8..=255,
            0u8..=255,
            0u8..=255,
            0u8..=255,
            proptest::bool::weighted(0.05),
        )
    }

    /// Whether the wide sweep is missing here (said on stderr): its tests
    /// pass without checking anything then.
    fn no_wide_sweep() -> bool {
        let missing = !wide::available();
        if missing {
            eprintln!("skipped: no AVX-512 on this CPU, so the wide sweep is not used here");
        }
        missing
    }

    /// A box from the strategy's numbers: on a coarse x grid, so many
    /// objects start at one x and windows run past the wide sweep's eight
    /// and sixteen lanes; a few large, so there are several levels.
    fn world_box((x, y, w, h, large): (u8, u8, u8, u8, bool)) -> Aabb {
        let scale = if large { 8.0 } else { 1.0 };
        let (x, y) = (Real::from(x / 16) * 8.0, Real::from(y));
        let (w, h) = (Real::from(w % 24) * scale, Real::from(h % 24) * scale);
        Aabb::new([x, y], [x + w, y + h]).unwrap()
    }

    proptest::proptest! {
        /// The wide sweep finds the scalar sweep's pairs, in its order,
        /// with its test count: long windows, rows with and without a next
        /// row, several levels, and gaps left by updates (moved boxes
        /// re-filed into other rows).
        #[test]
        fn the_wide_sweep_is_the_scalar_sweep(
            boxes in proptest::collection::vec(
                raw_box(),
                0..400,
            ),
            moves in proptest::collection::vec(
                (0usize..400, raw_box()),
                0..80,
            ),
        ) {
            if no_wide_sweep() {
                return Ok(());
            }
            let boxes: Vec<Aabb> = boxes.into_iter().map(world_box).collect();
            let mut grid = Grid::new();
            grid.rebuild(&boxes).unwrap();
            let (pairs, tests) = sweep_all(&grid, false);
            proptest::prop_assert_eq!(sweep_all(&grid, true), (pairs, tests));
            if boxes.is_empty() {
                return Ok(());
            }
            grid.relayout_now().unwrap();
            for (i, b) in moves {
                let h = grid.handle((i % boxes.len()) as u32).unwrap();
                grid.update(h, world_box(b)).unwrap();
            }
            grid.apply_waiting_updates();
            let (pairs, tests) = sweep_all(&grid, false);
            proptest::prop_assert_eq!(sweep_all(&grid, true), (pairs, tests));
        }

        /// The moved sweep's wide windows find the scalar windows' pairs,
        /// in their order, with their test count: rows with many moved
        /// entries (copied) and few (scalar), moved partners on both sides,
        /// objects filed at their old rows' gaps and at new rows.
        #[test]
        fn the_wide_moved_sweep_is_the_scalar_one(
            boxes in proptest::collection::vec(
                raw_box(),
                1..400,
            ),
            moves in proptest::collection::vec(
                (0usize..400, raw_box(), 0u8..4),
                0..300,
            ),
        ) {
            if no_wide_sweep() {
                return Ok(());
            }
            let boxes: Vec<Aabb> = boxes.into_iter().map(world_box).collect();
            let mut grid = Grid::new();
            grid.rebuild(&boxes).unwrap();
            grid.relayout_now().unwrap();
            grid.forget_moved();
            for (i, b, nudge) in moves {
                let i = i % boxes.len();
                let h = grid.handle(i as u32).unwrap();
                // Mostly small moves, which stay in their rows; some jumps.
                let to = if nudge > 0 {
                    let old = grid.get(h).unwrap();
                    let d = Real::from(nudge) - 2.0;
                    Aabb::new([old.min().x + d, old.min().y], [old.max().x + d, old.max().y]).unwrap()
                } else {
                    world_box(b)
                };
                grid.update(h, to).unwrap();
            }
            grid.tidy().unwrap();
            let (pairs, tests) = sweep_moved(&grid, false);
            proptest::prop_assert_eq!(sweep_moved(&grid, true), (pairs, tests));
        }
    }
}
