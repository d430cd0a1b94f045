//! `MCP_TOOL_SPECIFICATION.md`, generated: one per tool, in the tool-specification
//! template, and an index of them; and the specifications of resources, resource templates
//! and prompts, under `resources/` and `prompts/` (never a tool's directory: a tool's name
//! always holds a dot).

use std::fmt::Write;
use std::path::PathBuf;

mod example;
mod prompts;
mod resources;

pub use prompts::{PROMPT_SPEC_FILE, prompt_specification};
pub use resources::{RESOURCE_SPEC_FILE, resource_specification, template_specification};

use crate::registry::Registry;

/// The directory of the resources' and templates' specifications.
pub const RESOURCES_DIR: &str = "resources";
/// The directory of the prompts' specifications.
pub const PROMPTS_DIR: &str = "prompts";

use mcp_runtime_core::{ErrorType, MCPToolResult, TaskSupport, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::tool::RegisteredTool;

/// The file name of a tool's specification.
pub const SPEC_FILE: &str = "MCP_TOOL_SPECIFICATION.md";

/// The specification of `tool`, in the tool-specification template: purpose and description
/// with the version, invocation name, input and output schema (a table and the JSON
/// Schema), error handling, idempotency, usage examples and security considerations.
///
/// Section 7 shows each `example = …` of the tool as a call, with the result `run` gives
/// for it (`None` when the example is not to be run, e.g. for a tool that is not read-only).
pub fn specification(
    tool: &RegisteredTool,
    run: impl Fn(&Map<String, Value>) -> Option<MCPToolResult>,
) -> String {
    let definition = tool.definition();
    let mut out = String::new();
    let name = definition.name();
    let _ = writeln!(out, "## Tool: `{name}`\n");
    let _ = writeln!(out, "**Version**: {}\n", definition.version());
    purpose(&mut out, definition);
    let _ = writeln!(out, "### 2. Invocation Name\n\n`{name}`\n");
    input_schema(&mut out, definition);
    output_schema(&mut out, definition);
    error_handling(&mut out, definition);
    let _ = writeln!(out, "### 6. Idempotency\n\n{}\n", idempotency(definition));
    usage_examples(&mut out, definition, run);
    let _ = writeln!(out, "### 8. Security Considerations\n");
    for line in security(definition) {
        let _ = writeln!(out, "- {line}");
    }
    out
}

/// Section 1: the title, the description, and the facts a reader looks for first.
fn purpose(out: &mut String, definition: &ToolDefinition) {
    let _ = writeln!(out, "### 1. Tool Purpose and Description\n");
    if let Some(title) = definition.title() {
        let _ = writeln!(out, "**{title}**\n");
    }
    let _ = writeln!(
        out,
        "{}\n",
        definition.description().unwrap_or("(no description)")
    );
    if let Some(category) = definition.category() {
        let _ = writeln!(out, "- Category: `{category}`");
    }
    if !definition.tags().is_empty() {
        let tags: Vec<String> = definition
            .tags()
            .iter()
            .map(|tag| format!("`{tag}`"))
            .collect();
        let _ = writeln!(out, "- Tags: {}", tags.join(", "));
    }
    if let Some(note) = definition.deprecated() {
        let _ = writeln!(out, "- **Deprecated**: {note}");
    }
    if let Some(line) = task_line(definition.task_support()) {
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
}

/// Section 3: the parameters, as a table and as the JSON Schema.
fn input_schema(out: &mut String, definition: &ToolDefinition) {
    let _ = writeln!(out, "### 3. Input Schema (Parameters)\n");
    out.push_str(&fields_table(
        definition.input_schema().as_value(),
        "Parameter",
    ));
    out.push_str(&json_block(definition.input_schema().as_value()));
}

/// Section 4: the structured output, as a table and as the JSON Schema, if there is one.
fn output_schema(out: &mut String, definition: &ToolDefinition) {
    let _ = writeln!(out, "### 4. Output Schema (Return Value)\n");
    match definition.output_schema() {
        Some(schema) => {
            if definition.wraps_output() {
                let _ = writeln!(
                    out,
                    "The value is sent as `{{\"result\": …}}`, since MCP wants an object at the root.\n"
                );
            }
            out.push_str(&fields_table(schema.as_value(), "Field"));
            out.push_str(&json_block(schema.as_value()));
        }
        None => {
            let _ = writeln!(out, "The tool declares no structured output.\n");
        }
    }
}

/// Section 5: the form of a failure, and each error the tool may give, with when.
fn error_handling(out: &mut String, definition: &ToolDefinition) {
    let _ = writeln!(out, "### 5. Error Handling\n");
    let _ = writeln!(
        out,
        "A failure is a result with `status: \"failure\"` and an `error` of the form \
         `{{\"error_type\", \"error_message\", \"error_details\"}}`.\n"
    );
    for (error_type, when) in error_conditions(definition) {
        let _ = writeln!(out, "- `{error_type}`: {when}");
    }
    out.push('\n');
}

/// Section 7: each declared example as a call, with the result `run` gives for it; a call
/// with placeholder values when none is declared.
fn usage_examples(
    out: &mut String,
    definition: &ToolDefinition,
    run: impl Fn(&Map<String, Value>) -> Option<MCPToolResult>,
) {
    let name = definition.name();
    let _ = writeln!(out, "### 7. Usage Examples\n");
    if definition.examples().is_empty() {
        let call = json!({ "tool_name": name, "arguments": example::example_arguments(definition.input_schema().as_value()) });
        let _ = writeln!(
            out,
            "No example is declared; a call, with placeholder values of the right types:\n"
        );
        out.push_str(&json_block(&call));
    }
    for (number, arguments) in definition.examples().iter().enumerate() {
        let _ = writeln!(out, "Example {}: the call\n", number + 1);
        out.push_str(&json_block(
            &json!({ "tool_name": name, "arguments": arguments }),
        ));
        match run(arguments) {
            Some(result) => {
                let _ = writeln!(out, "and its result\n");
                out.push_str(&json_block(
                    &serde_json::to_value(&result).unwrap_or(Value::Null),
                ));
            }
            None => {
                let _ = writeln!(
                    out,
                    "(its result is not shown: only read-only tools are run to document them)\n"
                );
            }
        }
    }
}

/// The index of the specifications of `tools`, each linked.
pub fn index<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>) -> String {
    let mut out =
        String::from("# Tool specifications\n\n| Tool | Version | Description |\n|---|---|---|\n");
    for tool in tools {
        let definition = tool.definition();
        let summary = crate::listing::summary(definition);
        let _ = writeln!(
            out,
            "| [`{name}`]({name}/{SPEC_FILE}) | {} | {} |",
            definition.version(),
            summary.replace('|', "\\|"),
            name = definition.name(),
        );
    }
    out
}

fn json_block(value: &Value) -> String {
    format!(
        "```json\n{}\n```\n\n",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

/// The properties of an object schema as a table: name, type, required, description.
fn fields_table(schema: &Value, heading: &str) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    if properties.is_empty() {
        return "No parameters.\n\n".to_owned();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = format!("| {heading} | Type | Required | Description |\n|---|---|---|---|\n");
    for (name, property) in properties {
        let _ = writeln!(
            out,
            "| `{name}` | {} | {} | {} |",
            type_of(property),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            description_cell(property),
        );
    }
    out.push('\n');
    out
}

/// `text` as one cell of a Markdown table: on one line, its pipes escaped.
fn table_cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// The `description` of a schema as one cell of a Markdown table; empty when it has none.
fn description_cell(schema: &Value) -> String {
    table_cell(
        schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or(""),
    )
}

/// A short description of a property's type, e.g. `integer`, `string or null`, `Point`.
fn type_of(property: &Value) -> String {
    if let Some(reference) = property.get("$ref").and_then(Value::as_str) {
        return format!("`{}`", reference.rsplit('/').next().unwrap_or(reference));
    }
    match property.get("type") {
        Some(Value::String(ty)) if ty == "array" => match property.get("items") {
            Some(items) => format!("array of {}", type_of(items)),
            None => "array".to_owned(),
        },
        Some(Value::String(ty)) => ty.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if property.get("oneOf").is_some() || property.get("anyOf").is_some() => {
            "one of several forms".to_owned()
        }
        _ => "any".to_owned(),
    }
}

fn error_conditions(definition: &ToolDefinition) -> Vec<(String, String)> {
    let mut conditions = vec![(
        ErrorType::ValidationError.to_string(),
        "the arguments do not match the input schema; `error_details.errors` lists each violation with its JSON pointer".to_owned(),
    )];
    for error in definition.errors() {
        conditions.push((error.to_string(), "declared by the tool".to_owned()));
    }
    if let Some(timeout) = definition.timeout() {
        conditions.push((
            ErrorType::TimeoutError.to_string(),
            format!("the call did not finish within {} ms", timeout.as_millis()),
        ));
    }
    if definition.annotations().dangerous {
        conditions.push((
            ErrorType::PermissionError.to_string(),
            "the tool is dangerous and the caller's policy does not allow it".to_owned(),
        ));
    }
    conditions.push((
        ErrorType::ToolExecutionError.to_string(),
        "the tool failed for a reason of its own, or panicked".to_owned(),
    ));
    conditions
}

/// Whether the tool runs as a task, in plain words; nothing for a tool that never does.
fn task_line(support: TaskSupport) -> Option<&'static str> {
    match support {
        TaskSupport::Forbidden => None,
        TaskSupport::Optional => Some(
            "Runs as a task (MCP tasks extension): optional — a client that supports tasks gets \
             a task at once and asks for the result when it is done; any other client gets the \
             result as the answer to its call.",
        ),
        TaskSupport::Required => Some(
            "Runs as a task (MCP tasks extension): required — a client gets a task at once and \
             asks for the result when it is done; a client that does not support tasks is \
             refused.",
        ),
    }
}

fn idempotency(definition: &ToolDefinition) -> &'static str {
    let hints = definition.annotations();
    match (hints.read_only, hints.idempotent) {
        (Some(true), _) => "Read-only: the tool changes nothing, so calling it again is safe.",
        (_, Some(true)) => {
            "Idempotent: calling it again with the same arguments has no further effect."
        }
        (_, Some(false)) => "Not idempotent: each call may change its environment again.",
        _ => "Not declared: assume each call may change its environment.",
    }
}

fn security(definition: &ToolDefinition) -> Vec<String> {
    let hints = definition.annotations();
    let mut lines = vec![
        "Arguments are validated against the input schema before the tool runs; values are never echoed in errors.",
    ];
    if hints.dangerous {
        lines.push("**Dangerous**: runs only when the caller's policy allows it (an allow-list or a confirmation).");
    }
    match hints.destructive {
        Some(true) => lines.push("Destructive: it may delete or overwrite data."),
        Some(false) => lines.push("Not destructive: it only adds to its environment."),
        None => {}
    }
    if hints.read_only == Some(true) {
        lines.push("Read-only: it does not modify its environment.");
    }
    match hints.open_world {
        Some(true) => {
            lines.push("Open world: it reaches entities outside its own domain (e.g. the network).")
        }
        Some(false) => lines.push("Closed world: it reaches nothing outside its own domain."),
        None => {}
    }
    let mut lines: Vec<String> = lines.into_iter().map(str::to_owned).collect();
    if let Some(policy) = definition.sandbox() {
        // After the flags: the sandbox's line is the longest.
        lines.insert(
            1 + usize::from(hints.dangerous),
            format!(
                "**Runs sandboxed**: each call in an isolated worker process ({policy}; CPU time bounded by the timeout)."
            ),
        );
    }
    let scopes = definition.scopes();
    if !scopes.is_empty() {
        let named: Vec<String> = scopes.iter().map(|scope| format!("`{scope}`")).collect();
        lines.push(format!(
            "**OAuth scopes**: served behind OAuth, a caller needs {}.",
            named.join(", ")
        ));
    }
    lines
}

fn placeholder(property: &Value) -> Value {
    let ty = match property.get("type") {
        Some(Value::String(ty)) => ty.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|ty| *ty != "null")
            .unwrap_or("null"),
        _ => "object",
    };
    match ty {
        "integer" => {
            json!(property.get("minimum").and_then(Value::as_i64).unwrap_or(1))
        }
        "number" => json!(1.5),
        "boolean" => Value::Bool(true),
        "string" => Value::String("text".to_owned()),
        "array" => Value::Array(Vec::new()),
        "null" => Value::Null,
        _ => Value::Object(Map::new()),
    }
}

