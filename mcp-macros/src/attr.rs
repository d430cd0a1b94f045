//! Parses the attribute's arguments: `#[mcp_tool(namespace = "calculator", read_only, tags("a"))]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitStr, Path};

/// The keys the attribute accepts.
const KEYS: [&str; 18] = [
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
];

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
}

/// Parses `tokens`, collecting every error (each on the token at fault) instead of
/// stopping at the first.
pub(crate) fn parse(tokens: TokenStream) -> (Args, Option<syn::Error>) {
    let mut args = Args::default();
    let mut errors = Errors::default();
    let parser = syn::meta::parser(|meta| {
        if let Err(err) = parse_one(&mut args, &meta) {
            errors.push(err);
            // Skip the rest of this argument so the next ones are still read.
            if meta.input.peek(syn::Token![=]) {
                let _ = meta.value().and_then(|value| value.parse::<syn::Expr>());
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.input.parse::<proc_macro2::Group>();
            }
        }
        Ok(())
    });
    if let Err(err) = syn::parse::Parser::parse2(parser, tokens) {
        errors.push(err);
    }
    (args, errors.into_error())
}

fn parse_one(args: &mut Args, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
        return Err(meta.error(format!(
            "unknown `mcp_tool` argument; expected one of {}",
            key_list()
        )));
    };
    match key.as_str() {
        "name" => set(meta, &mut args.name, spanned_string(meta)?),
        "namespace" => set(meta, &mut args.namespace, spanned_string(meta)?),
        "version" => set(meta, &mut args.version, spanned_string(meta)?),
        "timeout" => set(meta, &mut args.timeout, spanned_string(meta)?),
        "title" => set(meta, &mut args.title, string(meta)?),
        "description" => set(meta, &mut args.description, spanned_string(meta)?),
        "category" => set(meta, &mut args.category, string(meta)?),
        "deprecated" => set(meta, &mut args.deprecated, string(meta)?),
        "tags" => set(meta, &mut args.tags, string_list(meta)?),
        "errors" => set(meta, &mut args.errors, ident_list(meta)?),
        "read_only" => set(meta, &mut args.read_only, flag(meta)?),
        "destructive" => set(meta, &mut args.destructive, flag(meta)?),
        "idempotent" => set(meta, &mut args.idempotent, flag(meta)?),
        "open_world" => set(meta, &mut args.open_world, flag(meta)?),
        "dangerous" => set(meta, &mut args.dangerous, flag(meta)?),
        "requires_sandbox" => set(meta, &mut args.requires_sandbox, flag(meta)?),
        "inline" => set(meta, &mut args.inline, flag(meta)?),
        "crate" => {
            let path: Path = meta.value()?.parse()?;
            set(meta, &mut args.krate, path)
        }
        _ => Err(meta.error(unknown_key(&key))),
    }
}

fn key_list() -> String {
    KEYS.iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_key(key: &str) -> String {
    let closest = KEYS
        .iter()
        .map(|candidate| (strsim::jaro_winkler(key, candidate), candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match closest {
        Some((_, candidate)) => {
            format!("unknown `mcp_tool` argument `{key}`; did you mean `{candidate}`?")
        }
        None => format!(
            "unknown `mcp_tool` argument `{key}`; expected one of {}",
            key_list()
        ),
    }
}

fn set<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(meta.error(format!(
            "duplicate `mcp_tool` argument `{key}`; give it once"
        )));
    }
    *slot = Some(value);
    Ok(())
}

fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    Ok(meta.value()?.parse::<LitStr>()?.value())
}

fn spanned_string(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<String>> {
    let lit = meta.value()?.parse::<LitStr>()?;
    Ok(Spanned {
        value: lit.value(),
        span: lit.span(),
    })
}

/// `tags("a", "b")`.
fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list = content.parse_terminated(<LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
    Ok(list.iter().map(LitStr::value).collect())
}

/// `errors(FileNotFoundError, PermissionError)`.
fn ident_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list =
        content.parse_terminated(<syn::Ident as syn::parse::Parse>::parse, syn::Token![,])?;
    Ok(list.iter().map(ToString::to_string).collect())
}

/// `read_only` alone means true; `read_only = false` is also accepted.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<bool>> {
    if meta.input.peek(syn::Token![=]) {
        let lit = meta.value()?.parse::<LitBool>()?;
        Ok(Spanned {
            value: lit.value,
            span: lit.span,
        })
    } else {
        Ok(Spanned {
            value: true,
            span: meta
                .path
                .get_ident()
                .map_or_else(Span::call_site, syn::Ident::span),
        })
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
