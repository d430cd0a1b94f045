//! Parses the attribute's arguments, `#[mcp_tool(namespace = "calculator", read_only,
//! tags("a"))]`, and those of a parameter, `#[mcp(header = "Region")]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, Path};

/// What the attribute is called in messages.
const TOOL: &str = "`mcp_tool` argument";

/// What a parameter's attribute is called in messages.
const PARAM: &str = "`mcp` parameter argument";

/// The keys the attribute accepts.
const KEYS: [&str; 20] = [
    "name",
    "namespace",
    "title",
    "description",
    "version",
    "category",
    "tags",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "dangerous",
    "requires_sandbox",
    "inline",
    "timeout",
    "deprecated",
    "crate",
    "errors",
    "example",
    "requires_client",
];

/// The keys a parameter's `#[mcp(...)]` accepts.
const PARAM_KEYS: [&str; 1] = ["header"];

/// A value with the span of its source, for errors that point at it.
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// The attribute's arguments as written.
#[derive(Default)]
pub(crate) struct Args {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) namespace: Option<Spanned<String>>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) version: Option<Spanned<String>>,
    pub(crate) category: Option<String>,
    pub(crate) tags: Option<Vec<String>>,
    pub(crate) read_only: Option<Spanned<bool>>,
    pub(crate) destructive: Option<Spanned<bool>>,
    pub(crate) idempotent: Option<Spanned<bool>>,
    pub(crate) open_world: Option<Spanned<bool>>,
    pub(crate) dangerous: Option<Spanned<bool>>,
    pub(crate) requires_sandbox: Option<Spanned<bool>>,
    pub(crate) inline: Option<Spanned<bool>>,
    pub(crate) timeout: Option<Spanned<String>>,
    pub(crate) deprecated: Option<String>,
    pub(crate) krate: Option<Path>,
    pub(crate) errors: Option<Vec<String>>,
    /// `example = r#"{…}"#`, any number of times: example arguments, as JSON.
    pub(crate) examples: Vec<Spanned<String>>,
    /// `requires_client(sampling, …)`: the client capabilities the tool needs, as written.
    pub(crate) requires_client: Option<Vec<Ident>>,
    /// Keys whose values could not be read (already reported).
    pub(crate) failed: Vec<String>,
}

/// Parses `tokens`, collecting every error (each on the token at fault) instead of
/// stopping at the first.
pub(crate) fn parse(tokens: TokenStream) -> (Args, Option<syn::Error>) {
    let mut args = Args::default();
    let mut errors = Errors::default();
    let parser = syn::meta::parser(|meta| {
        if let Err(err) = parse_one(&mut args, &meta) {
            errors.push(err);
            if let Some(key) = meta.path.get_ident() {
                args.failed.push(key.to_string());
            }
            skip_argument(&meta)?;
        }
        Ok(())
    });
    if let Err(err) = syn::parse::Parser::parse2(parser, tokens) {
        errors.push(err);
    }
    (args, errors.into_error())
}

/// A parameter's `#[mcp(header = "Region")]`.
pub(crate) struct Header {
    /// The header's name after `Mcp-Param-`, with the span of its literal.
    pub(crate) name: Spanned<String>,
    /// The span of the `header` key.
    pub(crate) key: Span,
}

/// The arguments of a parameter's `#[mcp(...)]` attributes, all of them together.
#[derive(Default)]
pub(crate) struct ParamArgs {
    pub(crate) header: Option<Header>,
}

/// Parses the `#[mcp(...)]` attributes of one parameter, adding every error to `errors`.
pub(crate) fn parse_param(attrs: &[Attribute], errors: &mut Errors) -> ParamArgs {
    let mut args = ParamArgs::default();
    for attr in attrs {
        let result = attr.parse_nested_meta(|meta| {
            if let Err(err) = parse_param_one(&mut args, &meta) {
                errors.push(err);
                skip_argument(&meta)?;
            }
            Ok(())
        });
        if let Err(err) = result {
            errors.push(err);
        }
    }
    args
}

fn parse_param_one(args: &mut ParamArgs, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
        return Err(meta.error(format!("unknown {PARAM}; {}", expected(&PARAM_KEYS))));
    };
    match key.as_str() {
        "header" => {
            let key = meta
                .path
                .get_ident()
                .map_or_else(Span::call_site, Ident::span);
            let name = spanned_string(meta)?;
            set(meta, PARAM, &mut args.header, Header { name, key })
        }
        _ => Err(meta.error(unknown_key(PARAM, &PARAM_KEYS, &key))),
    }
}