/// The paths, under the output directory, of the specifications of `registry`'s resources
/// and templates (`resources/<name>/MCP_RESOURCE_SPECIFICATION.md`, in that order) and of
/// its prompts (`prompts/<name>/MCP_PROMPT_SPECIFICATION.md`).
fn kind_paths(registry: &Registry) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let names = registry
        .resources()
        .map(|resource| resource.definition().name())
        .chain(registry.resource_templates().map(|t| t.definition().name()));
    let resources = directory_names(names)
        .into_iter()
        .map(|directory| {
            PathBuf::from(RESOURCES_DIR)
                .join(directory)
                .join(RESOURCE_SPEC_FILE)
        })
        .collect();
    let prompts = directory_names(registry.prompts().map(|prompt| prompt.name()))
        .into_iter()
        .map(|directory| {
            PathBuf::from(PROMPTS_DIR)
                .join(directory)
                .join(PROMPT_SPEC_FILE)
        })
        .collect();
    (resources, prompts)
}

/// The specifications of `registry`'s resources, templates and prompts, each with its path
/// under the output directory: `resources/<name>/MCP_RESOURCE_SPECIFICATION.md` and
/// `prompts/<name>/MCP_PROMPT_SPECIFICATION.md`. `program` is the command line's name, for
/// the examples.
pub fn kind_specifications(registry: &Registry, program: &str) -> Vec<(PathBuf, String)> {
    let (resource_paths, prompt_paths) = kind_paths(registry);
    let resources = registry
        .resources()
        .map(|resource| resource_specification(resource, program))
        .chain(
            registry
                .resource_templates()
                .map(|template| template_specification(template, program)),
        );
    let prompts = registry
        .prompts()
        .map(|prompt| prompt_specification(prompt, program));
    resource_paths
        .into_iter()
        .zip(resources)
        .chain(prompt_paths.into_iter().zip(prompts))
        .collect()
}

