//! The one error type of the crate: every invalid input is reported, never
//! panicked on.

/// Which column of a paired comparison an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The baseline column (the reference run).
    Baseline,
    /// The candidate column (the run compared with the baseline).
    Candidate,
    /// A column of per-query differences given directly.
    Difference,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Baseline => "baseline",
            Side::Candidate => "candidate",
            Side::Difference => "difference",
        })
    }
}

/// Which of the two columns of an agreement statistic
/// ([`crate::agreement`]) an error is about: the first argument (judge set
/// `a`, or `x`) or the second (`b`, or `y`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeSet {
    /// The first column given.
    First,
    /// The second column given.
    Second,
}

impl std::fmt::Display for JudgeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            JudgeSet::First => "first",
            JudgeSet::Second => "second",
        })
    }
}

/// Which column of prediction-powered inference ([`crate::ppi`]) an error
/// is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PpiColumn {
    /// The metric computed with the human labels, on the labelled queries.
    Labels,
    /// The metric computed with the predicted (LLM) labels, on the labelled
    /// queries.
    Predictions,
    /// The metric computed with the predicted labels, on the queries without
    /// a human label.
    Unlabelled,
}

impl std::fmt::Display for PpiColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PpiColumn::Labels => "human labels",
            PpiColumn::Predictions => "predictions of the labelled queries",
            PpiColumn::Unlabelled => "predictions of the unlabelled queries",
        })
    }
}

/// `" of the baseline"`, `" of the candidate"` or nothing: which system a
/// PPI error message is about, in a paired comparison.
fn system(side: &Option<Side>) -> String {
    side.map(|s| format!(" of the {s}")).unwrap_or_default()
}

