//! The ir_metadata block that heads TREC runs from TIREx and repro_eval:
//! `# ir_metadata.start`, YAML lines each behind `#`, `# ir_metadata.end`
//! (repro_eval's `MetadataHandler.write_metadata` writes each YAML line as
//! `# LINE ` and `read_metadata` reads the block only when it opens the
//! file, stripping the `#`s). The block is kept as the run's metadata: its
//! `tag` and every field as a dotted path (`actor.team`) and its text, list
//! items as `path[i]`; the YAML read is the subset the ir_metadata schema
//! uses (nested mappings of scalars and lists of scalars). Anything else is
//! an error naming the block's line, never dropped: a line outside that
//! subset, a path given twice, a control character, invalid UTF-8, a block
//! of more than [`MAX_LINES`] lines or [`MAX_BYTES`] bytes.
//!
//! [`read_ir_metadata`](crate::read_ir_metadata) reads the block of a TREC
//! run input; the engine carries it into the report (`ir_metadata` of each
//! run in JSON) and the results history (docs/benchmarks.md).

use std::fmt;

/// The first line of a block, after its `#`.
pub const START: &str = "ir_metadata.start";
/// The last line of a block, after its `#`.
pub const END: &str = "ir_metadata.end";
/// The most lines a block may have.
pub const MAX_LINES: usize = 10_000;
/// The most bytes a block may have, its lines' ends included: no more than
/// this is read from the head of a run to look for one.
pub const MAX_BYTES: usize = 1 << 20;

/// A run's ir_metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IrMetadata {
    /// The top-level `tag`, the run's name in TIREx and repro_eval.
    pub tag: Option<String>,
    /// Every field, in the block's order: a dotted path and its text.
    pub fields: Vec<(String, String)>,
}

/// Why a block could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ir_metadata block, line {line}: {problem}")]
pub struct IrMetadataError {
    /// The line of the file (1 is the block's `# ir_metadata.start`).
    pub line: usize,
    /// What is wrong there.
    pub problem: String,
}

/// The text of a comment line after its leading whitespace and `#`s, or
/// `None` for a line that is not a comment.
fn comment_text(line: &str) -> Option<&str> {
    let text = line.trim_start_matches([' ', '\t', '\r', '\u{b}', '\u{c}']);
    text.starts_with('#').then(|| {
        text.trim_start_matches('#')
            .trim_end_matches(['\r', ' ', '\t'])
    })
}

/// Reads the ir_metadata block at the head of `lines` (a run file's lines,
/// from the first, without their newlines). `Ok(None)` when the first line
/// does not open a block, as repro_eval reads it.
pub fn parse<'a>(
    lines: impl IntoIterator<Item = &'a str>,
) -> Result<Option<IrMetadata>, IrMetadataError> {
    let mut lines = lines.into_iter();
    match lines.next().and_then(comment_text) {
        Some(text) if text.trim() == START => {}
        _ => return Ok(None),
    }
    let mut body: Vec<(usize, &str)> = Vec::new();
    let mut ended = false;
    for (index, line) in lines.enumerate() {
        let number = index + 2;
        if number > MAX_LINES {
            return Err(IrMetadataError {
                line: number,
                problem: format!("more than {MAX_LINES} lines without `# {END}`"),
            });
        }
        let Some(text) = comment_text(line) else {
            return Err(IrMetadataError {
                line: number,
                problem: format!("a line that is not a comment before `# {END}`"),
            });
        };
        if text.trim() == END {
            ended = true;
            break;
        }
        body.push((number, text));
    }
    if !ended {
        return Err(IrMetadataError {
            line: body.last().map_or(1, |(n, _)| *n),
            problem: format!("no `# {END}`"),
        });
    }
    read_yaml(&body).map(Some)
}

