//! `check`: the registry's health, one line per problem.

use super::FAILURE;
use crate::listing;
use crate::registry::{EMPTY_REGISTRY_HINT, Registry};

/// `check`: one line per problem, errors failing the run.
pub(super) fn run(registry: &Registry) -> u8 {
    let mut errors = 0;
    let mut warnings = 0;
    if registry.is_empty() {
        eprintln!("warning: {EMPTY_REGISTRY_HINT}");
        warnings += 1;
    }
    for tool in registry.list() {
        let definition = tool.definition();
        let name = definition.name();
        if let Some(error) = tool.definition_error() {
            eprintln!("error: `{name}` ({}): {error}", tool.location());
            errors += 1;
        }
        if definition.description().is_none_or(|d| d.trim().is_empty()) {
            eprintln!("error: `{name}` ({}) has no description", tool.location());
            errors += 1;
        }
        for (number, example) in definition.examples().iter().enumerate() {
            let arguments = serde_json::Value::Object(example.clone());
            let valid = jsonschema::validator_for(definition.input_schema().as_value())
                .is_ok_and(|validator| validator.is_valid(&arguments));
            if !valid {
                eprintln!(
                    "error: `{name}`: example {} does not match the input schema",
                    number + 1
                );
                errors += 1;
            }
        }
        let schemas = [
            ("input", Some(definition.input_schema())),
            ("output", definition.output_schema()),
        ];
        for (which, schema) in schemas {
            let Some(schema) = schema else { continue };
            if schema.get("type").and_then(serde_json::Value::as_str) != Some("object") {
                eprintln!("error: `{name}`: the {which} schema's root is not an object");
                errors += 1;
            }
            match listing::portable(schema.as_value()) {
                Ok(_) => {}
                Err(err @ listing::PortableError::Unresolved(_)) => {
                    eprintln!("error: `{name}`: the {which} schema: {err}");
                    errors += 1;
                }
                Err(err @ listing::PortableError::Recursive(_)) => {
                    eprintln!(
                        "warning: `{name}`: the {which} schema: {err}; clients that cannot resolve `$ref` cannot read it"
                    );
                    warnings += 1;
                }
            }
        }
    }
    eprintln!(
        "checked {} tool(s): {errors} error(s), {warnings} warning(s)",
        registry.len()
    );
    if errors == 0 { 0 } else { FAILURE }
}
