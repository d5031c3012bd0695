//! Grades given as numbers (Arrow and Parquet columns, JSON values): one
//! place that says which numbers are grades, for every reader that gets a
//! number rather than text.

/// The grade a number stands for: an integer (a float with no fraction, such
/// as `2.0`, counts), within the range grades have; else a message saying
/// what is wrong.
pub(crate) fn grade_of_number(value: f64) -> Result<i64, String> {
    if value.is_nan() || value.fract() != 0.0 {
        return Err(format!("grade {value} is not an integer"));
    }
    if value.abs() > f64::from(i32::MAX) {
        return Err(format!(
            "grade {value} is not a grade between -2147483647 and 2147483647"
        ));
    }
    Ok(value as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_whole_floats_are_grades_fractions_are_not() {
        assert_eq!(grade_of_number(2.0), Ok(2));
        assert_eq!(grade_of_number(-1.0), Ok(-1));
        assert_eq!(grade_of_number(0.0), Ok(0));
        assert!(grade_of_number(2.5).is_err());
        assert!(grade_of_number(f64::NAN).is_err());
        assert!(grade_of_number(f64::INFINITY).is_err());
        assert!(grade_of_number(3e9).is_err());
    }
}
