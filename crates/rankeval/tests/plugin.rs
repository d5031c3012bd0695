//! A metric defined outside `crates/metrics`, registered with the same attribute
//! as the built-ins, is known by name and evaluates like them.

use rankeval::core::registry::{self, PARAM_K};
use rankeval::core::{CanonicalName, Cutoff, JudgedRanking, Metric};
use rankeval::{Duplicates, Options, QrelsBuilder, RunBuilder, evaluate, parse_metric};
use serde::{Deserialize, Serialize};

/// The share of the top k that is judged at all (a "judged@k" coverage check).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgedShare {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    k: Option<Cutoff>,
}

// A crate that reaches rankeval-core through the runner names the path.
#[rankeval::core::metric(
    name = "judged_share",
    aliases = &["share_judged"],
    summary = "share of the top k that the qrels judge (relevant or not)",
    params = &[PARAM_K],
    example = JudgedShare { k: Cutoff::new(10) },
    crate = rankeval::core,
)]
impl Metric for JudgedShare {
    fn name(&self) -> String {
        CanonicalName::new("judged_share").cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        let top = q.top(self.k);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        if depth == 0 {
            return 0.0;
        }
        top.iter().filter(|j| j.is_judged()).count() as f64 / depth as f64
    }
}

#[test]
fn registers_next_to_the_built_ins() {
    let names: Vec<&str> = registry::metrics().iter().map(|d| d.name).collect();
    assert!(names.contains(&"judged_share"), "{names:?}");
    assert!(names.contains(&"average_precision"), "{names:?}");
    registry::check().unwrap();
}

#[test]
fn evaluates_by_name_and_alias() {
    let mut qrels = QrelsBuilder::new();
    qrels.push("q", "a", 1).unwrap();
    qrels.push("q", "b", 0).unwrap();
    let qrels = qrels.finish().unwrap();
    let mut run = RunBuilder::new();
    run.push_list("q", ["a", "x", "b", "y"]).unwrap();
    let run = run.finish(Duplicates::Error).unwrap();
    let metrics = vec![
        parse_metric("share_judged@4").unwrap(),
        parse_metric("judged_share(k=2)").unwrap(),
    ];
    let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
    assert_eq!(evaluation.metrics(), ["judged_share@4", "judged_share@2"]);
    assert_eq!(evaluation.mean("judged_share@4"), Some(2.0 / 4.0));
    assert_eq!(evaluation.mean("judged_share@2"), Some(1.0 / 2.0));
}
