//! `MCP_PROMPT_SPECIFICATION.md`, generated: one per prompt.

use std::fmt::Write;

use serde_json::{Map, Value};

use super::{shell_word, table_cell};
use crate::registry::RegisteredPrompt;

/// The file name of a prompt's specification.
pub const PROMPT_SPEC_FILE: &str = "MCP_PROMPT_SPECIFICATION.md";

/// The specification of `prompt`: description, name, arguments, and the command line that
/// renders it (`program prompt NAME 'ARGUMENTS'`) with placeholder values.
pub fn prompt_specification(prompt: &RegisteredPrompt, program: &str) -> String {
    let definition = prompt.definition();
    let name = prompt.name();
    let mut out = String::new();
    let _ = writeln!(out, "## Prompt: `{name}`\n");
    let _ = writeln!(out, "### 1. Purpose and Description\n");
    if let Some(title) = &definition.title {
        let _ = writeln!(out, "**{title}**\n");
    }
    let _ = writeln!(
        out,
        "{}\n",
        definition
            .description
            .as_deref()
            .unwrap_or("(no description)")
    );
    let _ = writeln!(out, "### 2. Name\n\n`{name}`\n");
    let _ = writeln!(out, "### 3. Arguments\n");
    if definition.arguments.is_empty() {
        let _ = writeln!(out, "No arguments.\n");
    } else {
        let _ = writeln!(
            out,
            "Each argument is a string.\n\n| Argument | Required | Description |\n|---|---|---|"
        );
        for argument in &definition.arguments {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                argument.name,
                if argument.required { "yes" } else { "no" },
                table_cell(argument.description.as_deref().unwrap_or("")),
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "### 4. Result\n");
    let _ = writeln!(
        out,
        "A list of messages, each from the `user` or the `assistant`, holding text, an image, \
         audio or a resource; an unknown prompt, or a missing or unreadable argument, is an \
         error.\n"
    );
    let _ = writeln!(out, "### 5. Usage Example\n");
    let arguments: Map<String, Value> = definition
        .arguments
        .iter()
        .filter(|argument| argument.required)
        .map(|argument| (argument.name.clone(), Value::String("text".to_owned())))
        .collect();
    let arguments = serde_json::to_string(&arguments).unwrap_or_default();
    let _ = writeln!(
        out,
        "With its required arguments, placeholder values:\n\n```sh\n{program} prompt {} {}\n```",
        shell_word(name),
        shell_word(&arguments),
    );
    out
}
