//! `rankeval metrics`: every registered metric, aggregator and corpus metric, from the
//! registry itself, sorted by name.

use rankeval_core::registry::{self, Descriptor, PARAM_REL, PARAM_TIES, Plugin};

use rankeval::corpus::CorpusInput;

/// The listing as text.
pub(super) fn render() -> String {
    let mut out = String::from("Metrics (use the name or an alias in -m and in TOML `type`):\n");
    section(
        &mut out,
        &registry::metrics(),
        |d| (d.example)().name(),
        level_note,
    );
    out.push_str("\nAggregators (-a, TOML [[aggregators]]):\n");
    section(
        &mut out,
        &registry::aggregators(),
        |d| (d.example)().name(),
        |_| None,
    );
    out.push_str(
        "\nCorpus metrics (one value per run, beyond accuracy; in -m and TOML [[metrics]]\n\
         like the others; their inputs: --catalog, --train, --item-features, TOML catalog,\n\
         training, item_features):\n",
    );
    section(
        &mut out,
        &registry::corpus_metrics(),
        |d| (d.example)().name(),
        needs_note,
    );
    out.push_str(
        "\nShort syntax: name(param=value,...)@k, e.g. ap(norm=truncated)@10 or \
         precision(denominator=retrieved,rel=2)@5.\n",
    );
    out.push_str(&format!(
        "Every metric also takes `{}`: {}.\n",
        PARAM_TIES.name, PARAM_TIES.doc
    ));
    out
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
    (!has_rel).then(|| {
        "no rel: no relevance level plays a part (graded metrics use grades as gains), so \
         --rel and TOML `rel` do not change it"
            .to_owned()
    })
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
