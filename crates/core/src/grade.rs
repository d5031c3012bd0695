//! A relevance grade and the one check every reader and builder makes of
//! it. Its own module so that the qrels, which store grades, and the
//! judged ranking, which reads them, both depend on it and not on each
//! other.

/// A relevance grade, as in the qrels: any finite number in
/// `-2147483647..=2147483647`, integer (`2`) or decimal (`3.5`, half-star
/// ratings). Grades may be negative (trec_eval's "in the pool but not
/// judged"); grades of 0 and below are never relevant.
///
/// An `f64` holds every integer grade exactly, so integer grades give the
/// same numbers, bit for bit, as integer arithmetic did. Readers refuse NaN
/// and infinities, and store `-0` as `0`.
pub type Grade = f64;

/// The largest grade magnitude readers accept (that of `i32`).
pub const MAX_GRADE: Grade = 2_147_483_647.0;

/// Why a number is not a grade; see [`check_grade`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GradeError {
    /// NaN or an infinity.
    #[error("a grade must be a finite number")]
    NotFinite,
    /// Beyond [`MAX_GRADE`] in magnitude.
    #[error("a grade must be between -2147483647 and 2147483647")]
    OutOfRange,
}

/// `grade` as stored: finite, within [`MAX_GRADE`], `-0` as `0`. Every
/// reader and builder goes through this one check.
#[inline]
pub fn check_grade(grade: f64) -> Result<Grade, GradeError> {
    if !grade.is_finite() {
        Err(GradeError::NotFinite)
    } else if grade.abs() > MAX_GRADE {
        Err(GradeError::OutOfRange)
    } else {
        // `-0.0 + 0.0` is `+0.0`; every other value is unchanged.
        Ok(grade + 0.0)
    }
}
