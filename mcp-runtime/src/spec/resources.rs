//! `MCP_RESOURCE_SPECIFICATION.md`, generated: one per resource and per resource template.

use std::fmt::Write;

use mcp_runtime_core::ResourceInfo;
use serde_json::{Map, Value};

use super::{description_cell, json_block, placeholder, shell_word, type_of};
use crate::registry::{RegisteredResource, RegisteredTemplate, VARIABLES_META};

/// The file name of a resource's or a template's specification.
pub const RESOURCE_SPEC_FILE: &str = "MCP_RESOURCE_SPECIFICATION.md";

/// Where a resource's cache hints are, in its definition's `_meta`.
const CACHE_META: &str = "mcp-runtime/cache";

/// The specification of `resource`: description, URI, contents, annotations, caching and
/// the command line that reads it (`program read URI`).
pub fn resource_specification(resource: &RegisteredResource, program: &str) -> String {
    let definition = resource.definition();
    let mut out = String::new();
    let _ = writeln!(out, "## Resource: `{}`\n", definition.info.name);
    describe(&mut out, &definition.info);
    let _ = writeln!(out, "### 2. URI\n\n`{}`\n", resource.uri());
    contents(&mut out, &definition.info);
    let _ = writeln!(out, "### 4. Annotations\n");
    annotations(&mut out, &definition.info);
    let _ = writeln!(out, "### 5. Caching\n");
    caching(&mut out, &definition.meta);
    let _ = writeln!(out, "### 6. Usage Example\n");
    let _ = writeln!(
        out,
        "```sh\n{program} read {}\n```",
        shell_word(resource.uri())
    );
    out
}

/// The specification of `template`: description, URI template, each variable with its
/// schema (from `_meta["mcp-runtime/variables"]`), contents, annotations, caching and a
/// command line that reads one of its resources.
pub fn template_specification(template: &RegisteredTemplate, program: &str) -> String {
    let definition = template.definition();
    let mut out = String::new();
    let _ = writeln!(out, "## Resource Template: `{}`\n", definition.info.name);
    describe(&mut out, &definition.info);
    let _ = writeln!(
        out,
        "### 2. URI Template\n\n`{}`\n\nA resource for each value of its variables (RFC 6570).\n",
        definition.uri_template
    );
    let _ = writeln!(out, "### 3. Variables\n");
    let schemas = definition
        .meta
        .get(VARIABLES_META)
        .and_then(Value::as_object);
    let variables = template.variables();
    if variables.is_empty() {
        let _ = writeln!(out, "No variables.\n");
    } else {
        let _ = writeln!(
            out,
            "Each value arrives as a string, taken from the URI.\n\n\
             | Variable | Type | Description |\n|---|---|---|"
        );
        for variable in &variables {
            let schema = schemas.and_then(|schemas| schemas.get(variable));
            let (ty, description) = match schema {
                Some(schema) => (type_of(schema), description_cell(schema)),
                None => ("string (no schema declared)".to_owned(), String::new()),
            };
            let _ = writeln!(out, "| `{variable}` | {ty} | {description} |");
        }
        out.push('\n');
        for variable in &variables {
            if let Some(schema) = schemas.and_then(|schemas| schemas.get(variable)) {
                let _ = writeln!(out, "The schema of `{variable}`:\n");
                out.push_str(&json_block(schema));
            }
        }
    }
    let mut contents_out = String::new();
    contents(&mut contents_out, &definition.info);
    out.push_str(&contents_out.replacen("### 3.", "### 4.", 1));
    let _ = writeln!(out, "### 5. Annotations\n");
    annotations(&mut out, &definition.info);
    let _ = writeln!(out, "### 6. Caching\n");
    caching(&mut out, &definition.meta);
    let _ = writeln!(out, "### 7. Usage Example\n");
    let mut uri = definition.uri_template.clone();
    for variable in &variables {
        let value = match schemas.and_then(|schemas| schemas.get(variable)) {
            Some(schema) => match placeholder(schema) {
                Value::String(text) => text,
                other => other.to_string(),
            },
            None => "text".to_owned(),
        };
        uri = uri.replace(&format!("{{{variable}}}"), &value);
    }
    if uri.contains('{') {
        let _ = writeln!(
            out,
            "`{program} read URI`, with a URI the template matches."
        );
    } else {
        let _ = writeln!(
            out,
            "With placeholder values of the variables' types:\n\n```sh\n{program} read {}\n```",
            shell_word(&uri)
        );
    }
    out
}

/// Section 1: title, description.
fn describe(out: &mut String, info: &ResourceInfo) {
    let _ = writeln!(out, "### 1. Purpose and Description\n");
    if let Some(title) = &info.title {
        let _ = writeln!(out, "**{title}**\n");
    }
    let _ = writeln!(
        out,
        "{}\n",
        info.description.as_deref().unwrap_or("(no description)")
    );
}

/// Section 3: the MIME type and size.
fn contents(out: &mut String, info: &ResourceInfo) {
    let _ = writeln!(out, "### 3. Contents\n");
    match &info.mime_type {
        Some(mime_type) => {
            let _ = writeln!(out, "- MIME type: `{mime_type}`");
        }
        None => {
            let _ = writeln!(out, "- MIME type: not declared");
        }
    }
    if let Some(size) = info.size {
        let _ = writeln!(out, "- Size: {size} bytes");
    }
    out.push('\n');
}

fn annotations(out: &mut String, info: &ResourceInfo) {
    let hints = &info.annotations;
    let mut lines = Vec::new();
    if !hints.audience.is_empty() {
        let audience: Vec<String> = hints
            .audience
            .iter()
            .map(|role| {
                serde_json::to_value(role)
                    .ok()
                    .and_then(|role| role.as_str().map(|role| format!("`{role}`")))
                    .unwrap_or_default()
            })
            .collect();
        lines.push(format!("- Audience: {}", audience.join(", ")));
    }
    if let Some(priority) = hints.priority {
        lines.push(format!("- Priority: {priority} (0 optional, 1 required)"));
    }
    if let Some(last_modified) = &hints.last_modified {
        lines.push(format!("- Last modified: {last_modified}"));
    }
    if lines.is_empty() {
        lines.push("None declared.".to_owned());
    }
    let _ = writeln!(out, "{}\n", lines.join("\n"));
}

fn caching(out: &mut String, meta: &Map<String, Value>) {
    let Some(Value::Object(cache)) = meta.get(CACHE_META) else {
        let _ = writeln!(out, "No cache hints: clients decide how long to keep it.\n");
        return;
    };
    for (key, value) in cache {
        let line = match (key.as_str(), value) {
            ("ttlMs", Value::Number(ms)) => format!("- Clients may keep it for {ms} ms"),
            ("cacheScope", Value::String(scope)) => format!("- Cache scope: `{scope}`"),
            (key, value) => format!("- `{key}`: `{value}`"),
        };
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
}
