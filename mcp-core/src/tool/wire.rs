//! A tool definition's wire form: MCP's `Tool` object, its annotations and its `_meta`.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::{META_KEY, TaskSupport, ToolDefinition};
use crate::message::ErrorType;

impl ToolDefinition {
    /// MCP's annotations: the hints that are set. Their `title` is left out: every revision
    /// served has `Tool.title`, which carries it once.
    fn mcp_annotations(&self) -> Map<String, Value> {
        let a = &self.annotations;
        let mut map = Map::new();
        for (key, hint) in [
            ("readOnlyHint", a.read_only),
            ("destructiveHint", a.destructive),
            ("idempotentHint", a.idempotent),
            ("openWorldHint", a.open_world),
        ] {
            if let Some(hint) = hint {
                map.insert(key.into(), hint.into());
            }
        }
        map
    }

    /// What travels in `_meta` under [`META_KEY`]: what is set, never a default.
    fn meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        if self.version_stated {
            meta.insert("version".into(), self.version.to_string().into());
        }
        if let Some(category) = &self.category {
            meta.insert("category".into(), category.clone().into());
        }
        if !self.tags.is_empty() {
            meta.insert("tags".into(), self.tags.clone().into());
        }
        if let Some(timeout) = self.timeout {
            let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
            meta.insert("timeoutMs".into(), millis.into());
        }
        if let Some(note) = &self.deprecated {
            meta.insert("deprecated".into(), note.clone().into());
        }
        if !self.errors.is_empty() {
            let errors: Vec<&str> = self.errors.iter().map(ErrorType::as_str).collect();
            meta.insert("errors".into(), errors.into());
        }
        if !self.scopes.is_empty() {
            meta.insert("scopes".into(), self.scopes.clone().into());
        }
        if !self.required_client_capabilities.is_empty() {
            meta.insert(
                "requiredClientCapabilities".into(),
                Value::Object(self.required_client_capabilities.clone()),
            );
        }
        if self.annotations.dangerous {
            meta.insert("dangerous".into(), true.into());
        }
        if self.annotations.requires_sandbox {
            meta.insert("requiresSandbox".into(), true.into());
        }
        meta
    }
}

impl ToolDefinition {
    /// The `_meta` listed: the members carried, with what the definition sets itself
    /// under [`META_KEY`] written over theirs.
    fn listed_meta(&self) -> Map<String, Value> {
        let own = self.meta();
        let mut listed = self.carried_meta.clone();
        if own.is_empty() {
            return listed;
        }
        match listed.get_mut(META_KEY) {
            Some(Value::Object(carried)) => carried.extend(own),
            _ => {
                listed.insert(META_KEY.to_owned(), Value::Object(own));
            }
        }
        listed
    }
}

/// Serializes as MCP's `Tool` object.
impl Serialize for ToolDefinition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &self.name)?;
        if let Some(title) = self.listed_title() {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = &self.description {
            map.serialize_entry("description", description)?;
        }
        map.serialize_entry("inputSchema", &self.input_schema)?;
        if let Some(output) = &self.output {
            map.serialize_entry("outputSchema", &output.schema)?;
        }
        let annotations = self.mcp_annotations();
        if !annotations.is_empty() {
            map.serialize_entry("annotations", &annotations)?;
        }
        if self.task_support != TaskSupport::Forbidden {
            map.serialize_entry(
                "execution",
                &serde_json::json!({ "taskSupport": self.task_support.as_str() }),
            )?;
        }
        let meta = self.listed_meta();
        if !meta.is_empty() {
            map.serialize_entry("_meta", &meta)?;
        }
        map.end()
    }
}
