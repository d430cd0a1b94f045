//! `#[mcp_prompt]`: the definition, the function that renders the prompt from its
//! arguments, its completion functions and the registration.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{
    call_user_fn, common_definition, completions, item_name, local, location, private_path,
    read_inputs, shielded,
};
use crate::attr::{self, PromptArgs};
use crate::model::Item;
use crate::valid;

pub(crate) fn mcp_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    super::expand(
        args,
        item,
        super::Misplaced {
            attribute: "#[mcp_prompt]",
            example: "#[mcp_prompt] fn review(code: String) -> String { … }",
        },
        attr::parse_prompt,
        Item::from_item,
        |prompt| &prompt.item,
        valid::check_prompt,
        prompt_registration,
    )
}

/// As `resource_helpers` (in `resource.rs`), for a prompt, with the locals they bind.
fn prompt_helpers(private: &TokenStream) -> (TokenStream, Vec<Ident>) {
    let [arguments, name, value, err] = ["arguments", "name", "value", "err"].map(local);
    let helpers = quote! {
        #[allow(dead_code)]
        fn __mcp_prompt_argument<T: #private::FromArgument>(
            #arguments: &#private::Arguments,
            #name: &str,
        ) -> ::core::result::Result<T, #private::PromptFuture> {
            #private::prompt_argument::<T>(#arguments, #name)
                .map_err(|#err| #private::prompt_ready(::core::result::Result::Err(#err)))
        }

        #[allow(dead_code)]
        fn __mcp_optional_prompt_argument<T: #private::FromArgument>(
            #arguments: &#private::Arguments,
            #name: &str,
        ) -> ::core::result::Result<::core::option::Option<T>, #private::PromptFuture> {
            #private::optional_prompt_argument::<T>(#arguments, #name)
                .map_err(|#err| #private::prompt_ready(::core::result::Result::Err(#err)))
        }

        fn __mcp_prompt_result<T: #private::IntoPromptResult>(#value: T) -> #private::PromptFuture {
            #private::prompt_ready(#private::IntoPromptResult::into_prompt(#value))
        }
    };
    (helpers, vec![arguments, name, value, err])
}

fn prompt_registration(item: &Item, args: &PromptArgs) -> TokenStream {
    let private = private_path(args.common.krate.as_ref());
    let (helpers, helper_locals) = prompt_helpers(&private);
    let completions = completions(item, &private);
    let location = location(item, &private);

    let name = item_name(item, &args.common);
    let [title, description, scopes] = common_definition(&args.common, &item.doc);
    let arguments = prompt_arguments(item, &private);
    let get = get_fn(item, &private, &helpers, &helper_locals);

    quote! {
        const _: () = {

            fn __mcp_definition() -> #private::PromptDefinition {
                #private::PromptDefinition::new(#name)
                    #title
                    #description
                    #(#arguments)*
                    #scopes
            }

            const __MCP_GET: fn(#private::Arguments) -> #private::PromptFuture = #get;

            #completions

            #private::inventory::submit! {
                #private::PromptRegistration::new(
                    #name,
                    __mcp_definition,
                    __MCP_GET,
                    __MCP_COMPLETIONS,
                    #location,
                )
            }
        };
    }
}

/// The definition's `.with_argument(…)` of each parameter, required unless optional.
fn prompt_arguments(item: &Item, private: &TokenStream) -> Vec<TokenStream> {
    item.inputs
        .iter()
        .map(|input| {
            let name = input.name().unwrap_or_default();
            let new = if input.optional().is_some() {
                quote!(optional)
            } else {
                quote!(required)
            };
            let description = input
                .doc
                .as_ref()
                .map(|doc| quote!(.with_description(#doc)));
            quote!(.with_argument(#private::PromptArgument::#new(#name) #description))
        })
        .collect()
}

/// The function that renders the prompt: the arguments read, the user's function called,
/// what it returns made a result; shielded.
fn get_fn(
    item: &Item,
    private: &TokenStream,
    helpers: &TokenStream,
    helper_locals: &[Ident],
) -> TokenStream {
    let arguments_local = local("arguments");
    let (reads, locals, bound) = read_inputs(item, &arguments_local, false);
    let value = local("value");
    let err = local("err");
    let convert = item.output.as_ref().map(|ty| {
        let ready = quote!(#private::prompt_ready);
        super::returned(
            ty,
            &value,
            &err,
            private,
            "__mcp_prompt_result",
            &quote!(),
            ready,
        )
    });
    let get_body = call_user_fn(item, &value, &locals, convert);
    shielded(
        [&arguments_local, &value]
            .into_iter()
            .chain(&bound)
            .chain(helper_locals),
        quote! {
            #helpers
            #[allow(unused_variables)]
            fn __mcp_get(#arguments_local: #private::Arguments) -> #private::PromptFuture {
                #reads
                #get_body
            }
        },
        quote!(__mcp_get),
    )
}
