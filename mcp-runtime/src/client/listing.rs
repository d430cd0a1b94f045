//! Listing what a server has: every page followed, each tool's header marks checked, and a
//! listing kept as long as the server's `ttlMs` allows, forgotten on a list change.

use std::collections::HashMap;
use std::sync::{MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use mcp_runtime_core::method::Method;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

use super::{Client, ClientError, RequestOptions, Tool, headers};

/// Listings kept, by method: until when, and the entries.
pub(super) type Kept = HashMap<String, (Instant, Vec<Value>)>;

impl Client {
    /// Every tool the server lists, following its pages. A tool whose input schema marks
    /// arguments for headers (`x-mcp-header`) in a way the specification forbids is left
    /// out, with a warning: calling it could not be done right.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let entries = self.list_all(Method::ToolsList.as_str(), "tools").await?;
        let mut tools = Vec::with_capacity(entries.len());
        let mut mirrors = HashMap::new();
        for entry in entries {
            let raw = match &entry {
                Value::Object(raw) => raw.clone(),
                _ => Map::new(),
            };
            let mut tool: Tool = serde_json::from_value(entry)
                .map_err(|err| ClientError::Malformed(format!("a listed tool: {err}")))?;
            tool.raw = raw;
            match headers::mirrors(&tool.input_schema) {
                Ok(marked) => {
                    mirrors.insert(tool.name.clone(), marked);
                    tools.push(tool);
                }
                Err(reason) => {
                    tracing::warn!(tool = %tool.name, %reason, "a listed tool is left out");
                }
            }
        }
        *self.mirrors.lock().unwrap_or_else(PoisonError::into_inner) = mirrors;
        self.note_task_tools(
            tools
                .iter()
                .filter(|tool| tool.task_support() == mcp_runtime_core::TaskSupport::Required)
                .map(|tool| tool.name.as_str()),
        );
        Ok(tools)
    }

    /// Every resource the server lists, as listed.
    pub async fn list_resources(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all(Method::ResourcesList.as_str(), "resources")
            .await
    }

    /// Every resource template the server lists, as listed.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all(Method::ResourceTemplatesList.as_str(), "resourceTemplates")
            .await
    }

    /// Every prompt the server lists, as listed.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all(Method::PromptsList.as_str(), "prompts").await
    }

    /// The entries under `key` of every page of `method`.
    async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
        /// A server that never stops paging is cut off here.
        const MAX_PAGES: usize = 1_000;
        if let Some(kept) = self.kept(method) {
            return Ok(kept);
        }
        let mut entries = Vec::new();
        let mut cursor: Option<String> = None;
        // The listing may be kept as long as its shortest-lived page.
        let mut ttl = u64::MAX;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".to_owned(), json!(cursor));
            }
            let page = self
                .request(method, params, RequestOptions::default())
                .await?;
            // Absent or not a whole number: not to be kept.
            ttl = ttl.min(page.get("ttlMs").and_then(Value::as_u64).unwrap_or(0));
            match page.get(key) {
                Some(Value::Array(items)) => entries.extend(items.iter().cloned()),
                _ => {
                    return Err(ClientError::Malformed(format!(
                        "the result of `{method}` has no `{key}` list"
                    )));
                }
            }
            match page.get("nextCursor") {
                Some(Value::String(next)) => cursor = Some(next.clone()),
                None | Some(Value::Null) => {
                    if ttl > 0 {
                        let until =
                            Instant::now() + Duration::from_millis(ttl.min(24 * 60 * 60 * 1000));
                        self.lock_listings()
                            .insert(method.to_owned(), (until, entries.clone()));
                    }
                    return Ok(entries);
                }
                Some(_) => {
                    return Err(ClientError::Malformed(format!(
                        "the `nextCursor` of `{method}` is not a string"
                    )));
                }
            }
        }
        Err(ClientError::Malformed(format!(
            "`{method}` was still paging after {MAX_PAGES} pages"
        )))
    }

    /// A listing kept and still fresh: not past its `ttlMs`, and no list change heard since.
    fn kept(&self, method: &str) -> Option<Vec<Value>> {
        let mut listings = self.lock_listings();
        {
            let mut changes = self.changes.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                match changes.try_recv() {
                    Ok(notification) => {
                        let stale = match Method::parse(&notification.method) {
                            Method::ToolsListChanged => &[Method::ToolsList][..],
                            Method::PromptsListChanged => &[Method::PromptsList][..],
                            Method::ResourcesListChanged => {
                                &[Method::ResourcesList, Method::ResourceTemplatesList][..]
                            }
                            _ => &[][..],
                        };
                        for method in stale {
                            listings.remove(method.as_str());
                        }
                    }
                    // Missed some: any may have been a change.
                    Err(broadcast::error::TryRecvError::Lagged(_)) => listings.clear(),
                    Err(_) => break,
                }
            }
        }
        match listings.get(method) {
            Some((until, entries)) if Instant::now() < *until => Some(entries.clone()),
            _ => None,
        }
    }

    fn lock_listings(&self) -> MutexGuard<'_, Kept> {
        self.listings.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets every listing kept, so that the next one asks the server.
    pub fn forget_listings(&self) {
        self.lock_listings().clear();
    }
}
