//! Expected exposure on expeval's own example and on hand-worked cases.

use rankeval_core::{Grade, JudgedRanking, Judgement, Metric, RelevanceLevel, Samples};

use super::exposure::Model;
use super::plugins::{EeD, EeL, EeR};

fn j(grade: Option<Grade>) -> Judgement {
    grade.map_or(Judgement::UNJUDGED, Judgement::judged)
}

/// The three metrics, raw and normalised, on `samples` (each a list of
/// (document number, grade)) against `ideal`.
fn values(model: Model, samples: &[&[(u32, Option<Grade>)]], ideal: &[Grade]) -> [f64; 6] {
    let judged: Vec<Vec<Judgement>> = samples
        .iter()
        .map(|s| s.iter().map(|&(_, g)| j(g)).collect())
        .collect();
    let docs: Vec<Vec<u32>> = samples
        .iter()
        .map(|s| s.iter().map(|&(d, _)| d).collect())
        .collect();
    let num_docs = docs
        .iter()
        .flatten()
        .map(|&d| d as usize + 1)
        .max()
        .unwrap_or(0);
    let rankings: Vec<JudgedRanking<'_>> = judged
        .iter()
        .map(|r| JudgedRanking::new(r, r.len(), ideal, RelevanceLevel::default()))
        .collect();
    let samples = Samples::new(&rankings, &docs, num_docs);
    let d = EeD {
        model,
        ..EeD::default()
    };
    let r = EeR {
        model,
        ..EeR::default()
    };
    let l = EeL {
        model,
        ..EeL::default()
    };
    let raw = |m: &dyn Metric| m.score_samples(&samples);
    [
        raw(&EeD {
            norm: false,
            ..d.clone()
        }),
        raw(&EeR {
            norm: false,
            ..r.clone()
        }),
        raw(&EeL {
            norm: false,
            ..l.clone()
        }),
        raw(&d),
        raw(&r),
        raw(&l),
    ]
}

fn close(got: [f64; 6], want: [f64; 6]) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-15, "{got:?} != {want:?}");
    }
}

#[test]
fn expevals_example() {
    // expeval's README example: two sampled rankings [d1, d2, d3] and
    // [d2, d1, d3], d1 and d2 relevant, RBP with p = 0.5.
    let one: &[(u32, Option<Grade>)] = &[(0, Some(1.0)), (1, Some(1.0)), (2, None)];
    let two: &[(u32, Option<Grade>)] = &[(1, Some(1.0)), (0, Some(1.0)), (2, None)];
    close(
        values(Model::Rbp, &[one, two], &[1.0, 1.0]),
        [1.1875, 1.125, 0.0625, 0.890625, 1.0, 0.02],
    );
}

#[test]
fn gerr_by_hand() {
    // gERR, p = u = 0.5: sample 1 exposes d1, d2, d3 with 1, 0.5 * 0.5,
    // 0.25 * 0.25; the mean is 0.625, 0.625, 0.0625. Target: q = 0.25,
    // (1 - q^2) / (2 (1 - q)) = 0.625 each.
    let one: &[(u32, Option<Grade>)] = &[(0, Some(1.0)), (1, Some(1.0)), (2, None)];
    let two: &[(u32, Option<Grade>)] = &[(1, Some(1.0)), (0, Some(1.0)), (2, None)];
    let ee_d = 2.0 * 0.625 * 0.625 + 0.0625 * 0.0625;
    let ee_r = 2.0 * 0.625 * 0.625;
    let ee_l = 0.0625 * 0.0625;
    close(
        values(Model::Gerr, &[one, two], &[1.0, 1.0]),
        [
            ee_d,
            ee_r,
            ee_l,
            ee_d * 0.75,
            1.0,
            ee_l / (ee_r + 1.0 / (1.0 - 0.25)),
        ],
    );
}

#[test]
fn graded_levels_and_a_relevant_document_not_retrieved() {
    // Grades 2 and 1, RBP p = 0.5: targets 1 (level 2) and 0.5 (level 1).
    // Ranking [b (1), a (2)]: exposures 1 and 0.5.
    let ranking: &[(u32, Option<Grade>)] = &[(0, Some(1.0)), (1, Some(2.0))];
    close(
        values(Model::Rbp, &[ranking], &[2.0, 1.0]),
        [1.25, 1.0, 0.5, 1.25 * 0.75, 1.0 / 1.25, 0.5 / (1.25 + 2.0)],
    );
    // [b] alone: a's target is lost, 0.25 + 1.
    let short: &[(u32, Option<Grade>)] = &[(0, Some(1.0))];
    close(
        values(Model::Rbp, &[short], &[2.0, 1.0]),
        [1.0, 0.5, 1.25, 0.75, 0.5 / 1.25, 1.25 / 3.25],
    );
}

