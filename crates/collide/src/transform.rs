//! Rotations and rigid transforms in the plane.

use crate::error::CollideError;
use crate::math::{Real, Vec2};

/// A rotation, stored as its cosine and sine (so applying it costs four
/// multiplies and no trigonometry).
///
/// Invariant: `cos² + sin² = 1` up to rounding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot {
    cos: Real,
    sin: Real,
}

impl Rot {
    /// No rotation.
    pub const IDENTITY: Self = Self { cos: 1.0, sin: 0.0 };

    /// A counter-clockwise rotation by `angle` radians (with y up).
    ///
    /// # Errors
    /// [`CollideError::NonFiniteTransform`] for a NaN or infinite angle.
    pub fn new(angle: Real) -> Result<Self, CollideError> {
        if !angle.is_finite() {
            return Err(CollideError::NonFiniteTransform {
                what: "rotation angle",
            });
        }
        let (sin, cos) = angle.sin_cos();
        Ok(Self { cos, sin })
    }

    /// The rotation that turns the x axis onto `direction` (any length > 0).
    ///
    /// # Errors
    /// [`CollideError::NonFiniteTransform`] for a zero or non-finite direction.
    pub fn from_direction(direction: Vec2) -> Result<Self, CollideError> {
        let d = direction
            .normalized()
            .ok_or(CollideError::NonFiniteTransform {
                what: "rotation direction (zero or not finite)",
            })?;
        Ok(Self { cos: d.x, sin: d.y })
    }

    /// The angle in radians, in `(-π, π]`.
    pub fn angle(self) -> Real {
        self.sin.atan2(self.cos)
    }

    /// Cosine of the angle.
    pub fn cos(self) -> Real {
        self.cos
    }

    /// Sine of the angle.
    pub fn sin(self) -> Real {
        self.sin
    }

    /// `v` rotated by this rotation.
    #[inline]
    pub fn apply(self, v: Vec2) -> Vec2 {
        Vec2::new(
            self.cos * v.x - self.sin * v.y,
            self.sin * v.x + self.cos * v.y,
        )
    }

    /// `v` rotated by the inverse rotation.
    #[inline]
    pub fn apply_inverse(self, v: Vec2) -> Vec2 {
        Vec2::new(
            self.cos * v.x + self.sin * v.y,
            -self.sin * v.x + self.cos * v.y,
        )
    }

    /// The inverse rotation.
    pub fn inverse(self) -> Self {
        Self {
            cos: self.cos,
            sin: -self.sin,
        }
    }

    /// `self` after `other`: rotating by the result is rotating by `other`
    /// and then by `self`.
    pub fn compose(self, other: Self) -> Self {
        Self {
            cos: self.cos * other.cos - self.sin * other.sin,
            sin: self.sin * other.cos + self.cos * other.sin,
        }
    }
}

/// A rigid transform: rotate, then translate. It places a shape, given in
/// its own local frame, in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Where the shape's local origin lands.
    pub translation: Vec2,
    /// How the shape is turned about its local origin.
    pub rotation: Rot,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The identity.
    pub const IDENTITY: Self = Self {
        translation: Vec2::ZERO,
        rotation: Rot::IDENTITY,
    };

    /// Translation by `(x, y)` and rotation by `angle` radians.
    ///
    /// # Errors
    /// [`CollideError::NonFiniteTransform`] when any input is NaN or infinite.
    pub fn new(translation: impl Into<Vec2>, angle: Real) -> Result<Self, CollideError> {
        let translation = translation.into();
        if !translation.is_finite() {
            return Err(CollideError::NonFiniteTransform {
                what: "translation",
            });
        }
        Ok(Self {
            translation,
            rotation: Rot::new(angle)?,
        })
    }

    /// A pure translation.
    ///
    /// # Errors
    /// [`CollideError::NonFiniteTransform`] when `translation` is not finite.
    pub fn translation(translation: impl Into<Vec2>) -> Result<Self, CollideError> {
        Self::new(translation, 0.0)
    }

    /// Maps a local point to the world.
    #[inline]
    pub fn apply(&self, p: Vec2) -> Vec2 {
        self.rotation.apply(p) + self.translation
    }

    /// Maps a world point to the local frame.
    #[inline]
    pub fn apply_inverse(&self, p: Vec2) -> Vec2 {
        self.rotation.apply_inverse(p - self.translation)
    }

    /// The inverse transform.
    pub fn inverse(&self) -> Self {
        let rotation = self.rotation.inverse();
        Self {
            translation: -rotation.apply(self.translation),
            rotation,
        }
    }

    /// `self` after `other`: `self.compose(other).apply(p) == self.apply(other.apply(p))`.
    pub fn compose(&self, other: &Self) -> Self {
        Self {
            translation: self.apply(other.translation),
            rotation: self.rotation.compose(other.rotation),
        }
    }

    /// `self⁻¹ ∘ other`: where `other`'s local frame sits in `self`'s.
    #[inline]
    pub fn relative(&self, other: &Self) -> Self {
        Self {
            translation: self.apply_inverse(other.translation),
            rotation: self.rotation.inverse().compose(other.rotation),
        }
    }

    /// True when every part is finite (a public field may have been set to NaN).
    pub(crate) fn is_finite(&self) -> bool {
        self.translation.is_finite()
            && self.rotation.cos.is_finite()
            && self.rotation.sin.is_finite()
    }
}
