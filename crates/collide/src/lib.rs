//! 2-D collision detection, and a 3-D narrow phase.
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
//! The narrow phase decides what the broad phase's pairs really do:
//! * 2-D, every pair of [`Shape`] kinds (circles, capsules, boxes, convex
//!   polygons, compounds; concave polygons become compounds through
//!   [`Shape::polygon`]): [`intersects`], [`separating_axis`], [`contact`]
//!   (normal, depth, points), [`closest_points`], [`distance`],
//!   [`time_of_impact`].
//! * 3-D, [`ConvexPolyhedron`] (a hull, or a cuboid: an oriented box once
//!   placed): [`intersects_polyhedra`], [`contact_polyhedra`] (EPA, with
//!   points; [`contact_polyhedra_by_axes`] is the separating-axis method
//!   alone), [`closest_points_polyhedra`], [`distance_polyhedra`],
//!   [`separating_axis_polyhedra`]; and [`screen_rect_of_box`], a 3-D box's
//!   rectangle on the screen, clipped at the near plane, for the broad phase
//!   (its matrix built with [`perspective`] and [`mat4_mul`]).
//!
//! ```
//! use collide::{ConvexPolyhedron, Transform3, Vec3, contact_polyhedra};
//! let crate_box = ConvexPolyhedron::cuboid(Vec3::new(1.0, 1.0, 1.0))?;
//! let dropped = Transform3 {
//!     translation: Vec3::new(0.0, 0.0, 1.9),
//!     ..Transform3::IDENTITY
//! };
//! let c = contact_polyhedra(&crate_box, &Transform3::IDENTITY, &crate_box, &dropped)?
//!     .expect("they overlap");
//! assert!((c.depth - 0.1).abs() < 1e-5 && c.normal.z > 0.999);
//! assert_eq!(c.points().len(), 4); // the four corners of the resting face
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
mod huge;
pub mod mask;
mod math;
pub mod moertel;
mod narrow;
mod narrow3d;
mod pair;
pub mod raster;
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
    DepthRange, Mat4, Viewport, mat4_mul, perspective, screen_rect, screen_rect_of_box,
    screen_rect_unclipped,
};
pub use pair::{Pair, QueryStats};
pub use transform::{Rot, Transform};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
