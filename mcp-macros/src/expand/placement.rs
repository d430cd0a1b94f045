//! The registration, placed so that it compiles beside a free function and gives one error,
//! the attribute's own, beside an associated one.
//!
//! An attribute is not told whether its function is free or inside an `impl`, and inside
//! one, the items written beside the function are associated items too: an anonymous
//! `const _` is refused there, and the registration could not name the function. So the
//! registration sits in a `const` named after the function (`__mcp_tool_add`), which an
//! `impl` accepts, and reaches the function and that `const` through two imports by their
//! plain names, which find them in a module or a function's body, and find no value inside
//! an `impl`, whose items are not in scope by their plain names. (A stand-in of each name,
//! written for the purpose, is what such an import finds then: a macro, or for the
//! function's name a type unless the signature names a path from it, where a type would
//! hide a module or a crate of the name; a macro is ambiguous beside a built-in attribute
//! of the name.) What an import leaves unbound is taken by an item of the same
//! name written outside it: a check that fails with the attribute's message, and a function
//! of any arguments that the registration may call in its place, so that nothing else
//! fails.
//!
//! The `const` holds a fingerprint of the function and the attribute: inside an `impl`
//! beside a free function of the same name with the attribute, the import finds the free
//! function's `const`, whose fingerprint differs, and the check fails all the same.

use std::hash::{DefaultHasher, Hash, Hasher};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::ext::IdentExt as _;

/// `registration` (items that name the user's function as [`USER_FN`]) inside the
/// placement check of `item_fn`, which carries `attribute` (`#[mcp_tool]`) with `args`.
pub(super) fn placed(
    attribute: &str,
    args: &TokenStream,
    item_fn: &ItemFn,
    registration: TokenStream,
) -> TokenStream {
    let sig = &item_fn.sig;
    let fn_ident = &sig.ident;
    let span = fn_ident.span();
    let kind = attribute.trim_start_matches("#[mcp_").trim_end_matches(']');
    let marker = format_ident!("__mcp_{}_{}", kind, fn_ident.unraw(), span = span);
    let user_fn = user_fn(item_fn);
    let placement = Ident::new("__mcp_placement", span);

    let fingerprint = fingerprint(attribute, args, item_fn);

    // A format string: its braces doubled.
    let message = crate::valid::placement::associated(attribute, !args.is_empty(), sig)
        .replace('{', "{{")
        .replace('}', "}}");
    let generics: Vec<Ident> = (0..sig.inputs.len())
        .map(|i| format_ident!("__McpA{}", i))
        .collect();
    let asyncness = &sig.asyncness;
    let (type_stand_in, macro_stand_in) = stand_ins(fn_ident, sig, args);

    quote_spanned! {span=>
        #[doc(hidden)]
        #[allow(dead_code, non_upper_case_globals)]
        const #marker: u64 = {
            // Taken where the imports bind no value: inside an `impl`.
            #[allow(dead_code, non_upper_case_globals)]
            const #placement: u64 = 0;
            #[allow(dead_code, clippy::unused_async, clippy::too_many_arguments)]
            #asyncness fn #user_fn<#(#generics,)* __McpR>(#(_: #generics),*) -> __McpR {
                ::core::unreachable!()
            }

            #type_stand_in

            {
                // What the imports find where the function is an associated one; they
                // import no value from here.
                #[allow(unused_macros)]
                macro_rules! #marker { () => {} }
                #macro_stand_in

                #[allow(unused_imports)]
                use #marker as #placement;
                #[allow(unused_imports)]
                use #fn_ident as #user_fn;

                const _: () = if #placement != #fingerprint {
                    ::core::panic!(#message)
                };

                #registration
            }

            #fingerprint
        };
    }
}