/// Reads the YAML subset: `key: value`, `key:` opening a deeper mapping or
/// a list, `- value` list items; blank lines and `#` comments skipped.
fn read_yaml(body: &[(usize, &str)]) -> Result<IrMetadata, IrMetadataError> {
    let mut metadata = IrMetadata::default();
    // The open mappings: (indentation, key), outermost first.
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut items: Vec<usize> = Vec::new();
    for &(number, line) in body {
        if let Some(c) = line.chars().find(|&c| c.is_control() && c != '\t') {
            return Err(IrMetadataError {
                line: number,
                problem: format!("a control character ({}) in the block", c.escape_unicode()),
            });
        }
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        // A list item may sit at its key's indentation (`key:` then `- a`).
        let item = content == "-" || content.starts_with("- ");
        while path
            .last()
            .is_some_and(|(i, _)| *i > indent || (*i == indent && !item))
        {
            path.pop();
            items.pop();
        }
        let joined = |key: &str| {
            let mut all: Vec<&str> = path.iter().map(|(_, k)| k.as_str()).collect();
            all.push(key);
            all.join(".")
        };
        let error = |problem: &str| IrMetadataError {
            line: number,
            problem: problem.to_owned(),
        };
        if let Some(item) = content
            .strip_prefix("- ")
            .or((content == "-").then_some(""))
        {
            let (Some((_, key)), Some(count)) = (path.last(), items.last_mut()) else {
                return Err(error("a list item outside a `key:`"));
            };
            let name = format!("{key}[{count}]");
            *count += 1;
            let prefix: Vec<&str> = path[..path.len() - 1]
                .iter()
                .map(|(_, k)| k.as_str())
                .collect();
            let full = if prefix.is_empty() {
                name
            } else {
                format!("{}.{name}", prefix.join("."))
            };
            push_field(&mut metadata, number, full, scalar(item))?;
            continue;
        }
        let Some((key, value)) = content.split_once(':') else {
            return Err(error("expected `key: value`, `key:` or `- item`"));
        };
        let key = scalar(key);
        if key.is_empty() {
            return Err(error("an empty key"));
        }
        let value = value.trim();
        if value.is_empty() {
            path.push((indent, key));
            items.push(0);
        } else {
            if path.is_empty() && key == "tag" {
                metadata.tag = Some(scalar(value));
            }
            push_field(&mut metadata, number, joined(&key), scalar(value))?;
        }
    }
    Ok(metadata)
}

/// Adds a field, refusing a path the block already gave (YAML's repeated
/// key: which value was meant is not known).
fn push_field(
    metadata: &mut IrMetadata,
    line: usize,
    path: String,
    value: String,
) -> Result<(), IrMetadataError> {
    if metadata.fields.iter().any(|(p, _)| *p == path) {
        return Err(IrMetadataError {
            line,
            problem: format!("`{path}` is given twice"),
        });
    }
    metadata.fields.push((path, value));
    Ok(())
}

/// Reads the block at the head of `head`, the first bytes of a run file
/// (at most [`MAX_BYTES`]: `truncated` when the file goes on).
/// Errors name the line; a block that does not end within [`MAX_BYTES`]
/// bytes, or a line of it that is not UTF-8, is an error.
pub fn parse_head(head: &[u8], truncated: bool) -> Result<Option<IrMetadata>, IrMetadataError> {
    let cut = truncated || head.len() > MAX_BYTES;
    let head = &head[..head.len().min(MAX_BYTES)];
    let mut pieces: Vec<&[u8]> = head.split(|&b| b == b'\n').collect();
    if cut {
        // The last piece may be a line cut short.
        pieces.pop();
    }
    let opens = pieces
        .first()
        .and_then(|first| std::str::from_utf8(first).ok())
        .and_then(comment_text)
        .is_some_and(|text| text.trim() == START);
    if !opens {
        return Ok(None);
    }
    let mut lines: Vec<&str> = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        // Up to its end every line is the block's (a run line there is an
        // error `parse` names), so it must be text.
        let line = std::str::from_utf8(piece).map_err(|_| IrMetadataError {
            line: index + 1,
            problem: "a line that is not UTF-8 text".to_owned(),
        })?;
        lines.push(line);
        if index > 0 && comment_text(line).is_none_or(|text| text.trim() == END) {
            break;
        }
    }
    let ended = lines
        .last()
        .and_then(|l| comment_text(l))
        .is_some_and(|text| text.trim() == END);
    if cut && !ended && lines.iter().all(|l| comment_text(l).is_some()) {
        return Err(IrMetadataError {
            line: lines.len().max(1),
            problem: format!("no `# {END}` within the first {} MiB", MAX_BYTES >> 20),
        });
    }
    parse(lines.iter().copied())
}

/// A scalar's text: trimmed, one pair of enclosing quotes removed.
fn scalar(text: &str) -> String {
    let text = text.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner.to_owned();
        }
    }
    text.to_owned()
}

