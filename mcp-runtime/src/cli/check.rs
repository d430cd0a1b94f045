//! `check`: the registry's health, one line per problem.

use serde_json::Value;

use super::FAILURE;
use crate::listing;
use crate::registry::{EMPTY_REGISTRY_HINT, RegisteredTemplate, Registry, VARIABLES_META};

/// The problems found so far, each printed as it is found.
#[derive(Default)]
struct Report {
    errors: usize,
    warnings: usize,
}

impl Report {
    fn error(&mut self, message: impl std::fmt::Display) {
        eprintln!("error: {message}");
        self.errors += 1;
    }

    fn warning(&mut self, message: impl std::fmt::Display) {
        eprintln!("warning: {message}");
        self.warnings += 1;
    }
}

/// `check`: one line per problem, errors failing the run.
pub(super) fn run(registry: &Registry) -> u8 {
    let mut report = Report::default();
    let counts = [
        ("resource(s)", registry.resources().count()),
        ("template(s)", registry.resource_templates().count()),
        ("prompt(s)", registry.prompts().count()),
        ("skill(s)", registry.skills().len()),
    ];
    // An application that serves nothing is a build mistake, most often a crate of tools
    // the binary never links: `check` fails on it, saying how to fix it.
    if registry.is_empty() && counts.iter().all(|(_, count)| *count == 0) {
        report.error(EMPTY_REGISTRY_HINT);
    }
    let mut refused = Refused::default();
    for tool in registry.list() {
        check_tool(tool, &mut report, &mut refused);
    }
    report.warnings += refused.report();
    match super::sandbox::support_line(registry) {
        Some(Ok(line)) => eprintln!("{line}"),
        Some(Err(line)) => report.error(line),
        None => {}
    }
    check_resources(registry, &mut report);
    check_prompts(registry, &mut report);
    let Report { errors, warnings } = report;
    // Only the kinds there are: a registry of tools alone reads as it always has.
    let mut checked = format!("{} tool(s)", registry.len());
    for (kind, count) in counts.iter().filter(|(_, count)| *count > 0) {
        checked.push_str(&format!(", {count} {kind}"));
    }
    eprintln!("checked {checked}: {errors} error(s), {warnings} warning(s)");
    if errors == 0 { 0 } else { FAILURE }
}

/// A tool's definition, description, examples and schemas; what clients refuse in its
/// schemas noted in `refused`.
fn check_tool(tool: &crate::RegisteredTool, report: &mut Report, refused: &mut Refused) {
    let definition = tool.definition();
    let name = definition.name();
    if let Some(error) = tool.definition_error() {
        report.error(format_args!("`{name}` ({}): {error}", tool.location()));
    }
    if definition.description().is_none_or(|d| d.trim().is_empty()) {
        report.error(format_args!(
            "`{name}` ({}) has no description",
            tool.location()
        ));
    }
    for (number, example) in definition.examples().iter().enumerate() {
        let arguments = serde_json::Value::Object(example.clone());
        let valid = jsonschema::validator_for(definition.input_schema().as_value())
            .is_ok_and(|validator| validator.is_valid(&arguments));
        if !valid {
            report.error(format_args!(
                "`{name}`: example {} does not match the input schema",
                number + 1
            ));
        }
    }
    let schemas = [
        ("input", Some(definition.input_schema())),
        ("output", definition.output_schema()),
    ];
    for (which, schema) in schemas {
        let Some(schema) = schema else { continue };
        if schema.get("type").and_then(serde_json::Value::as_str) != Some("object") {
            report.error(format_args!(
                "`{name}`: the {which} schema's root is not an object"
            ));
        }
        check_schema(name, which, schema.as_value(), report, refused);
    }
}

/// One of a tool's schemas (`which`, `input` or `output`): its references resolve; what
/// clients refuse in it noted in `refused`.
fn check_schema(
    name: &str,
    which: &str,
    schema: &Value,
    report: &mut Report,
    refused: &mut Refused,
) {
    match listing::portable(schema) {
        Ok(_) => {
            let references = listing::findings(schema)
                .iter()
                .any(|(_, finding)| matches!(finding, listing::Finding::Reference(_)));
            if references {
                Refused::note(&mut refused.references, name, which.to_owned());
            }
        }
        Err(err @ listing::PortableError::Unresolved(_)) => {
            report.error(format_args!("`{name}`: the {which} schema: {err}"));
        }
        Err(listing::PortableError::Recursive(ty)) => {
            Refused::note(&mut refused.recursive, name, format!("{which}: `{ty}`"));
        }
    }
    let type_array = listing::findings(schema)
        .iter()
        .any(|(_, finding)| matches!(finding, listing::Finding::TypeArray(_)));
    if type_array {
        Refused::note(&mut refused.type_arrays, name, which.to_owned());
    }
}

/// The clients known not to resolve `$ref`: they drop the tool, or call it without the
/// referenced parts.
const REFERENCE_BLIND: &str = "VS Code's and GitHub's Copilot, Cursor, opencode and Codex";

