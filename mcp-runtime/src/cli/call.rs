//! `call`: one tool, its result printed as JSON or as the text a model reads.

use std::io::{self, Write};

use clap::Args;
use mcp_runtime_core::{MCPToolCall, ToolStatus};

use super::error::CliError;
use super::sandbox::SandboxArgs;
use super::{ArgumentsArgs, DangerousArgs, FAILURE, USAGE, as_run, json_operand};
use crate::registry::Registry;
use crate::registry::did_you_mean;

// The arguments of `call`.
#[derive(Args)]
pub(super) struct CallArgs {
    /// The tool's invocation name, e.g. `calculator.add`.
    name: String,
    /// The arguments as a JSON object, or `-` to read them from standard input.
    #[arg(default_value = "{}")]
    arguments: String,
    /// Print the text a model reads (`[OK] …` / `[FAIL] …`) instead of JSON.
    #[arg(long)]
    text: bool,
    #[command(flatten)]
    pub(super) dangerous: DangerousArgs,
    #[command(flatten)]
    pub(super) arguments_reading: ArgumentsArgs,
    #[command(flatten)]
    pub(super) sandbox: SandboxArgs,
}

pub(super) fn run(registry: &'static Registry, args: &CallArgs) -> u8 {
    let CallArgs {
        name,
        arguments,
        text,
        dangerous,
        arguments_reading,
        sandbox,
    } = args;
    let call = match parse_call(name, arguments) {
        Ok(call) => call,
        Err(message) => {
            // A name that is no tool's (`paint` for `nu.paint`) gets the closest ones.
            let hint = match registry.get(name) {
                Some(_) => String::new(),
                None => did_you_mean(&registry.closest(name)),
            };
            eprintln!("error: {message}{hint}");
            return USAGE;
        }
    };
    // One call: no worker is kept waiting.
    let registry = match sandbox.sandboxing(registry, 0).and_then(|sandboxing| {
        as_run(
            registry,
            dangerous,
            *arguments_reading,
            sandboxing,
            Vec::new(),
        )
    }) {
        Ok(registry) => registry,
        Err(message) => {
            eprintln!("error: {message}");
            return USAGE;
        }
    };
    let result = registry.call_blocking(call);
    let mut out = io::stdout().lock();
    let _ = if *text {
        writeln!(out, "{result}")
    } else {
        // A result is plain JSON data: serializing it cannot fail.
        let json = serde_json::to_string_pretty(&result).unwrap_or_default();
        writeln!(out, "{json}")
    };
    if result.status() == ToolStatus::Failure {
        FAILURE
    } else {
        0
    }
}

fn parse_call(name: &str, arguments: &str) -> Result<MCPToolCall, CliError> {
    let value = json_operand(arguments)?;
    Ok(MCPToolCall::new(name, value)?)
}
