//! `rankeval metrics`: every registered metric, aggregator and corpus metric, from the
//! registry itself, sorted by name.

use rankeval_core::registry::{self, Descriptor, PARAM_REL, Plugin, WRAPPING_PARAMS};

use rankeval::corpus::CorpusInput;

/// Arguments of `rankeval metrics`.
#[derive(Debug, clap::Args)]
pub(super) struct MetricsArgs {
    /// List only these: a name or alias (`ndcg`, `map`), or part of a name
    /// (`ndcg` also lists `ndcg_gain_map`); every one when none is given.
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// `text` for people, `json` for scripts (every plugin with its
    /// aliases, summary, parameters and an example).
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
}

/// How `rankeval metrics` prints.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ListFormat {
    /// Aligned text.
    Text,
    /// One JSON document.
    Json,
}

/// The listing `args` ask for; an error when a name matches nothing.
pub(super) fn listing(args: &MetricsArgs) -> Result<String, String> {
    let wanted: Vec<String> = args.names.iter().map(|n| n.to_ascii_lowercase()).collect();
    // A wanted name picks a plugin whose name holds it or whose alias it is.
    let picks = |w: &str, name: &str, aliases: &[&str]| name.contains(w) || aliases.contains(&w);
    let keep = |name: &str, aliases: &[&str]| {
        wanted.is_empty() || wanted.iter().any(|w| picks(w, name, aliases))
    };
    let metrics = filtered(registry::metrics(), &keep);
    let aggregators = filtered(registry::aggregators(), &keep);
    let corpus = filtered(registry::corpus_metrics(), &keep);
    for (name, w) in args.names.iter().zip(&wanted) {
        let matched = |n: &str, aliases: &[&str]| picks(w, n, aliases);
        if !metrics.iter().any(|d| matched(d.name, d.aliases))
            && !aggregators.iter().any(|d| matched(d.name, d.aliases))
            && !corpus.iter().any(|d| matched(d.name, d.aliases))
        {
            // A trec_eval name (`P_10`) or a misspelling: the registry's words.
            let hint = registry::parse_metric(name)
                .err()
                .map(|e| format!(": {}", rankeval::config::plugin_message(&e)))
                .unwrap_or_default();
            return Err(format!(
                "no metric, aggregator or corpus metric is called `{name}`{hint}"
            ));
        }
    }
    Ok(match args.format {
        ListFormat::Json => json(&metrics, &aggregators, &corpus),
        ListFormat::Text if wanted.is_empty() => render(),
        ListFormat::Text => text(&metrics, &aggregators, &corpus, false),
    })
}

/// The descriptors `keep` keeps, in the registry's order.
fn filtered<T: Plugin + ?Sized>(
    descriptors: Vec<&'static Descriptor<T>>,
    keep: &impl Fn(&str, &[&str]) -> bool,
) -> Vec<&'static Descriptor<T>> {
    descriptors
        .into_iter()
        .filter(|d| keep(d.name, d.aliases))
        .collect()
}

/// The whole listing as text.
pub(super) fn render() -> String {
    text(
        &registry::metrics(),
        &registry::aggregators(),
        &registry::corpus_metrics(),
        true,
    )
}