impl fmt::Display for IrMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (key, value)) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{key}: {value}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block as repro_eval's `write_metadata` writes it (`# LINE `, the
    /// YAML of the ir_metadata schema), then the run.
    const RUN: &str = "# ir_metadata.start\n\
                       # tag: bm25-rm3 \n\
                       # actor: \n\
                       #   team: irc \n\
                       #   role: experimenter \n\
                       # research goal: \n\
                       #   evaluation: \n\
                       #     baseline: \n\
                       #     - bm25 \n\
                       #     - 'qld' \n\
                       # platform: \n\
                       #   hardware: \n\
                       #     ram: \"16 GB\" \n\
                       # ir_metadata.end\n\
                       301 Q0 d1 1 2.5 bm25-rm3\n";

    #[test]
    fn a_block_gives_the_tag_and_every_field_by_path() {
        let metadata = parse(RUN.lines()).unwrap().unwrap();
        assert_eq!(metadata.tag.as_deref(), Some("bm25-rm3"));
        let fields: Vec<(&str, &str)> = metadata
            .fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("tag", "bm25-rm3"),
                ("actor.team", "irc"),
                ("actor.role", "experimenter"),
                ("research goal.evaluation.baseline[0]", "bm25"),
                ("research goal.evaluation.baseline[1]", "qld"),
                ("platform.hardware.ram", "16 GB"),
            ]
        );
    }

    #[test]
    fn list_items_deeper_than_their_key_and_back_out() {
        let block = "# ir_metadata.start\n# data:\n#   runs:\n#     - a\n#   name: x\n# tag: t\n# ir_metadata.end";
        let metadata = parse(block.lines()).unwrap().unwrap();
        assert_eq!(
            metadata.fields,
            [
                ("data.runs[0]".to_owned(), "a".to_owned()),
                ("data.name".to_owned(), "x".to_owned()),
                ("tag".to_owned(), "t".to_owned()),
            ]
        );
        assert_eq!(metadata.tag.as_deref(), Some("t"));
    }

    #[test]
    fn no_block_or_a_bad_one() {
        assert_eq!(parse("301 Q0 d 1 2 t".lines()).unwrap(), None);
        assert_eq!(
            parse("# a comment\n# ir_metadata.start".lines()).unwrap(),
            None
        );
        assert_eq!(parse(std::iter::empty()).unwrap(), None);
        let e = parse("# ir_metadata.start\n# tag: x\n301 Q0 d 1 2 t".lines()).unwrap_err();
        assert_eq!(e.line, 3);
        let e = parse("# ir_metadata.start\n# tag: x".lines()).unwrap_err();
        assert!(e.to_string().contains("no `# ir_metadata.end`"), "{e}");
        let e = parse("# ir_metadata.start\n# just words\n# ir_metadata.end".lines()).unwrap_err();
        assert_eq!((e.line, e.problem.contains("key: value")), (2, true));
        let e = parse("# ir_metadata.start\n# - x\n# ir_metadata.end".lines()).unwrap_err();
        assert!(e.problem.contains("list item"), "{e}");
        let long =
            std::iter::once("# ir_metadata.start").chain(std::iter::repeat_n("# a: b", MAX_LINES));
        assert!(parse(long).unwrap_err().problem.contains("more than"));
    }

    #[test]
    fn a_head_of_bytes_gives_the_block_and_stops_at_its_end() {
        // The run's lines after the block may hold any bytes.
        let head = b"# ir_metadata.start\n# tag: x\n# ir_metadata.end\nq Q0 \xff 1 2 t\n";
        let metadata = parse_head(head, false).unwrap().unwrap();
        assert_eq!(metadata.tag.as_deref(), Some("x"));
        assert_eq!(parse_head(b"q Q0 \xff 1 2 t\n", false).unwrap(), None);
        assert_eq!(parse_head(b"\xff\n", true).unwrap(), None);
        assert_eq!(parse_head(b"", false).unwrap(), None);
    }

    #[test]
    fn hostile_blocks_are_errors_naming_the_line() {
        let e = parse_head(
            b"# ir_metadata.start\n# tag: \xff\n# ir_metadata.end\n",
            false,
        )
        .unwrap_err();
        assert_eq!(
            (e.line, e.problem.as_str()),
            (2, "a line that is not UTF-8 text")
        );
        let e = parse_head(
            b"# ir_metadata.start\n# a: b\n# t: x\x01y\n# ir_metadata.end",
            false,
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.problem.contains("control character (\\u{1})"), "{e}");
        let e =
            parse("# ir_metadata.start\n# a:\n#   b: 1\n# a:\n#   b: 2\n# ir_metadata.end".lines())
                .unwrap_err();
        assert_eq!((e.line, e.problem.as_str()), (5, "`a.b` is given twice"));
        // A block that does not end within MAX_BYTES: one 2 MiB line, or
        // many short ones; the head handed over is cut at MAX_BYTES.
        let mut huge = b"# ir_metadata.start\n# tag: ".to_vec();
        huge.resize(MAX_BYTES, b'a');
        let e = parse_head(&huge, true).unwrap_err();
        assert!(e.problem.contains("within the first 1 MiB"), "{e}");
        assert_eq!(e.line, 1);
        let many: Vec<u8> = b"# ir_metadata.start\n"
            .iter()
            .chain(b"#\n".repeat(MAX_BYTES).iter())
            .copied()
            .collect();
        assert!(
            parse_head(&many, false)
                .unwrap_err()
                .problem
                .contains("within the first")
        );
    }
}
