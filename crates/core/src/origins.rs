//! Where each entry of a store or buffer came from: its line number (or
//! push index), which errors name.
//!
//! Positions are 64-bit (a file may have more than 2^32 lines), but the
//! entries of one store or buffer come from a few nearby lines: a piece of
//! a file, one query's lines. So they are kept as 32-bit offsets from one
//! 64-bit base, 4 bytes per entry instead of 8. A position that does not
//! fit (before the base, or 2^32 or more after it) turns the column into
//! plain 64-bit positions, so every position is kept exactly.

/// A column of positions; see the module docs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Origins {
    /// What the offsets are added to.
    base: u64,
    /// While every position fits: position minus `base`.
    narrow: Vec<u32>,
    /// Once one did not: every position, in full (and `narrow` is empty).
    wide: Option<Vec<u64>>,
}

impl Origins {
    /// An empty column with room for `entries` positions.
    pub(crate) fn with_capacity(entries: usize) -> Self {
        Self {
            narrow: Vec::with_capacity(entries),
            ..Self::default()
        }
    }

    /// Number of positions.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match &self.wide {
            Some(wide) => wide.len(),
            None => self.narrow.len(),
        }
    }

    /// Whether there is none.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The offset of `position` from the base, if the column is narrow and
    /// it fits.
    #[inline]
    fn offset(&self, position: u64) -> Option<u32> {
        position
            .checked_sub(self.base)
            .and_then(|offset| u32::try_from(offset).ok())
    }

    /// Appends `position`.
    #[inline]
    pub(crate) fn push(&mut self, position: u64) {
        if let Some(wide) = &mut self.wide {
            wide.push(position);
            return;
        }
        if self.narrow.is_empty() {
            self.base = position;
        }
        match self.offset(position) {
            Some(offset) => self.narrow.push(offset),
            None => {
                self.widen();
                self.push(position);
            }
        }
    }

    /// Keeps every position in full from now on.
    #[cold]
    fn widen(&mut self) {
        if self.wide.is_none() {
            let base = self.base;
            let narrow = std::mem::take(&mut self.narrow);
            self.wide = Some(narrow.iter().map(|&o| base + u64::from(o)).collect());
        }
    }

    /// The position of entry `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> u64 {
        match &self.wide {
            Some(wide) => wide[i],
            None => self.base + u64::from(self.narrow[i]),
        }
    }

    /// Every position, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Empties the column, keeping its memory.
    #[cfg(test)]
    pub(crate) fn clear(&mut self) {
        self.narrow.clear();
        if let Some(mut wide) = self.wide.take() {
            wide.clear();
            // Back to narrow, with the wide column's room.
            self.narrow.reserve(wide.capacity());
        }
        self.base = 0;
    }

    /// Appends positions `range` of `other`, each plus `offset` (saturating).
    pub(crate) fn append_range(
        &mut self,
        other: &Origins,
        range: std::ops::Range<usize>,
        offset: u64,
    ) {
        if self.wide.is_none()
            && other.wide.is_none()
            && !range.is_empty()
            && let Some(other_base) = other.base.checked_add(offset)
        {
            if self.narrow.is_empty() {
                self.base = other_base;
            }
            let largest = other.narrow[range.clone()]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
            if let Some(shift) = other_base
                .checked_sub(self.base)
                .and_then(|shift| u32::try_from(shift).ok())
                .filter(|shift| shift.checked_add(largest).is_some())
                .filter(|_| other_base.checked_add(u64::from(largest)).is_some())
            {
                self.narrow
                    .extend(other.narrow[range].iter().map(|&o| o + shift));
                return;
            }
        }
        for i in range {
            self.push(other.get(i).saturating_add(offset));
        }
    }

    /// Appends `other`'s positions, each plus `offset` (saturating).
    pub(crate) fn append(&mut self, other: &Origins, offset: u64) {
        if self.wide.is_none()
            && other.wide.is_none()
            && !other.narrow.is_empty()
            && let Some(shift) = (|| {
                let other_base = other.base.checked_add(offset)?;
                // Positions of `other` are `other_base + o`; here they are
                // `base + (other_base - base) + o`, which fits if the
                // largest does (and no position saturates).
                let largest = other.narrow.iter().copied().max().unwrap_or(0);
                other_base.checked_add(u64::from(largest))?;
                if self.narrow.is_empty() {
                    return Some((other_base, 0u32));
                }
                let shift = u32::try_from(other_base.checked_sub(self.base)?).ok()?;
                shift.checked_add(largest)?;
                Some((self.base, shift))
            })()
        {
            let (base, shift) = shift;
            self.base = base;
            self.narrow.extend(other.narrow.iter().map(|&o| o + shift));
            return;
        }
        for position in other.iter() {
            self.push(position.saturating_add(offset));
        }
    }

    /// A column of `len` positions, all this column's base, ready to be
    /// filled with [`copy_from`](Self::copy_from) from this column.
    pub(crate) fn blank_like(&self, len: usize) -> Self {
        Self {
            base: self.base,
            narrow: if self.wide.is_some() {
                Vec::new()
            } else {
                vec![0; len]
            },
            wide: self.wide.as_ref().map(|_| vec![0; len]),
        }
    }

    /// Sets entry `to` to entry `from` of `source`, a column this one was
    /// made from with [`blank_like`](Self::blank_like).
    #[inline]
    pub(crate) fn copy_from(&mut self, to: usize, source: &Origins, from: usize) {
        match (&mut self.wide, &source.wide) {
            (Some(wide), Some(other)) => wide[to] = other[from],
            (None, None) => self.narrow[to] = source.narrow[from],
            _ => unreachable!("made with blank_like"),
        }
    }

    /// The whole column, to be split list by list.
    pub(crate) fn as_mut(&mut self) -> OriginsMut<'_> {
        match &mut self.wide {
            Some(wide) => OriginsMut::Wide(wide),
            None => OriginsMut::Narrow(self.base, &mut self.narrow),
        }
    }
}

