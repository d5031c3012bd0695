//! # rankeval-macros
//!
//! The registration attributes of rankeval's plugins, used through
//! `rankeval-core` (`#[rankeval_core::metric(...)]`): one attribute on the
//! `impl Metric for ...` block names the plugin once and writes both what
//! typetag needs (`#[typetag::serde(name = "...")]`, the TOML `type`) and
//! the registry's descriptor (`inventory::submit!`), so the two names cannot
//! differ.
//!
//! ```ignore
//! #[rankeval_core::metric(
//!     name = "hit_rate",
//!     aliases = &["success"],
//!     summary = "1 if a relevant document is in the top k, else 0",
//!     params = &[PARAM_K, PARAM_REL],
//!     example = HitRate { k: Cutoff::new(10), rel: None },
//! )]
//! impl Metric for HitRate {
//!     // the metric's own code
//! }
//! ```
//!
//! The expansion goes inside `const _: () = { ... };`, with typetag and
//! inventory taken from rankeval-core, so a plugin crate needs neither as
//! a dependency.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Error, Expr, Ident, ItemImpl, LitStr, Path, Token};

/// Registers a [`Metric`](../rankeval_core/trait.Metric.html): put it on the
/// `impl Metric for YourType` block.
///
/// Arguments, `key = value` separated by commas:
/// - `name` (required): the TOML `type` and the name in `-m`, a snake_case
///   string literal; it is also the typetag name;
/// - `aliases` (default none): other names, `&["a", "b"]`;
/// - `summary` (required): one line of 79 columns or less;
/// - `params` (default none): a `&'static [ParamDoc]`, in declaration order;
/// - `example` (required): a value of the type with typical, non-default
///   parameters (boxed by the macro);
/// - `crate` (default `::rankeval_core`): the path to rankeval-core, for a
///   crate that reaches it through a re-export (`rankeval::core`).
#[proc_macro_attribute]
pub fn metric(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(Kind::Metric, args, item)
}

/// Registers an [`Aggregator`](../rankeval_core/trait.Aggregator.html):
/// put it on the `impl Aggregator for YourType` block. Arguments as for
/// [`macro@metric`].
#[proc_macro_attribute]
pub fn aggregator(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(Kind::Aggregator, args, item)
}

/// Registers a [`CorpusMetric`](../rankeval_core/trait.CorpusMetric.html):
/// put it on the `impl CorpusMetric for YourType` block. Arguments as for
/// [`macro@metric`].
#[proc_macro_attribute]
pub fn corpus_metric(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(Kind::CorpusMetric, args, item)
}

/// Which trait, and so which descriptor, an attribute registers.
#[derive(Clone, Copy)]
enum Kind {
    Metric,
    Aggregator,
    CorpusMetric,
}

impl Kind {
    /// The trait's name, as the impl block must write it.
    fn trait_name(self) -> &'static str {
        match self {
            Kind::Metric => "Metric",
            Kind::Aggregator => "Aggregator",
            Kind::CorpusMetric => "CorpusMetric",
        }
    }

    /// The attribute's name, for messages.
    fn attribute(self) -> &'static str {
        match self {
            Kind::Metric => "metric",
            Kind::Aggregator => "aggregator",
            Kind::CorpusMetric => "corpus_metric",
        }
    }

    /// The descriptor type under rankeval-core's `registry`.
    fn descriptor(self) -> Ident {
        let name = match self {
            Kind::Metric => "MetricDescriptor",
            Kind::Aggregator => "AggregatorDescriptor",
            Kind::CorpusMetric => "CorpusMetricDescriptor",
        };
        Ident::new(name, Span::call_site())
    }
}

/// One `key = value` argument.
struct Arg {
    key: Ident,
    value: Expr,
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `parse_any` so that the keyword `crate` is a key too.
        let key = Ident::parse_any(input)?;
        input.parse::<Token![=]>()?;
        Ok(Arg {
            key,
            value: input.parse()?,
        })
    }
}

/// The attribute's arguments, checked.
struct Args {
    name: LitStr,
    aliases: Option<Expr>,
    summary: Expr,
    params: Option<Expr>,
    example: Expr,
    krate: Option<Path>,
}

