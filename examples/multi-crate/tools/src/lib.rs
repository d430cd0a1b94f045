//! Tools and a skill defined in a library crate. A binary that uses this crate serves
//! them: see `multi-crate-server`.

use mcp_runtime::mcp_tool;
use serde::Serialize;

/// A temperature in both scales.
#[derive(Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Temperature {
    /// Degrees Celsius.
    pub celsius: f64,
    /// Degrees Fahrenheit.
    pub fahrenheit: f64,
}

/// Convert a temperature from Celsius to Fahrenheit.
#[mcp_tool(namespace = "units", read_only, idempotent, open_world = false, inline)]
pub fn celsius_to_fahrenheit(
    /// Degrees Celsius.
    celsius: f64,
) -> Temperature {
    Temperature {
        celsius,
        fahrenheit: celsius * 9.0 / 5.0 + 32.0,
    }
}

/// Reverse a text, character by character.
#[mcp_tool(namespace = "text", read_only, idempotent, open_world = false, inline)]
pub fn reverse(
    /// The text to reverse.
    text: String,
) -> String {
    text.chars().rev().collect()
}

// The skills of `skills/`, embedded: each folder holding a SKILL.md.
mcp_runtime::skills!("skills");
