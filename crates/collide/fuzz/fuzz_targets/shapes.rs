//! Any bytes, read as floats, through every constructor and every query:
//! nothing may panic. `cargo +nightly fuzz run shapes` in crates/collide.

#![no_main]

use collide::{
    Capsule, Circle, ConvexPolygon, ConvexPolyhedron, Rect, Shape, Transform, Transform3, Vec2,
    Vec3,
};
use libfuzzer_sys::fuzz_target;

fn floats(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let f = floats(data);
    if f.len() < 8 {
        return;
    }
    let (head, rest) = f.split_at(8);
    let points: Vec<Vec2> = rest
        .chunks_exact(2)
        .map(|c| Vec2::new(c[0], c[1]))
        .collect();
    let mut shapes: Vec<Shape> = Vec::new();
    shapes.extend(ConvexPolygon::new(&points).ok().map(Shape::Polygon));
    shapes.extend(ConvexPolygon::hull(&points).ok().map(Shape::Polygon));
    shapes.extend(Shape::polygon(&points).ok());
    shapes.extend(Circle::new(head[0]).ok().map(Shape::Circle));
    shapes.extend(
        Capsule::new([head[0], head[1]], [head[2], head[3]], head[4])
            .ok()
            .map(Shape::Capsule),
    );
    shapes.extend(Rect::new(head[5], head[6]).ok().map(Shape::Rect));
    let poses = [
        Transform::IDENTITY,
        Transform::new([head[1], head[2]], head[3]).unwrap_or_default(),
        Transform {
            translation: Vec2::new(head[4], head[5]),
            rotation: collide::Rot::IDENTITY,
        },
    ];
    let v = Vec2::new(head[6], head[7]);
    for a in &shapes {
        let _ = a.aabb(&poses[1]);
        for b in &shapes {
            for xa in &poses {
                for xb in &poses {
                    let _ = collide::intersects(a, xa, b, xb);
                    let _ = collide::contact(a, xa, b, xb);
                    let _ = collide::closest_points(a, xa, b, xb);
                    let _ = collide::separating_axis(a, xa, b, xb);
                    let _ = collide::time_of_impact(a, xa, v, b, xb, -v, head[7]);
                }
            }
        }
    }
    let points3: Vec<Vec3> = rest
        .chunks_exact(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    let mut solids = Vec::new();
    solids.extend(ConvexPolyhedron::hull(&points3).ok());
    solids.extend(ConvexPolyhedron::cuboid(Vec3::new(head[5], head[6], head[7])).ok());
    let rotation = collide::Rot3::from_quaternion([head[3], head[4], head[5], head[6]])
        .unwrap_or(collide::Rot3::IDENTITY);
    let x = Transform3 {
        translation: Vec3::new(head[0], head[1], head[2]),
        rotation,
    };
    for a in &solids {
        for b in &solids {
            let _ = collide::intersects_polyhedra(a, &Transform3::IDENTITY, b, &x);
            let _ = collide::contact_polyhedra(a, &Transform3::IDENTITY, b, &x);
            let _ = collide::contact_polyhedra_by_axes(a, &Transform3::IDENTITY, b, &x);
            let _ = collide::closest_points_polyhedra(a, &Transform3::IDENTITY, b, &x);
            let _ = collide::separating_axis_polyhedra(a, &Transform3::IDENTITY, b, &x);
        }
    }
});
