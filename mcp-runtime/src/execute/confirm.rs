//! A dangerous tool's call confirmed by the client's user first.

use mcp_runtime_core::{ErrorType, ToolDefinition, ToolError};
use serde_json::Value;

use crate::outbound::Asks;
use crate::registration::Failure;
use crate::talk::AskError;
use crate::talk::InputRequest;

/// The key of the ask that confirms a dangerous tool's call.
const CONFIRM_KEY: &str = "mcp-runtime/confirm";

/// Asks the client's user whether the dangerous tool `definition` may run with
/// `arguments`; `Ok` when they confirmed, else the `PermissionError` saying why not. At
/// 2026-07-28, an answer not yet given ends the round (the input-required failure).
pub(super) async fn confirm(
    definition: &ToolDefinition,
    arguments: &Value,
    asks: Option<&Asks>,
) -> Result<(), Failure> {
    let name = definition.name();
    let refuse = |why: String| {
        Err(Failure::from(ToolError::new(
            ErrorType::PermissionError,
            format!("tool `{name}` is dangerous and did not run: {why}"),
        )))
    };
    let Some(asks) = asks else {
        return refuse(
            "it needs its user's confirmation, and this call came from no client that can be asked"
                .to_owned(),
        );
    };
    let request = confirmation(definition, arguments);
    let answer = match asks.round() {
        // A round answers at once, or ends: the tool must not begin before it is confirmed.
        Some(round) => {
            if !asks.declared(request.capability()) {
                return refuse(
                    "the client cannot ask its user (it did not declare elicitation)".to_owned(),
                );
            }
            match round.answer(CONFIRM_KEY, request) {
                Some(answer) => answer,
                None => {
                    return Err(Failure::from(ToolError::execution(
                        "the tool waits for the client's input",
                    )));
                }
            }
        }
        None => match asks.ask(CONFIRM_KEY, request).await {
            Ok(answer) => answer,
            Err(AskError::MissingCapability(_)) => {
                return refuse(
                    "the client cannot ask its user (it did not declare elicitation)".to_owned(),
                );
            }
            Err(err) => return refuse(err.to_string()),
        },
    };
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => {
            match answer
                .get("content")
                .and_then(|content| content.get("confirm"))
            {
                Some(Value::Bool(true)) => Ok(()),
                _ => refuse("its user did not confirm it".to_owned()),
            }
        }
        Some("decline") => refuse("its user declined".to_owned()),
        Some("cancel") => refuse("its user cancelled".to_owned()),
        _ => refuse("the client's answer was no confirmation".to_owned()),
    }
}

/// The form that asks the user to confirm `definition`'s call with `arguments`: the tool,
/// its description and its arguments (their first 500 bytes) shown, one box to tick.
fn confirmation(definition: &ToolDefinition, arguments: &Value) -> InputRequest {
    let name = definition.name();
    let mut shown = arguments.to_string();
    if shown.len() > 500 {
        let cut = (0..=500)
            .rev()
            .find(|at| shown.is_char_boundary(*at))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push('…');
    }
    let message = format!(
        "Run `{name}`? {}\nIt is marked dangerous. Arguments: {shown}",
        definition.description().unwrap_or_default()
    );
    let form = serde_json::json!({
        "type": "object",
        "properties": {
            "confirm": { "type": "boolean", "title": "Run it", "description": format!("Run `{name}` with these arguments") },
        },
        "required": ["confirm"],
    });
    InputRequest::elicit(message, form)
}