/// The listing of these plugins as text; the sections without one are
/// left out, and the notes on the syntax come only with the whole listing.
fn text(
    metrics: &[&'static Descriptor<dyn rankeval_core::Metric>],
    aggregators: &[&'static Descriptor<dyn rankeval_core::Aggregator>],
    corpus: &[&'static Descriptor<dyn rankeval_core::CorpusMetric>],
    whole: bool,
) -> String {
    let mut out = String::new();
    if whole || !metrics.is_empty() {
        out.push_str("Metrics (use the name or an alias in -m and in TOML `type`):\n");
        section(&mut out, metrics, |d| (d.example)().name(), level_note);
    }
    if whole || !aggregators.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("Aggregators (-a, TOML [[aggregators]]):\n");
        section(&mut out, aggregators, |d| (d.example)().name(), |_| None);
    }
    if whole || !corpus.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(
            "Corpus metrics (one value per run, beyond accuracy; in -m and TOML [[metrics]]\n\
             like the others; their inputs: --catalog, --train, --item-features, TOML catalog,\n\
             training, item_features):\n",
        );
        section(&mut out, corpus, |d| (d.example)().name(), needs_note);
    }
    if whole {
        out.push_str(
            "\nShort syntax: name(param=value,...)@k, e.g. ap(norm=truncated)@10 or \
             precision(denominator=retrieved,rel=2)@5.\n",
        );
        for param in WRAPPING_PARAMS {
            out.push_str(&format!(
                "Every metric also takes `{}`: {}.\n",
                param.name, param.doc
            ));
        }
    }
    out
}

/// The listing as one JSON document, for scripts: per kind, every
/// plugin's name, aliases, summary, parameters (name, alias, default,
/// doc) and an example in the short syntax.
fn json(
    metrics: &[&'static Descriptor<dyn rankeval_core::Metric>],
    aggregators: &[&'static Descriptor<dyn rankeval_core::Aggregator>],
    corpus: &[&'static Descriptor<dyn rankeval_core::CorpusMetric>],
) -> String {
    fn entries<T: Plugin + ?Sized>(
        descriptors: &[&'static Descriptor<T>],
        example: impl Fn(&Descriptor<T>) -> String,
    ) -> serde_json::Value {
        descriptors
            .iter()
            .map(|d| {
                serde_json::json!({
                    "name": d.name,
                    "aliases": d.aliases,
                    "summary": d.summary,
                    "params": d.params.iter().map(|p| serde_json::json!({
                        "name": p.name,
                        "alias": p.alias,
                        "default": p.default,
                        "doc": p.doc,
                    })).collect::<Vec<_>>(),
                    "example": example(d),
                })
            })
            .collect()
    }
    let document = serde_json::json!({
        "metrics": entries(metrics, |d| (d.example)().name()),
        "aggregators": entries(aggregators, |d| (d.example)().name()),
        "corpus_metrics": entries(corpus, |d| (d.example)().name()),
    });
    let mut text = serde_json::to_string_pretty(&document)
        .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
    text.push('\n');
    text
}

fn section<T: Plugin + ?Sized>(
    out: &mut String,
    descriptors: &[&'static Descriptor<T>],
    example: impl Fn(&Descriptor<T>) -> String,
    note: impl Fn(&Descriptor<T>) -> Option<String>,
) {
    for d in descriptors {
        out.push('\n');
        out.push_str(&format!("  {}", d.name));
        if !d.aliases.is_empty() {
            out.push_str(&format!(" ({})", d.aliases.join(", ")));
        }
        out.push('\n');
        out.push_str(&format!("      {}\n", d.summary));
        let width = d
            .params
            .iter()
            .map(|p| param_label(p.name, p.alias).len())
            .max()
            .unwrap_or(0);
        let default_width = d.params.iter().map(|p| p.default.len()).max().unwrap_or(0);
        let indent = 6 + width + 2 + default_width + 2;
        for p in d.params {
            let head = format!(
                "      {:<width$}  {:<default_width$}  ",
                param_label(p.name, p.alias),
                p.default
            );
            out.push_str(&head);
            out.push_str(&wrap(
                p.doc,
                indent,
                LINE_WIDTH.saturating_sub(indent).max(30),
            ));
            out.push('\n');
        }
        if let Some(note) = note(d) {
            out.push_str(&format!("      {}\n", wrap(&note, 6, LINE_WIDTH - 6)));
        }
        out.push_str(&format!("      example: {}\n", example(d)));
    }
}

/// For a metric without a `rel` parameter: that the experiment's relevance
/// level does not change it (a `--rel` given for it alone is a warning).
fn level_note(d: &Descriptor<dyn rankeval_core::Metric>) -> Option<String> {
    let has_rel = d.params.iter().any(|p| p.name == PARAM_REL.name);
    let level = (!has_rel).then(|| {
        "no rel: no relevance level plays a part (graded metrics use grades as gains), so \
         --rel and TOML `rel` do not change it"
            .to_owned()
    });
    let notes: Vec<String> = level.into_iter().chain(requirement_note(d)).collect();
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// For a metric that needs more than qrels and run (`Metric::requires`):
/// the inputs, by flag and TOML key.
fn requirement_note(d: &Descriptor<dyn rankeval_core::Metric>) -> Option<String> {
    use rankeval::corpus::{doc_groups_input as g, propensity_input as p, subtopic_input as s};
    use rankeval_core::Requirement;
    let metric = (d.example)();
    let needs: Vec<String> = metric
        .requires()
        .iter()
        .filter_map(|r| match r {
            Requirement::Subtopics => Some(format!("{} (TOML {})", s::FLAG, s::KEY)),
            Requirement::DocumentGroups => Some(format!("{} (TOML {})", g::FLAG, g::KEY)),
            Requirement::GroupTargets => Some(format!(
                "{} (TOML {})",
                rankeval::corpus::group_targets_input::FLAG,
                rankeval::corpus::group_targets_input::KEY
            )),
            Requirement::Propensities => Some(format!(
                "{} with {}, or {} (TOML {}, {}, {})",
                p::COUNTS_FLAG,
                p::INSTANCES_FLAG,
                p::INVERSE_FLAG,
                p::COUNTS_KEY,
                p::INSTANCES_KEY,
                p::INVERSE_KEY
            )),
            _ => None,
        })
        .collect();
    (!needs.is_empty()).then(|| format!("needs: {}", needs.join(", ")))
}

/// For a corpus metric: the inputs it needs with its default parameters
/// (its example's, if it has a required one), by flag and TOML key.
fn needs_note(d: &Descriptor<dyn rankeval_core::CorpusMetric>) -> Option<String> {
    let metric = registry::parse_corpus_metric(d.name).unwrap_or_else(|_| (d.example)());
    let needs: Vec<String> = CorpusInput::ALL
        .into_iter()
        .filter(|input| input.required_by(metric.requires()))
        .map(|input| format!("{} (TOML {})", input.flag(), input.key()))
        .collect();
    Some(if needs.is_empty() {
        "needs: the run only".to_owned()
    } else {
        format!("needs: {}", needs.join(", "))
    })
}

/// Lines of the listing stay within this many columns where they can.
const LINE_WIDTH: usize = 100;

/// `text` wrapped at `width` columns, continuation lines indented by `indent`.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line_len > 0 && line_len + 1 + len > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += len;
    }
    out
}

fn param_label(name: &str, alias: Option<&str>) -> String {
    match alias {
        Some(alias) => format!("{name} ({alias})"),
        None => name.to_owned(),
    }
}
