//! Paired comparisons of retrieval runs: significance tests, confidence
//! intervals, effect sizes, multiple-testing corrections and quality gates;
//! and the confidence interval of one run's mean.
//!
//! Everything here is a pure function over per-query columns (one `f64` per
//! query, both columns in the same query order): no I/O, no configuration.
//! The `rankeval` crate pairs queries and builds the columns, and
//! `rankeval-report` renders the results;
//! this crate computes. Of rankeval's crates it depends on `rankeval-core`
//! alone, for its exact sums ([`keyed`]), and `rankeval` depends on it
//! (rankeval -> stats -> core).
//!
//! * [`compare()`] / [`compare_all`]: difference of means, interval, p-value,
//!   effect size, wins / ties / losses, with one [`Test`]: Student's paired
//!   t ([`ttest`]), the sign-flip randomization test ([`sign_flip`]), the
//!   paired bootstrap ([`bootstrap`], multinomial or, for large query sets,
//!   [`double_or_nothing`]) or Wilcoxon's signed-rank test
//!   ([`wilcoxon`]).
//! * [`randomized_tukey_hsd`]: all pairs of several systems.
//! * [`correct`] / [`correct_family`]: Holm, Bonferroni, Benjamini-Hochberg.
//! * [`Gate`]: `at_least`, `non_inferior`, `superior`.
//! * [`t_interval`] / [`bca_interval`]: the confidence interval of one
//!   column's mean (one run's mean of a metric), Student's t or the BCa
//!   bootstrap ([`interval`]).
//! * [`ppi_mean`] / [`ppi_paired`]: prediction-powered inference ([`ppi`]):
//!   a run's mean, or two runs' difference, from an LLM judge's labels on
//!   every query and human labels on a subset, corrected for the judge's
//!   bias, with a normal interval (PPI++, power-tuned).
//! * [`keyed`]: query-keyed, mergeable statistics (a mean's delete-a-group
//!   jackknife interval, the sign-flip test, the paired t-test) whose bits
//!   do not depend on the order or the partitioning of the queries, so that
//!   a Spark job computes the command line's numbers;
//!   [`keyed_bootstrap`] and [`keyed_tukey`]: the double-or-nothing
//!   bootstrap and the randomized Tukey HSD drawn the same way.
//! * [`agreement`]: agreement between two sets of relevance judgements
//!   (e.g. an LLM judge's and human assessors'): Cohen's kappa of the
//!   grades ([`cohen_kappa`], unweighted, linear or quadratic, and per
//!   label, as scikit-learn), Kendall's tau of the system rankings they
//!   induce ([`kendall_tau`], as scipy), their top-k agreement
//!   ([`top_k_agreement`]) and the mean per-query difference
//!   ([`mean_difference`]).
//! * [`rbo`](mod@rbo): rank-biased overlap of two rankings with ties
//!   (extrapolated, lower and upper bounds, residual), with Corsi and
//!   Urbano's tie treatments `w`, `a` and `b`.
//!
//! Random tests use ChaCha20 with a seed ([`rng`]; the keyed sign-flip
//! tests ChaCha8, one stream per query: [`KEYED_RNG_NAME`],
//! [`KEYED_BOOTSTRAP_RNG_NAME`], [`KEYED_TUKEY_RNG_NAME`]); their results
//! are the same bits for any thread count on any machine. See
//! `docs/compare.md`. No statistic calls the platform's C `libm` (which
//! `f64::exp` and `f64::ln` do, and which rounds differently on glibc,
//! musl, macOS and Windows): the t distribution ([`student`]), the normal
//! tail and quantile and every `exp` and `log` come from the `libm` crate,
//! so a p-value or an interval is the same bits on every platform.

pub mod agreement;
pub mod bootstrap;
pub mod compare;
pub mod correction;
pub mod double_or_nothing;
pub mod error;
pub mod gate;
pub mod interval;
pub mod keyed;
pub mod keyed_bootstrap;
pub mod keyed_tukey;
pub mod paired;
pub mod ppi;
pub mod rbo;
pub mod rng;
pub mod seeds;
pub mod sign_flip;
pub mod stratified;
pub mod student;
pub mod ttest;
pub mod tukey;
pub mod wilcoxon;

pub use agreement::{
    Kappa, KappaWeights, KendallMethod, KendallTau, LabelAgreement, cohen_kappa, kendall_tau,
    mean_difference, top_k_agreement, top_k_overlap,
};
pub use bootstrap::{
    BootstrapMethod, MULTINOMIAL_UP_TO, check_percentile_resamples, percentile_minimum,
};
pub use compare::{
    Comparison, DEFAULT_LEVEL, IntervalMethod, Options, Provenance, Test, compare, compare_all,
    compare_all_keyed, correct_family,
};
pub use correction::{Correction, correct};
pub use error::{CompareError, JudgeSet, PpiColumn, Side};
pub use gate::{Gate, GateOutcome, Margin, Quantity, Relation, Versus};
pub use interval::{Bca, MeanIntervalMethod, bca_from_distribution, bca_interval, t_interval};
pub use keyed::{
    DEFAULT_GROUPS, GroupedSums, Jackknife, KEYED_RNG_NAME, KeyedSignFlip, PairedSums,
    SquaredDeviations, paired_t_column, query_group, spark_xxhash64, spark_xxhash64_long,
};
pub use keyed_bootstrap::{KEYED_BOOTSTRAP_RNG_NAME, KeyedBootstrap};
pub use keyed_tukey::{KEYED_TUKEY_RNG_NAME, KeyedTukey};
pub use paired::{MAX_RESAMPLES, Summary, WinsTiesLosses, check_resamples};
pub use ppi::{
    Lambda, NormalMean, PpiColumns, PpiComparison, PpiMean, PpiOptions, PpiSample, ppi_mean,
    ppi_paired,
};
pub use rng::{DEFAULT_SEED, FAST_RNG_NAME, RNG_NAME};
pub use seeds::{SystemComparison, SystemSummary, compare_systems, summarize as summarize_system};
pub use sign_flip::Resampling;
pub use stratified::{
    MacroComparison, MacroMean, macro_average, macro_mean_interval, macro_paired,
};
pub use ttest::Interval;
pub use tukey::{TukeyHsd, TukeyPair, randomized_tukey_hsd};