/// The index of the specifications [`kind_specifications`] makes, a section per kind the
/// registry has; empty when it has none.
pub fn kinds_index(registry: &Registry) -> String {
    let (resource_paths, prompt_paths) = kind_paths(registry);
    let mut paths = resource_paths
        .iter()
        .chain(&prompt_paths)
        .map(|path| path.to_string_lossy().replace('\\', "/"));
    let cell = |text: Option<&str>| {
        text.and_then(|text| text.lines().next())
            .unwrap_or("")
            .replace('|', "\\|")
    };
    let mut out = String::new();
    let resources: Vec<_> = registry.resources().collect();
    let templates: Vec<_> = registry.resource_templates().collect();
    if !resources.is_empty() || !templates.is_empty() {
        out.push_str(
            "\n# Resource specifications\n\n| Resource | Name | Description |\n|---|---|---|\n",
        );
        for resource in resources {
            let definition = resource.definition();
            let _ = writeln!(
                out,
                "| [`{}`]({}) | {} | {} |",
                resource.uri(),
                paths.next().unwrap_or_default(),
                definition.info.name.replace('|', "\\|"),
                cell(definition.info.description.as_deref()),
            );
        }
        for template in templates {
            let definition = template.definition();
            let _ = writeln!(
                out,
                "| [`{}`]({}) | {} | {} |",
                definition.uri_template,
                paths.next().unwrap_or_default(),
                definition.info.name.replace('|', "\\|"),
                cell(definition.info.description.as_deref()),
            );
        }
    }
    let prompts: Vec<_> = registry.prompts().collect();
    if !prompts.is_empty() {
        out.push_str("\n# Prompt specifications\n\n| Prompt | Description |\n|---|---|\n");
        for prompt in prompts {
            let _ = writeln!(
                out,
                "| [`{}`]({}) | {} |",
                prompt.name(),
                paths.next().unwrap_or_default(),
                cell(prompt.definition().description.as_deref()),
            );
        }
    }
    out
}

