//! The short syntax for metrics and aggregators on the command line:
//! `name(param=value,...)@k`, e.g. `ap(normalization=truncated)@10`,
//! `precision(denominator=retrieved,rel=2)@5`, `reciprocal_rank`.
//!
//! Grammar (whitespace allowed between tokens; names are kept as written,
//! and the registry matches them case-insensitively, so that an error
//! echoes a name as written, as for a TOML table):
//!
//! ```text
//! spec   = name [ "(" [ param { "," param } ] ")" ] [ "@" digits ]
//! param  = name "=" value
//! value  = '"' { char | '\"' | '\\' } '"'  |  bare
//! bare   = one or more characters other than , ( ) @ " and whitespace
//! name   = letter or _, then letters, digits, _
//! ```
//!
//! A spec becomes the same `(name, value)` pairs as a TOML table, `@k`
//! becoming `k`, so both build identical plugins through one path.

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
    /// Parses `input`.
    pub fn parse(input: &str) -> Result<Spec, SyntaxError> {
        let mut parser = Parser { input, pos: 0 };
        parser.spec()
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

    fn spec(&mut self) -> Result<Spec, SyntaxError> {
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
        if self.eat('@') {
            self.skip_ws();
            let start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            let digits = &self.input[start..self.pos];
            // Digits too many for i64 still make a number, which `k` refuses
            // as too large, as it does in a TOML table.
            let k = ParamValue::from_digits(digits).ok_or_else(|| {
                self.pos = start;
                self.error("a cutoff (a positive integer) after `@`")
            })?;
            params.push(("k".to_owned(), k));
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
        Ok(Spec { name, params })
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
