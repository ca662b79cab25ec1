//! Box2D v3's dynamic AABB tree through `boxdd-sys`'s raw FFI (its safe
//! wrapper adds per-call overhead). Rebuilt: proxies created, a full binned
//! rebuild, one query per proxy. Incremental, as Box2D's broad phase uses it:
//! fat boxes (a 2-px margin), `MoveProxy` only when a box leaves its fat box,
//! a partial rebuild, then one query per moved object.

use super::{Spec, Track};

#[cfg(not(feature = "box2d"))]
const SKIPPED: &str =
    "built without the `box2d` feature (boxdd-sys compiles Box2D's C with the system C compiler)";

#[cfg(not(feature = "box2d"))]
pub fn add_rebuild(v: &mut Vec<Result<Spec, (&'static str, String)>>) {
    v.push(Err(("box2d-tree", SKIPPED.into())));
}
#[cfg(not(feature = "box2d"))]
pub fn add_incremental(v: &mut Vec<Result<Spec, (&'static str, String)>>) {
    v.push(Err(("box2d-tree", SKIPPED.into())));
}
#[cfg(not(feature = "box2d"))]
pub fn add_between(v: &mut Vec<Result<Spec, (&'static str, String)>>) {
    v.push(Err(("box2d-tree", SKIPPED.into())));
}

#[cfg(feature = "box2d")]
pub fn add_rebuild(v: &mut Vec<Result<Spec, (&'static str, String)>>) {
    v.push(Ok(Spec {
        name: "box2d-tree",
        track: Track::Rebuild,
        parallel: false,
        make: imp::rebuild,
    }));
}
#[cfg(feature = "box2d")]
pub fn add_incremental(v: &mut Vec<Result<Spec, (&'static str, String)>>) {
    v.push(Ok(Spec {
        name: "box2d-tree",
        track: Track::Incremental,
        parallel: false,
        make: imp::incremental,
    }));
}
#[cfg(feature = "box2d")]
pub fn add_between(v: &mut Vec<Result<Spec, (&'static str, String)>>) {
    v.push(Ok(Spec {
        name: "box2d-tree",
        track: Track::Bipartite,
        parallel: false,
        make: imp::between,
    }));
}

#[cfg(feature = "box2d")]
mod imp {
    use std::os::raw::{c_int, c_void};

    use boxdd_sys::ffi::{
        b2AABB, b2DynamicTree, b2DynamicTree_Create, b2DynamicTree_CreateProxy,
        b2DynamicTree_Destroy, b2DynamicTree_GetByteCount, b2DynamicTree_MoveProxy,
        b2DynamicTree_Query, b2DynamicTree_Rebuild, b2Vec2,
    };
    use collide::{Aabb, Pair};

    use crate::engines::{Engine, Frame, FrameStats};
    use crate::workloads::World;

    const CATEGORY: u64 = 1;
    const ALL: u64 = u64::MAX;
    /// Fat-box margin in pixels (Box2D's `B2_AABB_MARGIN` is 0.1 m for
    /// metre-sized bodies; our objects are 30 px and move up to 2 px).
    const MARGIN: f32 = 2.0;

    /// Owns a tree; destroys it on drop.
    struct Tree(b2DynamicTree);

    impl Tree {
        fn new(capacity: usize) -> Self {
            // SAFETY: creating a tree has no precondition.
            Self(unsafe { b2DynamicTree_Create(capacity.min(i32::MAX as usize) as c_int) })
        }
    }

    impl Tree {
        fn bytes(&self) -> usize {
            // SAFETY: a valid tree.
            unsafe { b2DynamicTree_GetByteCount(&self.0) }.max(0) as usize
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            // SAFETY: the tree was made by b2DynamicTree_Create and is dropped once.
            unsafe { b2DynamicTree_Destroy(&mut self.0) };
        }
    }

    fn b2(b: &Aabb, margin: f32) -> b2AABB {
        b2AABB {
            lowerBound: b2Vec2 {
                x: b.min().x - margin,
                y: b.min().y - margin,
            },
            upperBound: b2Vec2 {
                x: b.max().x + margin,
                y: b.max().y + margin,
            },
        }
    }

    /// What a query callback sees.
    struct Query<'a> {
        me: u32,
        boxes: &'a [Aabb],
        /// For self-queries: report `j` only if this says so.
        keep: &'a dyn Fn(u32, u32) -> bool,
        bipartite: bool,
        out: &'a mut Vec<Pair>,
    }

    unsafe extern "C" fn collect(_proxy: c_int, user_data: u64, context: *mut c_void) -> bool {
        // SAFETY: `context` is the `Query` passed to b2DynamicTree_Query below,
        // alive and exclusively ours for the duration of the call.
        let q = unsafe { &mut *(context as *mut Query<'_>) };
        let j = user_data as u32;
        if q.bipartite {
            q.out.push(Pair { a: q.me, b: j });
        } else if (q.keep)(q.me, j) && q.boxes[q.me as usize].intersects(&q.boxes[j as usize]) {
            q.out.push(Pair::ordered(q.me, j));
        }
        true
    }

    fn query(tree: &Tree, region: &Aabb, q: &mut Query<'_>) {
        // SAFETY: the tree is valid; the callback only touches `q`.
        unsafe {
            b2DynamicTree_Query(
                &tree.0,
                b2(region, 0.0),
                ALL,
                Some(collect),
                q as *mut Query<'_> as *mut c_void,
            );
        }
    }

    fn build(boxes: &[Aabb]) -> Tree {
        let mut tree = Tree::new(boxes.len());
        for (i, b) in boxes.iter().enumerate() {
            // SAFETY: valid tree.
            unsafe { b2DynamicTree_CreateProxy(&mut tree.0, b2(b, 0.0), CATEGORY, i as u64) };
        }
        // SAFETY: valid tree.
        unsafe { b2DynamicTree_Rebuild(&mut tree.0, true) };
        tree
    }

    /// The largest tree seen.
    struct Rebuild {
        bytes: usize,
    }

    impl Engine for Rebuild {
        fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
            let Frame { boxes, .. } = *f;
            let tree = build(boxes);
            self.bytes = self.bytes.max(tree.bytes());
            let keep = |i: u32, j: u32| j > i;
            for (i, b) in boxes.iter().enumerate() {
                let mut q = Query {
                    me: i as u32,
                    boxes,
                    keep: &keep,
                    bipartite: false,
                    out,
                };
                query(&tree, b, &mut q);
            }
            Ok(FrameStats::default())
        }

        fn native_bytes(&self) -> usize {
            self.bytes
        }
    }

    pub fn rebuild() -> Box<dyn Engine> {
        Box::new(Rebuild { bytes: 0 })
    }

    struct Incremental {
        tree: Option<Tree>,
        fat: Vec<Aabb>,
        proxies: Vec<c_int>,
        moved: Vec<bool>,
    }

    fn contains(fat: &Aabb, b: &Aabb) -> bool {
        fat.min().x <= b.min().x
            && fat.min().y <= b.min().y
            && b.max().x <= fat.max().x
            && b.max().y <= fat.max().y
    }

    fn fatten(b: &Aabb) -> Aabb {
        Aabb::new(
            [b.min().x - MARGIN, b.min().y - MARGIN],
            [b.max().x + MARGIN, b.max().y + MARGIN],
        )
        .unwrap_or(*b)
    }

    impl Engine for Incremental {
        fn prepare(&mut self, world: &World) -> anyhow::Result<()> {
            let mut tree = Tree::new(world.boxes.len());
            self.fat.clear();
            self.proxies.clear();
            for (i, b) in world.boxes.iter().enumerate() {
                let fat = fatten(b);
                // SAFETY: valid tree.
                let id = unsafe {
                    b2DynamicTree_CreateProxy(&mut tree.0, b2(&fat, 0.0), CATEGORY, i as u64)
                };
                self.fat.push(fat);
                self.proxies.push(id);
            }
            // SAFETY: valid tree.
            unsafe { b2DynamicTree_Rebuild(&mut tree.0, true) };
            self.tree = Some(tree);
            self.moved = vec![false; world.boxes.len()];
            Ok(())
        }

        fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
            let Frame { boxes, moved, .. } = *f;
            let tree = self
                .tree
                .as_mut()
                .ok_or_else(|| anyhow::anyhow!("not prepared"))?;
            for &i in moved {
                let i = i as usize;
                self.moved[i] = true;
                if !contains(&self.fat[i], &boxes[i]) {
                    self.fat[i] = fatten(&boxes[i]);
                    // SAFETY: valid tree and proxy.
                    unsafe {
                        b2DynamicTree_MoveProxy(&mut tree.0, self.proxies[i], b2(&self.fat[i], 0.0))
                    };
                }
            }
            // SAFETY: valid tree.
            unsafe { b2DynamicTree_Rebuild(&mut tree.0, false) };
            let flags = &self.moved;
            // A pair of two moved objects is reported by the lower index only.
            let keep = |i: u32, j: u32| j != i && (!flags[j as usize] || j > i);
            for &i in moved {
                let mut q = Query {
                    me: i,
                    boxes,
                    keep: &keep,
                    bipartite: false,
                    out,
                };
                query(tree, &boxes[i as usize], &mut q);
            }
            for &i in moved {
                self.moved[i as usize] = false;
            }
            Ok(FrameStats::default())
        }

        fn native_bytes(&self) -> usize {
            self.tree.as_ref().map_or(0, Tree::bytes)
        }
    }

    pub fn incremental() -> Box<dyn Engine> {
        Box::new(Incremental {
            tree: None,
            fat: Vec::new(),
            proxies: Vec::new(),
            moved: Vec::new(),
        })
    }

    /// The largest tree seen.
    struct Between {
        bytes: usize,
    }

    impl Engine for Between {
        fn native_bytes(&self) -> usize {
            self.bytes
        }

        fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
            let Frame { boxes, others, .. } = *f;
            let tree = build(others);
            self.bytes = self.bytes.max(tree.bytes());
            let keep = |_: u32, _: u32| true;
            for (i, b) in boxes.iter().enumerate() {
                let mut q = Query {
                    me: i as u32,
                    boxes,
                    keep: &keep,
                    bipartite: true,
                    out,
                };
                query(&tree, b, &mut q);
            }
            Ok(FrameStats::default())
        }
    }

    pub fn between() -> Box<dyn Engine> {
        Box::new(Between { bytes: 0 })
    }
}
