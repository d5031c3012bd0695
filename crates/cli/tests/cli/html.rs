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

/// The changed queries' explain tables come from the lists the evaluation
/// read (`Experiment::run` keeps them), not from reading the inputs again:
/// with every input a FIFO, written once, the page is made and holds the
/// tables. Read twice, a FIFO waits for a writer that never comes.
#[cfg(unix)]
#[test]
fn every_input_is_read_once_for_the_html_page() {
    use std::process::{Command, Stdio};
    let example = workspace().join("examples/judgements");
    let dir = scratch(&[]);
    let files = [
        ("qrels.txt", example.join("human.qrels")),
        ("bm25.trec", example.join("bm25.trec")),
        ("dense.trec", example.join("dense.trec")),
    ];
    let mut writers = Vec::new();
    for (fifo, source) in &files {
        let fifo = dir.path().join(fifo);
        let made = Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let text = std::fs::read(source).unwrap();
        // Opening blocks until rankeval opens the other end, once.
        writers.push(std::thread::spawn(move || {
            let _ = std::fs::write(&fifo, text);
        }));
    }
    // The page goes to a file: a pipe nobody reads while waiting would fill.
    let page = dir.path().join("page.html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args([
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "bm25.trec",
            "--run",
            "dense.trec",
            "-m",
            "ndcg@10",
            "--format",
            "html",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::from(std::fs::File::create(&page).unwrap()))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    super::wait_or_fail(
        &mut child,
        "rankeval reads an input twice for the HTML page",
    );
    for writer in writers {
        writer.join().unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let (html, stderr) = (
        std::fs::read_to_string(&page).unwrap(),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stderr}");
    assert!(html.contains("class=\"explained\""), "no explained query");
    assert!(!html.contains("No table:"), "a query was not explained");
    assert!(!html.contains("could not be read again"));
}

/// No code of the renderers crate calls a reader: it receives data.
#[test]
fn the_renderers_read_no_input() {
    let mut folders = vec![workspace().join("crates/report/src")];
    let mut files = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for reader in [
            "rankeval::read",
            "read_qrels",
            "read_run",
            "rankeval_readers",
        ] {
            assert!(
                !text.contains(reader),
                "{} calls a reader ({reader})",
                path.display()
            );
        }
    }
}

/// `--title` (TOML `title`) names the page: its title and heading,
/// escaped; a blank, multi-line or paragraph-long title is refused in each
/// front end's words.
#[test]
fn a_title_names_the_page_from_flags_and_toml() {
    let example = workspace().join("examples/judgements");
    let qrels = example.join("human.qrels").display().to_string();
    let bm25 = example.join("bm25.trec").display().to_string();
    let dense = example.join("dense.trec").display().to_string();
    let eval = |title: &str| {
        run(&[
            "eval", "--qrels", &qrels, "--run", &bm25, "--run", &dense, "-m", "p@5", "--format",
            "html", "--title", title,
        ])
    };
    let (code, html, stderr) = eval("Weekly <v2> vs prod");
    assert_eq!(code, 0, "{stderr}");
    assert!(html.contains("<title>Weekly &lt;v2&gt; vs prod</title>"));
    assert!(html.contains("<h1>Weekly &lt;v2&gt; vs prod</h1>"));
    let (_, untitled, _) = run(&[
        "eval", "--qrels", &qrels, "--run", &bm25, "-m", "p@5", "--format", "html",
    ]);
    assert!(untitled.contains("<h1>rankeval report</h1>"));

    let long = "x".repeat(201);
    for (title, message) in [
        ("  ", "--title   : a title cannot be blank"),
        ("a\nb", "a title cannot be blank nor hold a tab, newline"),
        (long.as_str(), "the title has 201 characters; at most 200"),
    ] {
        let (code, _, stderr) = eval(title);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }

    let toml = |title: &str| {
        format!(
            "qrels = \"{qrels}\"\nmetrics = [\"p@5\"]\ntitle = \"{title}\"\n\n[[runs]]\npath = \
             \"{bm25}\"\n\n[[runs]]\npath = \"{dense}\"\n"
        )
    };
    let dir = scratch(&[
        ("good.toml", &toml("From TOML")),
        ("bad.toml", &toml("a\\tb")),
    ]);
    let (code, html, stderr) = super::run_in(dir.path(), &["run", "good.toml", "--format", "html"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(html.contains("<h1>From TOML</h1>"));
    let (code, _, stderr) = super::run_in(dir.path(), &["run", "bad.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.toml:3: title: a title cannot be blank nor hold a tab"),
        "{stderr}"
    );
}