/// A directory name for each of `names`, in order: the characters a file name may safely
/// hold kept (letters, digits, `_`, `-`, `.`), others and a leading dot made `_`; a name
/// that would repeat an earlier one, also where case is ignored, gets `-2`, `-3`, ….
pub fn directory_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for name in names {
        let mut safe: String = name
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' => c,
                _ => '_',
            })
            .collect();
        if safe.is_empty() || safe.starts_with('.') {
            safe.insert(0, '_');
        }
        let mut candidate = safe.clone();
        let mut number = 1;
        while !taken.insert(candidate.to_lowercase()) {
            number += 1;
            candidate = format!("{safe}-{number}");
        }
        out.push(candidate);
    }
    out
}

/// `word` as one word of a POSIX shell command line: as it is when that is safe, quoted
/// otherwise.
fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,:/@%+=".contains(c));
    match safe {
        true => word.to_owned(),
        false => format!("'{}'", word.replace('\'', "'\\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_are_safe_and_distinct() {
        let names = ["user", "User", "user", "a/b", "..", "", "ok.name-1"];
        assert_eq!(
            directory_names(names),
            ["user", "User-2", "user-3", "a_b", "_..", "_", "ok.name-1"]
        );
    }

    #[test]
    fn no_tool_name_is_the_directory_of_resources_or_prompts() {
        for directory in [RESOURCES_DIR, PROMPTS_DIR] {
            assert!(
                mcp_runtime_core::ToolName::new(directory).is_err(),
                "{directory}"
            );
        }
    }

    #[test]
    fn a_tool_that_may_run_as_a_task_says_so_in_its_purpose() {
        let mut registry = Registry::builder().build().unwrap();
        for (name, support) in [
            ("jobs.plain", TaskSupport::Forbidden),
            ("jobs.maybe", TaskSupport::Optional),
            ("jobs.always", TaskSupport::Required),
        ] {
            let definition =
                ToolDefinition::new(name, schemars::json_schema!({ "type": "object" }))
                    .unwrap()
                    .with_task_support(support);
            registry
                .register(definition, |_arguments, _ctx| async { Ok(json!({})) })
                .unwrap();
        }
        let purpose = |name: &str| {
            let spec = specification(registry.get(name).unwrap(), |_| None);
            let start = spec.find("### 1.").unwrap();
            let end = spec.find("### 2.").unwrap();
            spec[start..end].to_owned()
        };
        assert!(!purpose("jobs.plain").contains("task"));
        let line = "- Runs as a task (MCP tasks extension): ";
        assert!(purpose("jobs.maybe").contains(&format!("{line}optional — ")));
        assert!(purpose("jobs.always").contains(&format!("{line}required — ")));
        assert!(purpose("jobs.always").contains("does not support tasks is refused"));
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("app://about"), "app://about");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
