//! 3-D vectors, rotations and rigid transforms (only what the 3-D narrow
//! phase and the screen-space rectangles need).

use crate::error::CollideError;
use crate::math::Real;

/// A 3-D point or vector.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// x
    pub x: Real,
    /// y
    pub y: Real,
    /// z
    pub z: Real,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Self = Self::new(0.0, 0.0, 0.0);

    /// The vector `(x, y, z)`.
    pub const fn new(x: Real, y: Real, z: Real) -> Self {
        Self { x, y, z }
    }

    /// Dot product.
    #[inline]
    pub fn dot(self, o: Self) -> Real {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Cross product.
    #[inline]
    pub fn cross(self, o: Self) -> Self {
        Self::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }

    /// Length.
    pub fn length(self) -> Real {
        self.dot(self).sqrt()
    }

    /// The unit vector along `self`, or `None` for a zero or non-finite one.
    pub fn normalized(self) -> Option<Self> {
        let len = self.length();
        (len > 0.0 && len.is_finite()).then(|| self * (1.0 / len))
    }

    /// True when no coordinate is NaN or infinite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

impl From<[Real; 3]> for Vec3 {
    fn from([x, y, z]: [Real; 3]) -> Self {
        Self::new(x, y, z)
    }
}

impl std::ops::Add for Vec3 {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl std::ops::Sub for Vec3 {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl std::ops::Neg for Vec3 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y, -self.z)
    }
}

impl std::ops::Mul<Real> for Vec3 {
    type Output = Self;
    #[inline]
    fn mul(self, s: Real) -> Self {
        Self::new(self.x * s, self.y * s, self.z * s)
    }
}

/// A 3-D rotation as an orthonormal matrix, stored by columns (the images
/// of the x, y and z axes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot3 {
    cols: [Vec3; 3],
}

impl Rot3 {
    /// No rotation.
    pub const IDENTITY: Self = Self {
        cols: [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ],
    };

    /// A rotation by `angle` radians about `axis` (any length > 0), right-handed.
    ///
    /// # Errors
    /// [`CollideError::NonFiniteTransform`] for a zero or non-finite axis or angle.
    pub fn from_axis_angle(axis: Vec3, angle: Real) -> Result<Self, CollideError> {
        let bad = CollideError::NonFiniteTransform {
            what: "3-D rotation axis or angle",
        };
        let u = axis.normalized().ok_or(bad.clone())?;
        if !angle.is_finite() {
            return Err(bad);
        }
        let (s, c) = angle.sin_cos();
        let t = 1.0 - c;
        let col = |e: Vec3| {
            // Rodrigues: v cos + (u × v) sin + u (u·v)(1 − cos)
            e * c + u.cross(e) * s + u * (u.dot(e) * t)
        };
        Ok(Self {
            cols: [
                col(Vec3::new(1.0, 0.0, 0.0)),
                col(Vec3::new(0.0, 1.0, 0.0)),
                col(Vec3::new(0.0, 0.0, 1.0)),
            ],
        })
    }

    /// The rotation of a unit quaternion `(x, y, z, w)` (normalised here).
    ///
    /// # Errors
    /// [`CollideError::NonFiniteTransform`] for a zero or non-finite quaternion.
    pub fn from_quaternion([x, y, z, w]: [Real; 4]) -> Result<Self, CollideError> {
        let n = (x * x + y * y + z * z + w * w).sqrt();
        if !(n > 0.0 && n.is_finite()) {
            return Err(CollideError::NonFiniteTransform { what: "quaternion" });
        }
        let (x, y, z, w) = (x / n, y / n, z / n, w / n);
        Ok(Self {
            cols: [
                Vec3::new(
                    1.0 - 2.0 * (y * y + z * z),
                    2.0 * (x * y + w * z),
                    2.0 * (x * z - w * y),
                ),
                Vec3::new(
                    2.0 * (x * y - w * z),
                    1.0 - 2.0 * (x * x + z * z),
                    2.0 * (y * z + w * x),
                ),
                Vec3::new(
                    2.0 * (x * z + w * y),
                    2.0 * (y * z - w * x),
                    1.0 - 2.0 * (x * x + y * y),
                ),
            ],
        })
    }

    /// From columns already known to be orthonormal.
    pub(crate) fn from_columns(cols: [Vec3; 3]) -> Self {
        Self { cols }
    }

    /// The images of the x, y and z axes.
    pub fn columns(&self) -> [Vec3; 3] {
        self.cols
    }

    /// `v` rotated.
    #[inline]
    pub fn apply(&self, v: Vec3) -> Vec3 {
        self.cols[0] * v.x + self.cols[1] * v.y + self.cols[2] * v.z
    }

    /// `v` rotated by the inverse.
    #[inline]
    pub fn apply_inverse(&self, v: Vec3) -> Vec3 {
        Vec3::new(
            self.cols[0].dot(v),
            self.cols[1].dot(v),
            self.cols[2].dot(v),
        )
    }

    pub(crate) fn is_finite(&self) -> bool {
        self.cols.iter().all(|c| c.is_finite())
    }
}

/// A 3-D rigid transform: rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform3 {
    /// Where the local origin lands.
    pub translation: Vec3,
    /// The rotation about the local origin.
    pub rotation: Rot3,
}

impl Transform3 {
    /// The identity.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Rot3::IDENTITY,
    };

    /// Maps a local point to the world.
    #[inline]
    pub fn apply(&self, p: Vec3) -> Vec3 {
        self.rotation.apply(p) + self.translation
    }

    pub(crate) fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite()
    }
}
