//! Set utility, as trec_eval 10's `utility`: a weighted sum of the
//! contingency table of the retrieved set.
//!
//! ```text
//! utility = a * relevant retrieved + b * non-relevant retrieved
//!         + c * relevant missed    + d * (collection - |R| - non-relevant retrieved)
//! ```
//!
//! trec_eval's defaults are `a = 1, b = -1, c = 0, d = 0`; `collection` is
//! the number of documents in the collection (trec_eval `-N`, default 0).

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_REL, ParamDoc};
use rankeval_core::{CanonicalName, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none};

/// The `utility` metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Utility {
    /// Worth of a relevant document retrieved.
    #[serde(default = "one")]
    pub a: f64,
    /// Worth of a non-relevant document retrieved.
    #[serde(default = "minus_one")]
    pub b: f64,
    /// Worth of a relevant document not retrieved.
    #[serde(default)]
    pub c: f64,
    /// Worth of a non-relevant document not retrieved.
    #[serde(default)]
    pub d: f64,
    /// Documents in the collection (only `d` reads it).
    #[serde(default)]
    pub collection: u64,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

fn one() -> f64 {
    1.0
}
fn minus_one() -> f64 {
    -1.0
}

impl Default for Utility {
    fn default() -> Self {
        Self {
            a: 1.0,
            b: -1.0,
            c: 0.0,
            d: 0.0,
            collection: 0,
            rel: None,
        }
    }
}

impl Utility {
    /// The utility of one query.
    ///
    /// # Example
    /// 2 relevant of 5 retrieved, `|R|` = 3, defaults: `2 - 3 = -1`.
    /// ```
    /// use rankeval_metrics::utility::Utility;
    /// use rankeval_core::testing;
    /// let q = testing::binary("1 0 0 1 0", 3);
    /// assert_eq!(Utility::default().utility(&q.view()), 2.0 - 3.0);
    /// ```
    pub fn utility(&self, q: &JudgedRanking<'_>) -> f64 {
        let level = q.level(self.rel);
        let ret = q.ranked().len() as f64;
        let rel_ret = hits(q.ranked(), level) as f64;
        let rel = q.num_relevant(level) as f64;
        self.a * rel_ret
            + self.b * (ret - rel_ret)
            + self.c * (rel - rel_ret)
            + self.d * (self.collection as f64 + rel_ret - ret - rel)
    }
}

#[rankeval_core::metric(
    name = "utility",
    summary = "set utility: weighted sum of the retrieved set's contingency table",
    params = PARAMS,
    example = Utility { a: 2.0, b: -1.0, c: 0.0, d: 0.0, collection: 0, rel: None },
)]
impl Metric for Utility {
    /// Weights times counts of documents, each relevant or not by its own grade.
    fn is_additive(&self) -> bool {
        true
    }
    fn name(&self) -> String {
        let d = Utility::default();
        CanonicalName::new("utility")
            .param_unless_default("a", self.a, d.a)
            .param_unless_default("b", self.b, d.b)
            .param_unless_default("c", self.c, d.c)
            .param_unless_default("d", self.d, d.d)
            .param_unless_default("collection", self.collection, 0)
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        self.utility(q)
    }
    /// utility: the contingency table of the retrieved set, weighted.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let ret = q.ranked().len();
        let rel_ret = hits(q.ranked(), level);
        let rel = q.num_relevant(level);
        let nonrel_ret = ret - rel_ret;
        let rel_missed = rel.saturating_sub(rel_ret);
        let rest = self.collection as f64 + rel_ret as f64 - ret as f64 - rel as f64;
        Explanation::new(self, q)
            .level(level)
            .quantity("relevant retrieved", rel_ret as f64)
            .quantity("non-relevant retrieved", nonrel_ret as f64)
            .quantity("relevant missed", rel_missed as f64)
            .quantity("non-relevant missed", rest)
            .formula(format!(
                "{} = a x rel_ret + b x nonrel_ret + c x rel_missed + d x nonrel_missed = \
                 {} x {rel_ret} + {} x {nonrel_ret} + {} x {rel_missed} + {} x {}",
                self.name(),
                number(self.a),
                number(self.b),
                number(self.c),
                number(self.d),
                number(rest)
            ))
    }
    fn validate(&self) -> Result<(), String> {
        match [self.a, self.b, self.c, self.d]
            .iter()
            .find(|w| !w.is_finite())
        {
            Some(w) => Err(format!("the weights must be finite numbers, not {w}")),
            None => Ok(()),
        }
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        let default = Utility {
            rel: self.rel,
            collection: self.collection,
            ..Utility::default()
        };
        (self.rel.is_none() && *self == default).then(|| TrecEvalMeasure::mean("utility"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "a",
        alias: None,
        default: "1",
        doc: "worth of a relevant document retrieved",
    },
    ParamDoc {
        name: "b",
        alias: None,
        default: "-1",
        doc: "worth of a non-relevant document retrieved",
    },
    ParamDoc {
        name: "c",
        alias: None,
        default: "0",
        doc: "worth of a relevant document not retrieved",
    },
    ParamDoc {
        name: "d",
        alias: None,
        default: "0",
        doc: "worth of a non-relevant document not retrieved",
    },
    ParamDoc {
        name: "collection",
        alias: None,
        default: "0",
        doc: "documents in the collection (trec_eval -N); only d reads it",
    },
    PARAM_REL,
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn weighted_contingency_table() {
        // 5 retrieved, 2 relevant of them, |R| = 3, collection 100:
        // a=2, b=-1, c=-0.5, d=0.01: 2*2 - 1*3 - 0.5*1 + 0.01*(100 + 2 - 5 - 3).
        let q = binary("1 0 0 1 0", 3);
        let m = Utility {
            a: 2.0,
            b: -1.0,
            c: -0.5,
            d: 0.01,
            collection: 100,
            rel: None,
        };
        assert_eq!(m.utility(&q.view()), 4.0 - 3.0 - 0.5 + 0.01 * 94.0);
        assert_eq!(m.name(), "utility(a=2,c=-0.5,d=0.01,collection=100)");
        assert!(m.trec_eval().is_none());
        assert_eq!(Utility::default().trec_eval().unwrap().name, "utility");
    }
}
