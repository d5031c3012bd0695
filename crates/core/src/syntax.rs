//! The short syntax for metrics and aggregators on the command line:
//! `name(param=value,...)@k`, e.g. `ap(normalization=truncated)@10`,
//! `precision(denominator=retrieved,rel=2)@5`, `reciprocal_rank`.
//!
//! Grammar (whitespace allowed between tokens; names are kept as written,
//! and the registry matches them case-insensitively, so that an error
//! echoes a name as written, as for a TOML table):
//!
//! ```text
//! spec   = name [ "(" [ param { "," param } ] ")" ] [ "@" cutoff { "," cutoff } ]
//! cutoff = digits [ "." digits ]
//! param  = name "=" value
//! value  = '"' { char | '\"' | '\\' } '"'  |  bare
//! bare   = one or more characters other than , ( ) @ " and whitespace
//! name   = letter or _, then letters, digits, _
//! ```
//!
//! A spec becomes the same `(name, value)` pairs as a TOML table, `@k`
//! becoming `k`, so both build identical plugins through one path. A
//! decimal after `@` is for ir_measures' `IPrec@0.2`, whose `@` is a recall
//! level ([`crate::ir_measures`]); `k` itself refuses it.
//!
//! Several cutoffs, `ndcg@1,3,5,10,100`, stand for one metric per cutoff
//! (`ndcg@1`, `ndcg@3`, ...: BEIR's measures are one entry per family).
//! Commas never separate metrics: each `-m`, each TOML `metrics` entry and
//! each Python `metrics` item is one metric, or one per cutoff of this form.
//! The rule is that a comma continues the cutoff list only right after
//! `@`'s digits, so commas between parameters (`p(rel=2,denominator=k)@5`)
//! and inside quoted values mean what they did. [`expand_cutoffs`] gives
//! the texts of the single metrics, which every front end reads through
//! [`crate::requested::parse_requested_each`]; [`Spec::parse`] reads one
//! metric and refuses a list.

use crate::error::SyntaxError;
use crate::params::ParamValue;

/// A parsed spec: a plugin name and its parameters as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The metric or aggregator name or alias, as written.
    pub name: String,
    /// Parameters in the order written, names as written; `@k` is `("k", k)`.
    pub params: Vec<(String, ParamValue)>,
}

impl Spec {
    /// Parses `input`: one metric (a list of cutoffs is refused, see
    /// [`expand_cutoffs`]).
    pub fn parse(input: &str) -> Result<Spec, SyntaxError> {
        let mut parser = Parser { input, pos: 0 };
        let (spec, cutoffs) = parser.spec()?;
        if let [_, second, ..] = cutoffs.as_slice() {
            // At the comma before the second cutoff.
            let comma = input[..second.start].rfind(',').unwrap_or(second.start);
            return Err(SyntaxError {
                input: input.to_owned(),
                offset: comma,
                expected: "the end (`@1,3` is one metric per cutoff where a list of metrics is \
                           read: -m, TOML `metrics`, Python `metrics`)"
                    .to_owned(),
            });
        }
        Ok(spec)
    }
}

