//! The rounds of a 2026-07-28 request that asks the client: the answers it begins with
//! (its `inputResponses`, and those sealed in its `requestState`), and the
//! `InputRequiredResult` that ends a round on asks still open.

use serde_json::{Map, Value, json};

use super::jsonrpc::{self, Id};
use super::{Server, fault_response};
use crate::outbound::{Asks, Round, Way, is_input_response};
use crate::talk::StateKey;

impl Server {
    /// The round a 2026-07-28 call begins: the answers sealed in its `requestState`, and
    /// those of its `inputResponses`; or why they cannot be taken.
    pub(super) fn round(
        &self,
        context: &str,
        responses: Option<Value>,
        state: Option<Value>,
    ) -> Result<Round, String> {
        let mut answers = match state {
            None => Map::new(),
            Some(Value::String(sealed)) => {
                let key = self.state_key()?;
                let payload = key
                    .open(context.as_bytes(), &sealed)
                    .map_err(|err| format!("`requestState` refused: {err}"))?;
                serde_json::from_slice(&payload)
                    .map_err(|_| "`requestState` refused: its content is not answers".to_owned())?
            }
            Some(_) => return Err("`requestState` must be a string".to_owned()),
        };
        match responses {
            None => {}
            Some(Value::Object(responses)) => {
                for (key, answer) in responses {
                    if !is_input_response(&answer) {
                        return Err(format!(
                            "`inputResponses.{key}` is not the result of an elicitation, a sampling or a roots request"
                        ));
                    }
                    answers.insert(key, answer);
                }
            }
            Some(_) => return Err("`inputResponses` must be an object".to_owned()),
        }
        Ok(Round::new(answers))
    }

    /// The `InputRequiredResult` of a round that ended on asks still open: the asks, and
    /// the answers used so far, sealed for the next round.
    pub(super) fn input_required(&self, id: &Id, asks: &Asks) -> String {
        match self
            .state_key()
            .map_err(|err| format!("cannot seal the request state: {err}"))
            .and_then(|key| input_required_result(key, asks, &self.server_info()))
        {
            Ok(result) => jsonrpc::result_response(id, &result),
            Err(message) => fault_response(id, (jsonrpc::INTERNAL_ERROR, message, None)),
        }
    }

    /// This server's `serverInfo`.
    pub(super) fn server_info(&self) -> Value {
        json!({ "name": self.name, "version": self.version })
    }
}

/// The `InputRequiredResult` of a round that ended on asks still open: the asks, and the
/// answers used so far, sealed with `key` for the next round.
pub(crate) fn input_required_result(
    key: &StateKey,
    asks: &Asks,
    server_info: &Value,
) -> Result<Value, String> {
    const STATE_TTL: std::time::Duration = std::time::Duration::from_secs(10 * 60);
    let Way::Round { round, context } = &asks.way else {
        return Err("no round to answer".to_owned());
    };
    let used = serde_json::to_vec(&round.used()).map_err(|err| err.to_string())?;
    Ok(json!({
        "resultType": "input_required",
        "inputRequests": round.open(),
        "requestState": key.seal(context.as_bytes(), &used, STATE_TTL),
        "_meta": { "io.modelcontextprotocol/serverInfo": server_info },
    }))
}

/// What a request's `requestState` is bound to: the method, what it names (a tool, a
/// prompt) and its arguments, in a canonical form (object keys sorted), so that a state
/// opens only for the same request.
pub(super) fn round_context(method: &str, name: &str, arguments: &Map<String, Value>) -> String {
    fn canonical(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let sorted: std::collections::BTreeMap<&String, Value> = map
                    .iter()
                    .map(|(key, value)| (key, canonical(value)))
                    .collect();
                serde_json::to_value(sorted).unwrap_or(Value::Null)
            }
            Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
            other => other.clone(),
        }
    }
    let arguments = canonical(&Value::Object(arguments.clone()));
    format!("{method}\0{name}\0{arguments}")
}
