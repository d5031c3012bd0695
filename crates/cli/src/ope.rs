//! `rankeval ope`: off-policy evaluation of rankings never shipped, from an
//! impression log with the logging policy's propensities (docs/ope.md).

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::ope::OpeRunError;
use rankeval::ope::estimators::Floors;
use rankeval::spec::{Given, OpeSpec, Origin, PolicyRequest};
use rankeval_report::ope::{OpeFormat, render};

use super::{CliError, Verdict, eval, output, run_names};

/// `rankeval ope`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    rankeval ope --log log.csv --policy prod=prod.trec --policy new=new.trec -e snips -e ips\n  \
    rankeval ope --log slates.jsonl --form cascade --reward-per position --policy new=new.trec -e rips\n  \
    rankeval ope --log log.parquet --policy new=new.trec --plackett-luce 0.5 -e snips\n  \
    rankeval ope --log clicks.csv --examination 'power(eta=1)' --policy new=new.trec -e ips_dcg@10\n\n\
    The log: CSV/TSV with a header, JSON Lines, Parquet or Arrow IPC; one row per impression\n\
    (list columns for slates) or one per impression and position (a `position` column).\n\
    Exit codes: 0 estimates printed; 2 an estimate refused (its log cannot support it), or an\n\
    error.")]
#[command(group(clap::ArgGroup::new("request").multiple(true).args([
    "log", "log_columns", "form", "examination", "reward_per", "reward_range", "layout", "policies",
    "plackett_luce", "target_column", "reward_model", "estimators", "interval", "level",
    "min_n", "min_ess", "min_support", "gates", "allow_low_support", "resamples", "samples", "seed", "correction", "groups", "groups_in_family",
])))]
pub struct OpeArgs {
    /// The request as a TOML file with an `[ope]` table whose keys are
    /// these flags in snake case (`log`, `policies = [{ name, path }]`,
    /// `estimators`, `min_ess`, `gates`, ...; docs/ope.md), paths relative
    /// to the file; instead of the flags.
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    config: Option<PathBuf>,
    /// The impression log (required unless --config).
    #[arg(long, value_name = "FILE", required_unless_present = "config")]
    log: Option<PathBuf>,
    /// The log's column names, `KEY=NAME` comma-separated; keys `context`,
    /// `impression`, `item`, `position`, `reward`, `propensity`, `target`
    /// (the target's probabilities, read by `--target-column`).
    #[arg(long, value_name = "KEY=NAME,...")]
    log_columns: Option<String>,
    /// The propensities' form: `action` (one item per impression), `slate`
    /// (the slate's probability), `marginal` (per position), `cascade`
    /// (per position, given the items above), `examination` (a click log:
    /// per position, the probability the user examined it) [default:
    /// action, or examination with --examination].
    #[arg(long, value_enum)]
    form: Option<FormArg>,
    /// A click log's examination propensities per rank instead of a
    /// column: `power(eta=N)` (p_k = (1/k)^N) or `P1,P2,...` (one per
    /// rank from 1). Implies --form examination.
    #[arg(long, value_name = "power(eta=N)|P1,P2,...")]
    examination: Option<String>,
    /// One reward per impression or one per position [default:
    /// impression; position (the clicks) for a click log].
    #[arg(long, value_enum)]
    reward_per: Option<RewardArg>,
    /// The rewards' declared range `LO,HI`: a reward outside is an error.
    #[arg(long, value_name = "LO,HI")]
    reward_range: Option<String>,
    /// The log's layout (default: one row per impression and position when
    /// the log has the position column).
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto)]
    layout: LayoutArg,
    /// A target policy: a run whose ranking for each context (its query id)
    /// the policy shows, `NAME=FILE` or `FILE`; repeat for several. The
    /// first is the baseline the others are compared with.
    #[arg(long = "policy", value_name = "[NAME=]FILE")]
    policies: Vec<String>,
    /// The runs' policies draw their slates from the Plackett-Luce model
    /// over the runs' scores at this temperature, instead of showing the
    /// top items.
    #[arg(long, value_name = "TEMP")]
    plackett_luce: Option<f64>,
    /// Estimate the Plackett-Luce marginals (a log of marginal
    /// propensities) from N orderings drawn per impression (1 to 10^7),
    /// seeded (--seed), instead of enumerating every ordering (refused
    /// beyond 10^6).
    #[arg(long, value_name = "N")]
    samples: Option<u64>,
    /// A target policy whose probabilities are the log's `target` column
    /// (`--log-columns target=NAME`), named NAME.
    #[arg(long, value_name = "NAME")]
    target_column: Option<String>,
    /// A reward model's predictions, as a run: the query is the context,
    /// the document the item, the score the predicted reward. Needed by
    /// dm, dr, sndr, switch_dr, dr_os and cascade_dr.
    #[arg(long, value_name = "FILE")]
    reward_model: Option<PathBuf>,
    /// An estimator: ips, snips, clipped_ips(max_weight=M), dm, dr, sndr,
    /// switch_dr(tau=T), dr_os(lambda=L) for one item; slate_ips, iips,
    /// rips, cascade_dr, pi, snpi for slates; ips_dcg@K, ips_dcg,
    /// ips_rbp(p=P), ips_p@K (each optionally with max_weight=M) for click
    /// logs; repeat for several (default: snips for one item, slate_ips,
    /// iips or rips for the slate, marginal or cascade form, ips_dcg@10 for
    /// a click log).
    #[arg(short = 'e', long = "estimator", value_name = "ESTIMATOR")]
    estimators: Vec<String>,
    /// The interval: normal, Student's t with n - 1 degrees of freedom, or
    /// the percentile bootstrap of the impressions (seeded; every estimate
    /// and paired difference made again on each resample).
    #[arg(long, value_enum, default_value_t = IntervalArg::Normal)]
    interval: IntervalArg,
    /// The bootstrap's resamples (--interval bootstrap) [default: 1000].
    #[arg(long, value_name = "B")]
    resamples: Option<u64>,
    /// The seed of the bootstrap (--interval bootstrap) and of the
    /// Plackett-Luce Monte Carlo (--samples; ChaCha8, its stream the
    /// impression id), printed in the report [default: 42].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// The interval's level.
    #[arg(long, default_value_t = 0.95, value_name = "LEVEL")]
    level: f64,
    /// Correct the paired comparisons' p-values for multiple testing, over
    /// each estimator's comparisons: holm, bonferroni, benjamini_hochberg
    /// (bh), none. `superior` gates read the corrected p-value.
    #[arg(long, value_name = "METHOD")]
    correction: Option<String>,
    /// Refuse an estimate of fewer impressions.
    #[arg(long, default_value_t = Floors::DEFAULT_MIN_N, value_name = "N")]
    min_n: u64,
    /// Refuse an estimate of a smaller effective sample size (Σw)²/Σw².
    #[arg(long, default_value_t = Floors::DEFAULT_MIN_ESS, value_name = "ESS")]
    min_ess: f64,
    /// Refuse an estimate when the log clearly supports less of the
    /// target's probability mass (its 97.5% upper bound is below).
    #[arg(long, default_value_t = Floors::DEFAULT_MIN_SUPPORT, value_name = "SHARE")]
    min_support: f64,
    /// A gate on an estimator's estimates, `ESTIMATOR:RULE` (the estimator
    /// among -e, optionally `ope.`-prefixed): `at_least(floor=X)` on each
    /// policy's estimate, `non_inferior(margin=M)` or `superior(alpha=A)`
    /// on each later policy's paired difference with the first;
    /// `run=NAME` for one policy; `ESTIMATOR[COLUMN=VALUE]:RULE` on a group
    /// of --groups. A failed gate exits 1, an undecided one (a refused
    /// estimate) 2.
    #[arg(long = "gate", value_name = "ESTIMATOR:RULE")]
    gates: Vec<String>,
    /// Groups of contexts (slices), a groups file as `eval --groups` reads
    /// it (its query ids the log's contexts): a report per group, with its
    /// own floors' refusals and comparisons, after the whole log's (a
    /// refused group does not set the exit code; a gate on a group,
    /// `ESTIMATOR[COLUMN=VALUE]:RULE`, is decided on the group's report).
    #[arg(long, value_name = "FILE")]
    groups: Option<PathBuf>,
    /// Correct every group's comparisons in the whole log's families (one
    /// per estimator) instead of each group's own, as `eval
    /// --groups-in-family` does (needs --groups and --correction).
    #[arg(long)]
    groups_in_family: bool,
    /// Print refused estimates (marked `*`, with their reasons) and exit 0;
    /// also estimate targets that show items the log never shows.
    #[arg(long)]
    allow_low_support: bool,
    #[command(flatten)]
    record: super::history::RecordArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormArg {
    /// One item per impression and its probability.
    Action,
    /// The slate's probability.
    Slate,
    /// Per position, marginal.
    Marginal,
    /// Per position, given the items above.
    Cascade,
    /// A click log: per position, the probability it was examined.
    Examination,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RewardArg {
    /// One reward per impression.
    Impression,
    /// One reward per position.
    Position,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LayoutArg {
    /// By the position column.
    Auto,
    /// One row per impression.
    Impression,
    /// One row per impression and position.
    Position,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum IntervalArg {
    /// Normal.
    Normal,
    /// Student's t.
    T,
    /// The seeded percentile bootstrap.
    Bootstrap,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
}

/// Runs `rankeval ope`.
pub(crate) fn run(args: OpeArgs) -> Result<Verdict, CliError> {
    let request = match &args.config {
        Some(path) => {
            let mut request = rankeval::config::load_ope(path)?;
            if args.record.given() {
                override_record(&mut request, args.record.request(), path)?;
            }
            request
        }
        None => rankeval::spec::resolve_ope(spec(&args)?).map_err(eval::spec_error)?,
    };
    let format = match args.format {
        FormatArg::Table => OpeFormat::Table,
        FormatArg::Json => OpeFormat::Json,
    };
    report(
        &request,
        format,
        args.output.as_deref(),
        args.config.as_deref(),
    )
}

/// Estimates `request`, writes its report in `format` to `output` (or
/// standard output) and says the verdict: `rankeval ope`, and `rankeval
/// run` on a file with an `[ope]` table (`config`). An `output` that is
/// one of the inputs is refused before anything is read.
pub(crate) fn report(
    request: &rankeval::spec::OpeRequest,
    format: OpeFormat,
    output: Option<&std::path::Path>,
    config: Option<&std::path::Path>,
) -> Result<Verdict, CliError> {
    if let Some(target) = output {
        let inputs = std::iter::once(("the impression log", request.log.as_path()))
            .chain(
                request
                    .policies
                    .iter()
                    .map(|p| ("a policy's run", p.path.as_path())),
            )
            .chain(
                request
                    .reward_model
                    .as_deref()
                    .map(|p| ("the reward model", p)),
            )
            .chain(request.groups.as_deref().map(|p| ("the groups file", p)))
            .chain(config.map(|c| ("the experiment file", c)))
            .chain(
                request
                    .record
                    .as_ref()
                    .map(|r| ("the results history (--record)", r.db.as_path())),
            );
        output::refuse_an_input(target, inputs)?;
    }
    let allow_low_support = request.plan.allow_low_support;
    let report = rankeval::ope::run_request(request).map_err(|e| match e {
        OpeRunError::History(e) => CliError::History(*e),
        OpeRunError::NeverLogged { .. } => CliError::Usage(format!(
            "{e} (--allow-low-support estimates it anyway, its weight 0 where the log never shows it)"
        )),
        e => CliError::Usage(e.to_string()),
    })?;
    output::write(&render(&report, format), output)?;
    for note in &report.notes {
        let _ = writeln!(std::io::stderr(), "note: {note}");
    }
    // Recorded after the report is out, refused estimates and failed
    // gates included: the history shows them.
    if let Some(recorded) = rankeval::ope_record::write(request, &report) {
        let recorded = recorded.map_err(CliError::History)?;
        let mut stderr = std::io::stderr().lock();
        for (policy, id) in &recorded.ids {
            let _ = writeln!(
                stderr,
                "recorded: policy `{policy}` as record {id} of {}",
                recorded.db.display()
            );
        }
    }
    let gates = if report.any_gate_undecided() {
        Verdict::Undecided
    } else if report.any_gate_failed() {
        Verdict::Failed
    } else {
        Verdict::Passed
    };
    if report.any_refused() {
        let mut stderr = std::io::stderr().lock();
        if allow_low_support {
            let _ = writeln!(
                stderr,
                "warning: some estimates rest on too little of the log (marked *): read them with their diagnostics"
            );
            Ok(gates)
        } else {
            let _ = writeln!(
                stderr,
                "error: some estimates are refused: the log cannot support them (the reasons are in the report; \
                 --allow-low-support prints them anyway)"
            );
            Ok(Verdict::Undecided)
        }
    } else {
        Ok(gates)
    }
}

/// `--record` (and `--label`, `--commit`) given with an `[ope]` file
/// (`rankeval ope --config FILE`, `rankeval run FILE`): they take the
/// place of the file's `[record]`, checked by the one rule
/// (`resolve_record`), the file's hash recorded with them.
pub(crate) fn override_record(
    request: &mut rankeval::spec::OpeRequest,
    mut record: rankeval::spec::RecordRequest,
    file: &std::path::Path,
) -> Result<(), CliError> {
    record.experiment_hash = request
        .record
        .as_ref()
        .and_then(|r| r.experiment_hash.clone())
        .or_else(|| {
            std::fs::read(file)
                .ok()
                .map(|b| rankeval::history::fingerprint::bytes_hash(&b))
        });
    request.record = rankeval::spec::resolve_record(record).map_err(eval::spec_error)?;
    Ok(())
}

/// The flags as the library's request (`rankeval::spec::OpeSpec`): each
/// value with the flag it came from; the rules are `resolve_ope`'s.
fn spec(args: &OpeArgs) -> Result<OpeSpec, CliError> {
    let usage = CliError::Usage;
    let mut spec = OpeSpec::new(Origin::bare_flag("rankeval ope"));
    spec.log = args
        .log
        .as_ref()
        .map(|p| Given::new(p.clone(), Origin::flag("--log", p.display())));
    if let Some(given) = &args.log_columns {
        for pair in given.split(',') {
            let (key, name) = pair
                .split_once('=')
                .ok_or_else(|| usage(format!("--log-columns `{pair}`: expected KEY=NAME")))?;
            spec.log_columns.push(Given::new(
                (key.trim().to_owned(), name.to_owned()),
                // The pair alone: a list of many pairs is not copied into each.
                Origin::flag("--log-columns", pair),
            ));
        }
    }
    let named = |flag: &str, value: &dyn ValueName| {
        let name = value.value_name();
        Given::new(name.clone(), Origin::flag(flag, name))
    };
    spec.form = args.form.map(|f| named("--form", &f));
    spec.reward_per = args.reward_per.map(|r| named("--reward-per", &r));
    spec.examination = args
        .examination
        .as_ref()
        .map(|e| Given::new(e.clone(), Origin::flag("--examination", e)));
    spec.layout = Some(named("--layout", &args.layout));
    spec.interval = Some(named("--interval", &args.interval));
    if let Some(text) = &args.reward_range {
        let parsed = text.split_once(',').and_then(|(lo, hi)| {
            Some((
                lo.trim().parse::<f64>().ok()?,
                hi.trim().parse::<f64>().ok()?,
            ))
        });
        let Some(range) = parsed else {
            return Err(usage(format!(
                "--reward-range `{text}`: expected LO,HI, two numbers with LO <= HI"
            )));
        };
        spec.reward_range = Some(Given::new(range, Origin::flag("--reward-range", text)));
    }
    spec.policies = run_names::given_runs(&args.policies)
        .into_iter()
        .zip(&args.policies)
        .map(|(given, text)| PolicyRequest {
            name: given.name,
            path: given.path,
            from: Origin::flag("--policy", text),
        })
        .collect();
    spec.plackett_luce = args
        .plackett_luce
        .map(|t| Given::new(t, Origin::flag("--plackett-luce", t)));
    spec.target_column = args
        .target_column
        .as_ref()
        .map(|n| Given::new(n.clone(), Origin::flag("--target-column", n)));
    spec.reward_model = args
        .reward_model
        .as_ref()
        .map(|p| Given::new(p.clone(), Origin::flag("--reward-model", p.display())));
    spec.estimators = args
        .estimators
        .iter()
        .map(|e| Given::new(e.clone(), Origin::flag("-e", e)))
        .collect();
    spec.gates = args
        .gates
        .iter()
        .map(|g| Given::new(g.clone(), Origin::flag("--gate", g)))
        .collect();
    spec.level = Some(Given::new(args.level, Origin::flag("--level", args.level)));
    spec.resamples = args
        .resamples
        .map(|b| Given::new(b, Origin::flag("--resamples", b)));
    spec.samples = args
        .samples
        .map(|n| Given::new(n, Origin::flag("--samples", n)));
    spec.seed = args.seed.map(|n| Given::new(n, Origin::flag("--seed", n)));
    spec.correction = args
        .correction
        .as_ref()
        .map(|c| Given::new(c.clone(), Origin::flag("--correction", c)));
    spec.min_n = Some(Given::new(args.min_n, Origin::flag("--min-n", args.min_n)));
    spec.min_ess = Some(Given::new(
        args.min_ess,
        Origin::flag("--min-ess", args.min_ess),
    ));
    spec.min_support = Some(Given::new(
        args.min_support,
        Origin::flag("--min-support", args.min_support),
    ));
    spec.groups = args
        .groups
        .as_ref()
        .map(|p| Given::new(p.clone(), Origin::flag("--groups", p.display())));
    spec.groups_in_family = args
        .groups_in_family
        .then(|| Given::new(true, Origin::bare_flag("--groups-in-family")));
    spec.allow_low_support = Some(Given::new(
        args.allow_low_support,
        Origin::bare_flag("--allow-low-support"),
    ));
    spec.record = args.record.request();
    Ok(spec)
}

/// A flag's value by the name the spec reads (`cascade`, `t`).
trait ValueName {
    fn value_name(&self) -> String;
}

impl<T: ValueEnum> ValueName for T {
    fn value_name(&self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }
}
