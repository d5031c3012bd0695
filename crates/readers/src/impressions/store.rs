//! An impression log's impressions in columns: every impression's items in
//! one `Vec` of interned ids, its rewards, propensities and target
//! probabilities in flat `f64` columns, and nothing allocated per
//! impression. At a million impressions, a `Vec` (or three) per
//! impression was a quarter of `rankeval ope`'s time in the allocator and
//! most of its memory.

use crate::RowAt;

use super::Impression;

/// Rows of values of varying length, stored flat: one `Vec` of values and,
/// while every row has one length, that length alone (no offsets: a log's
/// slates have one length, its rewards and propensities one per
/// impression or one per position); the end of every row once two
/// lengths differ.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ragged<T> {
    values: Vec<T>,
    rows: usize,
    /// The one length of every row, while `ends` is `None`.
    width: usize,
    /// The end of each row in `values`, once two rows' lengths differ.
    ends: Option<Vec<usize>>,
}

impl<T: Copy> Ragged<T> {
    /// No rows.
    pub fn new() -> Self {
        Self {
            values: Vec::new(),
            rows: 0,
            width: 0,
            ends: None,
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Every row's values, one after the other.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Adds a row.
    pub fn push(&mut self, row: &[T]) {
        self.values.extend_from_slice(row);
        self.end_row();
    }

    /// Adds a row of the values of `row`.
    pub fn push_iter(&mut self, row: impl IntoIterator<Item = T>) {
        self.values.extend(row);
        self.end_row();
    }

    /// Ends a row of the values added since the last row ended.
    fn end_row(&mut self) {
        let start = self.start(self.rows);
        let len = self.values.len() - start;
        match &mut self.ends {
            Some(ends) => ends.push(self.values.len()),
            None if self.rows == 0 => self.width = len,
            None if len == self.width => {}
            None => {
                let mut ends: Vec<usize> = (1..=self.rows).map(|r| r * self.width).collect();
                ends.push(self.values.len());
                self.ends = Some(ends);
            }
        }
        self.rows += 1;
    }

    /// Where row `row` starts (the end of the values for `row == len`).
    fn start(&self, row: usize) -> usize {
        match (&self.ends, row) {
            (_, 0) => 0,
            (Some(ends), row) => ends.get(row - 1).copied().unwrap_or(self.values.len()),
            (None, row) => row * self.width,
        }
    }

    /// Row `row`'s values.
    pub fn get(&self, row: usize) -> Option<&[T]> {
        if row >= self.rows {
            return None;
        }
        let start = self.start(row);
        let end = match &self.ends {
            Some(ends) => *ends.get(row)?,
            None => start + self.width,
        };
        self.values.get(start..end)
    }

    /// The rows in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.rows).map(|r| self.get(r).unwrap_or_default())
    }
}

/// Which impressions carry the target's probabilities.
#[derive(Clone, Debug, PartialEq)]
enum Given {
    /// Every impression so far (`true`) or none (`false`).
    All(bool),
    /// Per impression.
    Each(Vec<bool>),
}

/// The impressions of a log, in columns: what [`Impression`] holds, one
/// column per field, the lists flat ([`Ragged`]). Read one at a time as an
/// [`ImpressionRef`].
#[derive(Clone, Debug, PartialEq)]
pub struct Impressions {
    contexts: Vec<u32>,
    ids: Vec<u32>,
    at: Vec<RowAt>,
    items: Ragged<u32>,
    rewards: Ragged<f64>,
    propensities: Ragged<f64>,
    /// An empty row for an impression without target probabilities.
    targets: Ragged<f64>,
    given: Given,
}

impl Default for Impressions {
    fn default() -> Self {
        Self::new()
    }
}

/// One impression of [`Impressions`], borrowed: the fields of
/// [`Impression`], the lists as slices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpressionRef<'a> {
    /// The context, an id of [`super::ImpressionLog::ids`].
    pub context: u32,
    /// The impression's id.
    pub id: u32,
    /// The shown items in order.
    pub items: &'a [u32],
    /// One reward, or one per position.
    pub rewards: &'a [f64],
    /// The logging propensities: one (action, slate) or one per position.
    pub propensities: &'a [f64],
    /// The target's probabilities, in the same form, when the log has them.
    pub target: Option<&'a [f64]>,
    /// Where the impression was read (its first row).
    pub at: RowAt,
}

impl ImpressionRef<'_> {
    /// The impression as an owned [`Impression`].
    pub fn to_impression(&self) -> Impression {
        Impression {
            context: self.context,
            id: self.id,
            items: self.items.to_vec(),
            rewards: self.rewards.to_vec(),
            propensities: self.propensities.to_vec(),
            target: self.target.map(<[f64]>::to_vec),
            at: self.at,
        }
    }
}

impl Impressions {
    /// No impression.
    pub fn new() -> Self {
        Self {
            contexts: Vec::new(),
            ids: Vec::new(),
            at: Vec::new(),
            items: Ragged::new(),
            rewards: Ragged::new(),
            propensities: Ragged::new(),
            targets: Ragged::new(),
            given: Given::All(false),
        }
    }

