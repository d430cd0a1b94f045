//! `schema`: a tool's input or output schema, as JSON, in the form `serve` sends it.

use std::io::{self, Write};

use clap::Args;

use super::{FAILURE, USAGE};
use crate::listing;
use crate::registry::Registry;

// The arguments of `schema`.
#[derive(Args)]
pub(super) struct SchemaArgs {
    /// The tool's invocation name.
    name: String,
    /// The input schema (the default).
    #[arg(long, conflicts_with = "output")]
    input: bool,
    /// The output schema.
    #[arg(long)]
    output: bool,
    /// The portable form `serve --portable` sends: every `$ref` inlined, for clients that
    /// do not resolve references, and type arrays written as `anyOf`, for Gemini's function
    /// declarations. Without it, the form `serve` sends by default: as generated, less the
    /// `format`s JSON Schema does not define (`uint`, `int64`).
    #[arg(long)]
    portable: bool,
}

pub(super) fn run(registry: &Registry, args: &SchemaArgs) -> u8 {
    let SchemaArgs {
        name,
        output,
        portable,
        ..
    } = args;
    let (output, portable) = (*output, *portable);
    let Some(tool) = registry.get(name) else {
        eprintln!("error: no tool is named `{name}`");
        return USAGE;
    };
    let definition = tool.definition();
    let schema = if output {
        match definition.output_schema() {
            Some(schema) => listing::written(schema),
            None => {
                eprintln!("error: tool `{name}` declares no output schema");
                return FAILURE;
            }
        }
    } else {
        listing::written(definition.input_schema())
    };
    let schema = if portable {
        match listing::portable(&schema) {
            Ok(schema) => schema,
            Err(err) => {
                eprintln!("error: the schema of `{name}` cannot be made portable: {err}");
                return FAILURE;
            }
        }
    } else {
        listing::served(&schema)
    };
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    let _ = writeln!(io::stdout().lock(), "{text}");
    0
}
