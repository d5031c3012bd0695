//! Raw rows into impressions, every check in one place for every format:
//! the layout, ids, lists and their lengths, propensities, target
//! probabilities, rewards and their range, slate lengths, duplicates.

use std::collections::HashMap;

use rankeval_core::{Interner, shorten_id};

use super::cell::{Cell, RawRow, RawTable};
use super::{
    COLUMNS, Column, ImpressionError, ImpressionLog, ImpressionOptions, ImpressionRef, Impressions,
    Layout, PropensityForm, RewardPer,
};
use crate::RowAt;

/// The impressions of raw rows (see the [module](super)).
pub(super) fn assemble(
    raw: RawTable,
    name: &str,
    options: &ImpressionOptions,
) -> Result<ImpressionLog, ImpressionError> {
    let mut assembler = Assembler::new(raw.has, &raw.names, name, options)?;
    assembler.rows(&raw.rows)?;
    assembler.finish()
}

/// Raw rows into impressions a part at a time (a table's batches), so
/// that the raw rows of a large log never all exist at once: the same
/// checks, in the same order of rows, with the same messages as one call
/// on every row.
pub(super) struct Assembler<'a> {
    pub(super) check: Checker<'a>,
    pub(super) per_position: bool,
    pub(super) log: ImpressionLog,
    pub(super) impressions: Impressions,
    /// Per id: the impression it is the id of (`u32::MAX`: none yet).
    pub(super) seen: Vec<u32>,
    /// One row's lists, before it is added.
    pub(super) row: RowLists,
    /// Per position: where each impression is gathered.
    index: HashMap<u32, usize>,
    gathering: Vec<Gathering>,
}

impl<'a> Assembler<'a> {
    /// Checks the columns the table has (`has`, named `names` for
    /// messages) against the options, before any row.
    pub(super) fn new(
        has: [bool; COLUMNS],
        names: &[String],
        name: &'a str,
        options: &'a ImpressionOptions,
    ) -> Result<Self, ImpressionError> {
        let wanted = options.columns.names();
        let mut required = vec![
            Column::Context,
            Column::Impression,
            Column::Item,
            Column::Reward,
        ];
        if options.propensities_by_rank {
            if has[Column::Propensity as usize] {
                return Err(ImpressionError::File {
                    path: name.to_owned(),
                    problem: format!(
                        "the propensities are given per rank, and the log has a column `{}` too: \
                         one source of propensities (rename the column, or use it)",
                        wanted[Column::Propensity as usize].unwrap_or_default()
                    ),
                });
            }
        } else {
            required.push(Column::Propensity);
        }
        if options.columns.target.is_some() {
            required.push(Column::Target);
        }
        let per_position = match options.layout {
            Layout::Auto => has[Column::Position as usize],
            Layout::PerImpression => false,
            Layout::PerPosition => {
                required.push(Column::Position);
                true
            }
        };
        for column in required {
            if !has[column as usize] {
                return Err(ImpressionError::File {
                    path: name.to_owned(),
                    problem: format!(
                        "no column `{}` in the log (it has: {})",
                        shorten_id(wanted[column as usize].unwrap_or_default().as_bytes()),
                        names.join(", ")
                    ),
                });
            }
        }
        Ok(Self {
            check: Checker { name, options },
            per_position,
            log: ImpressionLog {
                form: options.form,
                reward: options.reward,
                ..ImpressionLog::default()
            },
            impressions: Impressions::new(),
            seen: Vec::new(),
            row: RowLists::default(),
            index: HashMap::new(),
            gathering: Vec::new(),
        })
    }

    /// The next rows, in input order.
    pub(super) fn rows(&mut self, rows: &[RawRow]) -> Result<(), ImpressionError> {
        if self.per_position {
            self.check.gather(
                rows,
                &mut self.log.ids,
                &mut self.index,
                &mut self.gathering,
            )
        } else {
            self.check.per_impression(
                rows,
                &mut self.log.ids,
                &mut self.seen,
                &mut self.row,
                &mut self.impressions,
            )
        }
    }

