//! Prompts: message templates a server offers, as MCP's `Prompt` and `GetPromptResult`
//! define them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{ContentBlock, Role};

/// One argument of a prompt. Arguments arrive as strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default)]
    pub required: bool,
}

/// A prompt as `prompts/list` lists it.
///
/// ```
/// use mcp_runtime_core::{PromptArgument, PromptDefinition};
///
/// let review = PromptDefinition::new("code_review")
///     .with_description("Asks for a review of some code.")
///     .with_argument(PromptArgument::required("code"));
/// let listed = serde_json::to_value(&review).unwrap();
/// assert_eq!(listed["arguments"][0]["required"], true);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptDefinition {
    /// Its name.
    pub name: String,
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Metadata of the framework's, under `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

impl PromptArgument {
    /// An argument that must be given.
    pub fn required(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            required: true,
        }
    }

    /// An argument that may be left out.
    pub fn optional(name: impl Into<String>) -> Self {
        Self {
            required: false,
            ..Self::required(name)
        }
    }

    text_setter!(
        /// With a description.
        with_description => description
    );
}

impl PromptDefinition {
    /// A prompt named `name`, with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            meta: Map::new(),
        }
    }

    text_setter!(
        /// With a title for people.
        with_title => title
    );

    text_setter!(
        /// With a description.
        with_description => description
    );

    /// With one more argument.
    #[must_use]
    pub fn with_argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }
}

crate::scope::scoped!(PromptDefinition, "get it");

/// One message of a rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: text, an image, audio or an embedded resource.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: impl Into<ContentBlock>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<ContentBlock>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

/// A rendered prompt, as `prompts/get` answers it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptResult {
    /// What the rendered prompt is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its messages.
    pub messages: Vec<PromptMessage>,
}

impl PromptResult {
    /// A prompt of these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
        }
    }

    text_setter!(
        /// With a description.
        with_description => description
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_serializes_as_mcp_prompt_message() {
        let result = PromptResult::new(vec![
            PromptMessage::user("hello"),
            PromptMessage::assistant(ContentBlock::image("AA==", "image/png")),
        ]);
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "hello"}},
                {"role": "assistant", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}},
            ]})
        );
    }

    #[test]
    fn an_optional_argument_says_so() {
        let listed = serde_json::to_value(PromptArgument::optional("language")).unwrap();
        assert_eq!(listed, json!({"name": "language", "required": false}));
    }
}
