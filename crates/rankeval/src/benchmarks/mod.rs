//! Benchmarks by name, scored the way they are reported: the benchmark
//! card ([`card`], `card.toml` beside this file, compiled in) and the
//! qrels of an ir_datasets id read from ir_datasets' own cache
//! ([`irds`], `--qrels irds:<id>`).
//!
//! The card is reviewed like code: for each benchmark, the measures as the
//! benchmark reports them (ir_datasets' `official_measures` where it has
//! them, else the benchmark's paper or leaderboard, cited in `sources`),
//! the rankeval metric each maps to, written out, and the conventions it
//! is scored under (queries missing from a run, identical ids dropped).
//! A test checks that every metric parses and every entry is complete.

pub mod irds;
pub mod parts;
mod reported;

pub use reported::Reported;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::engine::Missing;

/// The card's text, as kept in the repository.
pub const CARD_TOML: &str = include_str!("card.toml");

/// The benchmark card: the benchmarks rankeval knows by name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    /// Usage terms by key, as ir_datasets words them (its `DUA`s).
    pub dua: BTreeMap<String, String>,
    /// The benchmarks, in the card's order.
    #[serde(rename = "benchmark")]
    pub benchmarks: Vec<Benchmark>,
}

/// One benchmark of the card.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Benchmark {
    /// Its ir_datasets id.
    pub id: String,
    /// Other ir_datasets ids with the same qrels (`.../judged`).
    #[serde(default)]
    pub also: Vec<String>,
    /// Its name in words.
    pub title: String,
    /// Where ir_datasets keeps its qrels; `None` for a benchmark whose
    /// value is the mean of its `parts`.
    #[serde(default)]
    pub qrels: Option<CachedQrels>,
    /// The benchmarks whose mean it reports (CQADupStack's forums).
    #[serde(default)]
    pub parts: Vec<String>,
    /// The key of its usage terms in [`Card::dua`].
    #[serde(default)]
    pub dua: Option<String>,
    /// The measures it reports, in its order.
    pub measures: Vec<Measure>,
    /// A judged query missing from the run: skipped, or scored 0 (trec_eval
    /// `-c`).
    pub missing: Missing,
    /// A retrieved document whose id is the query's id is dropped before
    /// judging (BEIR, beir-cellar/beir PR #91).
    pub drop_identical_ids: bool,
    /// Which queries are evaluated, in words.
    pub queries: String,
    /// The grades and the level of each measure, in words.
    pub grades: String,
    /// Where the measures and conventions come from.
    pub sources: Vec<String>,
}

/// A measure as a benchmark reports it and the rankeval metric it maps to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// Its name as reported (ir_measures' syntax: `AP(rel=2)`).
    pub reported: String,
    /// The rankeval metric, in the short syntax (`ap(rel=2)`).
    pub metric: String,
}

/// Where ir_datasets keeps a benchmark's qrels, and how they are written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CachedQrels {
    /// The path under ir_datasets' home (`$IR_DATASETS_HOME`).
    pub path: String,
    /// How the file is written.
    pub format: CacheFormat,
    /// The MD5 ir_datasets records for it (`etc/downloads.json`), for a
    /// file it downloads as is; `None` for one it extracts from an archive.
    #[serde(default)]
    pub md5: Option<String>,
}

/// How ir_datasets writes a cached qrels file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheFormat {
    /// TREC qrels: `query iteration doc grade`.
    Trec,
    /// MS MARCO's TSV: `qid 0 pid 1`.
    Msmarco,
    /// BEIR's TSV with the header `query-id corpus-id score`.
    Beir,
    /// LoTTE's `qas.*.jsonl`: `{"qid": ..., "answer_pids": [...]}`.
    Lotte,
}

impl Card {
    /// The benchmark with `id` (its id or one of its `also`).
    pub fn find(&self, id: &str) -> Option<&Benchmark> {
        self.benchmarks
            .iter()
            .find(|b| b.id == id || b.also.iter().any(|a| a == id))
    }