impl Args {
    fn parse(kind: Kind, input: TokenStream2) -> syn::Result<Self> {
        let parser = Punctuated::<Arg, Token![,]>::parse_terminated;
        let args = syn::parse::Parser::parse2(parser, input)?;
        let (mut name, mut aliases, mut summary, mut params, mut example, mut krate) =
            (None, None, None, None, None, None);
        for Arg { key, value } in args {
            let slot = match key.to_string().as_str() {
                "name" => {
                    if name.replace(name_literal(&value)?).is_some() {
                        return Err(repeated(&key));
                    }
                    continue;
                }
                "crate" => {
                    let Expr::Path(path) = &value else {
                        return Err(Error::new_spanned(
                            &value,
                            "`crate` is a path such as `rankeval::core`",
                        ));
                    };
                    if krate.replace(path.path.clone()).is_some() {
                        return Err(repeated(&key));
                    }
                    continue;
                }
                "aliases" => &mut aliases,
                "summary" => &mut summary,
                "params" => &mut params,
                "example" => &mut example,
                other => {
                    return Err(Error::new_spanned(
                        &key,
                        format!(
                            "unknown argument `{other}` of #[{}]: expected name, aliases, summary, params, example or crate",
                            kind.attribute()
                        ),
                    ));
                }
            };
            if slot.replace(value).is_some() {
                return Err(repeated(&key));
            }
        }
        let missing = |what: &str| {
            Error::new(
                Span::call_site(),
                format!("#[{}] needs `{what} = ...`", kind.attribute()),
            )
        };
        Ok(Args {
            name: name.ok_or_else(|| missing("name"))?,
            aliases,
            summary: summary.ok_or_else(|| missing("summary"))?,
            params,
            example: example.ok_or_else(|| missing("example"))?,
            krate,
        })
    }
}

fn repeated(key: &Ident) -> Error {
    Error::new_spanned(key, format!("`{key}` is given twice"))
}

/// The `name`: a snake_case string literal, checked here so that a bad
/// name fails the build rather than the startup check.
fn name_literal(value: &Expr) -> syn::Result<LitStr> {
    // A `$name:literal` of a macro_rules! arrives wrapped in a group.
    if let Expr::Group(group) = value {
        return name_literal(&group.expr);
    }
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(name),
        ..
    }) = value
    else {
        return Err(Error::new_spanned(
            value,
            "`name` is a string literal such as \"hit_rate\"",
        ));
    };
    let text = name.value();
    let snake = text.starts_with(|c: char| c.is_ascii_lowercase())
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if snake {
        Ok(name.clone())
    } else {
        Err(Error::new_spanned(
            name,
            format!("`{text}` is not snake_case (a-z, 0-9 and _, starting with a letter)"),
        ))
    }
}

/// Checks the item: an `impl` of the attribute's trait that does not
/// already carry its own typetag attribute.
fn check_item(kind: Kind, item: &ItemImpl) -> syn::Result<()> {
    let wrong_item = || {
        Error::new_spanned(
            item.impl_token,
            format!(
                "#[{}] goes on an `impl {} for YourType` block",
                kind.attribute(),
                kind.trait_name()
            ),
        )
    };
    let Some((path, _)) = &item.trait_ else {
        return Err(wrong_item());
    };
    if path.segments.last().map(|s| s.ident.to_string()).as_deref() != Some(kind.trait_name()) {
        return Err(Error::new_spanned(
            path,
            format!(
                "#[{}] goes on an `impl {} for YourType` block, not an impl of `{}`",
                kind.attribute(),
                kind.trait_name(),
                path.to_token_stream()
            ),
        ));
    }
    if let Some(attr) = item.attrs.iter().find(|a| {
        a.path()
            .segments
            .first()
            .is_some_and(|s| s.ident == "typetag")
    }) {
        return Err(Error::new_spanned(
            attr,
            format!(
                "remove this attribute: #[{}] writes typetag's with the same `name`",
                kind.attribute()
            ),
        ));
    }
    Ok(())
}

fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(kind, args.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn try_expand(kind: Kind, args: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let args = Args::parse(kind, args)?;
    let item: ItemImpl = syn::parse2(item)?;
    check_item(kind, &item)?;
    let Args {
        name,
        aliases,
        summary,
        params,
        example,
        krate,
    } = args;
    let krate = krate.map_or_else(|| quote!(::rankeval_core), |path| quote!(#path));
    let descriptor = kind.descriptor();
    let aliases = aliases.map_or_else(|| quote!(&[]), |a| quote!(#a));
    let params = params.map_or_else(|| quote!(&[]), |p| quote!(#p));
    Ok(quote! {
        const _: () = {
            // typetag's expansion names `typetag::...`: this import serves
            // it, so the plugin crate needs no typetag dependency.
            use #krate::__private::typetag;

            #[typetag::serde(name = #name)]
            #item

            #krate::__private::inventory::submit! {
                #krate::registry::#descriptor {
                    name: #name,
                    aliases: #aliases,
                    summary: #summary,
                    params: #params,
                    example: || ::std::boxed::Box::new(#example),
                    defined_at: #krate::registry::Location {
                        file: ::core::file!(),
                        line: ::core::line!(),
                        module: ::core::module_path!(),
                    },
                }
            }
        };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_metric(args: TokenStream2, item: TokenStream2) -> Result<String, String> {
        try_expand(Kind::Metric, args, item)
            .map(|tokens| tokens.to_string())
            .map_err(|e| e.to_string())
    }

    fn impl_metric() -> TokenStream2 {
        quote!(impl Metric for HitRate { fn name(&self) -> String { String::new() } })
    }

    #[test]
    fn writes_the_one_name_into_typetag_and_the_descriptor() {
        let out = expand_metric(
            quote!(name = "hit_rate", summary = "s", example = HitRate {}),
            impl_metric(),
        )
        .unwrap();
        let out = out.replace(' ', "");
        assert!(
            out.contains(r#"#[typetag::serde(name="hit_rate")]"#),
            "{out}"
        );
        assert!(
            out.contains("registry::MetricDescriptor{name:\"hit_rate\","),
            "{out}"
        );
        assert!(out.contains("aliases:&[],"), "{out}");
        assert!(out.contains("params:&[],"), "{out}");
        assert!(out.contains("::std::boxed::Box::new(HitRate{})"), "{out}");
        assert!(
            out.contains("use::rankeval_core::__private::typetag;"),
            "{out}"
        );
    }

    #[test]
    fn each_kind_fills_its_own_descriptor_and_crate_path() {
        let item = quote!(impl Aggregator for Mean { fn name(&self) -> String { String::new() } });
        let out = try_expand(
            Kind::Aggregator,
            quote!(
                name = "mean",
                summary = "s",
                example = Mean,
                crate = rankeval::core
            ),
            item,
        )
        .unwrap()
        .to_string()
        .replace(' ', "");
        assert!(
            out.contains("rankeval::core::registry::AggregatorDescriptor{"),
            "{out}"
        );
        assert!(!out.contains("::rankeval_core"), "{out}");
    }

    #[test]
    fn refuses_bad_arguments_naming_the_problem() {
        let cases = [
            (
                quote!(name = "HitRate", summary = "s", example = X),
                "`HitRate` is not snake_case",
            ),
            (
                quote!(name = hit_rate, summary = "s", example = X),
                "`name` is a string literal",
            ),
            (
                quote!(name = "h", example = X),
                "#[metric] needs `summary = ...`",
            ),
            (
                quote!(name = "h", summary = "s"),
                "#[metric] needs `example = ...`",
            ),
            (
                quote!(summary = "s", example = X),
                "#[metric] needs `name = ...`",
            ),
            (
                quote!(name = "h", summary = "s", example = X, k = 3),
                "unknown argument `k` of #[metric]",
            ),
            (
                quote!(name = "h", summary = "s", summary = "t", example = X),
                "`summary` is given twice",
            ),
            (
                quote!(name = "h", name = "g", summary = "s", example = X),
                "`name` is given twice",
            ),
        ];
        for (args, expected) in cases {
            let error = expand_metric(args, impl_metric()).unwrap_err();
            assert!(error.starts_with(expected), "{error} / {expected}");
        }
    }

    #[test]
    fn refuses_an_impl_of_another_trait_or_with_its_own_typetag_name() {
        let args = || quote!(name = "h", summary = "s", example = X);
        let error = expand_metric(args(), quote!(impl Aggregator for X {})).unwrap_err();
        assert_eq!(
            error,
            "#[metric] goes on an `impl Metric for YourType` block, not an impl of `Aggregator`"
        );
        let error = expand_metric(args(), quote!(impl X {})).unwrap_err();
        assert_eq!(
            error,
            "#[metric] goes on an `impl Metric for YourType` block"
        );
        let error = expand_metric(
            args(),
            quote!(
                #[typetag::serde(name = "g")]
                impl Metric for X {}
            ),
        )
        .unwrap_err();
        assert!(error.starts_with("remove this attribute"), "{error}");
    }
}
