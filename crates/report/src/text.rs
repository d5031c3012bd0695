//! Rows of cells as text: aligned for a terminal (widths in terminal
//! columns, so wide characters count as two) or as a Markdown table. Every
//! report's tables share them.

use unicode_width::UnicodeWidthStr;

/// Rows aligned for a terminal, two spaces between columns, the columns
/// `left` marks on the left and the others on the right (a column past the
/// end of `left` on the right); trailing spaces trimmed.
pub fn aligned(rows: &[Vec<String>], left: &[bool]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.width())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let padding = " ".repeat(widths[c].saturating_sub(cell.width()));
            if c > 0 {
                line.push_str("  ");
            }
            if left.get(c).copied().unwrap_or(false) {
                line.push_str(cell);
                line.push_str(&padding);
            } else {
                line.push_str(&padding);
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A Markdown table of `rows` (the first is the header), the columns
/// `left` marks aligned left, the others right; `|` in a cell escaped.
pub fn markdown_table(rows: &[Vec<String>], left: &[bool]) -> String {
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if r == 0 {
            let rule: Vec<&str> = (0..row.len())
                .map(|c| {
                    if left.get(c).copied().unwrap_or(false) {
                        "---"
                    } else {
                        "---:"
                    }
                })
                .collect();
            out.push_str(&format!("| {} |\n", rule.join(" | ")));
        }
    }
    out
}

/// Keeps Markdown cells and text literal.
pub fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_left_or_right_by_terminal_width() {
        let rows = vec![
            vec!["run".to_owned(), "value".to_owned()],
            vec!["검색".to_owned(), "0.5".to_owned()],
        ];
        assert_eq!(aligned(&rows, &[true]), "run   value\n검색    0.5\n");
        assert_eq!(
            markdown_table(&rows, &[true]),
            "| run | value |\n| --- | ---: |\n| 검색 | 0.5 |\n"
        );
        assert_eq!(escape("a|b"), "a\\|b");
    }
}
