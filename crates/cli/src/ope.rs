//! `rankeval ope`: off-policy evaluation of rankings never shipped, from an
//! impression log with the logging policy's propensities (docs/ope.md).

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::ope::estimators::{Floors, IntervalKind, Options};
use rankeval::ope::{
    Candidate, MarginalSampling, OpeEstimator, OpePlan, OpeRunError, RewardModel, TargetPolicy,
    ope_report,
};
use rankeval::read::impressions::{
    ImpressionColumns, ImpressionOptions, Layout, PropensityForm, RewardPer, read_impressions,
};
use rankeval_report::ope::{OpeFormat, render};

use super::{CliError, Verdict, judge_inputs, output};

/// `rankeval ope`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    rankeval ope --log log.csv --policy prod=prod.trec --policy new=new.trec -e snips -e ips\n  \
    rankeval ope --log slates.jsonl --form cascade --reward-per position --policy new=new.trec -e rips\n  \
    rankeval ope --log log.parquet --policy new=new.trec --plackett-luce 0.5 -e snips\n\n\
    The log: CSV/TSV with a header, JSON Lines, Parquet or Arrow IPC; one row per impression\n\
    (list columns for slates) or one per impression and position (a `position` column).\n\
    Exit codes: 0 estimates printed; 2 an estimate refused (its log cannot support it), or an\n\
    error.")]
