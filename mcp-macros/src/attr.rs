//! Parses the attribute's arguments: `#[mcp_tool(namespace = "calculator", read_only, tags("a"))]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitStr, Path};

/// The keys the attribute accepts, for the error on an unknown one.
const KEYS: &str = "`name`, `namespace`, `title`, `description`, `version`, `category`, `tags(...)`, \
`read_only`, `destructive`, `idempotent`, `open_world`, `dangerous`, `requires_sandbox`, `crate`";

/// One string-valued key with the span of its value, for errors that point at it.
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
    pub(crate) description: Option<String>,
    pub(crate) version: Option<Spanned<String>>,
    pub(crate) category: Option<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) dangerous: Option<bool>,
    pub(crate) requires_sandbox: Option<bool>,
    pub(crate) krate: Option<Path>,
}

/// Parses `tokens`, collecting every error (each on the token at fault) instead of
/// stopping at the first.
pub(crate) fn parse(tokens: TokenStream) -> (Args, Option<syn::Error>) {
    let mut args = Args::default();
    let mut errors = Errors::default();
    let parser = syn::meta::parser(|meta| {
        if let Err(err) = parse_one(&mut args, &meta) {
            errors.push(err);
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
            "unknown `mcp_tool` argument; expected one of {KEYS}"
        )));
    };
    match key.as_str() {
        "name" => set(meta, &mut args.name, spanned_string(meta)?),
        "namespace" => set(meta, &mut args.namespace, spanned_string(meta)?),
        "version" => set(meta, &mut args.version, spanned_string(meta)?),
        "title" => set(meta, &mut args.title, string(meta)?),
        "description" => set(meta, &mut args.description, string(meta)?),
        "category" => set(meta, &mut args.category, string(meta)?),
        "tags" => {
            if !args.tags.is_empty() {
                return Err(meta.error("duplicate `mcp_tool` argument `tags`"));
            }
            parse_tags(meta, &mut args.tags)
        }
        "read_only" => set(meta, &mut args.read_only, flag(meta)?),
        "destructive" => set(meta, &mut args.destructive, flag(meta)?),
        "idempotent" => set(meta, &mut args.idempotent, flag(meta)?),
        "open_world" => set(meta, &mut args.open_world, flag(meta)?),
        "dangerous" => set(meta, &mut args.dangerous, flag(meta)?),
        "requires_sandbox" => set(meta, &mut args.requires_sandbox, flag(meta)?),
        "crate" => {
            let path: Path = meta.value()?.parse()?;
            set(meta, &mut args.krate, path)
        }
        _ => Err(meta.error(format!(
            "unknown `mcp_tool` argument `{key}`; expected one of {KEYS}"
        ))),
    }
}

fn parse_tags(meta: &ParseNestedMeta<'_>, tags: &mut Vec<String>) -> syn::Result<()> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list = content.parse_terminated(<LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
    tags.extend(list.iter().map(LitStr::value));
    Ok(())
}

fn set<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(meta.error(format!("duplicate `mcp_tool` argument `{key}`")));
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

/// `read_only` alone means true; `read_only = false` is also accepted.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        Ok(meta.value()?.parse::<LitBool>()?.value)
    } else {
        Ok(true)
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
