//! The rounds of a 2026-07-28 request that asks the client: the answers it begins with
//! (its `inputResponses`, and those sealed in its `requestState`), and the
//! `InputRequiredResult` that ends a round on asks still open.

use serde_json::{Map, Value, json};

use super::fault::Fault;
use super::jsonrpc::{self, Id};
use super::{Server, fault_response};
use crate::outbound::{Asks, Round, Way, is_input_response};
use crate::talk::{StateError, StateKey};

/// Why the answers a 2026-07-28 call begins with cannot be taken: the request is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum RoundError {
    /// The server has no key to open a state with.
    #[error("{0}")]
    NoKey(String),
    /// `requestState` does not open: forged, expired, or another request's.
    #[error("`requestState` refused: {0}")]
    Refused(StateError),
    /// `requestState` opened, and holds no answers.
    #[error("`requestState` refused: its content is not answers")]
    NotAnswers,
    /// `requestState` is no string.
    #[error("`requestState` must be a string")]
    StateNotString,
    /// `inputResponses` is no object.
    #[error("`inputResponses` must be an object")]
    ResponsesNotObject,
    /// An answer of `inputResponses` answers no ask.
    #[error(
        "`inputResponses.{0}` is not the result of an elicitation, a sampling or a roots request"
    )]
    NotAnAnswer(String),
}

/// Why a round's `InputRequiredResult` cannot be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SealError {
    /// The call was answered over no rounds.
    #[error("no round to answer")]
    NoRound,
    /// The answers used could not be written.
    #[error(transparent)]
    Written(#[from] serde_json::Error),
}

impl Server {
    /// The round a 2026-07-28 call begins: the answers sealed in its `requestState`, and
    /// those of its `inputResponses`; or why they cannot be taken.
    pub(super) fn round(
        &self,
        context: &str,
        responses: Option<Value>,
        state: Option<Value>,
    ) -> Result<Round, RoundError> {
        let mut answers = match state {
            None => Map::new(),
            Some(Value::String(sealed)) => {
                let key = self
                    .state_key()
                    .map_err(|err| RoundError::NoKey(err.to_string()))?;
                let payload = key
                    .open(context.as_bytes(), &sealed)
                    .map_err(RoundError::Refused)?;
                serde_json::from_slice(&payload).map_err(|_| RoundError::NotAnswers)?
            }
            Some(_) => return Err(RoundError::StateNotString),
        };
        match responses {
            None => {}
            Some(Value::Object(responses)) => {
                for (key, answer) in responses {
                    if !is_input_response(&answer) {
                        return Err(RoundError::NotAnAnswer(key));
                    }
                    answers.insert(key, answer);
                }
            }
            Some(_) => return Err(RoundError::ResponsesNotObject),
        }
        Ok(Round::new(answers))
    }

    /// The `InputRequiredResult` of a round that ended on asks still open: the asks, and
    /// the answers given so far, sealed for the next round.
    pub(super) fn input_required(&self, id: &Id, asks: &Asks) -> String {
        match self
            .state_key()
            .map_err(|err| format!("cannot seal the request state: {err}"))
            .and_then(|key| {
                input_required_result(key, asks, &self.server_info()).map_err(|err| err.to_string())
            }) {
            Ok(result) => jsonrpc::result_response(id, &result),
            Err(message) => fault_response(id, Fault::internal(message)),
        }
    }

    /// This server's `serverInfo`.
    pub(super) fn server_info(&self) -> Value {
        json!({ "name": self.name, "version": self.version })
    }
}

/// The `InputRequiredResult` of a round that ended on asks still open: the asks, and the
/// answers given so far, sealed with `key` for the next round.
pub(crate) fn input_required_result(
    key: &StateKey,
    asks: &Asks,
    server_info: &Value,
) -> Result<Value, SealError> {
    const STATE_TTL: std::time::Duration = std::time::Duration::from_secs(10 * 60);
    let Way::Round { round, context } = &asks.way else {
        return Err(SealError::NoRound);
    };
    let given = serde_json::to_vec(round.given_so_far())?;
    Ok(json!({
        "resultType": "input_required",
        "inputRequests": round.open(),
        "requestState": key.seal(context.as_bytes(), &given, STATE_TTL),
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
