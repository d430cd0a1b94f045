//! Checks what cannot become a tool, a resource or a prompt, each error on the token at
//! fault: `tool.rs` a tool's, `item.rs` a resource's or a prompt's, `placement.rs` where
//! any of them may be written; here, what they share.

mod item;
pub(crate) mod placement;
mod tool;

use syn::spanned::Spanned as _;
use syn::{Signature, Type};

use crate::attr::Errors;

pub(crate) use item::{check_prompt, check_resource};
pub(crate) use tool::check;

/// The characters of an HTTP token besides ASCII letters and digits (RFC 9110 `tchar`),
/// which a header's name is made of.
const TOKEN_SYMBOLS: &str = "!#$%&'*+-.^_`|~";

/// What a registered function cannot be: generic, `const`, `unsafe`, `extern` or variadic.
/// `attribute` names the attribute in the messages; `generic` says why its functions take
/// concrete types, and `unsafety` why they must be safe.
fn check_plain_fn(
    sig: &Signature,
    attribute: &str,
    generic: &str,
    unsafety: &str,
    errors: &mut Errors,
) {
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        // `Generics` spans nothing of a `where` clause alone: point at the clause then.
        let at: &dyn quote::ToTokens = match (&sig.generics.lt_token, &sig.generics.where_clause) {
            (None, Some(clause)) => clause,
            _ => &sig.generics,
        };
        errors.push(syn::Error::new_spanned(
            at,
            format!("{attribute} functions cannot be generic: {generic}; use concrete types"),
        ));
    }
    if let Some(constness) = sig.constness {
        errors.push(syn::Error::new(
            constness.span(),
            format!("{attribute} cannot be used on a `const fn`: remove `const`"),
        ));
    }
    if let Some(unsafe_token) = sig.unsafety {
        errors.push(syn::Error::new(
            unsafe_token.span(),
            format!(
                "{attribute} cannot be used on an `unsafe fn`: {unsafety}; make it a safe function"
            ),
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            abi,
            format!("{attribute} cannot be used on an `extern` function: remove the ABI"),
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new(
            variadic.span(),
            format!("{attribute} functions cannot be variadic"),
        ));
    }
}

/// The first reference in `ty`, also inside generic arguments (`Option<&str>`).
fn find_reference(ty: &Type) -> Option<&syn::TypeReference> {
    match ty {
        Type::Reference(reference) => Some(reference),
        Type::Paren(inner) => find_reference(&inner.elem),
        Type::Group(inner) => find_reference(&inner.elem),
        Type::Slice(inner) => find_reference(&inner.elem),
        Type::Array(inner) => find_reference(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(find_reference),
        Type::Path(path) => {
            path.path
                .segments
                .iter()
                .find_map(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => {
                        args.args.iter().find_map(|arg| match arg {
                            syn::GenericArgument::Type(ty) => find_reference(ty),
                            _ => None,
                        })
                    }
                    _ => None,
                })
        }
        _ => None,
    }
}

fn is_segment(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// `ReadFile` → `read_file`, `get-item` → `get_item`.
fn suggest_segment(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() {
        "tool".to_owned()
    } else {
        out
    }
}
