//! What a broad phase reports: pairs of object indices and the work it took.

/// Two objects whose boxes intersect, by index.
///
/// From a single set (`find_pairs`, `find_all_pairs`, `find_moved_pairs`),
/// `a < b` always. From two sets (`find_pairs_between`), `a` indexes the first
/// set and `b` the second. For a [`Grid`](crate::Grid) the indices are handle
/// indices ([`Handle::index`](crate::Handle::index)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
// C layout: the grid's wide sweep writes pairs as `a | b << 32`.
#[repr(C)]
pub struct Pair {
    /// The first object.
    pub a: u32,
    /// The second object.
    pub b: u32,
}

impl Pair {
    /// The pair `{i, j}` with the smaller index first.
    #[inline]
    pub fn ordered(i: u32, j: u32) -> Self {
        if i < j {
            Self { a: i, b: j }
        } else {
            Self { a: j, b: i }
        }
    }
}

/// Counters from the last query: what the benchmark compares across methods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Box-against-box tests performed (Moertel's "rectangle intersection operations").
    pub tests: u64,
    /// Pairs appended to the output, duplicates included (only `Sectors` in
    /// [`SectorMode::Raw`](crate::SectorMode::Raw) reports duplicates).
    pub reported: u64,
}

/// Appends pairs to the caller's buffer, turning a failed allocation into an
/// error instead of an abort. Growth is amortised as `Vec`'s own.
pub(crate) struct PairSink<'a> {
    out: &'a mut Vec<Pair>,
}

impl<'a> PairSink<'a> {
    pub(crate) fn new(out: &'a mut Vec<Pair>) -> Self {
        Self { out }
    }

    #[inline]
    pub(crate) fn push(&mut self, pair: Pair) -> Result<(), crate::CollideError> {
        if self.out.len() == self.out.capacity() {
            let extra = self.out.capacity().max(256);
            crate::error::try_reserve(self.out, extra, "pair output")?;
        }
        self.out.push(pair);
        Ok(())
    }

    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }
}