/// A hash of the attribute, its arguments and the function, never 0 (the value of the
/// check's fallback): it tells this function from a free one of the same name.
fn fingerprint(attribute: &str, args: &TokenStream, item_fn: &ItemFn) -> u64 {
    let mut hasher = DefaultHasher::new();
    (attribute, args.to_string(), quote!(#item_fn).to_string()).hash(&mut hasher);
    hasher.finish() | 1
}

/// What the import of the function's name finds inside an `impl`, as a type and as a
/// macro, one of them empty. A type of the name hides a module or a crate of that name
/// from the registration, which repeats the signature; a macro of the name is ambiguous
/// beside a built-in attribute of that name (`inline`, `path`, `test`): so a macro where
/// the signature or the attribute names a path that starts with the function's name, a
/// type otherwise.
fn stand_ins(
    fn_ident: &Ident,
    sig: &syn::Signature,
    args: &TokenStream,
) -> (TokenStream, TokenStream) {
    let span = fn_ident.span();
    if names_a_path_from(fn_ident, sig, args) {
        let stand_in = quote_spanned! {span=>
            #[allow(unused_macros)]
            macro_rules! #fn_ident { () => {} }
        };
        (TokenStream::new(), stand_in)
    } else {
        let stand_in = quote_spanned! {span=>
            #[allow(dead_code, non_camel_case_types)]
            struct #fn_ident {}
        };
        (stand_in, TokenStream::new())
    }
}

/// Whether the parameters, the return type, the generics or the attribute's arguments of
/// `sig` name a path that starts with `name` (`name::…`), or a string holding one
/// (`#[serde(default = "name::x")]`). A key or a parameter of the name is no path.
fn names_a_path_from(name: &Ident, sig: &syn::Signature, args: &TokenStream) -> bool {
    use proc_macro2::{Spacing, TokenTree};
    fn walk(tokens: TokenStream, name: &str, prefix: &str) -> bool {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().any(|(at, token)| match token {
            // `name::`: the ident, not after a `::`, then a joint `:` and a `:`.
            TokenTree::Ident(ident) => {
                ident.unraw() == name
                    && !(at >= 2
                        && matches!(&tokens[at - 2],
                            TokenTree::Punct(colon) if colon.as_char() == ':' && colon.spacing() == Spacing::Joint)
                        && matches!(&tokens[at - 1], TokenTree::Punct(colon) if colon.as_char() == ':'))
                    && matches!(tokens.get(at + 1),
                        Some(TokenTree::Punct(colon)) if colon.as_char() == ':' && colon.spacing() == Spacing::Joint)
                    && matches!(tokens.get(at + 2), Some(TokenTree::Punct(colon)) if colon.as_char() == ':')
            }
            TokenTree::Literal(literal) => literal.to_string().contains(prefix),
            TokenTree::Group(group) => walk(group.stream(), name, prefix),
            TokenTree::Punct(_) => false,
        })
    }
    let name = name.unraw().to_string();
    let prefix = format!("{name}::");
    let inputs = &sig.inputs;
    let (output, generics) = (&sig.output, &sig.generics);
    let where_clause = &sig.generics.where_clause;
    let signature = quote!(#inputs #output #generics #where_clause);
    walk(signature, &name, &prefix) || walk(args.clone(), &name, &prefix)
}

/// The name the registration calls the user's function by, spanned at its name.
pub(super) fn user_fn(item_fn: &ItemFn) -> Ident {
    Ident::new(USER_FN, item_fn.sig.ident.span())
}

const USER_FN: &str = "__mcp_function";

#[cfg(test)]
mod tests {
    use super::*;

    fn names(item: &str, args: &str) -> bool {
        let item: ItemFn = syn::parse_str(item).unwrap();
        names_a_path_from(&item.sig.ident, &item.sig, &args.parse().unwrap())
    }

    #[test]
    fn only_a_path_from_the_name_counts() {
        assert!(names("fn uuid(id: uuid::Uuid) {}", ""));
        assert!(names("fn path() -> Vec<path::Name> { todo!() }", ""));
        assert!(names("fn x(a: u8) {}", "layer = x::layer"));
        assert!(names("fn x(#[serde(default = \"x::zero\")] a: u8) {}", ""));
        assert!(!names(
            "fn inline(inline: u8) {}",
            "inline, namespace = \"inline\""
        ));
        assert!(!names("fn add(a: crate::add::A) {}", ""));
    }
}