    /// The log of every row given: refused when there was none, and
    /// when its slates differ in length.
    pub(super) fn finish(self) -> Result<ImpressionLog, ImpressionError> {
        let Self {
            check,
            per_position,
            mut log,
            impressions,
            gathering,
            ..
        } = self;
        let empty = if per_position {
            gathering.is_empty()
        } else {
            impressions.is_empty()
        };
        if empty {
            return Err(ImpressionError::File {
                path: check.name.to_owned(),
                problem: "no impression: the log has a header and no row".into(),
            });
        }
        let impressions = if per_position {
            check.per_position(gathering, &log.ids)?
        } else {
            impressions
        };
        let Some(first) = impressions.get(0) else {
            return Ok(log);
        };
        log.slate_len = first.items.len();
        for imp in impressions.iter() {
            if imp.items.len() != log.slate_len {
                return Err(check.at(
                    imp.at,
                    Column::Item,
                    format!(
                        "impression `{}` shows {} items, but the first impression ({}) shows {}: \
                         every slate of a log has one length",
                        shorten_id(log.ids.resolve(imp.id)),
                        imp.items.len(),
                        first.at,
                        log.slate_len
                    ),
                ));
            }
        }
        log.impressions = impressions;
        Ok(log)
    }
}

pub(super) struct Checker<'a> {
    name: &'a str,
    pub(super) options: &'a ImpressionOptions,
}

/// One row of a per-position impression, before it is put in order.
struct Slot {
    position: u64,
    item: u32,
    reward: Option<f64>,
    propensity: Option<f64>,
    target: Option<f64>,
    at: RowAt,
}

/// An impression of the per-position layout being gathered.
struct Gathering {
    context: u32,
    id: u32,
    at: RowAt,
    slots: Vec<Slot>,
    /// Per-impression values, with the row that gave them first.
    reward: Option<(f64, RowAt)>,
    propensity: Option<(f64, RowAt)>,
    target: Option<(f64, RowAt)>,
}

