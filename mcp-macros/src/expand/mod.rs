//! Writes the code: the user's function as it was, and beside it, in an anonymous const, what
//! registers it, placed by `placement.rs` so that it compiles beside a free function only.
//! One room per kind: `tool.rs` (the arguments struct, the checks, the definition, the invoke
//! function), `resource.rs` and `prompt.rs` (the definition, the function that reads or
//! renders it from the request); here, what they share.

mod placement;
mod prompt;
mod resource;
mod tool;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Path};

use crate::attr::{CommonArgs, Errors};
use crate::model::{Doc, Item};

pub(crate) use prompt::mcp_prompt;
pub(crate) use resource::mcp_resource;
pub(crate) use tool::mcp_tool;

/// The pipeline every attribute shares: the function, the attribute's arguments, the
/// model, its checks, then the registration, placed so that it compiles beside a free
/// function only. With any error, the errors come out with the user's function unchanged:
/// one mistake gives one error, not a cascade. `misplaced` says how the attribute is
/// written on a function, for an attribute on anything else.
// One parameter for each step of the pipeline that differs by kind, and the two inputs.
#[allow(clippy::too_many_arguments)]
fn expand<M, A>(
    args: TokenStream,
    item: TokenStream,
    misplaced: Misplaced,
    parse_args: impl FnOnce(TokenStream) -> (A, Option<syn::Error>),
    model: impl FnOnce(ItemFn, &mut Errors) -> M,
    user_fn: impl Fn(&M) -> &ItemFn,
    check: impl FnOnce(&M, &A, &mut Errors),
    register: impl FnOnce(&M, &A) -> TokenStream,
) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        Err(_) => {
            // On the item's keyword and name, which say what it is instead.
            let message = misplaced.message(&item);
            let err = match syn::parse2::<syn::Item>(item.clone()) {
                Ok(parsed) => match what_it_is(&parsed) {
                    Some(tokens) => syn::Error::new_spanned(tokens, message),
                    None => syn::Error::new(Span::call_site(), message),
                },
                Err(_) => syn::Error::new(Span::call_site(), message),
            };
            let err = err.to_compile_error();
            return quote! { #err #item };
        }
    };
    let (parsed, attr_error) = parse_args(args.clone());
    let mut errors = Errors::default();
    if let Some(err) = attr_error {
        errors.push(err);
    }
    let model = model(item_fn, &mut errors);
    check(&model, &parsed, &mut errors);
    let emitted = user_fn(&model);
    let attribute = misplaced.attribute;
    crate::valid::placement::check(&emitted.sig, attribute, !args.is_empty(), &mut errors);
    match errors.into_error() {
        Some(err) => {
            let err = err.to_compile_error();
            quote! { #err #emitted }
        }
        None => {
            let registration = register(&model, &parsed);
            let placed = placement::placed(attribute, &args, emitted, registration);
            quote! { #emitted #placed }
        }
    }
}

/// The keyword and name that say what `item` is, as `struct Point` or `impl Point`: where
/// an attribute that only functions take reports being put on it. `None` for an item with
/// neither (a macro call, say).
fn what_it_is(item: &syn::Item) -> Option<TokenStream> {
    Some(match item {
        syn::Item::Struct(item) => pair(&item.struct_token, &item.ident),
        syn::Item::Enum(item) => pair(&item.enum_token, &item.ident),
        syn::Item::Union(item) => pair(&item.union_token, &item.ident),
        syn::Item::Trait(item) => pair(&item.trait_token, &item.ident),
        syn::Item::Const(item) => pair(&item.const_token, &item.ident),
        syn::Item::Static(item) => pair(&item.static_token, &item.ident),
        syn::Item::Type(item) => pair(&item.type_token, &item.ident),
        syn::Item::Mod(item) => pair(&item.mod_token, &item.ident),
        syn::Item::Impl(item) => pair(&item.impl_token, &item.self_ty),
        syn::Item::Use(item) => pair(&item.use_token, &item.tree),
        syn::Item::ExternCrate(item) => pair(&item.extern_token, &item.ident),
        syn::Item::ForeignMod(item) => pair(&item.unsafety, &item.abi),
        _ => return None,
    })
}

/// Two parts of an item, side by side: an error spans from the first to the second.
fn pair(first: &impl quote::ToTokens, second: &impl quote::ToTokens) -> TokenStream {
    quote!(#first #second)
}

/// An attribute that only functions take, and an example of it on one.
struct Misplaced {
    attribute: &'static str,
    example: &'static str,
}

impl Misplaced {
    /// "`#[mcp_tool]` goes on a `fn`; this is a `struct`", and how to write it.
    fn message(&self, item: &TokenStream) -> String {
        let Self { attribute, example } = self;
        let item = syn::parse2::<syn::Item>(item.clone());
        let what = match &item {
            Ok(syn::Item::Impl(_)) => "this is an `impl` block, whose methods cannot be registered",
            Ok(syn::Item::Struct(_)) => "this is a `struct`",
            Ok(syn::Item::Enum(_)) => "this is an `enum`",
            Ok(syn::Item::Union(_)) => "this is a `union`",
            Ok(syn::Item::Trait(_)) => "this is a `trait`",
            Ok(syn::Item::Const(_)) => "this is a `const`",
            Ok(syn::Item::Static(_)) => "this is a `static`",
            Ok(syn::Item::Type(_)) => "this is a `type` alias",
            Ok(syn::Item::Mod(_)) => "this is a `mod`",
            Ok(syn::Item::Use(_)) => "this is a `use`",
            Ok(syn::Item::ExternCrate(_)) => "this is an `extern crate`",
            Ok(syn::Item::ForeignMod(_)) => "this is an `extern` block",
            Ok(syn::Item::Macro(_)) => "this is a macro call",
            _ => "this is not a function",
        };
        // Where the attribute goes instead: a method's is a free function.
        let instead = match item {
            Ok(syn::Item::Impl(_)) => "a free function",
            _ => "a function",
        };
        format!("`{attribute}` goes on a `fn`; {what}: put it on {instead}, e.g. `{example}`")
    }
}

/// `::mcp_runtime::__private`, or the path `crate = …` gives.
fn private_path(krate: Option<&Path>) -> TokenStream {
    let krate: Path = krate
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(::mcp_runtime));
    quote!(#krate::__private)
}

/// The name a resource or a prompt is registered under: `name = "…"`, or else the
/// function's.
fn item_name(item: &Item, common: &CommonArgs) -> String {
    common
        .name
        .as_ref()
        .map_or_else(|| item.name(), |name| name.value.clone())
}

/// What a definition takes from the keys every attribute shares, each a call after its
/// `new(…)`: `.with_title(…)` and `.with_description(…)`, the attribute's or else the doc
/// comment's, and `.with_scopes([…])` when scopes are given.
fn common_definition(common: &CommonArgs, doc: &Doc) -> [Option<TokenStream>; 3] {
    let title = common.title.as_ref().or(doc.title.as_ref());
    let title = title.map(|title| quote!(.with_title(#title)));
    let description = common
        .description
        .as_ref()
        .map(|description| &description.value)
        .or(doc.description.as_ref());
    let description = description.map(|description| quote!(.with_description(#description)));
    let scopes = common
        .scopes
        .as_ref()
        .map(|scopes| quote!(.with_scopes([#(#scopes),*])));
    [title, description, scopes]
}

/// Where the function was written, for messages about it.
fn location(item: &Item, private: &TokenStream) -> TokenStream {
    let span = item.item.sig.ident.span();
    quote_spanned! {span=>
        #private::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    }
}

/// The completion functions, each checked where it is named, and the static list of them.
fn completions(item: &Item, private: &TokenStream) -> TokenStream {
    let mut checks = TokenStream::new();
    let mut entries = Vec::new();
    for (i, input) in item.inputs.iter().enumerate() {
        let (Some(complete), Some(name)) = (&input.complete, input.name()) else {
            continue;
        };
        let path = &complete.path;
        let constant = format_ident!("__MCP_COMPLETE_{}", i);
        // Spanned on the path: a function of the wrong signature is one error, there.
        checks.extend(quote_spanned! {path.span()=>
            const #constant: #private::CompleteFn = #path;
        });
        entries.push(quote!(#private::Completion::new(#name, #constant)));
    }
    quote! {
        #checks
        const __MCP_COMPLETIONS: &[#private::Completion] = &[#(#entries),*];
    }
}

/// Reads each parameter from `source`, the read request or the prompt's arguments,
/// returning the failure of the first that does not read: the reads, the locals holding
/// the parameters, and every local the reads bind.
fn read_inputs(
    item: &Item,
    source: &Ident,
    resource: bool,
) -> (TokenStream, Vec<Ident>, Vec<Ident>) {
    let failed = local("failed");
    let mut reads = TokenStream::new();
    let mut locals = Vec::new();
    for (i, input) in item.inputs.iter().enumerate() {
        let name = input.name().unwrap_or_default();
        let value = local(&format!("input_{i}"));
        let read = match input.optional() {
            Some(inner) if !resource => quote_spanned! {inner.span()=>
                __mcp_optional_prompt_argument::<#inner>(&#source, #name)
            },
            _ => {
                let ty = &input.ty;
                let function = if resource {
                    quote!(__mcp_template_variable)
                } else {
                    quote!(__mcp_prompt_argument)
                };
                quote_spanned! {ty.span()=> #function::<#ty>(&#source, #name) }
            }
        };
        reads.extend(quote! {
            let #value = match #read {
                ::core::result::Result::Ok(#value) => #value,
                ::core::result::Result::Err(#failed) => return #failed,
            };
        });
        locals.push(value);
    }
    let mut bound = locals.clone();
    bound.push(failed);
    (reads, locals, bound)
}

/// The body of a generated function that calls the user's with `locals` and hands what it
/// returns, bound to `value`, to `convert`: a boxed future when the user's is `async`.
fn call_user_fn(
    item: &Item,
    value: &Ident,
    locals: &[Ident],
    convert: Option<TokenStream>,
) -> TokenStream {
    let fn_ident = placement::user_fn(&item.item);
    match item.item.sig.asyncness {
        // Spanned at `async`, so a future that is not `Send` is reported there.
        Some(asyncness) => quote_spanned! {asyncness.span=>
            ::std::boxed::Box::pin(async move {
                let #value = #fn_ident(#(#locals),*).await;
                #convert.await
            })
        },
        None => quote! {
            let #value = #fn_ident(#(#locals),*);
            #convert
        },
    }
}

/// The future of a resource's or prompt's return value `value`, of the written type `ty`,
/// made by the generated helper `helper` called as `helper(value, rest…)`: with `ty` named
/// (`helper::<ty>(…)`) for any type but a `Result`. A return type named `Result` (an alias of
/// one too, as for tools) has its `Ok` made so (bound to `value` too, its type inferred: it
/// may have no name here), and its `Err` converted into a `ToolError` as a tool's is, by the
/// error type's own kind (`Into<ToolError>`, `std::error::Error` with its causes,
/// `anyhow::Error`, `Display`), then made a failed future by `ready`. An error type of none
/// of these kinds is one error, on its token.
fn returned(
    ty: &syn::Type,
    value: &Ident,
    err: &Ident,
    private: &TokenStream,
    helper: &str,
    rest: &TokenStream,
    ready: TokenStream,
) -> TokenStream {
    // Spanned at the type, as the rest of the call: an error in it points there.
    let helper = Ident::new(helper, ty.span());
    let finish = |named: Option<&syn::Type>| match named {
        Some(ty) => quote_spanned! {ty.span()=> #helper::<#ty>(#value #rest) },
        None => quote_spanned! {ty.span()=> #helper(#value #rest) },
    };
    let Some((_, written_err)) = crate::model::result_types(ty) else {
        return finish(Some(ty));
    };
    let err_type = quote_spanned! {ty.span()=> <#ty as #private::FallibleOutput>::Err };
    let check_span = written_err
        .as_ref()
        .map_or_else(|| ty.span(), Spanned::span);
    let check = quote_spanned! {check_span=>
        (&&&&&#private::ErrorKind::<#err_type>::new()).check();
    };
    let finish_ok = finish(None);
    quote! {({
        #[allow(unused_imports)]
        use #private::{
            ErrorKindInto as _, ErrorKindStd as _, ErrorKindDynSend as _, ErrorKindDyn as _,
            ErrorKindDisplay as _, ErrorKindNone as _,
        };
        #check
        match <#ty as #private::FallibleOutput>::into_result(#value) {
            ::core::result::Result::Ok(#value) => #finish_ok,
            ::core::result::Result::Err(#err) => #ready(::core::result::Result::Err(
                #private::ConvertError::convert(
                    &(&&&&&#private::ErrorKind::<#err_type>::new()).converter(),
                    #err,
                ),
            )),
        }
    })}
}

/// An identifier for a local of generated code. Its mixed-site span keeps it apart from the
/// names the user writes: the user's tokens in the generated code (the function's name,
/// its types, its parameters' names) neither see it nor are hidden by it. A function
/// binding locals is [`shielded`] from the user's items of the same names.
fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// `items`, generated functions whose locals are `locals`, in a block ending in `tail`.
///
/// The locals' mixed-site spans keep them apart from the user's locals, not from the
/// user's items: the compiler reads a binding whose name is a constant or a unit struct in
/// scope as a pattern of it. So the block also declares, for each local, a function of its
/// name that nothing calls, which hides any such item of the user's module there, and
/// which a binding may shadow. The user's function is reached by the name the placement
/// imports it under, outside the block: hiding a name it shares with a local is harmless.
fn shielded<'a>(
    locals: impl IntoIterator<Item = &'a Ident>,
    items: TokenStream,
    tail: TokenStream,
) -> TokenStream {
    let mut names: Vec<&Ident> = Vec::new();
    for local in locals {
        if !names.contains(&local) {
            names.push(local);
        }
    }
    quote! {{
        #(
            #[allow(dead_code)]
            fn #names() {}
        )*
        #items
        #tail
    }}
}

fn path_string(path: &Path) -> String {
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let leading = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{leading}{}", segments.join("::"))
}
