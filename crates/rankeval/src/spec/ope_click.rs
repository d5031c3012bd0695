//! The rules of an off-policy evaluation's request that are a click log's
//! (`--form examination`, `--examination`; docs/ope.md, "Click logs"),
//! once for every front end: [`resolve_ope`](super::resolve_ope) calls
//! them.

use super::origin::{Given, Origin};
use super::resolve::{SpecError, invalid};
use crate::ope::OpeEstimator;
use crate::ope::click::Examination;
use crate::read::impressions::{PropensityForm, RewardPer};

/// The estimator of a click log when none is given.
pub(super) const DEFAULT_ESTIMATOR: &str = "ips_dcg@10";

/// The examination propensities per rank, parsed: only for a click log
/// (the `examination` form, which they imply when no form is given).
pub(super) fn examination(
    given: Option<&Given<String>>,
    form: PropensityForm,
) -> Result<Option<Examination>, SpecError> {
    let Some(given) = given else {
        return Ok(None);
    };
    if form != PropensityForm::Examination {
        return Err(invalid(
            &given.from,
            format!(
                "examination propensities per rank are a click log's, and the log's form is `{}`: \
                 give {} (or no form)",
                form.name(),
                form_option(&given.from)
            ),
        ));
    }
    Examination::parse(&given.value)
        .map(Some)
        .map_err(|reason| invalid(&given.from, reason))
}

/// A click log (the `examination` form) has a click per position, and a
/// ranking as its target: no reward per impression, Plackett-Luce policy
/// or target column.
pub(super) fn check_click_log(
    form: PropensityForm,
    reward_per: Option<(&Origin, RewardPer)>,
    plackett_luce: Option<&Origin>,
    target_column: Option<&Origin>,
) -> Result<(), SpecError> {
    if form != PropensityForm::Examination {
        return Ok(());
    }
    if let Some((from, RewardPer::Impression)) = reward_per {
        return Err(invalid(
            from,
            "a click log (form examination) has a click per position: its rewards are per position",
        ));
    }
    if let Some(from) = plackett_luce.or(target_column) {
        return Err(invalid(
            from,
            "a click log's target is a ranking (a run's list per context): the IPS-weighted \
             rank metrics read its ranks, not a policy's probabilities",
        ));
    }
    Ok(())
}

/// A click estimator (`ips_dcg@10`) reads a click log: with another form
/// of propensities it is refused where it was given.
pub(super) fn check_estimators(
    form: PropensityForm,
    given: &[Given<String>],
    parsed: &[OpeEstimator],
) -> Result<(), SpecError> {
    if form == PropensityForm::Examination {
        return Ok(());
    }
    for (g, e) in given.iter().zip(parsed) {
        if let OpeEstimator::Click(_) = e {
            return Err(invalid(
                &g.from,
                format!(
                    "{} reads a click log (examination propensities per position), and the \
                     log's form is `{}`: give {}",
                    e.name(),
                    form.name(),
                    form_option(&g.from)
                ),
            ));
        }
    }
    Ok(())
}

/// How the front end of `from` names the examination form.
fn form_option(from: &Origin) -> &'static str {
    match from {
        Origin::Flag { .. } => "--form examination",
        Origin::Key { .. } => "`form = \"examination\"`",
        Origin::Keyword { .. } => "form=\"examination\"",
    }
}
