//! 2-D collision detection.
//!
//! * [`Aabb`]: axis-aligned boxes, closed (touching edges intersect),
//!   checked finite when made.
//! * The broad phase, one type per method, all exact against the same rule:
//!   - [`Grid`], the default: a hierarchical grid of sorted rows; any sizes,
//!     any coordinates, incremental, filtered, optionally parallel.
//!   - [`Sectors`]: Tom Moertel's 1994 four-shift sector grid, as he wrote it
//!     ([`SectorMode::Raw`], with his duplicate reports) or exact.
//!   - [`AdjacentSectors`]: the 9-sector method he compared it with.
//!   - [`SweepAndPrune`] and [`BruteForce`] (the tests' oracle).
//!
//! ```
//! use collide::{Aabb, BroadPhase, Grid, Pair};
//! let boxes = [
//!     Aabb::new([0.0, 0.0], [30.0, 30.0])?,
//!     Aabb::new([20.0, 25.0], [50.0, 55.0])?,
//!     Aabb::new([100.0, 0.0], [130.0, 30.0])?,
//! ];
//! let mut pairs = Vec::new();
//! Grid::new().find_pairs(&boxes, &mut pairs)?;
//! assert_eq!(pairs, [Pair { a: 0, b: 1 }]);
//! # Ok::<(), collide::CollideError>(())
//! ```
//!
//! [`moertel`] holds the setup of Moertel's 1994 experiment, for the demo
//! (`cargo run --release -p collide --example sectors`) and the benchmark.
//!
//! Features: `rayon` (parallel [`Grid`] queries and rebuilds, bit-identical
//! to serial), `glam` and `mint` (conversions to and from [`Vec2`]). With no
//! feature the crate depends on nothing but `std`.

mod aabb;
mod broad;
mod error;
mod math;
pub mod moertel;
mod narrow;
mod narrow3d;
mod pair;
mod transform;

pub use aabb::Aabb;
pub use broad::{
    AdjacentSectors, BroadPhase, BruteForce, Execution, Filter, Grid, GridConfig, Handle,
    SectorMode, Sectors, SweepAndPrune,
};
pub use error::CollideError;
pub use math::{Real, Vec2};
pub use narrow::shape::{Capsule, Circle, Compound, ConvexPolygon, ConvexShape, Part, Rect, Shape};
pub use narrow::{
    ClosestPoints, Contact, ContactPoint, Impact, closest_points, contact, contacts, distance,
    intersects, separating_axis, time_of_impact,
};
pub use narrow3d::distance3::{
    ClosestPoints3, closest_points_polyhedra, distance_polyhedra, separating_axis_polyhedra,
};
pub use narrow3d::manifold::ContactPoint3;
pub use narrow3d::math3::{Rot3, Transform3, Vec3};
pub use narrow3d::polyhedron::ConvexPolyhedron;
pub use narrow3d::sat3::{
    Contact3, contact_polyhedra, contact_polyhedra_by_axes, intersects_polyhedra,
};
pub use narrow3d::screen::{
    DepthRange, Mat4, Viewport, screen_rect, screen_rect_of_box, screen_rect_unclipped,
};
pub use pair::{Pair, QueryStats};
pub use transform::{Rot, Transform};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
