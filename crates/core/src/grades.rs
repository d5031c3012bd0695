//! The grade column of the qrels: one byte a grade while every grade is a
//! small integer (as grades usually are: 0 to 4, -1, ...), an `f64` each
//! once one is not (a decimal grade such as `3.5`, or beyond `i8`).
//!
//! Every `i8` is exactly an `f64`, and a grade is kept narrow only if it is
//! that integer exactly (stored grades are never `-0`), so reading a grade
//! back gives the same bits either way.

use crate::grade::Grade;

/// A column of grades; see the module docs.
#[derive(Clone, Debug)]
pub(crate) enum Grades {
    /// Every grade so far is an integer in `i8`'s range.
    Small(Vec<i8>),
    /// Any grade.
    Wide(Vec<Grade>),
}

impl Default for Grades {
    fn default() -> Self {
        Grades::Small(Vec::new())
    }
}

/// `grade` as an `i8`, if it is that integer exactly.
#[inline]
fn narrow(grade: Grade) -> Option<i8> {
    let small = grade as i8;
    (Grade::from(small).to_bits() == grade.to_bits()).then_some(small)
}

impl Grades {
    /// Number of grades.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Grades::Small(grades) => grades.len(),
            Grades::Wide(grades) => grades.len(),
        }
    }

    /// Appends `grade`, widening the column if it does not fit a byte.
    #[inline]
    pub(crate) fn push(&mut self, grade: Grade) {
        match self {
            Grades::Small(grades) => match narrow(grade) {
                Some(small) => grades.push(small),
                None => {
                    self.widen();
                    self.push(grade);
                }
            },
            Grades::Wide(grades) => grades.push(grade),
        }
    }

    /// Appends `grades`, widening the column if one does not fit a byte.
    #[inline]
    pub(crate) fn extend_from_slice(&mut self, grades: &[Grade]) {
        match self {
            Grades::Small(small) => {
                let before = small.len();
                small.extend(grades.iter().map(|&g| g as i8));
                let fits = grades
                    .iter()
                    .zip(&small[before..])
                    .all(|(&g, &s)| Grade::from(s).to_bits() == g.to_bits());
                if !fits {
                    small.truncate(before);
                    self.widen();
                    self.extend_from_slice(grades);
                }
            }
            Grades::Wide(wide) => wide.extend_from_slice(grades),
        }
    }

    /// Makes room for `more` grades (as bytes: a column that widens grows).
    pub(crate) fn reserve_exact(&mut self, more: usize) {
        match self {
            Grades::Small(grades) => grades.reserve_exact(more),
            Grades::Wide(grades) => grades.reserve_exact(more),
        }
    }

    /// Appends grades `range` of `other`.
    pub(crate) fn append(&mut self, other: &Grades, range: std::ops::Range<usize>) {
        match (&mut *self, other) {
            (Grades::Small(grades), Grades::Small(more)) => grades.extend_from_slice(&more[range]),
            (Grades::Wide(grades), Grades::Small(more)) => {
                grades.extend(more[range].iter().map(|&g| Grade::from(g)));
            }
            (_, Grades::Wide(more)) => {
                self.widen();
                if let Grades::Wide(grades) = self {
                    grades.extend_from_slice(&more[range]);
                }
            }
        }
    }

    /// Every grade as an `f64` from now on.
    #[cold]
    fn widen(&mut self) {
        if let Grades::Small(small) = self {
            let mut wide = Vec::with_capacity(small.capacity().max(small.len() + 1));
            wide.extend(small.iter().map(|&g| Grade::from(g)));
            *self = Grades::Wide(wide);
        }
    }

    /// The grade of entry `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Grade {
        self.slice(0, self.len()).get(i)
    }

    /// Entries `start..end`.
    #[inline]
    pub(crate) fn slice(&self, start: usize, end: usize) -> GradesRef<'_> {
        match self {
            Grades::Small(grades) => GradesRef::Small(&grades[start..end]),
            Grades::Wide(grades) => GradesRef::Wide(&grades[start..end]),
        }
    }

    /// Gives back the room reserved beyond the grades held.
    pub(crate) fn shrink_to_fit(&mut self) {
        match self {
            Grades::Small(grades) => grades.shrink_to_fit(),
            Grades::Wide(grades) => grades.shrink_to_fit(),
        }
    }
}

/// Some grades of a [`Grades`] column.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GradesRef<'a> {
    Small(&'a [i8]),
    Wide(&'a [Grade]),
}

impl GradesRef<'_> {
    /// The grade of entry `i`.
    #[inline]
    pub(crate) fn get(self, i: usize) -> Grade {
        match self {
            GradesRef::Small(grades) => Grade::from(grades[i]),
            GradesRef::Wide(grades) => grades[i],
        }
    }

    /// Appends every grade to `out`.
    #[inline]
    pub(crate) fn extend_into(self, out: &mut Vec<Grade>) {
        match self {
            GradesRef::Small(grades) => out.extend(grades.iter().map(|&g| Grade::from(g))),
            GradesRef::Wide(grades) => out.extend_from_slice(grades),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integers_stay_narrow_and_anything_else_widens_with_the_same_bits() {
        let mut grades = Grades::default();
        for g in [0.0, 1.0, -1.0, 127.0, -128.0, 4.0] {
            grades.push(g);
        }
        assert!(matches!(grades, Grades::Small(_)));
        let narrow_bits: Vec<u64> = (0..grades.len()).map(|i| grades.get(i).to_bits()).collect();
        assert_eq!(
            narrow_bits,
            [0.0f64, 1.0, -1.0, 127.0, -128.0, 4.0].map(f64::to_bits)
        );
        for wide in [128.0, -129.0, 0.5, 2_147_483_647.0, 1e-300] {
            let mut column = grades.clone();
            column.push(wide);
            assert!(matches!(column, Grades::Wide(_)), "{wide}");
            let bits: Vec<u64> = (0..column.len()).map(|i| column.get(i).to_bits()).collect();
            let mut want = narrow_bits.clone();
            want.push(wide.to_bits());
            assert_eq!(bits, want, "{wide}");
            let mut bulk = Grades::default();
            bulk.extend_from_slice(&[1.0, 2.0]);
            bulk.extend_from_slice(&[3.0, wide, 4.0]);
            let bulk_bits: Vec<u64> = (0..bulk.len()).map(|i| bulk.get(i).to_bits()).collect();
            assert_eq!(
                bulk_bits,
                [1.0, 2.0, 3.0, wide, 4.0].map(f64::to_bits),
                "{wide}"
            );
            assert!(matches!(bulk, Grades::Wide(_)), "{wide}");
            let mut out = Vec::new();
            column.slice(1, column.len()).extend_into(&mut out);
            assert_eq!(out.len(), column.len() - 1);
            assert_eq!(out.last().map(|g| g.to_bits()), Some(wide.to_bits()));
        }
        // Ranges of other columns, narrow or wide, in any order.
        let mut small = Grades::default();
        small.extend_from_slice(&[1.0, -2.0, 3.0]);
        let mut wide = Grades::default();
        wide.extend_from_slice(&[0.5, 7.0]);
        let mut joined = Grades::default();
        joined.append(&small, 1..3);
        assert!(matches!(joined, Grades::Small(_)));
        joined.append(&wide, 0..2);
        joined.append(&small, 0..1);
        let bits: Vec<u64> = (0..joined.len()).map(|i| joined.get(i).to_bits()).collect();
        assert_eq!(bits, [-2.0, 3.0, 0.5, 7.0, 1.0].map(f64::to_bits));
        // -0 is never stored, but would not pass for 0.
        assert_eq!(narrow(-0.0), None);
    }
}
