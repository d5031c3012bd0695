//! Any text as a metric and as an aggregator in the short syntax
//! (`ndcg@10`, `ap(norm=truncated)@10`): a metric or an error, never a
//! panic; a parsed metric's canonical name parses to the same name.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(metric) = rankeval::parse_metric(text) {
        let name = metric.name();
        let again = rankeval::parse_metric(&name)
            .unwrap_or_else(|e| panic!("canonical name `{name}` does not parse: {e}"));
        assert_eq!(again.name(), name);
    }
    let _ = rankeval::parse_aggregator(text);
});
