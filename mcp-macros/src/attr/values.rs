//! The values of the attributes' keys: strings, lists, paths, sizes, priorities and
//! audiences, each read with its span, and the wording of what a key expects.

use super::*;

/// `last_modified = "2025-01-12T15:00:58Z"` or `last_modified = path::to_fn`.
pub(super) fn last_modified(meta: &ParseNestedMeta<'_>) -> syn::Result<LastModified> {
    let expr = value_expr(meta, "last_modified = \"2025-01-12T15:00:58Z\"")?;
    if let Some(at) = string_literal(&expr) {
        return Ok(LastModified::At(at));
    }
    match expr {
        syn::Expr::Path(path) if path.qself.is_none() => Ok(LastModified::From(path.path)),
        other => Err(syn::Error::new_spanned(
            other,
            "`last_modified` takes a time, `last_modified = \"2025-01-12T15:00:58Z\"`, or the path of a function `fn() -> SystemTime` called at each listing: `last_modified = path::to_fn`",
        )),
    }
}

/// `task = "optional"`: one of [`Task::ALL`], spanned at the `task` key; any other value is
/// refused on the value, naming the three.
pub(super) fn task(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<Task>> {
    let key = meta
        .path
        .get_ident()
        .map_or_else(Span::call_site, Ident::span);
    let value = one_of(meta, &Task::ALL, "task = \"optional\"")?;
    Ok(Spanned { value, span: key })
}

/// `key = "value"`, the value one of the names in `all` (three, as messages list them);
/// anything else is refused on the value, naming them, with the one likely meant.
pub(super) fn one_of<T: Copy>(
    meta: &ParseNestedMeta<'_>,
    all: &[(&'static str, T); 3],
    example: &str,
) -> syn::Result<T> {
    let key = key_of(meta);
    let names: Vec<&str> = all.iter().map(|(name, _)| *name).collect();
    let allowed = format!("\"{}\", \"{}\" or \"{}\"", names[0], names[1], names[2]);
    let lit = match value_expr(meta, example)? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => lit,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                format!("`{key}` takes a string, one of {allowed}: `{example}`"),
            ));
        }
    };
    let value = lit.value();
    match all.iter().find(|(name, _)| *name == value) {
        Some((_, found)) => Ok(*found),
        None => {
            let hint = closest(&value.to_lowercase(), &names)
                .map(|name| format!("; did you mean \"{name}\"?"))
                .unwrap_or_default();
            Err(syn::Error::new_spanned(
                lit,
                format!("`{key}` is one of {allowed}, not {value:?}{hint}"),
            ))
        }
    }
}

/// `crate = my_crate::mcp`.
pub(super) fn crate_path(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    match value_expr(meta, "crate = my_crate::mcp")? {
        syn::Expr::Path(path) if path.qself.is_none() => Ok(path.path),
        other => Err(syn::Error::new_spanned(
            other,
            "`crate` takes a path, not a string: `crate = my_crate::mcp`",
        )),
    }
}

/// `layer = path::to::function`: the function that returns the tool's layer. A string, a
/// number or a call is refused on the value.
pub(super) fn layer_path(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    const EXPECTS: &str = "`layer` takes the path of a function that returns a `tower::Layer`: `layer = path::to::function`";
    match value_expr(meta, "layer = path::to::function")? {
        syn::Expr::Path(path) if path.qself.is_none() => Ok(path.path),
        syn::Expr::Call(call) if call.args.is_empty() => {
            let function = quote::ToTokens::to_token_stream(&call.func)
                .to_string()
                .replace(' ', "");
            Err(syn::Error::new_spanned(
                call,
                format!(
                    "`layer` takes the function's path, not a call of it: `layer = {function}`; the tool calls it when it builds its stack"
                ),
            ))
        }
        other => Err(syn::Error::new_spanned(other, EXPECTS)),
    }
}

/// `size = 1024`, spanned at the `size` key.
pub(super) fn size(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<u64>> {
    let key = meta
        .path
        .get_ident()
        .map_or_else(Span::call_site, Ident::span);
    match value_expr(meta, "size = 1024")? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) if lit.base10_parse::<u64>().is_ok() => Ok(Spanned {
            value: lit.base10_parse()?,
            span: key,
        }),
        other => Err(syn::Error::new_spanned(
            other,
            "`size` takes the size in bytes, a whole number: `size = 1024`",
        )),
    }
}

/// `priority = 0.5`; whether it lies within 0..=1 is checked later.
pub(super) fn priority(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<f64>> {
    let expr = value_expr(meta, "priority = 0.5")?;
    let number = |expr: &syn::Expr| match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(lit),
            ..
        }) => lit.base10_parse::<f64>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => lit.base10_parse::<f64>().ok(),
        _ => None,
    };
    let value = match &expr {
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => number(inner).map(|value| -value),
        other => number(other),
    };
    match value {
        Some(value) => Ok(Spanned {
            value,
            span: expr.span(),
        }),
        None => Err(syn::Error::new_spanned(
            expr,
            "`priority` takes a number from 0 (optional) to 1 (required): `priority = 0.5`",
        )),
    }
}