/// Skips the rest of the argument `meta` is at, so that one mistake is one error and the
/// arguments after it are still read.
fn skip_argument(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

fn parse_one(args: &mut Args, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
        return Err(meta.error(format!("unknown {TOOL}; {}", expected(&KEYS))));
    };
    match key.as_str() {
        "name" => set(meta, TOOL, &mut args.name, spanned_string(meta)?),
        "namespace" => set(meta, TOOL, &mut args.namespace, spanned_string(meta)?),
        "version" => set(meta, TOOL, &mut args.version, spanned_string(meta)?),
        "timeout" => set(meta, TOOL, &mut args.timeout, spanned_string(meta)?),
        "title" => set(meta, TOOL, &mut args.title, string(meta)?),
        "description" => set(meta, TOOL, &mut args.description, spanned_string(meta)?),
        "category" => set(meta, TOOL, &mut args.category, string(meta)?),
        "deprecated" => set(meta, TOOL, &mut args.deprecated, string(meta)?),
        "tags" => set(meta, TOOL, &mut args.tags, string_list(meta)?),
        "errors" => set(meta, TOOL, &mut args.errors, ident_list(meta)?),
        "requires_client" => set(
            meta,
            TOOL,
            &mut args.requires_client,
            capability_list(meta)?,
        ),
        "example" => {
            args.examples.push(spanned_string(meta)?);
            Ok(())
        }
        "read_only" => set(meta, TOOL, &mut args.read_only, flag(meta)?),
        "destructive" => set(meta, TOOL, &mut args.destructive, flag(meta)?),
        "idempotent" => set(meta, TOOL, &mut args.idempotent, flag(meta)?),
        "open_world" => set(meta, TOOL, &mut args.open_world, flag(meta)?),
        "dangerous" => set(meta, TOOL, &mut args.dangerous, flag(meta)?),
        "requires_sandbox" => set(meta, TOOL, &mut args.requires_sandbox, flag(meta)?),
        "inline" => set(meta, TOOL, &mut args.inline, flag(meta)?),
        "crate" => {
            let value = value_expr(meta, "crate = my_crate::mcp")?;
            match value {
                syn::Expr::Path(path) if path.qself.is_none() => {
                    set(meta, TOOL, &mut args.krate, path.path)
                }
                other => Err(syn::Error::new_spanned(
                    other,
                    "`crate` takes a path, not a string: `crate = my_crate::mcp`",
                )),
            }
        }
        _ => Err(meta.error(unknown_key(TOOL, &KEYS, &key))),
    }
}

/// `` `a`, `b`, `c` ``.
pub(crate) fn key_list(keys: &[&str]) -> String {
    keys.iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "expected `a`", or "expected one of `a`, `b`".
fn expected(keys: &[&str]) -> String {
    match keys {
        [key] => format!("expected `{key}`"),
        keys => format!("expected one of {}", key_list(keys)),
    }
}

/// The candidate closest to `key`, if one is close enough to be a likely typo.
pub(crate) fn closest<'a>(key: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|candidate| (strsim::jaro_winkler(key, candidate), *candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// "unknown `what` `key`", with the likely key meant or else every key.
fn unknown_key(what: &str, keys: &[&str], key: &str) -> String {
    match closest(key, keys) {
        Some(candidate) => format!("unknown {what} `{key}`; did you mean `{candidate}`?"),
        None => format!("unknown {what} `{key}`; {}", expected(keys)),
    }
}

fn set<T>(
    meta: &ParseNestedMeta<'_>,
    what: &str,
    slot: &mut Option<T>,
    value: T,
) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate {what} `{}`; give it once", key_of(meta))));
    }
    *slot = Some(value);
    Ok(())
}

fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// The expression after `key =`, read whole, or an error showing `example`.
fn value_expr(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<syn::Expr> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!("`{}` needs a value: `{example}`", key_of(meta))));
    }
    meta.value()?.parse()
}

fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    spanned_string(meta).map(|s| s.value)
}

fn spanned_string(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<String>> {
    let key = key_of(meta);
    match value_expr(meta, &format!("{key} = \"…\""))? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Ok(Spanned {
            value: lit.value(),
            span: lit.span(),
        }),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal: `{key} = \"…\"`"),
        )),
    }
}

/// The items of `key(a, b)`, each an expression.
fn list(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<Vec<syn::Expr>> {
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`{}` takes a list in parentheses: `{example}`",
            key_of(meta)
        )));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    match content.parse_terminated(<syn::Expr as syn::parse::Parse>::parse, syn::Token![,]) {
        Ok(items) => Ok(items.into_iter().collect()),
        Err(err) => {
            // The rest of the list is left unread: without this, syn would add a second
            // error on the same token ("expected `)`").
            let _rest: TokenStream = content.parse()?;
            Err(err)
        }
    }
}

/// `tags("a", "b")`.
fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    list(meta, "tags(\"search\", \"web\")")?
        .into_iter()
        .map(|item| match item {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => Ok(lit.value()),
            other => Err(syn::Error::new_spanned(
                other,
                "tags are string literals: `tags(\"search\", \"web\")`",
            )),
        })
        .collect()
}

/// `errors(FileNotFoundError, "QuotaExceeded")`: names or strings.
fn ident_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    list(meta, "errors(FileNotFoundError, PermissionError)")?
        .into_iter()
        .map(|item| match item {
            syn::Expr::Path(path) if path.path.get_ident().is_some() => Ok(path
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default()),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => Ok(lit.value()),
            other => Err(syn::Error::new_spanned(
                other,
                "error types are names: `errors(FileNotFoundError, PermissionError)`",
            )),
        })
        .collect()
}

/// `requires_client(sampling, elicitation)`: names.
fn capability_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<Ident>> {
    list(meta, "requires_client(sampling, elicitation)")?
        .into_iter()
        .map(|item| {
            let ident = match &item {
                syn::Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
                _ => None,
            };
            ident.ok_or_else(|| {
                syn::Error::new_spanned(
                    item,
                    "client capabilities are names: `requires_client(sampling, elicitation)`",
                )
            })
        })
        .collect()
}

/// `read_only` alone means true; `read_only = false` is also accepted.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<bool>> {
    let key = key_of(meta);
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Spanned {
            value: true,
            span: meta
                .path
                .get_ident()
                .map_or_else(Span::call_site, syn::Ident::span),
        });
    }
    match meta.value()?.parse::<syn::Expr>()? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(lit),
            ..
        }) => Ok(Spanned {
            value: lit.value,
            span: lit.span,
        }),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes `true` or `false`, or stands alone: `{key}`"),
        )),
    }
}

/// Collects errors and combines them into one, so all are reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, err: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(err),
            None => self.0 = Some(err),
        }
    }

    pub(crate) fn into_error(self) -> Option<syn::Error> {
        self.0
    }
}