pub struct OpeArgs {
    /// The impression log.
    #[arg(long, value_name = "FILE")]
    log: PathBuf,
    /// The log's column names, `KEY=NAME` comma-separated; keys `context`,
    /// `impression`, `item`, `position`, `reward`, `propensity`, `target`
    /// (the target's probabilities, read by `--target-column`).
    #[arg(long, value_name = "KEY=NAME,...")]
    log_columns: Option<String>,
    /// The propensities' form: `action` (one item per impression), `slate`
    /// (the slate's probability), `marginal` (per position), `cascade`
    /// (per position, given the items above).
    #[arg(long, value_enum, default_value_t = FormArg::Action)]
    form: FormArg,
    /// One reward per impression or one per position.
    #[arg(long, value_enum, default_value_t = RewardArg::Impression)]
    reward_per: RewardArg,
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
    /// seeded, instead of enumerating every ordering (refused beyond 10^6).
    #[arg(long, value_name = "N")]
    samples: Option<u64>,
    /// The seed of the Monte Carlo's ChaCha8 generator (its stream the
    /// impression id), printed in the report.
    #[arg(long, value_name = "SEED", default_value_t = rankeval_stats::rng::DEFAULT_SEED)]
    seed: u64,
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
    /// rips, cascade_dr, pi, snpi for slates; repeat for several (default:
    /// snips for one item, slate_ips, iips or rips for the slate, marginal
    /// or cascade form).
    #[arg(short = 'e', long = "estimator", value_name = "ESTIMATOR")]
    estimators: Vec<String>,
    /// The interval: normal, or Student's t with n - 1 degrees of freedom.
    #[arg(long, value_enum, default_value_t = IntervalArg::Normal)]
    interval: IntervalArg,
    /// The interval's level.
    #[arg(long, default_value_t = 0.95, value_name = "LEVEL")]
    level: f64,
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
    /// `run=NAME` for one policy. A failed gate exits 1, an undecided one
    /// (a refused estimate) 2.
    #[arg(long = "gate", value_name = "ESTIMATOR:RULE")]
    gates: Vec<String>,
    /// Print refused estimates (marked `*`, with their reasons) and exit 0;
    /// also estimate targets that show items the log never shows.
    #[arg(long)]
    allow_low_support: bool,
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
    let usage = CliError::Usage;
    if !(args.level > 0.0 && args.level < 1.0) {
        return Err(usage(format!(
            "--level {}: a level strictly between 0 and 1",
            args.level
        )));
    }
    // A floor no log can meet (an infinite sample size, a share above 1)
    // would refuse every estimate for a reason that is not the log's.
    if !(args.min_ess.is_finite() && args.min_ess >= 0.0) {
        return Err(usage(format!(
            "--min-ess {}: the floor is an effective sample size, a finite number of at least 0",
            args.min_ess
        )));
    }
    if !(0.0..=1.0).contains(&args.min_support) {
        return Err(usage(format!(
            "--min-support {}: the floor is a share of the target's mass, between 0 and 1",
            args.min_support
        )));
    }
    let form = match args.form {
        FormArg::Action => PropensityForm::Action,
        FormArg::Slate => PropensityForm::Slate,
        FormArg::Marginal => PropensityForm::Marginal,
        FormArg::Cascade => PropensityForm::Cascade,
    };
    let mut columns = ImpressionColumns::default();
    if let Some(given) = &args.log_columns {
        for pair in given.split(',') {
            let (key, name) = pair
                .split_once('=')
                .ok_or_else(|| usage(format!("--log-columns `{pair}`: expected KEY=NAME")))?;
            let name = name.trim().to_owned();
            if name.is_empty() {
                return Err(usage(format!("--log-columns `{pair}`: an empty name")));
            }
            match key.trim() {
                "context" => columns.context = name,
                "impression" => columns.impression = name,
                "item" => columns.item = name,
                "position" => columns.position = name,
                "reward" => columns.reward = name,
                "propensity" => columns.propensity = name,
                "target" => columns.target = Some(name),
                other => {
                    return Err(usage(format!(
                        "--log-columns: unknown key `{other}` (context, impression, item, position, \
                         reward, propensity, target)"
                    )));
                }
            }
        }
    }
    if args.target_column.is_some() && columns.target.is_none() {
        return Err(usage(
            "--target-column needs the log's column of target probabilities: --log-columns target=NAME"
                .into(),
        ));
    }
    let reward_range = match &args.reward_range {
        None => None,
        Some(text) => {
            let parsed = text.split_once(',').and_then(|(lo, hi)| {
                Some((
                    lo.trim().parse::<f64>().ok()?,
                    hi.trim().parse::<f64>().ok()?,
                ))
            });
            match parsed {
                Some((lo, hi)) if lo <= hi => Some((lo, hi)),
                _ => {
                    return Err(usage(format!(
                        "--reward-range `{text}`: expected LO,HI, two numbers with LO <= HI"
                    )));
                }
            }
        }
    };
    if let Some(n) = args.samples
        && !(1..=rankeval::ope::MAX_SAMPLES).contains(&n)
    {
        return Err(usage(format!(
            "--samples {n}: draw 1 to {} orderings per impression",
            rankeval::ope::MAX_SAMPLES
        )));
    }
    if args.samples.is_some() && args.plackett_luce.is_none() {
        return Err(usage(
            "--samples: only the Plackett-Luce marginals are drawn (give --plackett-luce TEMP)"
                .into(),
        ));
    }
    if let Some(t) = args.plackett_luce
        && !(t > 0.0 && t.is_finite())
    {
        return Err(usage(format!(
            "--plackett-luce {t}: the temperature must be a positive number"
        )));
    }
    let estimators: Vec<OpeEstimator> = if args.estimators.is_empty() {
        let default = match form {
            PropensityForm::Action => "snips",
            PropensityForm::Slate => "slate_ips",
            PropensityForm::Marginal => "iips",
            PropensityForm::Cascade => "rips",
        };
        vec![OpeEstimator::parse(default).map_err(usage)?]
    } else {
        args.estimators
            .iter()
            .map(|e| OpeEstimator::parse(e).map_err(|m| usage(format!("-e {m}"))))
            .collect::<Result<_, _>>()?
    };
    if args.policies.is_empty() && args.target_column.is_none() {
        return Err(usage(
            "no target policy: give --policy NAME=RUNFILE (repeat for several) or --target-column NAME"
                .into(),
        ));
    }
    let options = ImpressionOptions {
        columns,
        form,
        reward: match args.reward_per {
            RewardArg::Impression => RewardPer::Impression,
            RewardArg::Position => RewardPer::Position,
        },
        reward_range,
        layout: match args.layout {
            LayoutArg::Auto => Layout::Auto,
            LayoutArg::Impression => Layout::PerImpression,
            LayoutArg::Position => Layout::PerPosition,
        },
    };
    let mut candidates = Vec::new();
    for (name, run) in judge_inputs::runs(&args.policies)? {
        let policy = match args.plackett_luce {
            Some(temperature) => TargetPolicy::PlackettLuce { run, temperature },
            None => TargetPolicy::Ranking(run),
        };
        candidates.push(Candidate { name, policy });
    }
    if let Some(name) = &args.target_column {
        if candidates.iter().any(|c| &c.name == name) {
            return Err(usage(format!(
                "--target-column {name}: a --policy has that name already"
            )));
        }
        candidates.push(Candidate {
            name: name.clone(),
            policy: TargetPolicy::LogColumn,
        });
    }
    let mut gates = Vec::new();
    for text in &args.gates {
        let spec = rankeval::compare::parse_gate(text, 0.05, |metric| {
            let name = metric.strip_prefix("ope.").unwrap_or(metric);
            OpeEstimator::parse(name).map(|e| e.name())
        })
        .map_err(|reason| usage(format!("--gate {text}: {reason}")))?;
        gates.push(spec);
    }
    let log_name = args.log.display().to_string();
    let log = read_impressions(&args.log, &options).map_err(|e| usage(e.to_string()))?;
    let plan = OpePlan {
        estimators,
        options: Options {
            interval: match args.interval {
                IntervalArg::Normal => IntervalKind::Normal,
                IntervalArg::T => IntervalKind::T,
            },
            level: args.level,
            floors: Floors {
                min_n: args.min_n,
                min_ess: args.min_ess,
                min_support: args.min_support,
            },
        },
        allow_unlogged: args.allow_low_support,
        allow_low_support: args.allow_low_support,
        model: match &args.reward_model {
            None => None,
            Some(path) => Some(RewardModel::from_run(&rankeval::read_run(
                &rankeval::read::Input::file(path),
                rankeval::ReadOptions::default(),
            )?)),
        },
        sampling: args.samples.map(|samples| MarginalSampling {
            samples,
            seed: args.seed,
        }),
        gates,
    };
    let report = ope_report(&log, &log_name, &candidates, &plan).map_err(|e| match e {
        OpeRunError::NeverLogged { .. } => usage(format!(
            "{e} (--allow-low-support estimates it anyway, its weight 0 where the log never shows it)"
        )),
        e => usage(e.to_string()),
    })?;
    let format = match args.format {
        FormatArg::Table => OpeFormat::Table,
        FormatArg::Json => OpeFormat::Json,
    };
    output::write(&render(&report, format), args.output.as_deref())?;
    let gates = if report.any_gate_undecided() {
        Verdict::Undecided
    } else if report.any_gate_failed() {
        Verdict::Failed
    } else {
        Verdict::Passed
    };
    if report.any_refused() {
        let mut stderr = std::io::stderr().lock();
        if args.allow_low_support {
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