impl Checker<'_> {
    fn column_name(&self, column: Column) -> String {
        self.options.columns.names()[column as usize]
            .unwrap_or_default()
            .to_owned()
    }

    fn at(&self, at: RowAt, column: Column, problem: String) -> ImpressionError {
        ImpressionError::At {
            path: self.name.to_owned(),
            at,
            column: self.column_name(column),
            problem,
        }
    }

    fn cell<'r>(&self, row: &'r RawRow, column: Column) -> Result<&'r Cell, ImpressionError> {
        row.cells[column as usize]
            .as_ref()
            .ok_or_else(|| self.at(row.at, column, "missing".into()))
    }

    fn id(&self, row: &RawRow, column: Column, ids: &mut Interner) -> Result<u32, ImpressionError> {
        let text = self
            .cell(row, column)?
            .id()
            .map_err(|p| self.at(row.at, column, p))?;
        Ok(ids.intern(&text))
    }

    /// Whether `x` is a good value of `column` (what [`Checker::value`]
    /// accepts, for a path that reads numbers without cells).
    pub(super) fn accepts(&self, column: Column, x: f64) -> bool {
        match column {
            Column::Propensity => x > 0.0 && x <= 1.0,
            Column::Target => (0.0..=1.0).contains(&x),
            Column::Reward => {
                x.is_finite()
                    && (self.options.form != PropensityForm::Examination || x == 0.0 || x == 1.0)
                    && self
                        .options
                        .reward_range
                        .is_none_or(|(lo, hi)| (lo..=hi).contains(&x))
            }
            _ => true,
        }
    }

    /// A value of `column` checked as what it is.
    fn value(&self, at: RowAt, column: Column, cell: &Cell) -> Result<f64, ImpressionError> {
        let x = cell.value().map_err(|p| self.at(at, column, p))?;
        if self.accepts(column, x) {
            return Ok(x);
        }
        let shown = || cell.shown();
        let problem = match column {
            Column::Propensity if x.is_nan() || x > 1.0 => Some(format!(
                "propensity {} is not a probability in (0, 1]",
                shown()
            )),
            Column::Propensity if x <= 0.0 => Some(format!(
                "propensity {}: a logged item must have had a positive probability (0 < p <= 1)",
                shown()
            )),
            Column::Target if !(0.0..=1.0).contains(&x) => Some(format!(
                "target probability {} is not a probability in [0, 1]",
                shown()
            )),
            Column::Reward if !x.is_finite() => {
                Some(format!("reward {} is not a finite number", shown()))
            }
            Column::Reward
                if self.options.form == PropensityForm::Examination && x != 0.0 && x != 1.0 =>
            {
                Some(format!(
                    "click {} is not 0 or 1 (a click log's reward per position says \
                     whether the item was clicked)",
                    shown()
                ))
            }
            Column::Reward => match self.options.reward_range {
                Some((lo, hi)) if !(lo..=hi).contains(&x) => Some(format!(
                    "reward {} is outside the declared range [{lo}, {hi}]",
                    shown()
                )),
                _ => None,
            },
            _ => None,
        };
        match problem {
            Some(p) => Err(self.at(at, column, p)),
            None => Ok(x),
        }
    }

    /// A per-impression value (a number; a list of one is taken).
    fn scalar(&self, row: &RawRow, column: Column) -> Result<f64, ImpressionError> {
        let cell = self.cell(row, column)?;
        match cell.items() {
            [one] => self.value(row.at, column, one),
            items => Err(self.at(
                row.at,
                column,
                format!(
                    "a list of {} values, where one value per impression is expected",
                    items.len()
                ),
            )),
        }
    }

    /// A per-position list of `len` values, into `out` (emptied first).
    fn list(
        &self,
        row: &RawRow,
        column: Column,
        len: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), ImpressionError> {
        out.clear();
        let cell = self.cell(row, column)?;
        let items = cell.items();
        if items.len() != len {
            return Err(self.at(
                row.at,
                column,
                format!(
                    "{} values, but the row shows {len} items (one value per position)",
                    items.len()
                ),
            ));
        }
        for (i, c) in items.iter().enumerate() {
            let x = self.value(row.at, column, c).map_err(|e| match e {
                ImpressionError::At {
                    path,
                    at,
                    column,
                    problem,
                } => ImpressionError::At {
                    path,
                    at,
                    column,
                    problem: format!("item {} of the list: {problem}", i + 1),
                },
                e => e,
            })?;
            out.push(x);
        }
        Ok(())
    }

    /// A per-impression value (`per_position` false) or a list of `len`,
    /// into `out` (emptied first).
    fn values(
        &self,
        row: &RawRow,
        column: Column,
        per_position: bool,
        len: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), ImpressionError> {
        if per_position {
            self.list(row, column, len, out)
        } else {
            out.clear();
            out.push(self.scalar(row, column)?);
            Ok(())
        }
    }

    fn per_impression(
        &self,
        rows: &[RawRow],
        ids: &mut Interner,
        seen: &mut Vec<u32>,
        lists: &mut RowLists,
        out: &mut Impressions,
    ) -> Result<(), ImpressionError> {
        let form = self.options.form;
        for row in rows {
            let context = self.id(row, Column::Context, ids)?;
            let id = self.id(row, Column::Impression, ids)?;
            self.unique(row.at, id, ids, seen, out)?;
            let items_cell = self.cell(row, Column::Item)?;
            lists.items.clear();
            for (i, cell) in items_cell.items().iter().enumerate() {
                let text = cell.id().map_err(|p| {
                    let p = if items_cell.is_list() {
                        format!("item {} of the list: {p}", i + 1)
                    } else {
                        p
                    };
                    self.at(row.at, Column::Item, p)
                })?;
                lists.items.push(ids.intern(&text));
            }
            let len = lists.items.len();
            self.shows(row.at, len)?;
            let per_position = self.options.reward == RewardPer::Position;
            self.values(row, Column::Reward, per_position, len, &mut lists.rewards)?;
            lists.propensities.clear();
            if !self.options.propensities_by_rank {
                let per = form.per_position();
                self.values(row, Column::Propensity, per, len, &mut lists.propensities)?;
            }
            let target = match self.options.columns.target {
                Some(_) => {
                    let per = form.per_position();
                    self.values(row, Column::Target, per, len, &mut lists.target)?;
                    Some(lists.target.as_slice())
                }
                None => None,
            };
            mark_seen(seen, id, out.len());
            out.push_ref(&ImpressionRef {
                context,
                id,
                items: &lists.items,
                rewards: &lists.rewards,
                propensities: &lists.propensities,
                target,
                at: row.at,
            });
        }
        Ok(())
    }

    /// Refuses impression id `id` (read at `at`) when an impression of
    /// `out` has it already.
    pub(super) fn unique(
        &self,
        at: RowAt,
        id: u32,
        ids: &Interner,
        seen: &[u32],
        out: &Impressions,
    ) -> Result<(), ImpressionError> {
        let first = seen
            .get(id as usize)
            .filter(|&&i| i != u32::MAX)
            .and_then(|&i| out.get(i as usize));
        match first {
            Some(first) => Err(self.at(
                at,
                Column::Impression,
                format!(
                    "impression `{}` again (first at {}): impression ids are unique",
                    shorten_id(ids.resolve(id)),
                    first.at
                ),
            )),
            None => Ok(()),
        }
    }

    /// An impression shows at least one item, and one only under the
    /// `action` form.
    fn shows(&self, at: RowAt, len: usize) -> Result<(), ImpressionError> {
        if len == 0 {
            return Err(self.at(
                at,
                Column::Item,
                "an empty list: an impression shows at least one item".into(),
            ));
        }
        if len > 1 && self.options.form == PropensityForm::Action {
            return Err(self.at(
                at,
                Column::Item,
                format!(
                    "{len} items shown, but the propensities are per action (one item per \
                     impression): a slate's propensities are of the form slate, marginal or cascade"
                ),
            ));
        }
        Ok(())
    }

    /// Gathers the rows of the per-position layout by impression.
    fn gather(
        &self,
        rows: &[RawRow],
        ids: &mut Interner,
        index: &mut HashMap<u32, usize>,
        gathering: &mut Vec<Gathering>,
    ) -> Result<(), ImpressionError> {
        let form = self.options.form;
        for row in rows {
            let context = self.id(row, Column::Context, ids)?;
            let id = self.id(row, Column::Impression, ids)?;
            let item_cell = self.cell(row, Column::Item)?;
            if item_cell.is_list() {
                return Err(self.at(
                    row.at,
                    Column::Item,
                    "a list: a table with a position column has one item per row".into(),
                ));
            }
            let item_text = item_cell
                .id()
                .map_err(|p| self.at(row.at, Column::Item, p))?;
            let item = ids.intern(&item_text);
            let (position, shown) = self
                .cell(row, Column::Position)?
                .number()
                .map_err(|p| self.at(row.at, Column::Position, p))?;
            if !(position >= 1.0 && position <= u32::MAX as f64 && position.fract() == 0.0) {
                return Err(self.at(
                    row.at,
                    Column::Position,
                    format!("position {shown} is not a whole number from 1"),
                ));
            }
            let g = match index.get(&id) {
                Some(&i) => &mut gathering[i],
                None => {
                    index.insert(id, gathering.len());
                    gathering.push(Gathering {
                        context,
                        id,
                        at: row.at,
                        slots: Vec::new(),
                        reward: None,
                        propensity: None,
                        target: None,
                    });
                    let last = gathering.len() - 1;
                    &mut gathering[last]
                }
            };
            if g.context != context {
                return Err(self.at(
                    row.at,
                    Column::Context,
                    format!(
                        "impression `{}` is in context `{}` at {}, here in `{}`",
                        shorten_id(ids.resolve(id)),
                        shorten_id(ids.resolve(g.context)),
                        g.at,
                        shorten_id(ids.resolve(context))
                    ),
                ));
            }
            let mut slot = Slot {
                position: position as u64,
                item,
                reward: None,
                propensity: None,
                target: None,
                at: row.at,
            };
            let per_impression_reward = self.options.reward == RewardPer::Impression;
            let columns = [
                (Column::Reward, !per_impression_reward),
                (Column::Propensity, form.per_position()),
                (Column::Target, form.per_position()),
            ];
            for (column, per_row) in columns {
                if column == Column::Target && self.options.columns.target.is_none()
                    || column == Column::Propensity && self.options.propensities_by_rank
                {
                    continue;
                }
                let x = self.scalar(row, column)?;
                let (kept, per_slot) = match column {
                    Column::Reward => (&mut g.reward, &mut slot.reward),
                    Column::Propensity => (&mut g.propensity, &mut slot.propensity),
                    _ => (&mut g.target, &mut slot.target),
                };
                if per_row {
                    *per_slot = Some(x);
                } else {
                    match kept {
                        Some((first, at)) if first.to_bits() != x.to_bits() => {
                            return Err(self.at(
                                row.at,
                                column,
                                format!(
                                    "{x} differs from {first} at {at}: a per-impression value is \
                                     the same on every row of the impression"
                                ),
                            ));
                        }
                        Some(_) => {}
                        None => *kept = Some((x, row.at)),
                    }
                }
            }
            g.slots.push(slot);
        }
        Ok(())
    }

    /// The gathered impressions, each put in order of position and checked.
    fn per_position(
        &self,
        gathering: Vec<Gathering>,
        ids: &Interner,
    ) -> Result<Impressions, ImpressionError> {
        let form = self.options.form;
        let mut out = Impressions::new();
        let mut lists = RowLists::default();
        for mut g in gathering {
            g.slots.sort_by_key(|s| (s.position, s.at_number()));
            for pair in g.slots.windows(2) {
                if pair[0].position == pair[1].position {
                    return Err(self.at(
                        pair[1].at,
                        Column::Position,
                        format!(
                            "impression `{}` has position {} again (first at {})",
                            shorten_id(ids.resolve(g.id)),
                            pair[1].position,
                            pair[0].at
                        ),
                    ));
                }
            }
            for (k, slot) in g.slots.iter().enumerate() {
                if slot.position != k as u64 + 1 {
                    return Err(self.at(
                        slot.at,
                        Column::Position,
                        format!(
                            "impression `{}` has no position {} (its positions go 1, 2, ... without gaps)",
                            shorten_id(ids.resolve(g.id)),
                            k + 1
                        ),
                    ));
                }
            }
            self.shows(g.at, g.slots.len())?;
            let per = |f: fn(&Slot) -> Option<f64>,
                       kept: Option<(f64, RowAt)>,
                       per_row: bool,
                       into: &mut Vec<f64>| {
                into.clear();
                if per_row {
                    into.extend(g.slots.iter().map(|s| f(s).unwrap_or(f64::NAN)));
                } else {
                    into.extend(kept.map(|(x, _)| x));
                }
            };
            per(
                |s| s.reward,
                g.reward,
                self.options.reward == RewardPer::Position,
                &mut lists.rewards,
            );
            lists.propensities.clear();
            if !self.options.propensities_by_rank {
                per(
                    |s| s.propensity,
                    g.propensity,
                    form.per_position(),
                    &mut lists.propensities,
                );
            }
            let target = match self.options.columns.target {
                Some(_) => {
                    per(
                        |s| s.target,
                        g.target,
                        form.per_position(),
                        &mut lists.target,
                    );
                    Some(lists.target.as_slice())
                }
                None => None,
            };
            lists.items.clear();
            lists.items.extend(g.slots.iter().map(|s| s.item));
            out.push_ref(&ImpressionRef {
                context: g.context,
                id: g.id,
                items: &lists.items,
                rewards: &lists.rewards,
                propensities: &lists.propensities,
                target,
                at: g.at,
            });
        }
        Ok(out)
    }
}

/// One impression's lists, gathered before they are added to the
/// columns (kept from row to row: nothing allocated per impression).
#[derive(Default)]
pub(super) struct RowLists {
    pub(super) items: Vec<u32>,
    pub(super) rewards: Vec<f64>,
    pub(super) propensities: Vec<f64>,
    pub(super) target: Vec<f64>,
}

/// Records that id `id` is impression `index`'s.
pub(super) fn mark_seen(seen: &mut Vec<u32>, id: u32, index: usize) {
    let id = id as usize;
    if seen.len() <= id {
        seen.resize(id + 1, u32::MAX);
    }
    if let Some(slot) = seen.get_mut(id) {
        // More than 2^32 - 1 impressions cannot be: each has an id of its
        // own among the interner's 2^32.
        *slot = u32::try_from(index).unwrap_or(u32::MAX);
    }
}

impl Slot {
    fn at_number(&self) -> u64 {
        match self.at {
            RowAt::Line(n) | RowAt::Row(n) => n,
        }
    }
}
