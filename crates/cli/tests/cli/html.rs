//! `--format html`: the page holds the same summary numbers as the table,
//! one chart of each kind per metric (and run), and writes with `-o`.

use super::{run, scratch, workspace};

const QUICKSTART: &str = "examples/quickstart/experiment.toml";

#[test]
fn the_html_summary_holds_the_tables_numbers() {
    let (code, table, _) = run(&["run", QUICKSTART]);
    assert_eq!(code, 0);
    let (code, html, stderr) = run(&["run", QUICKSTART, "--format", "html"]);
    assert_eq!(code, 0, "{stderr}");
    let summary = html
        .split("<table class=\"summary\">")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("a summary table");
    for line in table.lines().skip(1) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let row = format!(
            "<tr><td>{}</td>{}</tr>",
            cells[0],
            cells[1..]
                .iter()
                .map(|c| format!("<td class=\"num\">{c}</td>"))
                .collect::<String>()
        );
        assert!(summary.contains(&row), "{row} not in\n{summary}");
    }
    // The curves' metrics are not in the summary.
    assert!(!summary.contains("p@1<"));
    for (kind, count) in [
        ("distribution", 6),
        ("difference", 6),
        ("at-k", 3),
        ("precision-recall", 1),
    ] {
        let found = html.matches(&format!("data-chart=\"{kind}\"")).count();
        assert_eq!(found, count, "{kind} charts");
    }
}

#[test]
fn html_is_written_to_the_output_file() {
    let dir = scratch(&[]);
    let out = dir.path().join("report.html");
    let quickstart = workspace().join(QUICKSTART);
    let (code, stdout, stderr) = run(&[
        "run",
        quickstart.to_str().unwrap(),
        "--format",
        "html",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    let page = std::fs::read_to_string(out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
}

/// The HTML escape of text, as the page writes it.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn the_queries_that_changed_most_hold_explains_formulas() {
    let (code, html, stderr) = run(&["run", QUICKSTART, "--format", "html"]);
    assert_eq!(code, 0, "{stderr}");
    let queries: Vec<&str> = html
        .split("<details class=\"explained\" data-query=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    // The quickstart's 6 queries all change in ap, the headline metric.
    assert_eq!(queries.len(), 6, "{queries:?}");
    for query in queries {
        for run_name in ["baseline", "v2"] {
            let (code, text, stderr) = run(&[
                "explain", QUICKSTART, "--run", run_name, "--query", query, "-m", "ap",
            ]);
            assert_eq!(code, 0, "{stderr}");
            let formula = text.lines().find(|l| l.starts_with("ap = ")).unwrap();
            let cell = format!("<p class=\"formula\"><code>{}</code></p>", escaped(formula));
            assert!(html.contains(&cell), "{query} in {run_name}: {cell}");
        }
    }
}
