//! The registry's invariants, checked at test time (typetag only notices a
//! clash when it deserializes), and the errors a user sees for a bad name.

use rankeval_core::registry::{self, parse_aggregator, parse_metric};
use rankeval_core::{PluginError, PluginKind, testing};

#[test]
fn invariants_hold() {
    registry::check().unwrap();
}

#[test]
fn every_example_round_trips_through_serde_and_its_canonical_name() {
    testing::check_round_trips().unwrap();
}

#[test]
fn the_built_ins_are_registered() {
    let names: Vec<&str> = registry::metrics().iter().map(|d| d.name).collect();
    for name in [
        "average_precision",
        "bpref",
        "dcg",
        "err",
        "f1",
        "fallout",
        "hit_rate",
        "judged",
        "ncrr",
        "ndcg",
        "num_rel",
        "num_rel_ret",
        "num_ret",
        "precision",
        "r_precision",
        "rbp",
        "recall",
        "reciprocal_rank",
        "roc_auc",
        "weighted",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "listings are sorted by name");
    let aggregators: Vec<&str> = registry::aggregators().iter().map(|d| d.name).collect();
    for name in ["gmean", "max", "mean", "median", "min", "std", "sum"] {
        assert!(
            aggregators.contains(&name),
            "{name} missing from {aggregators:?}"
        );
    }
}

#[test]
fn aliases_build_the_same_metric() {
    for (a, b) in [
        ("p@10", "precision@10"),
        ("mrr", "reciprocal_rank"),
        ("rr@5", "reciprocal_rank(k=5)"),
        ("map@10", "ap@10"),
        ("ap(norm=hits)", "average_precision(normalization=hits)"),
        ("success@3", "hit_rate@3"),
        ("P@10", "precision@10"),
        ("rprec", "r_precision"),
        ("Rprec(rel=2)", "r_precision(rel=2)"),
        ("set_f", "f1"),
        ("rank_biased_precision(p=0.9)@10", "rbp(p=0.9)@10"),
        ("expected_reciprocal_rank@20", "err(max_grade=4)@20"),
        ("nDCG@10", "ndcg(gain=linear,k=10)"),
    ] {
        assert_eq!(
            parse_metric(a).unwrap().name(),
            parse_metric(b).unwrap().name()
        );
    }
}