    /// The usage terms of `benchmark`, if it has some.
    pub fn dua_of(&self, benchmark: &Benchmark) -> Option<&str> {
        benchmark
            .dua
            .as_ref()
            .and_then(|key| self.dua.get(key))
            .map(String::as_str)
    }
}

impl Benchmark {
    /// The line that says what `--official` applies: each reported name
    /// with its metric, and the conventions.
    pub fn official_note(&self) -> String {
        let measures = self
            .measures
            .iter()
            .map(|m| format!("{} = {}", m.reported, m.metric))
            .collect::<Vec<_>>()
            .join(", ");
        let mut conventions = vec![match self.missing {
            Missing::Zero => "a judged query missing from the run scores 0 (trec_eval -c)",
            Missing::Skip => "a judged query missing from the run is skipped",
        }];
        if self.drop_identical_ids {
            conventions.push(
                "a retrieved document whose id is the query's is dropped before judging \
                 (beir-cellar/beir PR #91)",
            );
        }
        if !self.parts.is_empty() {
            conventions.push(
                "each forum is evaluated on its own qrels, and the value is the mean of the \
                 forums' means (each forum weighs the same, beir-cellar/beir#9)",
            );
        }
        format!(
            "scored as {} ({}) reports it: {measures}; {}; `rankeval benchmarks {}` gives \
             the sources",
            self.id,
            self.title,
            conventions.join("; "),
            self.id
        )
    }

    /// A note for each metric of `picked` (canonical names) that the card
    /// reports at another relevance level: the same metric and cutoff, with
    /// `rel` other than the card's (`level` for a metric that names none).
    pub fn contradictions<'a>(
        &self,
        picked: impl IntoIterator<Item = &'a str>,
        level: f64,
    ) -> Vec<String> {
        let card: Vec<(String, Option<f64>, &Measure)> = self
            .measures
            .iter()
            .map(|m| {
                let canonical = rankeval_core::registry::parse_metric(&m.metric)
                    .map_or_else(|_| m.metric.clone(), |metric| metric.name());
                let (family, rel) = without_level(&canonical);
                (family, rel, m)
            })
            .collect();
        let mut notes = Vec::new();
        for name in picked {
            let (family, rel) = without_level(name);
            let rel = rel.unwrap_or(level);
            for (card_family, card_rel, measure) in &card {
                if *card_family == family
                    && let Some(card_rel) = card_rel
                    && *card_rel != rel
                {
                    notes.push(format!(
                        "`{name}` judges relevance from grade {rel}, but {} reports {} at \
                         grade {card_rel} (`{}`); --official evaluates the card's",
                        self.id, measure.reported, measure.metric
                    ));
                }
            }
        }
        notes
    }
}

/// A metric's canonical name without its `rel` parameter, and that level:
/// `ap(rel=2)@10` is `(ap@10, Some(2))`, and `ap@10` is `(ap@10, None)`.
fn without_level(name: &str) -> (String, Option<f64>) {
    let Some(open) = name.find('(') else {
        return (name.to_owned(), None);
    };
    let Some(close) = name[open..].find(')').map(|c| open + c) else {
        return (name.to_owned(), None);
    };
    let mut rel = None;
    let params: Vec<&str> = name[open + 1..close]
        .split(',')
        .filter(|p| match p.strip_prefix("rel=") {
            Some(value) => {
                rel = value.parse().ok();
                false
            }
            None => true,
        })
        .collect();
    let family = if params.is_empty() {
        format!("{}{}", &name[..open], &name[close + 1..])
    } else {
        format!(
            "{}({}){}",
            &name[..open],
            params.join(","),
            &name[close + 1..]
        )
    };
    (family, rel)
}

