//! The lower-level registration macros. Plugins register with the
//! attributes [`metric`](macro@crate::metric),
//! [`aggregator`](macro@crate::aggregator) and
//! [`corpus_metric`](macro@crate::corpus_metric) on their impl, which name
//! them once and write both typetag's attribute and the registration; these
//! remain for an impl whose typetag attribute is written by hand (the
//! startup check, `registry::check`, then compares the two names).

/// Registers a metric so that it is known by name in TOML, in the short
/// syntax and in `rankeval metrics`. Prefer the attribute
/// [`#[rankeval_core::metric(...)]`](macro@crate::metric), which writes
/// the typetag name too.
///
/// Give the fields of a [`MetricDescriptor`](crate::registry::MetricDescriptor)
/// except `defined_at`, which the macro fills in. `name` must equal the
/// `#[typetag::serde(name = "...")]` of the `impl Metric`.
///
/// ```ignore
/// rankeval_core::register_metric! {
///     name: "hit_rate",
///     aliases: &["success"],
///     summary: "1 if a relevant document is in the top k, else 0",
///     params: &[PARAM_K, PARAM_REL],
///     example: || Box::new(HitRate { k: Cutoff::new(10), rel: None }),
/// }
/// ```
///
/// The crate that calls it must be linked into the binary: a binary that
/// never names the crate gets an empty registry for it, silently. Name it
/// once (`use my_metrics as _;`).
#[macro_export]
macro_rules! register_metric {
    ($($field:ident : $value:expr),+ $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::registry::MetricDescriptor {
                $($field: $value,)+
                defined_at: $crate::registry::Location {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    module: ::core::module_path!(),
                },
            }
        }
    };
}

/// Registers an aggregator, like [`register_metric!`](crate::register_metric)
/// does a metric.
#[macro_export]
macro_rules! register_aggregator {
    ($($field:ident : $value:expr),+ $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::registry::AggregatorDescriptor {
                $($field: $value,)+
                defined_at: $crate::registry::Location {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    module: ::core::module_path!(),
                },
            }
        }
    };
}

/// Registers a [`CorpusMetric`](crate::CorpusMetric), like
/// [`register_metric!`](crate::register_metric) does a metric.
#[macro_export]
macro_rules! register_corpus_metric {
    ($($field:ident : $value:expr),+ $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::registry::CorpusMetricDescriptor {
                $($field: $value,)+
                defined_at: $crate::registry::Location {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    module: ::core::module_path!(),
                },
            }
        }
    };
}
