//! Writes the code: the user's function as it was, and beside it, in an anonymous const, the
//! arguments struct, the definition, the invoke function and the registration.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Path};

use crate::attr::{self, Args, Errors};
use crate::model::{Returns, Tool};
use crate::valid;

pub(crate) fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        Err(err) => {
            let err = syn::Error::new(
                err.span(),
                format!("`#[mcp_tool]` goes on a function: {err}"),
            );
            let err = err.to_compile_error();
            return quote! { #err #item };
        }
    };
    let (args, attr_error) = attr::parse(args);
    let tool = Tool::from_item(item_fn);
    let mut errors = Errors::default();
    if let Some(err) = attr_error {
        errors.push(err);
    }
    valid::check(&tool, &args, &mut errors);
    let user_fn = &tool.item;
    match errors.into_error() {
        // The function is always emitted, so one mistake gives one error, not a cascade.
        Some(err) => {
            let err = err.to_compile_error();
            quote! { #err #user_fn }
        }
        None => {
            let registration = registration(&tool, &args);
            quote! { #user_fn #registration }
        }
    }
}

fn registration(tool: &Tool, args: &Args) -> TokenStream {
    let krate: Path = args
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::mcp_runtime));
    let private = quote!(#krate::__private);
    let serde_path = format!("{}::__private::serde", path_string(&krate));
    let schemars_path = format!("{}::__private::schemars", path_string(&krate));

    let fields = tool.params.iter().map(|param| {
        let ident = &param.ident;
        let ty = &param.ty;
        let attrs = &param.field_attrs;
        quote! { #(#attrs)* #ident: #ty, }
    });
    let idents: Vec<_> = tool.params.iter().map(|param| &param.ident).collect();

    let fn_ident = &tool.item.sig.ident;
    let call = quote! { #fn_ident(#(__arguments.#idents),*) };
    let call = if tool.item.sig.asyncness.is_some() {
        quote! { #call.await }
    } else {
        call
    };
    let convert = match &tool.returns {
        Returns::Unit => quote! { #private::unit_output(#call) },
        Returns::Value(_) => quote! { #private::value_output(#call) },
        Returns::Result(_) => quote! { #private::FallibleOutput::into_outcome(#call) },
        Returns::ToolResult => quote! { #private::tool_result_output(#call) },
    };
    let finish = match &tool.returns {
        Returns::Value(ty) => {
            quote_spanned! {ty.span()=> __definition.with_output(#private::output_schema::<#ty>()) }
        }
        Returns::Result(ty) => quote_spanned! {ty.span()=>
            __definition.with_output(#private::output_schema::<<#ty as #private::FallibleOutput>::Ok>())
        },
        Returns::Unit | Returns::ToolResult => quote! { ::core::result::Result::Ok(__definition) },
    };

    let name = tool_name(tool, args);
    let version = match &args.version {
        Some(version) => {
            let version = &version.value;
            quote!(#version)
        }
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let title = args.title.as_ref().or(tool.doc_title.as_ref());
    let title = title.map(|title| quote!(.with_title(#title)));
    let description = args.description.as_ref().or(tool.doc_description.as_ref());
    let description = description.map(|description| quote!(.with_description(#description)));
    let category = args
        .category
        .as_ref()
        .map(|category| quote!(.with_category(#category)));
    let tags = &args.tags;
    let tags = (!tags.is_empty()).then(|| quote!(.with_tags([#(#tags),*])));
    let hint = |hint: Option<bool>| match hint {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let read_only = hint(args.read_only);
    let destructive = hint(args.destructive);
    let idempotent = hint(args.idempotent);
    let open_world = hint(args.open_world);
    let dangerous = args.dangerous.unwrap_or(false);
    let requires_sandbox = args.requires_sandbox.unwrap_or(false);

    let arguments = format_ident!("__McpToolArguments");
    let handler = if tool.item.sig.asyncness.is_some() {
        quote! {
            fn __mcp_invoke(arguments: #private::Arguments) -> #private::ToolFuture {
                match #private::parse_arguments::<#arguments>(arguments) {
                    ::core::result::Result::Ok(__arguments) => {
                        ::std::boxed::Box::pin(async move { #convert })
                    }
                    ::core::result::Result::Err(err) => #private::ready(::core::result::Result::Err(err)),
                }
            }
            #private::Handler::Async(__mcp_invoke)
        }
    } else {
        quote! {
            fn __mcp_invoke(arguments: #private::Arguments) -> #private::Outcome {
                let __arguments = #private::parse_arguments::<#arguments>(arguments)?;
                #convert
            }
            #private::Handler::Sync(__mcp_invoke)
        }
    };
    let span = fn_ident.span();
    let location = quote_spanned! {span=>
        #private::Location {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    };

    quote! {
        const _: () = {
            #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
            #[serde(crate = #serde_path, deny_unknown_fields)]
            #[schemars(crate = #schemars_path)]
            struct #arguments {
                #(#fields)*
            }

            fn __mcp_definition() -> ::core::result::Result<#private::ToolDefinition, #private::DefinitionError> {
                let __definition = #private::ToolDefinition::new(#name, #private::arguments_schema::<#arguments>())?
                    .with_version(#version)?
                    #title
                    #description
                    #category
                    #tags
                    .with_annotations(#private::ToolAnnotations {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                        dangerous: #dangerous,
                        requires_sandbox: #requires_sandbox,
                    });
                #finish
            }

            #private::inventory::submit! {
                #private::ToolRegistration::new(
                    __mcp_definition,
                    { #handler },
                    #location,
                )
            }
        };
    }
}

/// The invocation name: `name` if it holds a namespace, else `namespace.name`, the namespace
/// defaulting to the crate's name and the name to the function's.
fn tool_name(tool: &Tool, args: &Args) -> TokenStream {
    let ident = tool.item.sig.ident.to_string();
    let tool_part = match &args.name {
        Some(name) if name.value.contains('.') => {
            let name = &name.value;
            return quote!(#name);
        }
        Some(name) => name.value.clone(),
        None => ident.strip_prefix("r#").unwrap_or(&ident).to_owned(),
    };
    match &args.namespace {
        Some(namespace) => {
            let full = format!("{}.{tool_part}", namespace.value);
            quote!(#full)
        }
        None => {
            let suffix = format!(".{tool_part}");
            quote!(::core::concat!(::core::env!("CARGO_CRATE_NAME"), #suffix))
        }
    }
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