    /// The number of impressions.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there is no impression.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds an impression.
    pub fn push(&mut self, impression: Impression) {
        self.push_ref(&ImpressionRef {
            context: impression.context,
            id: impression.id,
            items: &impression.items,
            rewards: &impression.rewards,
            propensities: &impression.propensities,
            target: impression.target.as_deref(),
            at: impression.at,
        });
    }

    /// Adds an impression given by its parts (copied).
    pub fn push_ref(&mut self, imp: &ImpressionRef<'_>) {
        let given = imp.target.is_some();
        match &mut self.given {
            Given::All(all) if self.ids.is_empty() => *all = given,
            Given::All(all) if *all == given => {}
            Given::All(all) => {
                let mut each = vec![*all; self.ids.len()];
                each.push(given);
                self.given = Given::Each(each);
            }
            Given::Each(each) => each.push(given),
        }
        self.contexts.push(imp.context);
        self.ids.push(imp.id);
        self.at.push(imp.at);
        self.items.push(imp.items);
        self.rewards.push(imp.rewards);
        self.propensities.push(imp.propensities);
        self.targets.push(imp.target.unwrap_or_default());
    }

    /// Impression `index`.
    pub fn get(&self, index: usize) -> Option<ImpressionRef<'_>> {
        let given = match &self.given {
            Given::All(all) => *all,
            Given::Each(each) => *each.get(index)?,
        };
        Some(ImpressionRef {
            context: *self.contexts.get(index)?,
            id: *self.ids.get(index)?,
            items: self.items.get(index)?,
            rewards: self.rewards.get(index)?,
            propensities: self.propensities.get(index)?,
            target: if given {
                Some(self.targets.get(index)?)
            } else {
                None
            },
            at: *self.at.get(index)?,
        })
    }

    /// The impressions in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = ImpressionRef<'_>> + '_ {
        // `get` of an index below `len` is always an impression.
        (0..self.len()).map(move |i| self.get(i).unwrap_or(EMPTY))
    }

    /// The impressions at `indices`, in that order.
    pub fn select(&self, indices: &[usize]) -> Impressions {
        let mut out = Impressions::new();
        for imp in indices.iter().filter_map(|&i| self.get(i)) {
            out.push_ref(&imp);
        }
        out
    }

    /// Every impression's propensities set to `propensities` (a click
    /// log's examination propensities by rank).
    pub fn set_propensities(&mut self, propensities: &[f64]) {
        let mut column = Ragged::new();
        column.values.reserve(self.len() * propensities.len());
        for _ in 0..self.len() {
            column.push(propensities);
        }
        self.propensities = column;
    }

    /// The items of every impression, one after the other.
    pub fn items(&self) -> &Ragged<u32> {
        &self.items
    }

    /// The context of every impression.
    pub fn contexts(&self) -> &[u32] {
        &self.contexts
    }
}

/// What [`Impressions::iter`] would give for an index it never reaches.
const EMPTY: ImpressionRef<'static> = ImpressionRef {
    context: 0,
    id: 0,
    items: &[],
    rewards: &[],
    propensities: &[],
    target: None,
    at: RowAt::Row(0),
};

impl<'a> IntoIterator for &'a Impressions {
    type Item = ImpressionRef<'a>;
    type IntoIter = Box<dyn ExactSizeIterator<Item = ImpressionRef<'a>> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragged_rows_of_one_length_then_of_others() {
        let mut r = Ragged::new();
        r.push(&[1, 2]);
        r.push(&[3, 4]);
        assert_eq!(r.ends, None);
        r.push(&[5]);
        r.push(&[]);
        r.push(&[6, 7, 8]);
        let rows: Vec<&[i32]> = r.iter().collect();
        assert_eq!(rows, vec![&[1, 2][..], &[3, 4], &[5], &[], &[6, 7, 8]]);
        assert_eq!(r.get(5), None);
        assert_eq!(r.len(), 5);
    }

    #[test]
    fn impressions_keep_each_ones_target_or_none() {
        let imp = |id: u32, target: Option<Vec<f64>>| Impression {
            context: 0,
            id,
            items: vec![id],
            rewards: vec![1.0],
            propensities: vec![0.5],
            target,
            at: RowAt::Row(u64::from(id)),
        };
        let mut all = Impressions::new();
        let given = [Some(vec![0.25]), Some(vec![0.5]), None, Some(vec![1.0])];
        for (i, t) in given.iter().enumerate() {
            all.push(imp(i as u32, t.clone()));
        }
        let back: Vec<Impression> = all.iter().map(|i| i.to_impression()).collect();
        let wanted: Vec<Impression> = given
            .iter()
            .enumerate()
            .map(|(i, t)| imp(i as u32, t.clone()))
            .collect();
        assert_eq!(back, wanted);
        let some = all.select(&[3, 0]);
        assert_eq!(
            some.get(0).map(|i| i.to_impression()),
            Some(wanted[3].clone())
        );
        assert_eq!(some.len(), 2);
    }
}