#[test]
fn a_deterministic_ranking_is_one_sample() {
    let ranked = [j(Some(1.0)), j(Some(1.0)), j(None)];
    let ideal = [1.0, 1.0];
    let q = JudgedRanking::new(&ranked, 3, &ideal, RelevanceLevel::default());
    let m = EeD {
        model: Model::Rbp,
        norm: false,
        ..EeD::default()
    };
    assert_eq!(m.score(&q), 1.0 + 0.25 + 0.0625);
    let m = EeR {
        model: Model::Rbp,
        norm: false,
        ..EeR::default()
    };
    assert_eq!(m.score(&q), 0.75 * 1.5);
    let m = EeL {
        model: Model::Rbp,
        norm: false,
        ..EeL::default()
    };
    assert_eq!(m.score(&q), 3.0 * 0.0625);
    assert_eq!(m.explain(&q).value.to_bits(), m.score(&q).to_bits());
    // An empty ranking: no exposure; the loss is the target's norm.
    let q = JudgedRanking::new(&[], 0, &ideal, RelevanceLevel::default());
    assert_eq!(m.score(&q), 2.0 * 0.75 * 0.75);
    assert_eq!(
        EeD {
            norm: false,
            ..EeD::default()
        }
        .score(&q),
        0.0
    );
}

#[test]
fn names_and_parameters() {
    let m: Box<dyn Metric> =
        rankeval_core::registry::parse_metric("ee_d(model=rbp,p=0.8)").unwrap();
    assert_eq!(m.name(), "ee_d(model=rbp,p=0.8)");
    assert_eq!(EeL::default().name(), "ee_l");
    assert_eq!(
        EeR {
            norm: false,
            ..EeR::default()
        }
        .name(),
        "ee_r(norm=false)"
    );
    for bad in [
        "ee_d(p=1)",
        "ee_d(p=-0.1)",
        "ee_l(u=2)",
        "ee_r(model=rbp,u=0.3)",
        "ee_d(model=dcg)",
    ] {
        assert!(rankeval_core::registry::parse_metric(bad).is_err(), "{bad}");
    }
}

#[test]
fn explain_samples_gives_each_documents_exposure_and_target() {
    // expeval's example: e = (0.75, 0.75, 0.25), e* = (0.75, 0.75, 0).
    let judged = [
        vec![j(Some(1.0)), j(Some(1.0)), j(None)],
        vec![j(Some(1.0)), j(Some(1.0)), j(None)],
    ];
    let docs = vec![vec![0, 1, 2], vec![1, 0, 2]];
    let ideal = [1.0, 1.0];
    let rankings: Vec<JudgedRanking<'_>> = judged
        .iter()
        .map(|r| JudgedRanking::new(r, r.len(), &ideal, RelevanceLevel::default()))
        .collect();
    let samples = Samples::new(&rankings, &docs, 3);
    for metric in [
        Box::new(EeL {
            model: Model::Rbp,
            ..EeL::default()
        }) as Box<dyn Metric>,
        Box::new(EeD {
            model: Model::Rbp,
            norm: false,
            ..EeD::default()
        }),
        Box::new(EeR::default()),
    ] {
        let e = metric.explain_samples(&samples);
        assert_eq!(e.value.to_bits(), metric.score_samples(&samples).to_bits());
        assert!(
            e.formula.contains("averaged over 2 samples"),
            "{}",
            e.formula
        );
    }
    let e = EeL {
        model: Model::Rbp,
        ..EeL::default()
    }
    .explain_samples(&samples);
    assert_eq!(
        e.columns[0].values,
        vec![Some(0.75), Some(0.75), Some(0.25)]
    );
    assert_eq!(e.columns[1].values, vec![Some(0.75), Some(0.75), Some(0.0)]);
    assert!(
        e.quantities
            .iter()
            .any(|q| q.name == "EE-L = ||e - e*||^2" && q.value == 0.0625)
    );
    // A metric scored per sample explains itself as the mean.
    let e = crate::fairness::plugins::Awrf::default().explain_samples(&samples);
    assert_eq!(e.quantities.len(), 2);
    assert!(e.formula.contains("mean over 2 samples"), "{}", e.formula);
}
