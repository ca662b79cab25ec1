//! 3-D: convex polyhedra (and oriented boxes, as placed cuboids) by
//! separating axes, and the screen-space rectangles that feed 3-D objects
//! to the 2-D broad phase.

pub(crate) mod distance3;
mod epa;
mod gjk3;
pub(crate) mod manifold;
pub(crate) mod math3;
mod obb;
pub(crate) mod polyhedron;
pub(crate) mod sat3;
pub(crate) mod screen;
