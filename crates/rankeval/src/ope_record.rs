//! Recording an off-policy evaluation in a results history (`rankeval ope
//! --record DB`, an `[ope]` file's `[record]`, Python `ope(..., record=)`;
//! docs/history.md, "Off-policy records"): one record per target policy,
//! its estimates named `ope.` and the estimator (`ope.snips`), each with its
//! own estimate, standard error and interval (a self-normalised estimate is
//! a ratio, not the mean of a column, and its interval the delta method's
//! or the bootstrap's) and, when refused, the reasons: recorded, marked,
//! not dropped. In the place of the judgements' fingerprint, the
//! normalised log's ([`log_fingerprint`]), so that a record made on
//! another log is never compared silently; the policy run's hash; the
//! options that change the estimates.
//!
//! No per-impression values are stored: at 10 million impressions they
//! would be 80 MB per estimator and policy, and their impression ids
//! more (docs/history.md says what was measured); the estimates, their
//! intervals and the log's fingerprint are what a trend reads.

use std::collections::BTreeMap;

use rankeval_history::fingerprint::{LogFingerprint, LoggedImpression};
use rankeval_history::{HistoryError, RecordData, StoredEstimate};
use rankeval_ope::IntervalKind;

use crate::ope::{ImpressionLog, OpeEstimator, OpeReport};
use crate::record::{RecordPlan, Recorded, file_hash, now_ms};
use crate::spec::OpeRequest;

impl OpeEstimator {
    /// The version of the estimator's definition, recorded with its
    /// estimates: bumped when its code changes what it estimates from
    /// some log (1 for every estimator today).
    pub fn definition_version(&self) -> u32 {
        1
    }
}

/// The SHA-256 of the normalised log `log`
/// ([`rankeval_history::fingerprint`]'s definition): its impressions in
/// byte order of their ids, whatever the file's order, format or layout.
pub fn log_fingerprint(log: &ImpressionLog) -> String {
    let mut order: Vec<crate::ope::ImpressionRef<'_>> = log.impressions.iter().collect();
    order.sort_unstable_by(|a, b| log.ids.resolve(a.id).cmp(log.ids.resolve(b.id)));
    let reward = match log.reward {
        crate::read::impressions::RewardPer::Impression => "impression",
        crate::read::impressions::RewardPer::Position => "position",
    };
    let mut fingerprint = LogFingerprint::new(log.form.name(), reward, log.slate_len as u64);
    let mut items: Vec<&[u8]> = Vec::new();
    for imp in order {
        items.clear();
        items.extend(imp.items.iter().map(|&i| log.ids.resolve(i)));
        fingerprint.impression(LoggedImpression {
            id: log.ids.resolve(imp.id),
            context: log.ids.resolve(imp.context),
            items: &items,
            rewards: imp.rewards,
            propensities: imp.propensities,
            target: imp.target,
        });
    }
    // The reader refuses an impression id twice, so the ids sorted are
    // strictly increasing; were they not, the fingerprint would be of
    // nothing a later log could match.
    fingerprint
        .finish()
        .unwrap_or_else(|| "impressions-not-unique".to_owned())
}

