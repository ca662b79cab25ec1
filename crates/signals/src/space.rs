//! What a system can smooth: a [`Space`] of values with a linear
//! [`Vector`] tangent. Plain numbers and arrays are their own tangent; angles
//! and rotations are not, which is how the same spring smooths a heading
//! across ±180° or a quaternion across q ≡ −q.
//!
//! Every system works on the error `value ⊖ target` in the tangent space and
//! writes the result back with `target ⊕ error`, so the linear closed forms
//! apply unchanged to vectors, and to angles and rotations locally.

use crate::math::{self, Float};
use core::fmt::Debug;

/// A linear space of values: numbers, fixed-size arrays.
pub trait Vector: Copy + Debug + PartialEq + Send + Sync + 'static {
    /// The scalar type components are stored in.
    type Scalar: Float;
    /// The zero vector.
    fn zero() -> Self;
    /// `self + other`.
    fn add(self, other: Self) -> Self;
    /// `self − other`.
    fn sub(self, other: Self) -> Self;
    /// `self · s`.
    fn scale(self, s: Self::Scalar) -> Self;
    /// The squared Euclidean length, in `f64`.
    fn norm_squared(self) -> f64;
    /// Every component is finite.
    fn is_finite(self) -> bool;
    /// The Euclidean length, in `f64`.
    #[inline]
    fn norm(self) -> f64 {
        math::sqrt(self.norm_squared())
    }
    /// `self + other · s`.
    #[inline]
    fn add_scaled(self, other: Self, s: Self::Scalar) -> Self {
        self.add(other.scale(s))
    }
    /// `self · s` for an `f64` factor.
    #[inline]
    fn scale_f64(self, s: f64) -> Self {
        self.scale(Self::Scalar::from_f64(s))
    }
}

/// A space of values a system can move through, with differences in a
/// [`Vector`] tangent space.
///
/// Laws (exact for vectors, up to rounding for angles and rotations):
/// `a.offset(b.difference(a)) == b` and `a.difference(a) == 0`.
pub trait Space: Copy + Debug + Send + Sync + 'static {
    /// Differences and velocities live here.
    type Tangent: Vector;
    /// `self ⊖ origin`: the shortest step from `origin` to `self`.
    fn difference(self, origin: Self) -> Self::Tangent;
    /// `self ⊕ delta`.
    fn offset(self, delta: Self::Tangent) -> Self;
    /// Every component is finite (and, for rotations, the value is usable).
    fn is_valid(self) -> bool;
}

impl<V: Vector> Space for V {
    type Tangent = V;
    #[inline]
    fn difference(self, origin: Self) -> V {
        self.sub(origin)
    }
    #[inline]
    fn offset(self, delta: V) -> V {
        self.add(delta)
    }
    #[inline]
    fn is_valid(self) -> bool {
        Vector::is_finite(self)
    }
}

macro_rules! scalar_vector {
    ($($t:ty),*) => {$(
        impl Vector for $t {
            type Scalar = $t;
            #[inline] fn zero() -> Self { 0.0 }
            #[inline] fn add(self, other: Self) -> Self { self + other }
            #[inline] fn sub(self, other: Self) -> Self { self - other }
            #[inline] fn scale(self, s: $t) -> Self { self * s }
            #[inline] fn norm_squared(self) -> f64 { let x = f64::from(self); x * x }
            #[inline] fn is_finite(self) -> bool { <$t>::is_finite(self) }
            #[inline] fn norm(self) -> f64 { f64::from(self).abs() }
        }
    )*};
}
scalar_vector!(f32, f64);

impl<F: Float, const N: usize> Vector for [F; N] {
    type Scalar = F;
    #[inline]
    fn zero() -> Self {
        [F::ZERO; N]
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        core::array::from_fn(|i| self[i] + other[i])
    }
    #[inline]
    fn sub(self, other: Self) -> Self {
        core::array::from_fn(|i| self[i] - other[i])
    }
    #[inline]
    fn scale(self, s: F) -> Self {
        self.map(|x| x * s)
    }
    #[inline]
    fn norm_squared(self) -> f64 {
        self.iter().map(|x| x.to_f64() * x.to_f64()).sum()
    }
    #[inline]
    fn is_finite(self) -> bool {
        self.iter().all(|x| x.is_finite())
    }
}

/// An angle in radians that wraps: the difference between two angles is the
/// short way round, in `[-π, π)`, and values are kept in `[-π, π)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Angle<F: Float>(F);

impl<F: Float> Angle<F> {
    /// The angle `radians`, wrapped into `[-π, π)` (non-finite input stays
    /// non-finite, and systems reject it).
    pub fn from_radians(radians: F) -> Self {
        Angle(F::from_f64(math::wrap_pi(radians.to_f64())))
    }
    /// The angle `degrees`, wrapped.
    pub fn from_degrees(degrees: F) -> Self {
        Self::from_radians(F::from_f64(degrees.to_f64().to_radians()))
    }
    /// Radians in `[-π, π)`.
    pub fn radians(self) -> F {
        self.0
    }
}

