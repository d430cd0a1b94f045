//! Where a registered function may be: outside any `impl` or `trait`. An attribute does not
//! see where its function is written; a signature that names `Self` says it here, and for
//! any other the expansion finds out as it compiles (`expand/placement.rs`). Both give the
//! message written here.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt as _;
use syn::{FnArg, Pat, ReturnType, Signature};

use crate::attr::Errors;

/// An associated function whose signature names `Self` (`-> Self`, `other: &Self`): one
/// error, on its name. A method (`&self`) is refused by its receiver already.
pub(crate) fn check(sig: &Signature, attribute: &str, with_args: bool, errors: &mut Errors) {
    let has_receiver = matches!(sig.inputs.first(), Some(FnArg::Receiver(_)));
    let mut signature = TokenStream::new();
    sig.inputs.to_tokens(&mut signature);
    sig.output.to_tokens(&mut signature);
    if !has_receiver && names_self(signature) {
        errors.push(syn::Error::new(
            sig.ident.span(),
            associated(attribute, with_args, sig),
        ));
    }
}

fn names_self(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == "Self",
        TokenTree::Group(group) => names_self(group.stream()),
        _ => false,
    })
}

/// What to do with an associated function that carries the attribute: move the attribute
/// to a free function that calls it, shown with the function's own signature.
/// `attribute` is written `#[mcp_tool]`; `with_args` shows the example with `(…)`.
pub(crate) fn associated(attribute: &str, with_args: bool, sig: &Signature) -> String {
    let name = sig.ident.unraw().to_string();
    let shown = match (with_args, attribute.strip_suffix(']')) {
        (true, Some(open)) => format!("{open}(…)]"),
        _ => attribute.to_owned(),
    };
    let mut params = Vec::new();
    let mut args = Vec::new();
    for input in &sig.inputs {
        let FnArg::Typed(typed) = input else { continue };
        let arg = match &*typed.pat {
            Pat::Ident(pat) => pat.ident.unraw().to_string(),
            pat => render(pat.to_token_stream()),
        };
        params.push(format!("{arg}: {}", render(typed.ty.to_token_stream())));
        args.push(arg);
    }
    let asyncness = if sig.asyncness.is_some() {
        "async "
    } else {
        ""
    };
    let output = match &sig.output {
        ReturnType::Default => String::new(),
        ReturnType::Type(_, ty) => format!(" -> {}", render(ty.to_token_stream())),
    };
    let wait = if sig.asyncness.is_some() {
        ".await"
    } else {
        ""
    };
    format!(
        "`{attribute}` goes on a free function: `{name}` is an associated function, which cannot \
         be registered from inside an `impl` or a `trait`; move the attribute and the doc comment \
         to a free function outside it that calls this one, e.g. `{shown} {asyncness}fn {name}({}){output} \
         {{ Type::{name}({}){wait} }}`, where `Type` is the type the `impl` is for",
        params.join(", "),
        args.join(", "),
    )
}

/// Tokens as a person writes them (`Vec<Option<String>>`, `&'a str`), where `to_string`
/// puts a space between every two; `Self` as `Type`, the name the message gives it.
fn render(tokens: TokenStream) -> String {
    let mut out = String::new();
    // Whether the next token follows without a space: at the start, after `&`, `<`, `::`,
    // a lifetime's `'`, and the first of two joint marks (`->`, `>>`).
    let mut glued = true;
    // Whether the last token was a name a parenthesis follows tightly (`Fn(i32)`).
    let mut after_name = false;
    for token in tokens {
        let tight = match &token {
            TokenTree::Punct(punct) => matches!(punct.as_char(), ',' | ';' | '<' | '>' | ':'),
            TokenTree::Group(group) => after_name && group.delimiter() != Delimiter::Brace,
            _ => false,
        };
        if !glued && !tight {
            out.push(' ');
        }
        match &token {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push_str(&render(group.stream()));
                out.push_str(close);
            }
            // In a free function, the `impl`'s type is named.
            TokenTree::Ident(ident) if ident == "Self" => out.push_str("Type"),
            other => out.push_str(&other.to_string()),
        }
        (glued, after_name) = match &token {
            TokenTree::Punct(punct) => (
                punct.spacing() == Spacing::Joint && punct.as_char() != '>'
                    || matches!(punct.as_char(), '&' | '<' | ':' | '\''),
                false,
            ),
            TokenTree::Ident(ident) => (
                false,
                !matches!(ident.to_string().as_str(), "dyn" | "mut" | "impl"),
            ),
            _ => (false, false),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(text: &str) -> Signature {
        syn::parse_str(text).expect("a signature")
    }

    #[test]
    fn types_render_as_written() {
        for ty in [
            "i64",
            "Vec<Option<String>>",
            "HashMap<String, Vec<u8>>",
            "&'a str",
            "&mut Vec<u8>",
            "&ToolContext",
            "[u8; 4]",
            "(i64, String)",
            "std::collections::BTreeMap<String, i64>",
            "Result<Vec<Point>, anyhow::Error>",
            "State<Mutex<u32>>",
            "Box<dyn Error + Send>",
        ] {
            let parsed: syn::Type = syn::parse_str(ty).expect("a type");
            assert_eq!(render(parsed.to_token_stream()), ty);
        }
    }

    #[test]
    fn the_message_shows_a_free_function_calling_the_associated_one() {
        let message = associated(
            "#[mcp_tool]",
            true,
            &sig("fn add(a: i64, mut b: Vec<i64>) -> i64"),
        );
        assert!(
            message.contains(
                "e.g. `#[mcp_tool(…)] fn add(a: i64, b: Vec<i64>) -> i64 { Type::add(a, b) }`"
            ),
            "{message}"
        );
        let message = associated(
            "#[mcp_prompt]",
            false,
            &sig("async fn review(code: String) -> String"),
        );
        assert!(
            message.contains(
                "e.g. `#[mcp_prompt] async fn review(code: String) -> String { Type::review(code).await }`"
            ),
            "{message}"
        );
    }

    #[test]
    fn only_a_signature_naming_self_is_refused_here() {
        let check_sig = |text: &str| {
            let mut errors = Errors::default();
            check(&sig(text), "#[mcp_tool]", false, &mut errors);
            errors.into_error().is_some()
        };
        assert!(check_sig("fn new(name: String) -> Self"));
        let message = associated("#[mcp_tool]", false, &sig("fn at(x: i64) -> Self"));
        assert!(
            message.contains("fn at(x: i64) -> Type { Type::at(x) }"),
            "{message}"
        );
        assert!(check_sig("fn merge(items: Vec<Self>) -> u32"));
        assert!(!check_sig("fn read(&self) -> Self"));
        assert!(!check_sig("fn add(a: i64, b: i64) -> i64"));
    }
}
