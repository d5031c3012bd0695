//! A Parquet or Arrow batch of the one-row-per-impression layout read
//! straight from its columns into the log's columns: ids interned from the
//! Arrow arrays' bytes (a dictionary's values once per batch), numbers
//! from their buffers, no [`Cell`](super::cell::Cell) made per value.
//!
//! Every check of the cell path ([`super::assemble`]) is made here as a
//! test only: a row that fails one (or that this path does not read, such
//! as a null) is handed to the cell path, which reads it again from the
//! start and gives the error, with its message, exactly as it gives it
//! for every row. Ids are interned in the order the cell path interns them
//! (context, impression, items), so the log is the same to the bit.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::{Array, OffsetSizeTrait, RecordBatch};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use rankeval_core::Interner;

use super::assemble::{Assembler, mark_seen};
use super::{COLUMNS, Column, ImpressionRef, PropensityForm, RewardPer};
use crate::table::{Ids, is_id, is_number, numbers};

/// An id column: its ids, nulls and, for a dictionary, each value's
/// interned id once it was read (`u32::MAX` before).
struct IdColumn<'a> {
    ids: Ids<'a>,
    nulls: Option<NullBuffer>,
    interned: Vec<u32>,
}

impl<'a> IdColumn<'a> {
    fn new(array: &'a dyn Array) -> Self {
        let ids = Ids::of(array);
        let interned = match array.data_type() {
            DataType::Dictionary(..) => vec![u32::MAX; array.as_any_dictionary().values().len()],
            _ => Vec::new(),
        };
        Self {
            ids,
            nulls: array.logical_nulls(),
            interned,
        }
    }

    /// Row `row`'s id, interned; `None` when the cell path would refuse it.
    fn get(&mut self, row: usize, interner: &mut Interner) -> Option<u32> {
        if self.nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            return None;
        }
        match &self.ids {
            Ids::Dictionary(keys, values) => {
                let key = *keys.get(row)?;
                match self.interned.get(key) {
                    Some(&id) if id != u32::MAX => Some(id),
                    _ => {
                        let id = values.with(key, |b| good(b).then(|| interner.intern(b)))?;
                        if let Some(slot) = self.interned.get_mut(key) {
                            *slot = id;
                        }
                        Some(id)
                    }
                }
            }
            ids => ids.with(row, |b| good(b).then(|| interner.intern(b))),
        }
    }
}

/// Whether the cell path takes these bytes as an id
/// ([`Cell::id`](super::cell::Cell::id)): not empty, the one id rule,
/// UTF-8.
fn good(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && rankeval_core::check_id(bytes).is_ok()
        && std::str::from_utf8(bytes).is_ok()
}

/// A number column.
struct NumberColumn<'a> {
    values: Cow<'a, [f64]>,
    nulls: Option<NullBuffer>,
}

impl<'a> NumberColumn<'a> {
    fn new(array: &'a dyn Array) -> Self {
        Self {
            values: numbers(array),
            nulls: array.logical_nulls(),
        }
    }

    fn get(&self, row: usize) -> Option<f64> {
        if self.nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            return None;
        }
        self.values.get(row).copied()
    }
}

/// A column, or a list column's rows and flattened values.
enum Shape<C> {
    Plain(C),
    List {
        offsets: Vec<usize>,
        nulls: Option<NullBuffer>,
        values: C,
    },
}

impl<C> Shape<C> {
    /// The values of row `row`: the row itself (a list of one, as the cell
    /// path reads a plain cell), or its list's range; `None` for a null
    /// list.
    fn range(&self, row: usize) -> Option<(bool, std::ops::Range<usize>)> {
        match self {
            Shape::Plain(_) => Some((false, row..row + 1)),
            Shape::List { offsets, nulls, .. } => {
                if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                    return None;
                }
                Some((true, *offsets.get(row)?..*offsets.get(row + 1)?))
            }
        }
    }

    fn values(&mut self) -> &mut C {
        match self {
            Shape::Plain(c) | Shape::List { values: c, .. } => c,
        }
    }
}

/// `list`'s offsets as `usize`s.
fn offsets<O: OffsetSizeTrait>(list: &arrow_array::GenericListArray<O>) -> Vec<usize> {
    list.value_offsets().iter().map(|o| o.as_usize()).collect()
}

/// The column of `array` for this path, `None` when it reads no column of
/// this type (it goes to the cell path).
fn shape<'a, C>(
    array: &'a dyn Array,
    scalar: impl Fn(&DataType) -> bool,
    make: impl Fn(&'a dyn Array) -> C,
) -> Option<Shape<C>> {
    match array.data_type() {
        DataType::List(item) if scalar(item.data_type()) => {
            let list = array.as_list::<i32>();
            Some(Shape::List {
                offsets: offsets(list),
                nulls: array.logical_nulls(),
                values: make(list.values().as_ref()),
            })
        }
        DataType::LargeList(item) if scalar(item.data_type()) => {
            let list = array.as_list::<i64>();
            Some(Shape::List {
                offsets: offsets(list),
                nulls: array.logical_nulls(),
                values: make(list.values().as_ref()),
            })
        }
        t if scalar(t) => Some(Shape::Plain(make(array))),
        _ => None,
    }
}