/// The texts of the metrics `input` stands for: `ndcg(gain=exponential)@1,3`
/// is `ndcg(gain=exponential)@1` and `ndcg(gain=exponential)@3`; any other
/// input (one cutoff, none, or malformed) is itself, so that reading it
/// gives its metric or its error.
pub fn expand_cutoffs(input: &str) -> Vec<String> {
    let mut parser = Parser { input, pos: 0 };
    match parser.spec() {
        Ok((_, cutoffs)) if cutoffs.len() > 1 => {
            // Everything before `@`, as written (the `@` precedes the first
            // cutoff, perhaps after whitespace).
            let at = input[..cutoffs[0].start].rfind('@').unwrap_or(0);
            let head = input[..at].trim_end();
            cutoffs
                .iter()
                .map(|c| format!("{head}@{}", &input[c.clone()]))
                .collect()
        }
        _ => vec![input.to_owned()],
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &str) -> SyntaxError {
        SyntaxError {
            input: self.input.to_owned(),
            offset: self.pos,
            expected: expected.to_owned(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.input[self.pos..].chars().next()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn name(&mut self, what: &str) -> Result<String, SyntaxError> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => return Err(self.error(what)),
        }
        while let Some(c) = self.peek() {
            if !(c.is_ascii_alphanumeric() || c == '_') {
                break;
            }
            self.pos += 1;
        }
        Ok(self.input[start..self.pos].to_owned())
    }

    fn value(&mut self) -> Result<ParamValue, SyntaxError> {
        self.skip_ws();
        if self.peek() == Some('"') {
            self.pos += 1;
            let mut text = String::new();
            loop {
                match self.peek() {
                    None => return Err(self.error("a closing `\"`")),
                    Some('"') => {
                        self.pos += 1;
                        return Ok(ParamValue::String(text));
                    }
                    Some('\\') => {
                        self.pos += 1;
                        match self.peek() {
                            Some(c @ ('"' | '\\')) => {
                                text.push(c);
                                self.pos += 1;
                            }
                            _ => return Err(self.error("`\\\"` or `\\\\` after `\\`")),
                        }
                    }
                    Some(c) => {
                        text.push(c);
                        self.pos += c.len_utf8();
                    }
                }
            }
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_whitespace() || matches!(c, ',' | '(' | ')' | '@' | '"') {
                break;
            }
            self.pos += c.len_utf8();
        }
        if self.pos == start {
            return Err(self.error("a value"));
        }
        Ok(ParamValue::from_text(&self.input[start..self.pos]))
    }

    /// One cutoff after `@` or a comma: digits, perhaps a decimal
    /// fraction; where it is in the input.
    fn cutoff(
        &mut self,
        expected: &str,
    ) -> Result<(ParamValue, std::ops::Range<usize>), SyntaxError> {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let whole = self.pos;
        if whole > start && self.peek() == Some('.') {
            self.pos += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            if self.pos == whole + 1 {
                return Err(self.error("digits after `.`"));
            }
            return Ok((
                ParamValue::from_text(&self.input[start..self.pos]),
                start..self.pos,
            ));
        }
        let digits = &self.input[start..self.pos];
        // Digits too many for i64 still make a number, which `k` refuses
        // as too large, as it does in a TOML table.
        let k = ParamValue::from_digits(digits).ok_or_else(|| {
            self.pos = start;
            self.error(expected)
        })?;
        Ok((k, start..self.pos))
    }

    /// The spec, and where each cutoff after `@` is (several for
    /// `ndcg@1,3,5`; the spec holds the first).
    fn spec(&mut self) -> Result<(Spec, Vec<std::ops::Range<usize>>), SyntaxError> {
        let name = self.name("a metric name")?;
        let mut params = Vec::new();
        if self.eat('(') && !self.eat(')') {
            loop {
                let key = self.name("a parameter name")?;
                if !self.eat('=') {
                    return Err(self.error("`=`"));
                }
                let value = self.value()?;
                params.push((key, value));
                if self.eat(',') {
                    continue;
                }
                if self.eat(')') {
                    break;
                }
                return Err(self.error("`,` or `)`"));
            }
        }
        let mut cutoffs = Vec::new();
        if self.eat('@') {
            let (k, at) = self.cutoff("a cutoff (a positive integer) after `@`")?;
            params.push(("k".to_owned(), k));
            cutoffs.push(at);
            while self.eat(',') {
                // A comma after `@`'s digits continues the list of cutoffs;
                // metrics are never separated by commas (one per -m).
                cutoffs.push(
                    self.cutoff(
                        "another cutoff after `,` (`ndcg@1,3` lists cutoffs; give each \
                         metric its own -m or list entry)",
                    )?
                    .1,
                );
            }
        }
        self.skip_ws();
        if self.pos != self.input.len() {
            let expected = if params.is_empty() {
                "`(`, `@` or the end"
            } else {
                "the end"
            };
            return Err(self.error(expected));
        }
        Ok((Spec { name, params }, cutoffs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(k: &str, v: ParamValue) -> (String, ParamValue) {
        (k.to_owned(), v)
    }

    #[test]
    fn parses_names_params_and_cutoffs() {
        assert_eq!(
            Spec::parse("reciprocal_rank").unwrap(),
            Spec {
                name: "reciprocal_rank".into(),
                params: vec![]
            }
        );
        assert_eq!(
            Spec::parse(" AP ( Normalization = truncated ) @ 10 ").unwrap(),
            Spec {
                name: "AP".into(),
                params: vec![
                    p("Normalization", ParamValue::String("truncated".into())),
                    p("k", ParamValue::Integer(10)),
                ]
            }
        );
        assert_eq!(
            Spec::parse("precision(denominator=retrieved,rel=2)@5")
                .unwrap()
                .params,
            vec![
                p("denominator", ParamValue::String("retrieved".into())),
                p("rel", ParamValue::Integer(2)),
                p("k", ParamValue::Integer(5)),
            ]
        );
        assert_eq!(
            Spec::parse(r#"x(s="a, \"b\"",p=0.5)"#).unwrap().params,
            vec![
                p("s", ParamValue::String("a, \"b\"".into())),
                p("p", ParamValue::Float(0.5))
            ]
        );
        assert_eq!(
            Spec::parse("ndcg()@0").unwrap().params,
            vec![p("k", ParamValue::Integer(0))]
        );
        assert_eq!(
            Spec::parse("p@9223372036854775808").unwrap().params,
            vec![p("k", ParamValue::BigInteger(9_223_372_036_854_775_808))]
        );
    }

    #[test]
    fn errors_say_what_was_expected_and_where() {
        let e = Spec::parse("ap(norm=truncated@10").unwrap_err();
        assert_eq!((e.offset, e.expected.as_str()), (17, "`,` or `)`"));
        assert_eq!(
            e.to_string(),
            "expected `,` or `)` at offset 17 in `ap(norm=truncated@10`, found `@`"
        );
        let e = Spec::parse("ap@").unwrap_err();
        assert_eq!(e.expected, "a cutoff (a positive integer) after `@`");
        assert!(e.to_string().ends_with("found the end"));
        assert_eq!(Spec::parse("ap@x").unwrap_err().offset, 3);
        assert_eq!(
            Spec::parse("ap(=1)").unwrap_err().expected,
            "a parameter name"
        );
        assert_eq!(Spec::parse("ap(k)").unwrap_err().expected, "`=`");
        assert_eq!(Spec::parse("ap(k=)").unwrap_err().expected, "a value");
        assert_eq!(Spec::parse("").unwrap_err().expected, "a metric name");
        assert_eq!(Spec::parse("9ap").unwrap_err().offset, 0);
        assert_eq!(Spec::parse("ap@10 x").unwrap_err().expected, "the end");
        assert_eq!(
            Spec::parse("ap x").unwrap_err().expected,
            "`(`, `@` or the end"
        );
        assert_eq!(
            Spec::parse("ap(s=\"x)").unwrap_err().expected,
            "a closing `\"`"
        );
    }
}

#[cfg(test)]
mod cutoff_list_tests {
    use super::*;

    #[test]
    fn a_list_of_cutoffs_is_one_metric_per_cutoff() {
        assert_eq!(
            expand_cutoffs("ndcg@1,3,5,10,100"),
            ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "ndcg@100"]
        );
        // Parameters, with their commas, stay with each metric.
        assert_eq!(
            expand_cutoffs("p(rel=2, denominator=k) @ 5, 10"),
            ["p(rel=2, denominator=k)@5", "p(rel=2, denominator=k)@10"]
        );
        assert_eq!(
            expand_cutoffs(r#"x(s="a,b")@1,2"#),
            [r#"x(s="a,b")@1"#, r#"x(s="a,b")@2"#]
        );
        // One cutoff, none, or a malformed input: itself.
        for one in ["ndcg@10", "ap", "ndcg@10,", "ndcg@1,ap", "p(rel=2,k=3)"] {
            assert_eq!(expand_cutoffs(one), [one]);
        }
    }

    #[test]
    fn parse_reads_one_metric_and_says_where_lists_are_read() {
        let e = Spec::parse("ndcg@1,3").unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.expected.contains("one metric per cutoff"), "{e}");
        let e = Spec::parse("ndcg@10,ap").unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(e.expected.starts_with("another cutoff after `,`"), "{e}");
        assert_eq!(
            Spec::parse("ndcg@10,").unwrap_err().offset,
            8,
            "a trailing comma wants a cutoff"
        );
        // A decimal after `@` (ir_measures' IPrec@0.2) is a number for `k`.
        assert_eq!(
            Spec::parse("IPrec@0.2").unwrap().params,
            vec![("k".to_owned(), ParamValue::Float(0.2))]
        );
        assert_eq!(
            Spec::parse("p@1.").unwrap_err().expected,
            "digits after `.`"
        );
    }
}