/// Why a comparison, correction, gate, agreement or PPI statistic could not
/// be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// The two columns do not have one value per query each.
    #[error(
        "the baseline has {baseline} per-query values but the candidate has {candidate}; the columns must pair query by query"
    )]
    LengthMismatch {
        /// Values in the baseline column.
        baseline: usize,
        /// Values in the candidate column.
        candidate: usize,
    },
    /// A paired test needs at least two queries (one for the Tukey HSD's
    /// columns as well).
    #[error("a paired comparison needs at least 2 queries, got {queries}")]
    TooFewQueries {
        /// The number of queries given.
        queries: usize,
    },
    /// A test keyed by query was asked for without the queries' ids.
    #[error("the keyed randomization test needs the queries' ids")]
    QueryIdsNeeded,
    /// A per-query value is NaN or infinite.
    #[error("the {side} value of query #{index} (0-based) is {value}, not a finite number")]
    NotFinite {
        /// The column holding the value.
        side: Side,
        /// Its 0-based position in query order.
        index: usize,
        /// The value itself (NaN or infinite).
        value: f64,
    },
    /// The interval of a column's mean needs at least two values: one value
    /// says nothing of its spread (scipy's intervals are NaN there).
    #[error("an interval of a mean needs at least 2 values, got {values}")]
    TooFewValues {
        /// The number of values given.
        values: usize,
    },
    /// A value of a column whose mean gets an interval is NaN or infinite.
    #[error("value #{index} (0-based) of the column is {value}, not a finite number")]
    NotFiniteValue {
        /// Its 0-based position in the column.
        index: usize,
        /// The value itself (NaN or infinite).
        value: f64,
    },
    /// A resampled mean given to
    /// [`bca_from_distribution`](crate::interval::bca_from_distribution)
    /// is NaN or infinite.
    #[error("resampled mean #{index} (0-based) is {value}, not a finite number")]
    NotFiniteResample {
        /// Its 0-based position in the bootstrap distribution.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// The BCa interval's bias correction `z0 = Φ⁻¹(p)` is infinite: every
    /// resampled mean lies on one side of the observed mean (`p` is 0 or
    /// 1), which only few resamples of a small or very skewed column make
    /// likely. scipy's BCa interval is NaN there.
    #[error(
        "the BCa interval is undefined: {below} of {resamples} resampled means lie below the observed mean and none equals it, so the bias correction is infinite; use more resamples or the t interval"
    )]
    BcaUndefined {
        /// Resampled means below the observed mean (0 or all of them).
        below: u64,
        /// The number of resamples.
        resamples: u64,
    },
    /// A value of the Tukey HSD's score matrix is NaN or infinite.
    #[error("system #{system} (0-based), query #{index}: {value} is not a finite number")]
    NotFiniteScore {
        /// 0-based system (column) number.
        system: usize,
        /// 0-based query position.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// The systems of an all-pairs comparison do not all have the same
    /// number of queries.
    #[error("system #{system} (0-based) has {len} per-query values, system #0 has {expected}")]
    RaggedSystems {
        /// 0-based system number.
        system: usize,
        /// Its number of values.
        len: usize,
        /// The number of values of system #0.
        expected: usize,
    },
    /// Columns tested together do not have the same number of queries.
    #[error("column #{column} (0-based) has {len} values, column #0 has {expected}")]
    ColumnLengths {
        /// 0-based column number.
        column: usize,
        /// Its number of values.
        len: usize,
        /// The number of values of column #0.
        expected: usize,
    },
    /// An all-pairs comparison needs at least two systems.
    #[error("an all-pairs comparison needs at least 2 systems, got {systems}")]
    TooFewSystems {
        /// The number of systems given.
        systems: usize,
    },
    /// The confidence level is not strictly between 0 and 1.
    #[error("the confidence level must be strictly between 0 and 1, got {level}")]
    InvalidLevel {
        /// The level given.
        level: f64,
    },
    /// A resampling test was asked for zero resamples.
    #[error("the number of resamples must be at least 1")]
    NoResamples,
    /// A resampling statistic was asked for more resamples than
    /// [`MAX_RESAMPLES`](crate::paired::MAX_RESAMPLES), which would allocate
    /// their sums up front.
    #[error(
        "{resamples} resamples is more than the {max} a resampling statistic draws at most \
         (10000 by default)"
    )]
    TooManyResamples {
        /// The number asked for.
        resamples: u64,
        /// The bound.
        max: u64,
    },
    /// Too few resamples for a percentile interval at this level
    /// ([`percentile_minimum`](crate::bootstrap::percentile_minimum)).
    #[error(
        "{resamples} resamples are too few for a percentile interval at level {level}: its \
         bounds are the (B + 1)(1 - level)/2-th smallest and largest of the B resampled means, \
         which needs at least {minimum} (10000 by default)"
    )]
    TooFewResamples {
        /// The number asked for.
        resamples: u64,
        /// The confidence level.
        level: f64,
        /// The fewest that will do.
        minimum: u64,
    },
    /// The bootstrap draws query positions as 32-bit numbers.
    #[error("the bootstrap supports at most {max} queries, got {queries}", max = u32::MAX)]
    TooManyQueries {
        /// The number of queries given.
        queries: usize,
    },
    /// A p-value given to a correction is NaN or outside `[0, 1]`.
    #[error("p-value #{index} (0-based) of the family is {value}, not a probability")]
    InvalidPValue {
        /// 0-based position in the family.
        index: usize,
        /// The value given.
        value: f64,
    },
    /// A keyed statistic ([`crate::keyed`]) was asked for a number of query
    /// groups it cannot use: `pmod(hash, 0)` has no value, and a
    /// delete-a-group jackknife needs at least two groups.
    #[error("the number of query groups must be at least {minimum}, got {groups}")]
    InvalidGroups {
        /// The number of groups given.
        groups: u32,
        /// The least number allowed there.
        minimum: u32,
    },
    /// The delete-a-group jackknife needs at least two non-empty groups:
    /// with one, deleting it leaves nothing, and its spread is unknown.
    #[error(
        "the delete-a-group jackknife needs at least 2 non-empty query groups, got {groups}; use more groups or more queries"
    )]
    TooFewGroups {
        /// The number of non-empty groups.
        groups: u32,
    },
    /// A per-query value given to a keyed statistic is NaN or infinite.
    /// Keyed statistics see queries in any order, so the query is named by
    /// its key (bytes that are not UTF-8 are replaced by U+FFFD).
    #[error("the value of query `{query}` is {value}, not a finite number")]
    NotFiniteQueryValue {
        /// The query's key.
        query: String,
        /// The value itself (NaN or infinite).
        value: f64,
    },
    /// Two keyed statistics that were built with different parameters were
    /// merged: their sums do not describe the same quantity.
    #[error("cannot merge keyed statistics with different {field}: {left} and {right}")]
    MergeMismatch {
        /// The parameter that differs (`groups`, `resamples`, `seed`,
        /// `mean`).
        field: &'static str,
        /// Its value in the state merged into.
        left: String,
        /// Its value in the state merged from.
        right: String,
    },
    /// A keyed statistic's wire encoding (`from_wire`) is not one that
    /// `to_wire` writes: wrong kind or version, a count that is not a
    /// non-negative integer, a non-finite partial, a length that does not
    /// match.
    #[error("malformed keyed-statistic wire data: {message}")]
    InvalidWire {
        /// What is wrong with it.
        message: String,
    },
    /// The moments given to [`crate::keyed::paired_t`] cannot come from a
    /// column of finite values: a non-finite mean, or a negative or
    /// non-finite sum of squared deviations.
    #[error("invalid paired-t moments: {message}")]
    InvalidMoments {
        /// What is wrong with them.
        message: String,
    },
    /// The two columns of an agreement statistic ([`crate::agreement`]) do
    /// not have one value per item (query, document or system) each.
    #[error(
        "the first column has {first} values but the second has {second}; agreement pairs them item by item"
    )]
    AgreementLengths {
        /// Values in the first column.
        first: usize,
        /// Values in the second column.
        second: usize,
    },
    /// An agreement statistic was given two empty columns: there is nothing
    /// to agree or disagree on.
    #[error("an agreement statistic needs at least one item, got none")]
    NoItems,
    /// A value of an agreement statistic's column (a grade, a score) is NaN
    /// or infinite.
    #[error("the {set} column's value #{index} (0-based) is {value}, not a finite number")]
    NotFiniteJudgement {
        /// The column holding the value.
        set: JudgeSet,
        /// Its 0-based position.
        index: usize,
        /// The value itself (NaN or infinite).
        value: f64,
    },
    /// Cohen's kappa was given more distinct labels than
    /// [`crate::agreement::MAX_KAPPA_LABELS`]: its confusion matrix has
    /// `labels x labels` cells, and that many distinct values are scores,
    /// not grades.
    #[error(
        "Cohen's kappa supports at most {max} distinct labels, got {labels}: kappa is for grades, not continuous scores"
    )]
    TooManyLabels {
        /// The number of distinct values in both columns.
        labels: usize,
        /// The most allowed.
        max: usize,
    },
    /// The `k` of a top-k agreement is 0 or more than the number of
    /// systems.
    #[error("top-k agreement needs 1 <= k <= {systems} (the number of systems), got k = {k}")]
    InvalidTopK {
        /// The `k` given.
        k: usize,
        /// The number of systems (values per column).
        systems: usize,
    },
    /// The `k` of a top-k overlap between two rankings
    /// ([`crate::agreement::top_k_overlap`]) is 0.
    #[error("top-k overlap needs k >= 1, got k = 0")]
    ZeroTopK,
    /// The persistence `p` of rank-biased overlap ([`crate::rbo`]) is not
    /// strictly between 0 and 1.
    #[error("rank-biased overlap needs a persistence p with 0 < p < 1, got {p}")]
    InvalidPersistence {
        /// The value given.
        p: f64,
    },
    /// A ranking given to rank-biased overlap ([`crate::rbo`]) is empty:
    /// its overlap with any other ranking is undefined (Corsi and Urbano's
    /// implementations refuse it too).
    #[error("rank-biased overlap needs two non-empty rankings; the {ranking} one is empty")]
    EmptyRanking {
        /// Which ranking.
        ranking: JudgeSet,
    },
    /// A ranking given to rank-biased overlap ([`crate::rbo`]) lists one
    /// item twice: a ranking is a set of items in order.
    #[error("the {ranking} ranking lists its item #{position} (0-based) a second time")]
    RepeatedItem {
        /// Which ranking.
        ranking: JudgeSet,
        /// The 0-based position of the second occurrence.
        position: usize,
    },
    /// A gate parameter (floor, margin, alpha) is not a usable number.
    #[error("gate `{rule}`: {message}")]
    InvalidGate {
        /// The rule's name (`at_least`, `non_inferior`, `superior`).
        rule: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// Prediction-powered inference was given a number of human labels
    /// that does not match the number of predictions they pair with: the
    /// predictions of the labelled queries ([`crate::ppi::PpiSample`]), or
    /// every query's prediction
    /// ([`PpiColumns::from_queries`](crate::ppi::PpiColumns::from_queries)).
    #[error(
        "{labels} human labels but {predictions} predictions{}; they must pair query by query",
        system(.side)
    )]
    PpiLengthMismatch {
        /// The system, in a paired comparison.
        side: Option<Side>,
        /// The number of labels.
        labels: usize,
        /// The number of predictions.
        predictions: usize,
    },
    /// The two systems of a paired prediction-powered comparison do not have
    /// the same queries labelled and unlabelled.
    #[error(
        "the baseline's {column} have {baseline} values but the candidate's {candidate}; both systems need the same labelled and unlabelled queries"
    )]
    PpiSystemsMismatch {
        /// The column whose lengths differ.
        column: PpiColumn,
        /// Its length for the baseline.
        baseline: usize,
        /// Its length for the candidate.
        candidate: usize,
    },
    /// Prediction-powered inference needs at least two human-labelled
    /// queries: its rectifier's variance is estimated from them.
    #[error(
        "prediction-powered inference needs at least 2 human-labelled queries{}, got {labelled}",
        system(.side)
    )]
    TooFewLabelled {
        /// The system, in a paired comparison.
        side: Option<Side>,
        /// The number of labelled queries given.
        labelled: usize,
    },
    /// Prediction-powered inference needs at least one query with a
    /// prediction and no human label; with every query labelled, the
    /// classical mean is the estimate.
    #[error(
        "prediction-powered inference needs at least 1 query without a human label{}, got none",
        system(.side)
    )]
    NoUnlabelled {
        /// The system, in a paired comparison.
        side: Option<Side>,
    },
    /// A value of a prediction-powered inference column is NaN or infinite.
    #[error(
        "value #{index} (0-based) of the {column}{} is {value}, not a finite number",
        system(.side)
    )]
    NotFinitePpi {
        /// The system, in a paired comparison.
        side: Option<Side>,
        /// The column holding the value.
        column: PpiColumn,
        /// Its 0-based position in that column (in
        /// [`PpiColumns::from_queries`](crate::ppi::PpiColumns::from_queries),
        /// the query's position).
        index: usize,
        /// The value itself (NaN or infinite).
        value: f64,
    },
    /// A fixed power-tuning parameter of prediction-powered inference is NaN
    /// or infinite.
    #[error("the PPI power-tuning parameter lambda must be a finite number, got {lambda}")]
    InvalidLambda {
        /// The value given.
        lambda: f64,
    },
}
