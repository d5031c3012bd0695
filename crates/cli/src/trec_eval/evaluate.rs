//! Evaluates a run as trec_eval 10 does: its query set (the qrels' queries
//! that the run has, or all of them with `-c`), `-M` (keep the top N of
//! each ranking), `-J` (drop unjudged documents before scoring), and the
//! `relstring` of each query.

use rankeval_core::{Judge, JudgedRanking, Judgement, Qrels, RelevanceLevel, Run};
use rayon::prelude::*;

use super::measures::{Line, Plan};

/// trec_eval's evaluation switches.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// `-l`: the relevance level.
    pub level: RelevanceLevel,
    /// `-c`: average over every query of the qrels; a query the run lacks
    /// is scored on an empty ranking.
    pub complete: bool,
    /// `-M`: only the top N documents of each ranking count.
    pub max_docs: Option<usize>,
    /// `-J`: documents not judged (or judged negative) are removed.
    pub judged_only: bool,
}

/// The values of one evaluated query.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryValues {
    /// The query id.
    pub query: String,
    /// Whether the run has no ranking for it (only with `-c`).
    pub missing: bool,
    /// Whether the ranking scored is empty (after `-M` and `-J`).
    pub empty: bool,
    /// `|R|` at the relevance level.
    pub num_rel: usize,
    /// One value per metric of the plan.
    pub values: Vec<f64>,
    /// One string per relstring line of the plan.
    pub relstrings: Vec<String>,
}

/// Scores every query of the plan, in the qrels' query order by bytes
/// (trec_eval's order), in parallel; the result does not depend on the
/// thread count.
pub fn evaluate(qrels: &Qrels, run: &Run, plan: &Plan, settings: Settings) -> Vec<QueryValues> {
    let mut queries: Vec<(u32, Option<u32>)> = (0..qrels.num_queries() as u32)
        .filter_map(|q| {
            let list = run.query_index(qrels.query_bytes(q));
            (list.is_some() || settings.complete).then_some((q, list))
        })
        .collect();
    queries.sort_by(|a, b| qrels.query_bytes(a.0).cmp(qrels.query_bytes(b.0)));
    let relstring_lens: Vec<usize> = plan
        .lines
        .iter()
        .filter_map(|l| match l {
            Line::RelString { len, .. } => Some(*len),
            _ => None,
        })
        .collect();
    queries
        .par_iter()
        .map_init(
            || (Judge::new(None, settings.level), Vec::new()),
            |(judge, kept), &(q, list)| {
                let judged = judge.judge(qrels, q, list.map(|l| run.list_at(l)));
                // trec_eval scores a query the run lacks (-c) on a ranking
                // of one document no qrels mention ("ceci_nest_pas_un_docno").
                let ranked = if list.is_some() {
                    judged.ranked()
                } else {
                    &BOGUS[..]
                };
                let ranked = cut(ranked, settings, kept);
                let view = JudgedRanking::new(
                    ranked,
                    ranked.len(),
                    judged.ideal_grades(),
                    judged.default_level(),
                );
                QueryValues {
                    query: qrels.query_name(q).to_owned(),
                    missing: list.is_none(),
                    empty: ranked.is_empty(),
                    num_rel: judged.num_relevant(settings.level.get()),
                    values: plan.metrics.iter().map(|m| m.score(&view)).collect(),
                    relstrings: relstring_lens
                        .iter()
                        .map(|&len| relstring(ranked, len))
                        .collect(),
                }
            },
        )
        .collect()
}

/// trec_eval's ranking for a query the run lacks, under `-c`.
const BOGUS: [Judgement; 1] = [Judgement::UNJUDGED];

/// The ranking after `-M` and `-J`.
fn cut<'a>(
    ranked: &'a [Judgement],
    settings: Settings,
    kept: &'a mut Vec<Judgement>,
) -> &'a [Judgement] {
    let top = match settings.max_docs {
        Some(m) => &ranked[..m.min(ranked.len())],
        None => ranked,
    };
    if !settings.judged_only {
        return top;
    }
    kept.clear();
    kept.extend(
        top.iter()
            .filter(|j| j.is_judged() && j.grade() >= Default::default()),
    );
    kept
}

/// trec_eval's `relstring`: one character per document of the top `len`:
/// the grade `0`-`9`, `>` above 9, `-` not in the qrels, `.` a negative
/// grade (in the pool, not judged).
pub fn relstring(ranked: &[Judgement], len: usize) -> String {
    ranked
        .iter()
        .take(len)
        .map(|j| {
            if !j.is_judged() {
                '-'
            } else if j.grade() < Default::default() {
                '.'
            } else if j.grade() > 9.0 {
                '>'
            } else {
                // A grade 0 to 9; a decimal grade prints its integer part.
                char::from(b'0' + j.grade() as u8)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn relstring_characters() {
        let q = judged("0 1 9 . - 3", &[]);
        assert_eq!(relstring(q.view().ranked(), 10), "019-.3");
        assert_eq!(relstring(q.view().ranked(), 2), "01");
        assert_eq!(relstring(&[Judgement::judged(12.0)], 5), ">");
    }

    #[test]
    fn max_docs_then_judged_only() {
        let q = judged(". 1 - 0 2", &[]);
        let mut kept = Vec::new();
        let settings = Settings {
            max_docs: Some(4),
            judged_only: true,
            ..Settings::default()
        };
        let ranked = cut(q.view().ranked(), settings, &mut kept).to_vec();
        assert_eq!(relstring(&ranked, 10), "10");
    }
}