/// The card compiled into rankeval, parsed once.
pub fn card() -> &'static Card {
    static CARD: OnceLock<Card> = OnceLock::new();
    CARD.get_or_init(|| match toml::from_str(CARD_TOML) {
        Ok(card) => card,
        // The card is part of the source, checked by `the_card_is_complete`.
        Err(error) => panic!("the benchmark card does not parse: {error}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::registry;
    use std::collections::HashSet;

    #[test]
    fn a_hand_picked_level_other_than_the_cards_is_said() {
        use rankeval_metrics as _;
        let dl19 = card().find("msmarco-passage/trec-dl-2019").unwrap();
        // AP on all grades: the trap of castorini/anserini#1525.
        let notes = dl19.contradictions(["ap", "ndcg@10", "ap(rel=2)", "rr@10"], 1.0);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("`ap` judges relevance from grade 1, but"));
        assert!(dl19.contradictions(["ap"], 2.0).is_empty());
        assert_eq!(
            without_level("precision(rel=2,denominator=retrieved)@10"),
            ("precision(denominator=retrieved)@10".to_owned(), Some(2.0))
        );
    }

    /// The entries once marked "to confirm" that a source settled (TREC
    /// DL 2022 and 2023, Anserini's regressions; Robust04, Anserini and
    /// CEDR; TREC-COVID, NIST's round-5 summaries) carry no mark, and the
    /// marks that remain say why (docs/benchmarks.md).
    #[test]
    fn only_unsettled_entries_are_marked_to_confirm() {
        let card = card();
        let marked: Vec<&str> = card
            .benchmarks
            .iter()
            .filter(|b| b.sources.iter().any(|s| s.contains("to confirm")))
            .map(|b| b.id.as_str())
            .collect();
        // What remains: TREC-COVID's RBP, whose gain no source read says.
        assert_eq!(marked, ["cord19/trec-covid"]);
        for id in marked {
            let b = card.find(id).unwrap();
            assert!(
                b.sources.iter().any(|s| s.contains("to confirm")
                    && s.contains("no source read here")
                    || s.contains("not said in any source read here")),
                "{id}: a mark without its reason"
            );
        }
        let metrics = |id: &str| -> Vec<(String, String)> {
            card.find(id)
                .unwrap()
                .measures
                .iter()
                .map(|m| (m.reported.clone(), m.metric.clone()))
                .collect()
        };
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(r, m)| ((*r).to_owned(), (*m).to_owned()))
                .collect()
        };
        // Robust04: Anserini's AP and P@30 at trec_eval's default level;
        // CEDR's P@20 (trec_eval) and nDCG@20 (gdeval.pl: gain 2^g - 1).
        assert_eq!(
            metrics("trec-robust04"),
            pairs(&[
                ("AP", "ap(rel=1)"),
                ("P@30", "precision(rel=1)@30"),
                ("P@20", "precision(rel=1)@20"),
                ("nDCG(dcg='exp-log2')@20", "ndcg(gain=exponential)@20"),
            ])
        );
        // TREC-COVID: NIST's round-5 summaries (bpref, map, ndcg_20, P_20).
        assert_eq!(
            metrics("cord19/trec-covid"),
            pairs(&[
                ("nDCG@20", "ndcg@20"),
                ("P@20", "precision(rel=1)@20"),
                ("MAP", "ap(rel=1)"),
                ("Bpref", "bpref(rel=1)"),
            ])
        );
        for id in ["trec-robust04", "cord19/trec-covid"] {
            let b = card.find(id).unwrap();
            assert!(
                b.sources.iter().any(|s| s.contains("commit")),
                "{id}: a source without its commit"
            );
        }
        // Documents: binary measures from grade 1 (NIST, Anserini);
        // passages: from grade 2.
        for year in ["2022", "2023"] {
            let doc = card
                .find(&format!("msmarco-document-v2/trec-dl-{year}"))
                .unwrap();
            assert!(doc.measures.iter().any(|m| m.metric == "rr(rel=1)@100"));
            let passage = card
                .find(&format!("msmarco-passage-v2/trec-dl-{year}"))
                .unwrap();
            assert!(passage.measures.iter().any(|m| m.metric == "ap(rel=2)@100"));
        }
    }

    /// Every measure's reported name, read as ir_measures' syntax (the
    /// `-m` reading, `rankeval_core::ir_measures`), is the card's rankeval
    /// metric: the same canonical name once a measure without `rel` is
    /// given ir_measures' default level, 1. Values against ir_measures
    /// itself: scripts/cross-check/benchmark-card.py.
    #[test]
    fn every_reported_name_maps_to_the_cards_metric() {
        use rankeval_core::ParamValue;
        use rankeval_core::syntax::Spec;
        use rankeval_metrics as _;
        let mut checked = 0;
        for b in &card().benchmarks {
            for m in &b.measures {
                let spec = rankeval_core::ir_measures::translate(
                    Spec::parse(&m.reported).unwrap_or_else(|e| panic!("{}: {e}", m.reported)),
                )
                .unwrap_or_else(|e| panic!("{}: {}: {e}", b.id, m.reported));
                let Spec { name, mut params } = spec;
                let plain = registry::build::<dyn rankeval_core::Metric>(&name, params.clone())
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", b.id, m.reported));
                if plain.uses_default_level() {
                    params.push(("rel".to_owned(), ParamValue::Integer(1)));
                }
                let reported = registry::build::<dyn rankeval_core::Metric>(&name, params)
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", b.id, m.reported));
                let metric = registry::parse_metric(&m.metric).unwrap();
                assert_eq!(
                    reported.name(),
                    metric.name(),
                    "{}: {} is not {}",
                    b.id,
                    m.reported,
                    m.metric
                );
                checked += 1;
            }
        }
        assert!(checked > 60, "{checked}");
    }

    #[test]
    fn the_card_is_complete() {
        use rankeval_metrics as _;
        let card = card();
        assert!(card.benchmarks.len() >= 40);
        let mut ids = HashSet::new();
        for b in &card.benchmarks {
            for id in std::iter::once(&b.id).chain(&b.also) {
                assert!(ids.insert(id.clone()), "{id} is in the card twice");
            }
            assert!(!b.title.trim().is_empty(), "{}", b.id);
            assert!(!b.measures.is_empty(), "{}: no measure", b.id);
            assert!(!b.sources.is_empty(), "{}: no source", b.id);
            assert!(!b.queries.trim().is_empty() && !b.grades.trim().is_empty());
            assert!(
                b.qrels.is_some() == b.parts.is_empty(),
                "{}: qrels or parts, one of the two",
                b.id
            );
            if let Some(key) = &b.dua {
                assert!(card.dua.contains_key(key), "{}: no dua `{key}`", b.id);
            }
            for part in &b.parts {
                assert!(card.find(part).is_some_and(|p| p.qrels.is_some()), "{part}");
            }
            if let Some(md5) = b.qrels.as_ref().and_then(|q| q.md5.as_ref()) {
                assert!(md5.len() == 32 && md5.bytes().all(|c| c.is_ascii_hexdigit()));
            }
            for measure in &b.measures {
                let metric = registry::parse_metric(&measure.metric)
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", b.id, measure.metric));
                // Written out: a binary measure names its level, so that
                // `--rel` cannot move it.
                let name = metric.name();
                assert!(
                    name.starts_with("ndcg") || name.contains("rel="),
                    "{}: {name} does not name its level",
                    b.id
                );
            }
        }
        // The benchmarks the issue names.
        for id in [
            "msmarco-passage/dev/small",
            "msmarco-passage/trec-dl-2019",
            "msmarco-passage-v2/trec-dl-2023",
            "msmarco-document/dev",
            "msmarco-document-v2/trec-dl-2022",
            "beir/cqadupstack",
            "lotte/pooled/test/search",
            "cord19/trec-covid",
            "trec-robust04",
            "beir/nfcorpus/test",
            "beir/scifact/test",
            "beir/arguana",
            "beir/webis-touche2020/v2",
            "beir/quora/test",
        ] {
            assert!(card.find(id).is_some(), "{id}");
        }
        assert_eq!(
            card.find("beir/cqadupstack").map(|b| b.parts.len()),
            Some(12)
        );
    }
}
