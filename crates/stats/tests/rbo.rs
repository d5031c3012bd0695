//! Rank-biased overlap against Corsi and Urbano's reference values: the
//! file `rbo/test.csv` of github.com/julian-urbano/sigir2024-rbo (commit
//! 0338fd9), written by their `rbo/R/test.R` with their R implementation:
//! pairs of rankings with ties (`a (b c) d`: parentheses group tied items),
//! a persistence `p`, and the twelve scores `{w,a,b}.{ext,min,max,res}`.
//!
//! The repository keeps its first 2000 rows (`tests/data/rbo_corsi_urbano.csv`,
//! 600 KB of the file's 3 MB; the data are CC BY-SA 4.0, M. Corsi and J.
//! Urbano, "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024).
//! Set `RANKEVAL_RBO_TEST_CSV` to the whole file to check all 10000 rows:
//!
//! ```text
//! git -C sigir2024-rbo show HEAD:rbo/test.csv > /tmp/rbo-test.csv
//! RANKEVAL_RBO_TEST_CSV=/tmp/rbo-test.csv cargo test -p rankeval-stats --test tests rbo
//! ```

use rankeval_stats::rbo::{RboTies, TiedRanking, rbo};

/// Parses a ranking of the test file: items separated by spaces, a tie
/// group in parentheses.
fn ranking(text: &str) -> TiedRanking<String> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut open = false;
    for word in text.split(' ') {
        let name = word.trim_matches(|c| c == '(' || c == ')').to_owned();
        if open {
            groups.last_mut().unwrap().push(name);
        } else {
            groups.push(vec![name]);
        }
        if word.starts_with('(') {
            open = true;
        }
        if word.ends_with(')') {
            open = false;
        }
    }
    assert!(!open, "unclosed group in {text}");
    TiedRanking::from_groups(groups)
}

/// Checks every row of a test file; returns the rows and the largest
/// absolute difference.
fn check(text: &str) -> (usize, f64) {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "x,y,p,w.ext,w.min,w.max,w.res,a.ext,a.min,a.max,a.res,b.ext,b.min,b.max,b.res"
    );
    let mut rows = 0;
    let mut worst = 0.0f64;
    for (n, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 15, "row {}", n + 2);
        let (x, y) = (ranking(fields[0]), ranking(fields[1]));
        let p: f64 = fields[2].parse().unwrap();
        for (t, ties) in [RboTies::W, RboTies::A, RboTies::B].into_iter().enumerate() {
            let got = rbo(&x, &y, p, ties).unwrap();
            for (s, value) in [got.ext, got.min, got.max, got.res].into_iter().enumerate() {
                let want: f64 = fields[3 + 4 * t + s].parse().unwrap();
                let difference = (value - want).abs();
                assert!(
                    difference <= 1e-12,
                    "row {}: {}.{}: {value} but the reference has {want} ({} vs {}, p = {p})",
                    n + 2,
                    ties.name(),
                    ["ext", "min", "max", "res"][s],
                    fields[0],
                    fields[1]
                );
                worst = worst.max(difference);
            }
        }
        rows += 1;
    }
    (rows, worst)
}

#[test]
fn corsi_urbano_reference_values() {
    let (rows, worst) = check(include_str!("data/rbo_corsi_urbano.csv"));
    assert_eq!(rows, 2000);
    eprintln!("rbo: {rows} rows, 12 scores each, largest difference {worst:e}");
}

#[test]
fn corsi_urbano_whole_file_when_given() {
    let Ok(path) = std::env::var("RANKEVAL_RBO_TEST_CSV") else {
        return;
    };
    let (rows, worst) = check(&std::fs::read_to_string(path).unwrap());
    assert_eq!(rows, 10000);
    eprintln!("rbo: {rows} rows, 12 scores each, largest difference {worst:e}");
}

#[test]
fn the_readme_examples() {
    // rbo/Python/README.md: x and y with ties, p = 0.95, to 7 places.
    let x = ranking("red (blue green) yellow pink");
    let y = ranking("(blue red) white (yellow black purple) green");
    let cases = [
        (RboTies::A, [0.6922853, 0.3310519, 0.8930692, 0.5620173]),
        (RboTies::W, [0.7068257, 0.3429684, 0.9049857, 0.5620173]),
        (RboTies::B, [0.7207131, 0.3509163, 0.9129336, 0.5620173]),
    ];
    for (ties, want) in cases {
        let got = rbo(&x, &y, 0.95, ties).unwrap();
        for (value, want) in [got.ext, got.min, got.max, got.res].into_iter().zip(want) {
            assert!((value - want).abs() < 5e-8, "{ties:?}: {value} {want}");
        }
    }
}
