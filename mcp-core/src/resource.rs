//! Resources: what a server offers to be read, by URI, as MCP's `Resource`,
//! `ResourceTemplate` and `ReadResourceResult` define them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who a resource or a message is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person using the client.
    User,
    /// The model.
    Assistant,
}

/// Hints about a resource for the client: who it is for, how much it matters, when it
/// last changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceAnnotations {
    /// Who it is meant for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audience: Vec<Role>,
    /// How much it matters, from 0 (optional) to 1 (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When it last changed, in ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl ResourceAnnotations {
    fn is_empty(&self) -> bool {
        self.audience.is_empty() && self.priority.is_none() && self.last_modified.is_none()
    }
}

/// What describes a resource or a template besides its URI: name, title, description,
/// MIME type, size and annotations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// Its name.
    pub name: String,
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, where known before reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "ResourceAnnotations::is_empty")]
    pub annotations: ResourceAnnotations,
}

/// A resource as `resources/list` lists it.
///
/// ```
/// use mcp_runtime_core::ResourceDefinition;
///
/// let about = ResourceDefinition::new("app://about", "about").with_mime_type("text/markdown");
/// let listed = serde_json::to_value(&about).unwrap();
/// assert_eq!(listed["uri"], "app://about");
/// assert_eq!(listed["mimeType"], "text/markdown");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceDefinition {
    /// Its URI.
    pub uri: String,
    /// Everything else.
    #[serde(flatten)]
    pub info: ResourceInfo,
    /// Metadata of the framework's, under `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

/// A family of resources as `resources/templates/list` lists it: a URI template (RFC 6570)
/// whose variables pick one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplateDefinition {
    /// Its URI template, e.g. `app://users/{id}`.
    pub uri_template: String,
    /// Everything else.
    #[serde(flatten)]
    pub info: ResourceInfo,
    /// Metadata of the framework's, under `_meta`: the schema of each variable.
    #[serde(rename = "_meta", default, skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

macro_rules! info_builders {
    ($type:ty) => {
        impl $type {
            text_setter!(
                /// With a title for people.
                with_title => info.title
            );

            text_setter!(
                /// With a description.
                with_description => info.description
            );

            text_setter!(
                /// With the MIME type of its contents.
                with_mime_type => info.mime_type
            );

            /// With annotations.
            #[must_use]
            pub fn with_annotations(mut self, annotations: ResourceAnnotations) -> Self {
                self.info.annotations = annotations;
                self
            }

            /// The name.
            pub fn name(&self) -> &str {
                &self.info.name
            }
        }
    };
}

info_builders!(ResourceDefinition);
info_builders!(ResourceTemplateDefinition);

crate::scope::scoped!(ResourceDefinition, "read it");
crate::scope::scoped!(ResourceTemplateDefinition, "read its resources");

impl ResourceDefinition {
    /// A resource at `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            info: ResourceInfo {
                name: name.into(),
                ..ResourceInfo::default()
            },
            meta: Map::new(),
        }
    }

    /// With its size in bytes.
    #[must_use]
    pub fn with_size(mut self, size: u64) -> Self {
        self.info.size = Some(size);
        self
    }
}

impl ResourceTemplateDefinition {
    /// A template `uri_template` named `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            info: ResourceInfo {
                name: name.into(),
                ..ResourceInfo::default()
            },
            meta: Map::new(),
        }
    }
}

/// One piece of a resource's contents: text, or bytes (base64 on the wire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The URI of what was read.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text, or base64 bytes.
    #[serde(flatten)]
    pub body: ResourceBody,
}

/// A resource's text or its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded.
    Blob(String),
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// Binary contents from base64 data.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(base64.into()),
        }
    }

    text_setter!(
        /// With a MIME type.
        with_mime_type => mime_type
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contents_serialize_as_text_or_blob_resource_contents() {
        let text = ResourceContents::text("a://x", "hi").with_mime_type("text/plain");
        assert_eq!(
            serde_json::to_value(&text).unwrap(),
            json!({"uri": "a://x", "mimeType": "text/plain", "text": "hi"})
        );
        let blob = ResourceContents::blob("a://y", "AAE=");
        assert_eq!(
            serde_json::to_value(&blob).unwrap(),
            json!({"uri": "a://y", "blob": "AAE="})
        );
    }

    #[test]
    fn a_template_lists_its_template_and_annotations() {
        let template = ResourceTemplateDefinition::new("a://u/{id}", "user").with_annotations(
            ResourceAnnotations {
                audience: vec![Role::User],
                priority: Some(0.5),
                last_modified: None,
            },
        );
        assert_eq!(
            serde_json::to_value(&template).unwrap(),
            json!({"uriTemplate": "a://u/{id}", "name": "user",
                   "annotations": {"audience": ["user"], "priority": 0.5}})
        );
    }
}