/// `audience = "user"` or `audience("user", "assistant")`; whether each is a role is
/// checked later.
pub(super) fn audience(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<Spanned<String>>> {
    const EXAMPLE: &str = "audience(\"user\", \"assistant\")";
    let items = if meta.input.peek(syn::Token![=]) {
        vec![meta.value()?.parse::<syn::Expr>()?]
    } else {
        list(meta, EXAMPLE)?
    };
    items
        .into_iter()
        .map(|item| {
            string_literal(&item).ok_or_else(|| {
                syn::Error::new_spanned(
                    item,
                    format!(
                        "`audience` takes roles as string literals: `audience = \"user\"` or `{EXAMPLE}`"
                    ),
                )
            })
        })
        .collect()
}

/// `` `a`, `b`, `c` ``.
pub(crate) fn key_list(keys: &[&str]) -> String {
    keys.iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "expected `a`", or "expected one of `a`, `b`".
pub(super) fn expected(keys: &[&str]) -> String {
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
pub(super) fn unknown_key(what: &str, keys: &[&str], key: &str) -> String {
    match closest(key, keys) {
        Some(candidate) => format!("unknown {what} `{key}`; did you mean `{candidate}`?"),
        None => format!("unknown {what} `{key}`; {}", expected(keys)),
    }
}

pub(super) fn set<T>(
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

pub(super) fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// The expression after `key =`, read whole, or an error showing `example`.
pub(super) fn value_expr(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<syn::Expr> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!("`{}` needs a value: `{example}`", key_of(meta))));
    }
    meta.value()?.parse()
}

pub(super) fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    spanned_string(meta).map(|s| s.value)
}

pub(super) fn spanned_string(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<String>> {
    let key = key_of(meta);
    let expr = value_expr(meta, &format!("{key} = \"…\""))?;
    string_literal(&expr).ok_or_else(|| {
        syn::Error::new_spanned(
            expr,
            format!("`{key}` takes a string literal: `{key} = \"…\"`"),
        )
    })
}

/// The value of `expr` if it is a string literal, with the literal's span.
pub(super) fn string_literal(expr: &syn::Expr) -> Option<Spanned<String>> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Some(Spanned {
            value: lit.value(),
            span: lit.span(),
        }),
        _ => None,
    }
}

/// The items of `key(a, b)`, each an expression.
pub(super) fn list(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<Vec<syn::Expr>> {
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
pub(super) fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
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

/// `scopes("notes:read", "notes:write")`: OAuth scope tokens (RFC 6749 §3.3: printable
/// ASCII but space, `"` and `\`), each once. The same for tools, resources and prompts.
pub(super) fn scope_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let mut scopes: Vec<String> = Vec::new();
    for item in list(meta, "scopes(\"notes:read\", \"notes:write\")")? {
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) = &item
        else {
            return Err(syn::Error::new_spanned(
                item,
                "scopes are string literals: `scopes(\"notes:read\", \"notes:write\")`",
            ));
        };
        let scope = lit.value();
        if scope.is_empty() {
            return Err(syn::Error::new_spanned(lit, "a scope is not empty"));
        }
        if let Some(bad) = scope
            .chars()
            .find(|c| !matches!(c, '!' | '#'..='[' | ']'..='~'))
        {
            let what = match bad {
                ' ' => "a space".to_owned(),
                other => format!("`{}`", other.escape_default()),
            };
            return Err(syn::Error::new_spanned(
                lit,
                format!(
                    "a scope cannot hold {what}: OAuth scopes are printable ASCII without \
                     spaces, `\"` or `\\`; give several as several strings"
                ),
            ));
        }
        if scopes.contains(&scope) {
            return Err(syn::Error::new_spanned(
                lit,
                format!("scope `{scope}` is already required; give it once"),
            ));
        }
        scopes.push(scope);
    }
    Ok(scopes)
}

/// `errors(FileNotFoundError, "QuotaExceeded")`: names or strings.
pub(super) fn ident_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
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
pub(super) fn capability_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<Ident>> {
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
pub(super) fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<bool>> {
    flag_with(meta, |key| {
        format!("`{key}` takes `true` or `false`, or stands alone: `{key}`")
    })
}

/// [`flag`], with `refusal` the message for a value that is not `true` or `false`, given
/// the key.
pub(super) fn flag_with(
    meta: &ParseNestedMeta<'_>,
    refusal: impl FnOnce(&str) -> String,
) -> syn::Result<Spanned<bool>> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Spanned {
            value: true,
            span: meta
                .path
                .get_ident()
                .map_or_else(Span::call_site, syn::Ident::span),
        });
    }
    let key = key_of(meta);
    match meta.value()?.parse::<syn::Expr>()? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(lit),
            ..
        }) => Ok(Spanned {
            value: lit.value,
            span: lit.span,
        }),
        other => Err(syn::Error::new_spanned(other, refusal(&key))),
    }
}