impl<F: Float> Space for Angle<F> {
    type Tangent = F;
    #[inline]
    fn difference(self, origin: Self) -> F {
        F::from_f64(math::wrap_pi(self.0.to_f64() - origin.0.to_f64()))
    }
    #[inline]
    fn offset(self, delta: F) -> Self {
        Angle(F::from_f64(math::wrap_pi(self.0.to_f64() + delta.to_f64())))
    }
    #[inline]
    fn is_valid(self) -> bool {
        self.0.is_finite()
    }
}

/// A 3-D rotation as a unit quaternion `w + xi + yj + zk`. Its tangent is a
/// rotation vector (axis × angle, radians, in the fixed frame): `q.difference(p)`
/// is the rotation `r` with `q = exp(r)·p`, taken the short way (q and −q are
/// the same rotation, so the angle is at most π).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rotation<F: Float> {
    w: F,
    x: F,
    y: F,
    z: F,
}

impl<F: Float> Rotation<F> {
    /// The identity rotation.
    pub fn identity() -> Self {
        Rotation {
            w: F::ONE,
            x: F::ZERO,
            y: F::ZERO,
            z: F::ZERO,
        }
    }

    /// A rotation from quaternion components, normalised. Errors when a
    /// component is not finite or the quaternion is (nearly) zero.
    pub fn from_quaternion(w: F, x: F, y: F, z: F) -> Result<Self, crate::SignalError> {
        let q = [w, x, y, z].map(|c| c.to_f64());
        let n2: f64 = q.iter().map(|c| c * c).sum();
        if !n2.is_finite() || n2 < 1e-30 {
            return Err(crate::SignalError::InvalidParameter {
                name: "quaternion",
                value: n2,
                expected: "finite with a non-zero length",
            });
        }
        Ok(Self::from_f64_unchecked(q.map(|c| c / math::sqrt(n2))))
    }

    /// The rotation by `angle` radians about `axis` (normalised here).
    pub fn from_axis_angle(axis: [F; 3], angle: F) -> Result<Self, crate::SignalError> {
        let a = axis.map(|c| c.to_f64());
        let n = a.norm();
        if !n.is_finite() || n < 1e-30 || !angle.is_finite() {
            return Err(crate::SignalError::InvalidParameter {
                name: "axis",
                value: n,
                expected: "a finite non-zero axis and a finite angle",
            });
        }
        Ok(Self::exp(a.map(|c| c / n * angle.to_f64())))
    }

    /// Components `[w, x, y, z]`, of unit length.
    pub fn to_array(self) -> [F; 4] {
        [self.w, self.x, self.y, self.z]
    }

    /// The angle between `self` and `other`, radians in `[0, π]`.
    pub fn angle_to(self, other: Self) -> f64 {
        self.difference(other).norm()
    }

    fn from_f64_unchecked(q: [f64; 4]) -> Self {
        let [w, x, y, z] = q.map(F::from_f64);
        Rotation { w, x, y, z }
    }

    fn to_f64(self) -> [f64; 4] {
        [self.w, self.x, self.y, self.z].map(|c| c.to_f64())
    }

    /// `exp(r)`: the rotation by |r| about r.
    fn exp(r: [f64; 3]) -> Self {
        let angle = r.norm();
        let half = 0.5 * angle;
        // sin(half)/angle, by series where angle is tiny.
        let k = if angle < 1e-8 {
            0.5 - angle * angle / 48.0
        } else {
            math::sin(half) / angle
        };
        Self::from_f64_unchecked([math::cos(half), r[0] * k, r[1] * k, r[2] * k])
    }
}

fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [aw, ax, ay, az] = a;
    let [bw, bx, by, bz] = b;
    [
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ]
}

impl<F: Float> Space for Rotation<F> {
    type Tangent = [F; 3];

    fn difference(self, origin: Self) -> [F; 3] {
        let o = origin.to_f64();
        let conj = [o[0], -o[1], -o[2], -o[3]];
        let mut d = quat_mul(self.to_f64(), conj);
        // q ≡ −q: take the hemisphere with w ≥ 0, the short way round.
        if d[0] < 0.0 {
            d = d.map(|c| -c);
        }
        let s = math::sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
        let angle = 2.0 * math::atan2(s, d[0]);
        let k = if s < 1e-12 { 2.0 } else { angle / s };
        [
            F::from_f64(d[1] * k),
            F::from_f64(d[2] * k),
            F::from_f64(d[3] * k),
        ]
    }

    fn offset(self, delta: [F; 3]) -> Self {
        let e = Self::exp(delta.map(|c| c.to_f64())).to_f64();
        let q = quat_mul(e, self.to_f64());
        // Renormalise so rounding never accumulates into a non-unit quaternion.
        let n = math::sqrt(q.iter().map(|c| c * c).sum());
        Self::from_f64_unchecked(q.map(|c| c / n))
    }

    fn is_valid(self) -> bool {
        self.to_f64().iter().all(|c| c.is_finite())
    }
}