/// Ids this path reads: strings, integers, a dictionary of them (not a
/// float, which the cell path shows as Rust shows it).
fn id_type(t: &DataType) -> bool {
    is_id(t)
}

/// Numbers this path reads: integers and floats, not text.
fn number_type(t: &DataType) -> bool {
    is_number(t)
}

impl Assembler<'_> {
    /// Reads `batch` (its column of each key at `found`; its first row is
    /// row `before + 1` of the table) straight from its columns. `false`
    /// when this path does not read the batch (the per-position layout,
    /// a column of text numbers or float ids): the caller reads it
    /// through cells.
    pub(super) fn direct(
        &mut self,
        batch: &RecordBatch,
        found: [Option<usize>; COLUMNS],
        before: u64,
        fallback: &mut dyn FnMut(&mut Self, usize) -> Result<(), super::ImpressionError>,
    ) -> Result<bool, super::ImpressionError> {
        if self.per_position {
            return Ok(false);
        }
        let column = |c: Column| found[c as usize].map(|at| batch.column(at).as_ref());
        let ids = |c: Column| match column(c) {
            Some(a) if id_type(a.data_type()) => Some(IdColumn::new(a)),
            _ => None,
        };
        let (Some(mut context), Some(mut impression)) =
            (ids(Column::Context), ids(Column::Impression))
        else {
            return Ok(false);
        };
        let Some(mut items) = column(Column::Item).and_then(|a| shape(a, id_type, IdColumn::new))
        else {
            return Ok(false);
        };
        let numbers_of =
            |c: Column| column(c).and_then(|a| shape(a, number_type, NumberColumn::new));
        let Some(rewards) = numbers_of(Column::Reward) else {
            return Ok(false);
        };
        let options = self.check.options;
        let propensities = if options.propensities_by_rank {
            None
        } else {
            match numbers_of(Column::Propensity) {
                Some(p) => Some(p),
                None => return Ok(false),
            }
        };
        let target = match options.columns.target {
            Some(_) => match numbers_of(Column::Target) {
                Some(t) => Some(t),
                None => return Ok(false),
            },
            None => None,
        };
        let form = options.form;
        let reward_per_position = options.reward == RewardPer::Position;
        for row in 0..batch.num_rows() {
            let read = self.direct_row(
                row,
                before,
                [&mut context, &mut impression],
                &mut items,
                &rewards,
                propensities.as_ref(),
                target.as_ref(),
                form,
                reward_per_position,
            );
            if !read {
                fallback(self, row)?;
            }
        }
        Ok(true)
    }

    /// Row `row` read and added; `false` (nothing added) when the cell
    /// path must read it.
    #[allow(clippy::too_many_arguments)]
    fn direct_row(
        &mut self,
        row: usize,
        before: u64,
        [context, impression]: [&mut IdColumn<'_>; 2],
        items: &mut Shape<IdColumn<'_>>,
        rewards: &Shape<NumberColumn<'_>>,
        propensities: Option<&Shape<NumberColumn<'_>>>,
        target: Option<&Shape<NumberColumn<'_>>>,
        form: PropensityForm,
        reward_per_position: bool,
    ) -> bool {
        let ids = &mut self.log.ids;
        let Some(context) = context.get(row, ids) else {
            return false;
        };
        let Some(id) = impression.get(row, ids) else {
            return false;
        };
        if self
            .seen
            .get(id as usize)
            .is_some_and(|&first| first != u32::MAX)
        {
            return false;
        }
        let lists = &mut self.row;
        lists.items.clear();
        let Some((_, range)) = items.range(row) else {
            return false;
        };
        let item_ids = items.values();
        for i in range {
            match item_ids.get(i, ids) {
                Some(item) => lists.items.push(item),
                None => return false,
            }
        }
        let len = lists.items.len();
        if len == 0 || len > 1 && form == PropensityForm::Action {
            return false;
        }
        let check = &self.check;
        let fill = |shape: &Shape<NumberColumn<'_>>,
                    column: Column,
                    per_position: bool,
                    out: &mut Vec<f64>| {
            out.clear();
            let Some((_, range)) = shape.range(row) else {
                return false;
            };
            if range.len() != if per_position { len } else { 1 } {
                return false;
            }
            let values = match shape {
                Shape::Plain(c) | Shape::List { values: c, .. } => c,
            };
            for i in range {
                match values.get(i) {
                    Some(x) if check.accepts(column, x) => out.push(x),
                    _ => return false,
                }
            }
            true
        };
        if !fill(
            rewards,
            Column::Reward,
            reward_per_position,
            &mut lists.rewards,
        ) {
            return false;
        }
        lists.propensities.clear();
        if let Some(p) = propensities
            && !fill(
                p,
                Column::Propensity,
                form.per_position(),
                &mut lists.propensities,
            )
        {
            return false;
        }
        let target = match target {
            Some(t) => {
                if !fill(t, Column::Target, form.per_position(), &mut lists.target) {
                    return false;
                }
                Some(lists.target.as_slice())
            }
            None => None,
        };
        mark_seen(&mut self.seen, id, self.impressions.len());
        self.impressions.push_ref(&ImpressionRef {
            context,
            id,
            items: &lists.items,
            rewards: &lists.rewards,
            propensities: &lists.propensities,
            target,
            at: crate::RowAt::Row(before + row as u64 + 1),
        });
        true
    }
}
