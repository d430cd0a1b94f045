//! `prompt`: a prompt rendered with its arguments, one line per message.

use std::io::{self, Write};

use clap::Args;
use mcp_runtime_core::{ContentBlock, PromptMessage, Role, json_type};
use serde_json::Value;

use super::read::{blob_line, decoded_len};
use super::{USAGE, block_on, failed, json_operand, not_found};
use crate::registry::{PromptError, Registry};

// The arguments of `prompt`.
#[derive(Args)]
pub(super) struct PromptArgs {
    /// The prompt's name.
    name: String,
    /// Its arguments as a JSON object, or `-` to read them from standard input.
    #[arg(default_value = "{}")]
    arguments: String,
    /// Print the whole result, `{"messages": […]}`, as JSON.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(registry: &Registry, args: &PromptArgs) -> u8 {
    let name = args.name.as_str();
    let arguments = match json_operand(&args.arguments) {
        Ok(Value::Object(arguments)) => arguments,
        Ok(other) => {
            eprintln!(
                "error: the arguments must be a JSON object, found {}",
                json_type(&other)
            );
            return USAGE;
        }
        Err(message) => {
            eprintln!("error: {message}");
            return USAGE;
        }
    };
    let result = match block_on(registry.get_prompt(name, arguments)) {
        Ok(Ok(result)) => result,
        Ok(Err(err @ PromptError::NotFound(_))) => {
            return not_found(err, name, registry.prompts().map(|prompt| prompt.name()));
        }
        Ok(Err(PromptError::Invalid(err))) => {
            return failed(format_args!(
                "invalid arguments for `{name}`: {}",
                err.message()
            ));
        }
        Ok(Err(PromptError::Failed(err))) => {
            return failed(format_args!("prompt `{name}` failed: {err}"));
        }
        Err(message) => return failed(message),
    };
    let mut out = io::stdout().lock();
    if args.json {
        let json = serde_json::to_string_pretty(&result).unwrap_or_default();
        let _ = writeln!(out, "{json}");
    } else {
        for message in &result.messages {
            let _ = writeln!(out, "{}", shown(message));
        }
    }
    0
}

/// `[role] text`, or `[role] <image image/png, 120 bytes>` and the like for other content.
fn shown(message: &PromptMessage) -> String {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let media = |what: &str, mime_type: &str, data: &str| match decoded_len(data) {
        Ok(size) => blob_line(what, Some(mime_type), size),
        Err(_) => format!("<{what} {mime_type}, not valid base64>"),
    };
    let content = match &message.content {
        ContentBlock::Text { text } => text.clone(),
        ContentBlock::Image { data, mime_type } => media("image", mime_type, data),
        ContentBlock::Audio { data, mime_type } => media("audio", mime_type, data),
        ContentBlock::Resource { resource } => {
            let bytes = match (&resource.text, &resource.blob) {
                (Some(text), _) => text.len(),
                (None, Some(blob)) => decoded_len(blob).unwrap_or(0),
                (None, None) => 0,
            };
            let what = format!("resource {}", resource.uri);
            blob_line(&what, resource.mime_type.as_deref(), bytes)
        }
        ContentBlock::ResourceLink { uri, .. } => format!("<link {uri}>"),
    };
    format!("[{role}] {content}")
}