/// The options that change an estimate, as text: the log's `form` and
/// `reward_per`, the `interval` and `level` (with the bootstrap's
/// `resamples` and `seed`), the floors `min_n`, `min_ess`, `min_support`,
/// `allow_low_support` (which also estimates targets showing unlogged
/// items), the target's kind (`policy`: `ranking`, `plackett_luce` with
/// its `temperature`, `samples` and `seed` when drawn, or `log_column`),
/// the `reward_range` when declared and the `reward_model`'s SHA-256.
/// Each key is prefixed `ope.`, apart from an evaluation's options.
pub fn options(request: &OpeRequest, report: &OpeReport) -> BTreeMap<String, String> {
    let plan = &request.plan;
    let o = &plan.options;
    let mut map = BTreeMap::new();
    let mut put = |key: &str, value: String| {
        map.insert(format!("ope.{key}"), value);
    };
    put("form", report.log.form.to_owned());
    put("reward_per", report.log.reward.to_owned());
    put(
        "interval",
        match o.interval {
            IntervalKind::Normal => "normal",
            IntervalKind::T => "t",
            IntervalKind::Bootstrap => "bootstrap",
        }
        .to_owned(),
    );
    put("level", o.level.to_string());
    if let Some(r) = &plan.resampling {
        put("resamples", r.resamples.to_string());
        put("seed", r.seed.to_string());
    }
    put("min_n", o.floors.min_n.to_string());
    put("min_ess", o.floors.min_ess.to_string());
    put("min_support", o.floors.min_support.to_string());
    put("allow_low_support", plan.allow_low_support.to_string());
    if let Some((lo, hi)) = request.read.reward_range {
        put("reward_range", format!("{lo},{hi}"));
    }
    if let Some(path) = &request.reward_model {
        put(
            "reward_model",
            file_hash(path).unwrap_or_else(|| "unhashed".to_owned()),
        );
    }
    map
}

/// The records of `report`'s policies (one per policy, in report order),
/// ready to write. `report` must come from `request` with its log's
/// fingerprint ([`crate::ope::run_request`] computes it when the request
/// records).
pub fn records(request: &OpeRequest, plan: &RecordPlan, report: &OpeReport) -> Vec<RecordData> {
    let time_ms = now_ms();
    let options = options(request, report);
    let fingerprint = report.log_fingerprint.clone().unwrap_or_default();
    let metadata = BTreeMap::from([
        (
            "ope.log".to_owned(),
            request
                .log
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        (
            "ope.impressions".to_owned(),
            report.log.impressions.to_string(),
        ),
    ]);
    report
        .policies
        .iter()
        .map(|policy| {
            let run = request.policies.iter().find(|p| p.name == policy.name);
            let mut options = options.clone();
            let kind = match (run, request.plackett_luce) {
                (None, _) => "log_column".to_owned(),
                (Some(_), None) => "ranking".to_owned(),
                (Some(_), Some(t)) => {
                    options.insert("ope.temperature".into(), t.to_string());
                    if let Some(m) = request.plan.sampling {
                        options.insert("ope.samples".into(), m.samples.to_string());
                        options.insert("ope.seed".into(), m.seed.to_string());
                    }
                    "plackett_luce".to_owned()
                }
            };
            options.insert("ope.policy".into(), kind);
            RecordData {
                run: policy.name.clone(),
                label: plan.label.clone(),
                commit: plan.commit.clone(),
                rankeval_version: env!("CARGO_PKG_VERSION").to_owned(),
                time_ms,
                qrels_fingerprint: fingerprint.clone(),
                run_hash: run.and_then(|r| file_hash(&r.path)),
                experiment_hash: plan.experiment_hash.clone(),
                options,
                metadata: metadata.clone(),
                queries: Vec::new(),
                metrics: Vec::new(),
                estimates: policy
                    .estimates
                    .iter()
                    .zip(&request.plan.estimators)
                    .map(|(e, estimator)| StoredEstimate {
                        name: format!("ope.{}", e.estimator),
                        definition_version: estimator.definition_version(),
                        n: e.diagnostics.n,
                        value: e.value,
                        standard_error: e.standard_error,
                        interval: (e.interval.lower, e.interval.upper),
                        refused: (!e.refusals.is_empty()).then(|| {
                            e.refusals
                                .iter()
                                .map(ToString::to_string)
                                .collect::<Vec<_>>()
                                .join("; ")
                        }),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Records `report` (of `request`) in the history `request.record` names,
/// one record per policy in one transaction; `None` when the request does
/// not record.
pub fn write(request: &OpeRequest, report: &OpeReport) -> Option<Result<Recorded, HistoryError>> {
    let plan = request.record.as_ref()?;
    Some(crate::record::write(plan, &records(request, plan, report)))
}