#[test]
fn every_documented_parameter_is_accepted_by_its_struct() {
    for d in registry::metrics() {
        // Parameters without a default (`required`) are given in every spec.
        let required: Vec<String> = d
            .params
            .iter()
            .filter(|p| p.default == "required")
            .map(|p| match p.name {
                // Integers: a cutoff and RecTools' catalogue size.
                "k" => "k=5".to_owned(),
                "catalog" => "catalog=50".to_owned(),
                _ => format!("{}=0.5", p.name),
            })
            .collect();
        for p in d.params {
            let value = match p.name {
                _ if p.default == "required" => continue,
                "k" => "5".to_owned(),
                "rel" => "2".to_owned(),
                "levels" => "\"0.25,0.5\"".to_owned(),
                _ if p.default == "required" => continue,
                _ => p.default.to_owned(),
            };
            let mut params = required.clone();
            params.push(match (d.name, p.name) {
                // Parameters that only act with another one set.
                ("weighted" | "dcg" | "ndcg", "rel") => "gain=binary,rel=2".to_owned(),
                ("f1", "beta2") => "beta2=0.5".to_owned(),
                ("weighted", "gains") => "gain=map,gains=\"1=2\"".to_owned(),
                _ => format!("{}={value}", p.name),
            });
            let spec = format!("{}({})", d.name, params.join(","));
            parse_metric(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
        if !required.is_empty() {
            let spec = format!("{}({})", d.name, required.join(","));
            parse_metric(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
    }
}

#[test]
fn unknown_metric_lists_close_names() {
    let error = parse_metric("precison@10").unwrap_err();
    assert_eq!(
        error,
        PluginError::Unknown {
            kind: PluginKind::Metric,
            name: "precison".into(),
            suggestions: vec!["precision", "r_precision"]
        }
    );
    assert_eq!(
        error.to_string(),
        "unknown metric `precison`; did you mean one of `precision`, `r_precision`?"
    );
    let error = parse_metric("bperf").unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown metric `bperf`; did you mean `bpref`?"
    );
}

#[test]
fn zero_cutoff_names_the_parameter() {
    let error = parse_metric("ap@0").unwrap_err();
    assert_eq!(error.param(), Some("k"));
    assert_eq!(
        error.to_string(),
        "metric `average_precision`: invalid value for parameter `k`: k must be a positive \
         integer; 0 is not a cutoff (leave k out to use the whole list)"
    );
}

#[test]
fn bad_values_and_unknown_parameters_name_the_parameter() {
    let error = parse_metric("ap(norm=trunc)@10").unwrap_err();
    assert_eq!(
        error.to_string(),
        "metric `average_precision`: invalid value for parameter `normalization`: unknown \
         variant `trunc`, expected one of `relevant`, `truncated`, `hits`, `k`"
    );
    let error = parse_metric("precision(denom=retrieved)").unwrap_err();
    assert_eq!(
        error.to_string(),
        "metric `precision` has no parameter `denom` (did you mean `denominator`?); its \
         parameters: `k`, `rel`, `denominator`, `ties`, `unjudged`, `judged_only`"
    );
    let error = parse_metric("p(rel=0)@5").unwrap_err();
    assert_eq!(error.param(), Some("rel"));
    let error = parse_metric("p(k=3)@5").unwrap_err();
    assert!(
        matches!(error, PluginError::RepeatedParam { param: "k", .. }),
        "{error}"
    );
}

#[test]
fn syntax_errors_point_at_the_offset() {
    let error = parse_metric("ap(norm=truncated@10").unwrap_err();
    assert_eq!(
        error.to_string(),
        "expected `,` or `)` at offset 17 in `ap(norm=truncated@10`, found `@`"
    );
}

#[test]
fn aggregator_aliases_and_parameters() {
    for (a, b) in [
        ("avg", "mean"),
        ("std_dev", "std(ddof=1)"),
        ("stdev(ddof=0)", "std(ddof=0)"),
        ("geometric_mean", "gmean(floor=0.00001)"),
        ("gm(floor=0.001)", "gmean(floor=0.001)"),
        ("total", "sum"),
    ] {
        assert_eq!(
            parse_aggregator(a).unwrap().name(),
            parse_aggregator(b).unwrap().name()
        );
    }
}

#[test]
fn out_of_range_parameters_are_refused_with_their_reason() {
    let error = parse_metric("rbp(p=1.5)").unwrap_err();
    assert_eq!(error.param(), Some("p"));
    assert!(
        error
            .to_string()
            .contains("p must be strictly between 0 and 1"),
        "{error}"
    );
    assert_eq!(parse_metric("rbp(p=1)").unwrap_err().param(), Some("p"));
    let error = parse_metric("rbp(rel=2,gain=graded)").unwrap_err();
    assert!(error.to_string().contains("rel has no effect"), "{error}");
    let error = parse_metric("err(max_grade=0)").unwrap_err();
    assert!(
        error.to_string().contains("max_grade must be from 1"),
        "{error}"
    );
    let error = parse_aggregator("gmean(floor=0)").unwrap_err();
    assert!(
        error.to_string().contains("floor must be a positive"),
        "{error}"
    );
    let error = parse_aggregator("std(ddof=-1)").unwrap_err();
    assert_eq!(error.param(), Some("ddof"));
}

#[test]
fn trec_eval_measure_names_point_at_their_metric() {
    for (measure, plugin, canonical) in [
        ("P_10", "precision", "p@10"),
        ("map_cut_10", "average_precision", "ap@10"),
        ("ndcg_cut_10", "ndcg", "ndcg@10"),
        ("recall_5", "recall", "r@5"),
        ("success_1", "hit_rate", "hit_rate@1"),
        ("recip_rank", "reciprocal_rank", "rr"),
        ("set_P", "precision", "p"),
        ("Rprec", "r_precision", "rprec"),
        ("set_F", "f1", "f1"),
    ] {
        let equivalent = registry::trec_eval_equivalent(measure).expect(measure);
        assert_eq!(
            (equivalent.plugin, equivalent.canonical.as_str()),
            (plugin, canonical),
            "{measure}"
        );
        // And that metric prints under this very trec_eval name.
        let metric = parse_metric(canonical).unwrap();
        assert_eq!(metric.trec_eval().unwrap().name, measure);
    }
    assert_eq!(
        registry::trec_eval_equivalent("P_10").unwrap().to_string(),
        "`p@10` (TOML: type = \"precision\", k = 10)"
    );
    for nothing in ["P_0", "gm_map", "ndgc", "P_x", "map_cut_"] {
        assert_eq!(registry::trec_eval_equivalent(nothing), None, "{nothing}");
    }
    // The unknown-name error points at the metric, not at names spelt alike.
    assert_eq!(
        parse_metric("map_cut_10").unwrap_err().to_string(),
        "unknown metric `map_cut_10`; did you mean `average_precision`?"
    );
}

#[test]
fn every_trec_eval_name_a_metric_declares_leads_back_to_it() {
    for descriptor in registry::metrics() {
        for spec in [
            descriptor.name.to_owned(),
            format!("{}@10", descriptor.name),
        ] {
            let Ok(metric) = parse_metric(&spec) else {
                continue;
            };
            if let Some(measure) = metric.trec_eval() {
                let equivalent = registry::trec_eval_equivalent(&measure.name)
                    .unwrap_or_else(|| panic!("{spec}: {}", measure.name));
                assert_eq!(equivalent.canonical, metric.name(), "{}", measure.name);
            }
        }
    }
}

#[test]
fn a_cutoff_too_large_says_so_in_either_syntax() {
    let expected = format!(
        "metric `precision`: invalid value for parameter `k`: k is too large: the largest \
         cutoff is {}",
        usize::MAX
    );
    for spec in ["p@99999999999999999999", "p(k=99999999999999999999)"] {
        assert_eq!(
            parse_metric(spec).unwrap_err().to_string(),
            expected,
            "{spec}"
        );
    }
}

/// A canonical name never reads as a trec_eval measure unless the metric
/// computes that measure: `rbp` (p = 0.8, binary) is `rbp(p=0.8)`, since
/// trec_eval's `rbp` is p = 0.9 with graded gain.
#[test]
fn no_canonical_name_is_another_metrics_trec_eval_name() {
    let mut metrics: Vec<Box<dyn rankeval_core::Metric>> =
        registry::metrics().iter().map(|d| (d.example)()).collect();
    for spec in [
        "rbp",
        "g",
        "bin_g",
        "ndcg_rel",
        "rndcg",
        "infap",
        "set_map",
        "utility",
        "rbp_resid",
        "num_nonrel_judged_ret",
        "ndcg",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
    ] {
        metrics.push(parse_metric(spec).unwrap());
    }
    let trec_names: Vec<String> = metrics
        .iter()
        .filter_map(|m| m.trec_eval().map(|t| t.name))
        .collect();
    for metric in &metrics {
        let name = metric.name();
        if let Some(same) = trec_names.iter().find(|t| t.eq_ignore_ascii_case(&name)) {
            assert_eq!(
                metric.trec_eval().map(|t| t.name).as_ref(),
                Some(same),
                "`{name}` reads as trec_eval's `{same}` but computes something else"
            );
        }
    }
    assert_eq!(parse_metric("rbp").unwrap().name(), "rbp(p=0.8)");
    assert!(parse_metric("rbp").unwrap().trec_eval().is_none());
}

/// The corpus plugin shape: registered, listed sorted, every documented
/// parameter accepted at its default, aliases build the same metric, a bad
/// value refused by name, and `-m` reaching both kinds through one parser.
#[test]
fn corpus_metrics_are_plugins_of_their_own_kind() {
    use rankeval_core::registry::parse_corpus_metric;
    use rankeval_core::{RequestedMetric, parse_requested};

    let names: Vec<&str> = registry::corpus_metrics().iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "avg_popularity",
            "catalog_coverage",
            "entropy",
            "gini",
            "ild",
            "long_tail_share",
            "novelty"
        ]
    );
    for d in registry::corpus_metrics() {
        for p in d.params {
            let value = if p.name == "k" { "5" } else { p.default };
            let spec = format!("{}({}={value})", d.name, p.name);
            parse_corpus_metric(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
        // A corpus metric is not a per-query metric, and the reverse.
        assert!(parse_metric(d.name).is_err(), "{}", d.name);
    }
    for (a, b) in [
        ("coverage@10", "catalog_coverage(k=10)"),
        ("gini_index@5", "gini@5"),
        ("shannon_entropy", "entropy"),
        ("aplt(head_share=0.8)@10", "long_tail_share@10"),
        ("intra_list_diversity(distance=cosine)@3", "ild@3"),
    ] {
        assert_eq!(
            parse_corpus_metric(a).unwrap().name(),
            parse_corpus_metric(b).unwrap().name()
        );
    }
    let error = parse_corpus_metric("long_tail_share(head_share=0)").unwrap_err();
    assert!(
        error.to_string().contains("head_share must be above 0"),
        "{error}"
    );
    let error = parse_corpus_metric("ild(distance=jaccard)").unwrap_err();
    assert!(error.to_string().contains("cosine"), "{error}");
    assert!(matches!(
        parse_requested("ndcg@10").unwrap(),
        RequestedMetric::Query(_)
    ));
    assert!(matches!(
        parse_requested("coverage@10").unwrap(),
        RequestedMetric::Corpus(_)
    ));
    // Unknown to both kinds: suggestions from both.
    let error = parse_requested("novely@10").unwrap_err().to_string();
    assert!(error.contains("`novelty`"), "{error}");
    let error = parse_requested("precison@10").unwrap_err().to_string();
    assert!(error.contains("`precision`"), "{error}");
}

/// The parameters of the peers' definitions at their extremes: refused
/// with a message naming the parameter, or a finite value, never a panic.
#[test]
fn peers_parameters_at_their_extremes() {
    let refused = [
        ("nerr8@0", "k"),
        ("nerr9", "k"),
        ("inst(t=0)", "T"),
        ("insq(t=-1)", "T"),
        ("inst(t=1e400)", "t"),
        ("nerr11(t=1e300)", "T"),
        ("inst(min_rel=3,max_rel=3)", "min_rel"),
        ("nerr10(p=1)", "p"),
        ("compatibility(p=0)", "p"),
        ("compatibility(depth=4294967295)", "depth"),
        ("compatibility(depth=-1)", "depth"),
        ("accuracy@10", "catalog"),
        ("mcc(catalog=5)@10", "catalog"),
        ("accuracy(catalog=0)@1", "catalog"),
        ("mcc(catalog=18446744073709551616)@1", "catalog"),
        ("lrap(rel=1e300)", "rel"),
        ("bpm", "k"),
        ("bpm@0", "k"),
        ("bpm(t=0)@10", "T"),
        ("bpm(t=1e300)@10", "T"),
        ("bpm(min_rel=2,max_rel=1)@10", "min_rel"),
        ("sdcg", "k"),
        ("sdcg@0", "k"),
        ("sdcg(min_rel=1,max_rel=1)@10", "min_rel"),
    ];
    for (spec, names) in refused {
        let error = parse_metric(spec)
            .map(|m| m.name())
            .unwrap_err()
            .to_string();
        assert!(error.contains(names), "{spec}: {error}");
    }
    let q = testing::judged("2 . 0 1 - 3 1", &[2, 4]);
    for spec in [
        "nerr8@18446744073709551615",
        "nerr9(min_rel=-2147483648,max_rel=2147483647)@1",
        "inst(t=9007199254740992)",
        "insq(t=1e-300)",
        "nerr10(p=1e-300)",
        "compatibility(p=0.999999999,depth=10000000)",
        "compatibility(p=1e-300,depth=0)",
        "accuracy(catalog=18446744073709551615)@18446744073709551615",
        "mcc(catalog=18446744073709551615)@1",
        "lrap(rel=2147483647)",
        "average_precision_score(rel=0.001)",
        "bpm(t=9007199254740992)@18446744073709551615",
        "bpm(t=1e-300,min_rel=-2147483648,max_rel=2147483647)@1",
        "sdcg@18446744073709551615",
        "sdcg(min_rel=-2147483648,max_rel=2147483647)@1",
    ] {
        let metric = parse_metric(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let value = q.score(&*metric);
        assert!(value.is_finite(), "{spec} = {value}");
    }
}
