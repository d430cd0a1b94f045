//! Checks what cannot become a tool, each error on the token at fault.

use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::attr::{Args, Errors};
use crate::model::Tool;

/// Checks `tool` and the attribute's `args`, adding every problem to `errors`.
pub(crate) fn check(tool: &Tool, args: &Args, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if let Some(generics) = sig.generics.lt_token {
        errors.push(syn::Error::new(
            generics.span().join(sig.generics.gt_token.span()).unwrap_or(generics.span()),
            "`#[mcp_tool]` functions cannot be generic: a tool's schema must be known; use concrete types",
        ));
    }
    if let Some(constness) = sig.constness {
        errors.push(syn::Error::new(
            constness.span(),
            "`#[mcp_tool]` cannot be used on a `const fn`",
        ));
    }
    if let Some(unsafety) = sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span(),
            "`#[mcp_tool]` cannot be used on an `unsafe fn`",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new(
            variadic.span(),
            "`#[mcp_tool]` functions cannot be variadic",
        ));
    }
    for param in &tool.params {
        match &param.original {
            FnArg::Receiver(receiver) => errors.push(syn::Error::new(
                receiver.span(),
                "`#[mcp_tool]` works on free functions, not methods: move the tool out of the `impl` block",
            )),
            FnArg::Typed(pat_type) => {
                if param.ident.is_none() {
                    errors.push(syn::Error::new(
                        pat_type.pat.span(),
                        "tool parameters must be plain names, e.g. `path: String`: the name becomes the argument's name",
                    ));
                }
                if let Type::Reference(reference) = &param.ty {
                    errors.push(syn::Error::new(
                        reference.span(),
                        "tool parameters must be owned, since arguments are deserialized for each call: use `String` for `&str`, `Vec<T>` for `&[T]`",
                    ));
                }
                if let Type::ImplTrait(impl_trait) = &param.ty {
                    errors.push(syn::Error::new(
                        impl_trait.span(),
                        "tool parameters must have a concrete type: a tool's schema must be known",
                    ));
                }
            }
        }
    }
    if let Some(name) = &args.name {
        let (namespace, tool_part) = match name.value.rsplit_once('.') {
            Some((namespace, tool)) => (Some(namespace), tool),
            None => (None, name.value.as_str()),
        };
        if namespace.is_some() && args.namespace.is_some() {
            errors.push(syn::Error::new(
                name.span,
                "`name` already holds a namespace (it contains `.`); drop `namespace` or give `name` without one",
            ));
        }
        if let Some(namespace) = namespace {
            check_namespace(namespace, name.span, errors);
        }
        if !is_segment(tool_part) {
            errors.push(syn::Error::new(
                name.span,
                format!("invalid tool name `{}`: use lower-case letters, digits and `_`, e.g. `read_file`", name.value),
            ));
        }
    } else {
        let ident = tool.item.sig.ident.to_string();
        let ident = ident.strip_prefix("r#").unwrap_or(&ident);
        if !is_segment(ident) {
            errors.push(syn::Error::new(
                tool.item.sig.ident.span(),
                format!(
                    "the function name `{ident}` is not a valid tool name: use lower-case letters, digits and `_`, or set `name = \"{}\"`",
                    ident.to_lowercase()
                ),
            ));
        }
    }
    if let Some(namespace) = &args.namespace {
        check_namespace(&namespace.value, namespace.span, errors);
    }
    if let Some(version) = &args.version {
        if !is_semver(&version.value) {
            errors.push(syn::Error::new(
                version.span,
                format!(
                    "`{}` is not a semantic version: write `X.Y.Z`, e.g. `1.0.0`",
                    version.value
                ),
            ));
        }
    }
}

fn check_namespace(namespace: &str, span: proc_macro2::Span, errors: &mut Errors) {
    if !namespace.split('.').all(is_segment) {
        errors.push(syn::Error::new(
            span,
            format!(
                "invalid namespace `{namespace}`: use lower-case letters, digits and `_`, with `.` between segments, e.g. `file_utility`"
            ),
        ));
    }
}

fn is_segment(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn is_semver(s: &str) -> bool {
    semver::Version::parse(s).is_ok()
}
