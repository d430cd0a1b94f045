//! Checks what cannot become a tool, a resource or a prompt, each error on the token at
//! fault: `tool.rs` a tool's, `item.rs` a resource's or a prompt's; here, what they share.

mod item;
mod tool;

use syn::Type;

pub(crate) use item::{check_prompt, check_resource};
pub(crate) use tool::check;

/// The characters of an HTTP token besides ASCII letters and digits (RFC 9110 `tchar`),
/// which a header's name is made of.
const TOKEN_SYMBOLS: &str = "!#$%&'*+-.^_`|~";

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