/// What some clients refuse in the schemas tools are served with, by kind: each kind is
/// one line, naming the tools that have it. What no client refuses is not told: the
/// formats JSON Schema does not define are not served, and refused by none.
#[derive(Default)]
struct Refused {
    /// The tools with a `$ref` the portable form inlines, and in which schemas (`input`).
    references: Vec<(String, Vec<String>)>,
    /// The tools with a recursive type, and in which schemas (`` input: `Tree` ``).
    recursive: Vec<(String, Vec<String>)>,
    /// The tools with a type array, and in which schemas.
    type_arrays: Vec<(String, Vec<String>)>,
}

impl Refused {
    /// Notes `place` of tool `name` in `tools`, the tools met one after the other.
    fn note(tools: &mut Vec<(String, Vec<String>)>, name: &str, place: String) {
        match tools.last_mut() {
            Some((last, places)) if last == name => places.push(place),
            _ => tools.push((name.to_owned(), vec![place])),
        }
    }

    /// Prints a warning for each kind there is; how many.
    fn report(&self) -> usize {
        let kinds = [
            (
                &self.references,
                format!(
                    "a `$ref`, which {REFERENCE_BLIND} do not resolve; `serve --portable` \
                     inlines it"
                ),
            ),
            (
                &self.recursive,
                format!(
                    "a recursive type, whose `$ref`s no form can inline, so that \
                     {REFERENCE_BLIND} cannot read it"
                ),
            ),
            (
                &self.type_arrays,
                "a type array (`\"type\": [\"integer\", \"null\"]` for an `Option`), which \
                 Gemini's function declarations refuse; `serve --portable` writes it as an \
                 `anyOf`"
                    .to_owned(),
            ),
        ];
        let mut printed = 0;
        for (tools, what) in kinds.iter().filter(|(tools, _)| !tools.is_empty()) {
            let named: Vec<String> = tools
                .iter()
                .map(|(name, places)| format!("`{name}` ({})", places.join(", ")))
                .collect();
            eprintln!(
                "warning: {} tool(s) have {what}: {}",
                tools.len(),
                named.join(", ")
            );
            printed += 1;
        }
        printed
    }
}

/// A description, given and not blank.
fn described(description: Option<&str>) -> bool {
    description.is_some_and(|d| !d.trim().is_empty())
}

/// Resources and templates: a description each; for a template, a schema for each variable
/// (in `_meta["mcp-runtime/variables"]`), none for a variable it does not have, and schemas
/// every client can read.
fn check_resources(registry: &Registry, report: &mut Report) {
    for resource in registry.resources() {
        if !described(resource.definition().info.description.as_deref()) {
            report.error(format_args!(
                "resource `{}` ({}) has no description",
                resource.uri(),
                resource.location()
            ));
        }
    }
    for template in registry.resource_templates() {
        check_template(template, report);
    }
}

fn check_template(template: &RegisteredTemplate, report: &mut Report) {
    let definition = template.definition();
    let uri = &definition.uri_template;
    if !described(definition.info.description.as_deref()) {
        report.error(format_args!(
            "template `{uri}` ({}) has no description",
            template.location()
        ));
    }
    let schemas = definition
        .meta
        .get(VARIABLES_META)
        .and_then(Value::as_object);
    let variables = template.variables();
    for variable in &variables {
        match schemas.and_then(|schemas| schemas.get(variable)) {
            None => report.warning(format_args!(
                "template `{uri}`: variable `{variable}` has no schema in `_meta[\"{VARIABLES_META}\"]`; clients see no type for it"
            )),
            Some(schema) => match listing::portable(schema) {
                Ok(_) => {}
                Err(err @ listing::PortableError::Unresolved(_)) => report.error(format_args!(
                    "template `{uri}`: the schema of variable `{variable}`: {err}"
                )),
                Err(err @ listing::PortableError::Recursive(_)) => report.warning(format_args!(
                    "template `{uri}`: the schema of variable `{variable}`: {err}; clients that cannot resolve `$ref` cannot read it"
                )),
            },
        }
    }
    for name in schemas.into_iter().flat_map(|schemas| schemas.keys()) {
        if !variables.contains(name) {
            report.error(format_args!(
                "template `{uri}`: `_meta[\"{VARIABLES_META}\"]` has a schema for `{name}`, which is no variable of the template"
            ));
        }
    }
}

/// Prompts: a description each, and arguments of distinct names.
fn check_prompts(registry: &Registry, report: &mut Report) {
    for prompt in registry.prompts() {
        let definition = prompt.definition();
        let name = prompt.name();
        if !described(definition.description.as_deref()) {
            report.error(format_args!(
                "prompt `{name}` ({}) has no description",
                prompt.location()
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for argument in &definition.arguments {
            if !seen.insert(argument.name.as_str()) {
                report.error(format_args!(
                    "prompt `{name}`: argument `{}` is declared twice",
                    argument.name
                ));
            }
        }
    }
}
