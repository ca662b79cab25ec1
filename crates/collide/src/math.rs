//! The number type and the 2-D vector, defined once for the whole crate.

/// The scalar every coordinate uses.
pub type Real = f32;

/// A 2-D point or vector, in world units (x to the right, y down or up: the
/// crate never assumes which way y points).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// Horizontal coordinate.
    pub x: Real,
    /// Vertical coordinate.
    pub y: Real,
}

impl Vec2 {
    /// The vector `(x, y)`.
    pub const fn new(x: Real, y: Real) -> Self {
        Self { x, y }
    }

    /// True when neither coordinate is NaN or infinite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// Component-wise minimum.
    pub fn min(self, other: Self) -> Self {
        Self::new(self.x.min(other.x), self.y.min(other.y))
    }

    /// Component-wise maximum.
    pub fn max(self, other: Self) -> Self {
        Self::new(self.x.max(other.x), self.y.max(other.y))
    }
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Self = Self::new(0.0, 0.0);

    /// Dot product.
    #[inline]
    pub fn dot(self, o: Self) -> Real {
        self.x * o.x + self.y * o.y
    }

    /// The z component of the 3-D cross product: positive when `o` lies
    /// counter-clockwise of `self` (with y up).
    #[inline]
    pub fn cross(self, o: Self) -> Real {
        self.x * o.y - self.y * o.x
    }

    /// `self` turned a quarter turn counter-clockwise (with y up).
    #[inline]
    pub fn perp(self) -> Self {
        Self::new(-self.y, self.x)
    }

    /// Squared length.
    #[inline]
    pub fn length_squared(self) -> Real {
        self.dot(self)
    }

    /// Length.
    #[inline]
    pub fn length(self) -> Real {
        self.x.hypot(self.y)
    }

    /// The unit vector along `self`, or `None` for a zero or non-finite one.
    pub fn normalized(self) -> Option<Self> {
        let len = self.length();
        (len > 0.0 && len.is_finite()).then(|| self * (1.0 / len))
    }
}

impl std::ops::Add for Vec2 {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y)
    }
}

impl std::ops::Sub for Vec2 {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y)
    }
}

impl std::ops::Neg for Vec2 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y)
    }
}

impl std::ops::Mul<Real> for Vec2 {
    type Output = Self;
    #[inline]
    fn mul(self, s: Real) -> Self {
        Self::new(self.x * s, self.y * s)
    }
}

impl std::ops::AddAssign for Vec2 {
    #[inline]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl std::ops::SubAssign for Vec2 {
    #[inline]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}

impl From<[Real; 2]> for Vec2 {
    fn from([x, y]: [Real; 2]) -> Self {
        Self::new(x, y)
    }
}

impl From<Vec2> for [Real; 2] {
    fn from(v: Vec2) -> Self {
        [v.x, v.y]
    }
}

#[cfg(feature = "glam")]
impl From<glam::Vec2> for Vec2 {
    fn from(v: glam::Vec2) -> Self {
        Self::new(v.x, v.y)
    }
}

#[cfg(feature = "glam")]
impl From<Vec2> for glam::Vec2 {
    fn from(v: Vec2) -> Self {
        glam::Vec2::new(v.x, v.y)
    }
}

#[cfg(feature = "mint")]
impl From<mint::Vector2<Real>> for Vec2 {
    fn from(v: mint::Vector2<Real>) -> Self {
        Self::new(v.x, v.y)
    }
}

#[cfg(feature = "mint")]
impl From<mint::Point2<Real>> for Vec2 {
    fn from(v: mint::Point2<Real>) -> Self {
        Self::new(v.x, v.y)
    }
}

#[cfg(feature = "mint")]
impl From<Vec2> for mint::Vector2<Real> {
    fn from(v: Vec2) -> Self {
        mint::Vector2 { x: v.x, y: v.y }
    }
}

#[cfg(feature = "mint")]
impl From<Vec2> for mint::Point2<Real> {
    fn from(v: Vec2) -> Self {
        mint::Point2 { x: v.x, y: v.y }
    }
}

/// `hi - lo` rounded *up* to an `f64`, so that a level or window sized by it
/// is never a hair too small. Exact for nearly every pair of `f32`s; when the
/// two exponents are more than 29 apart the `f64` difference rounds, and
/// Knuth's two-sum tells us which way.
pub(crate) fn extent_up(lo: Real, hi: Real) -> f64 {
    let (x, y) = (f64::from(hi), -f64::from(lo));
    let s = x + y;
    let y_part = s - x;
    let err = (x - (s - y_part)) + (y - y_part);
    if err > 0.0 { s.next_up() } else { s }
}

/// `floor(x)` as an `i64`, saturating at the ends (±∞ included; never NaN
/// here). Inline integer code: the x86-64 baseline has no SSE4.1 `roundsd`,
/// so `f64::floor` would be a libm call in the hottest loops.
#[inline]
pub(crate) fn floor_i64(x: f64) -> i64 {
    let t = x as i64; // truncates toward zero, saturates
    if (t as f64) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// 2^e as an `f64`, for `e` in `-1022..=1023`.
pub(crate) fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// The smallest `e` with `2^e >= h`, for a finite `h > 0`.
pub(crate) fn ceil_log2(h: f64) -> i32 {
    debug_assert!(h > 0.0 && h.is_finite());
    let bits = h.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        // Subnormal f64: never produced from f32 differences, but stay correct.
        return -1074 + (64 - mantissa.leading_zeros() as i32);
    }
    let e = exp - 1023;
    if mantissa == 0 { e } else { e + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extent_up_is_never_below_the_true_difference() {
        // 2^30 - (-2^-30): the f64 difference rounds; two-sum must catch it.
        let a = -(2f32.powi(-30));
        let b = 2f32.powi(30);
        let e = extent_up(a, b);
        assert!(e > 2f64.powi(30));
        assert_eq!(extent_up(1.0, 31.0), 30.0);
        assert_eq!(extent_up(-3.0, 29.0), 32.0);
        assert_eq!(extent_up(5.0, 5.0), 0.0);
    }

    #[test]
    fn floor_i64_matches_floor() {
        for x in [
            0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.75, -2.75, 1e18, -1e18, 1e300, -1e300,
        ] {
            assert_eq!(floor_i64(x), x.floor() as i64, "{x}");
        }
        assert_eq!(floor_i64(f64::INFINITY), i64::MAX);
        assert_eq!(floor_i64(f64::NEG_INFINITY), i64::MIN);
        assert_eq!(floor_i64(-9.3e18), i64::MIN);
    }

    #[test]
    fn ceil_log2_matches_powers() {
        assert_eq!(ceil_log2(1.0), 0);
        assert_eq!(ceil_log2(32.0), 5);
        assert_eq!(ceil_log2(32.000001), 6);
        assert_eq!(ceil_log2(30.0), 5);
        assert_eq!(ceil_log2(0.75), 0);
        assert_eq!(ceil_log2(0.5), -1);
        assert_eq!(ceil_log2(f64::from(f32::MAX) * 2.0), 129);
        assert_eq!(pow2(5), 32.0);
        assert_eq!(pow2(-3), 0.125);
    }
}
