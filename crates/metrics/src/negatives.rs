//! Which documents count as negatives for fall-out and ROC-AUC.

use std::fmt;

use rankeval_core::registry::ParamDoc;
use rankeval_core::{Grade, Judgement};
use serde::{Deserialize, Serialize};

/// Which documents are negatives (the "N" of fall-out and ROC-AUC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Negatives {
    /// Every document of the ranked list that is not relevant, judged or
    /// not: the list is the candidate set (torchmetrics, cornac's default,
    /// scikit-learn on the list's labels).
    #[default]
    Retrieved,
    /// Only documents judged non-relevant (a grade from 0 to `rel - 1`);
    /// unjudged documents are left out (cornac's `gt_neg`).
    Judged,
}

impl Negatives {
    /// Whether the document at a rank is a negative at `level`.
    #[inline]
    pub fn is_negative(self, judgement: Judgement, level: Grade) -> bool {
        match self {
            Negatives::Retrieved => !judgement.is_relevant(level),
            Negatives::Judged => judgement.is_judged_nonrelevant(level),
        }
    }
}

impl fmt::Display for Negatives {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Negatives::Retrieved => "retrieved",
            Negatives::Judged => "judged",
        })
    }
}

/// The `negatives` parameter of `fallout` and `roc_auc`.
pub(crate) const PARAM_NEGATIVES: ParamDoc = ParamDoc {
    name: "negatives",
    alias: None,
    default: "retrieved",
    doc: "retrieved: every non-relevant document of the list (torchmetrics); judged: only those judged non-relevant",
};

/// What `negatives` takes as a negative, in words.
pub(crate) fn negatives_text(negatives: Negatives, level: Grade) -> String {
    match negatives {
        Negatives::Retrieved => format!("retrieved, grade < {level} or unjudged"),
        Negatives::Judged => format!("judged 0 to < {level}"),
    }
}