/// A mutable run of an [`Origins`] column (one list's positions).
#[derive(Debug)]
pub(crate) enum OriginsMut<'a> {
    /// Offsets from a base.
    Narrow(u64, &'a mut [u32]),
    /// Positions in full.
    Wide(&'a mut [u64]),
}

impl<'a> OriginsMut<'a> {
    /// The first `n` positions, and the rest.
    pub(crate) fn split_at(self, n: usize) -> (Self, Self) {
        match self {
            OriginsMut::Narrow(base, narrow) => {
                let (head, tail) = narrow.split_at_mut(n);
                (
                    OriginsMut::Narrow(base, head),
                    OriginsMut::Narrow(base, tail),
                )
            }
            OriginsMut::Wide(wide) => {
                let (head, tail) = wide.split_at_mut(n);
                (OriginsMut::Wide(head), OriginsMut::Wide(tail))
            }
        }
    }

    /// An empty run.
    pub(crate) fn empty() -> Self {
        OriginsMut::Wide(&mut [])
    }

    /// The position of entry `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> u64 {
        match self {
            OriginsMut::Narrow(base, narrow) => base + u64::from(narrow[i]),
            OriginsMut::Wide(wide) => wide[i],
        }
    }

    /// Entry `to` takes entry `from`'s position.
    #[inline]
    pub(crate) fn copy(&mut self, from: usize, to: usize) {
        match self {
            OriginsMut::Narrow(_, narrow) => narrow[to] = narrow[from],
            OriginsMut::Wide(wide) => wide[to] = wide[from],
        }
    }

    /// Entries `start..` take the positions of entries `order` (indices
    /// into this run, each within `start..start + order.len()`), through
    /// `scratch`.
    pub(crate) fn permute(&mut self, start: usize, order: &[u32], scratch: &mut Vec<u64>) {
        scratch.clear();
        scratch.extend(order.iter().map(|&i| self.get(i as usize)));
        self.write(start, scratch);
    }

    /// Entries `start..` take `positions`, each taken from this run (so
    /// it fits a narrow run).
    pub(crate) fn write(&mut self, start: usize, positions: &[u64]) {
        match self {
            OriginsMut::Narrow(base, narrow) => {
                for (slot, &position) in narrow[start..].iter_mut().zip(positions) {
                    *slot = (position - *base) as u32;
                }
            }
            OriginsMut::Wide(wide) => {
                wide[start..start + positions.len()].copy_from_slice(positions);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_kept_exactly_narrow_or_wide() {
        let mut origins = Origins::default();
        let positions = [7, 9, 8, 1 << 20, 7 + u64::from(u32::MAX)];
        for p in positions {
            origins.push(p);
        }
        assert!(origins.wide.is_none(), "all within 2^32 of the first");
        assert_eq!(origins.iter().collect::<Vec<_>>(), positions);
        // Before the base, then far after it: widened, nothing lost.
        origins.push(3);
        origins.push(u64::MAX);
        assert!(origins.wide.is_some());
        let mut all = positions.to_vec();
        all.extend([3, u64::MAX]);
        assert_eq!(origins.iter().collect::<Vec<_>>(), all);
        origins.clear();
        assert!(origins.is_empty());
        origins.push(5_000_000_000);
        origins.push(5_000_000_001);
        assert!(origins.wide.is_none());
        assert_eq!(origins.get(1), 5_000_000_001);
    }

    #[test]
    fn append_shifts_and_widens_when_needed() {
        let mut left = Origins::default();
        left.push(1);
        left.push(2);
        let mut right = Origins::default();
        right.push(1);
        right.push(3);
        left.append(&right, 10);
        assert!(left.wide.is_none());
        assert_eq!(left.iter().collect::<Vec<_>>(), [1, 2, 11, 13]);
        // Past 2^32 lines from the first: every position still exact.
        left.append(&right, 1 << 33);
        assert_eq!(
            left.iter().collect::<Vec<_>>(),
            [1, 2, 11, 13, (1 << 33) + 1, (1 << 33) + 3]
        );
        // Into an empty column: takes the shifted base.
        let mut empty = Origins::default();
        empty.append(&right, 1 << 40);
        assert!(empty.wide.is_none());
        assert_eq!(
            empty.iter().collect::<Vec<_>>(),
            [(1 << 40) + 1, (1 << 40) + 3]
        );
        // Saturating, as positions always were.
        let mut high = Origins::default();
        high.append(&right, u64::MAX - 1);
        assert_eq!(high.iter().collect::<Vec<_>>(), [u64::MAX, u64::MAX]);
    }

    #[test]
    fn a_range_appended_is_shifted_and_widens_when_needed() {
        let mut source = Origins::default();
        for position in [5, 6, 9, 12] {
            source.push(position);
        }
        for (before, offset) in [(None, 0), (Some(3), 100), (Some(1), u64::from(u32::MAX))] {
            let mut origins = Origins::default();
            let mut want = Vec::new();
            if let Some(first) = before {
                origins.push(first);
                want.push(first);
            }
            origins.append_range(&source, 1..3, offset);
            origins.append_range(&source, 3..4, offset);
            origins.append_range(&source, 0..0, offset);
            want.extend([6 + offset, 9 + offset, 12 + offset]);
            assert_eq!(origins.iter().collect::<Vec<_>>(), want, "{offset}");
        }
    }

    #[test]
    fn copies_splits_and_permutations_move_positions() {
        for wide in [false, true] {
            let mut origins = Origins::default();
            for p in [10, 11, 12, 13] {
                origins.push(p);
            }
            if wide {
                origins.push(u64::MAX);
            }
            let mut blank = origins.blank_like(2);
            blank.copy_from(0, &origins, 3);
            blank.copy_from(1, &origins, 0);
            assert_eq!(blank.iter().collect::<Vec<_>>(), [13, 10]);
            let mut whole = origins.as_mut();
            whole.copy(2, 0);
            let (head, mut tail) = whole.split_at(2);
            assert_eq!(head.get(0), 12);
            assert_eq!(tail.get(1), 13);
            let mut scratch = Vec::new();
            tail.permute(0, &[1, 0], &mut scratch);
            assert_eq!((tail.get(0), tail.get(1)), (13, 12));
        }
    }
}
