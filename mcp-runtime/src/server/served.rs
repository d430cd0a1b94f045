//! What a server serves: the registry at one moment (a [`Snapshot`], swapped whole on each
//! change), with its tools' names for LLM APIs and its `tools/list` listing; what an edit
//! of it says of whether it changed ([`Changed`]); and how long clients may keep the
//! listing ([`CacheHints`]).

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::registry::Registry;

#[cfg(doc)]
use super::Server;

/// How long clients may keep what `server/discover` and `tools/list` answer (2026-07-28),
/// and who may share it: `ttlMs` and `cacheScope` on those results. A client that listens
/// for changes (`subscriptions/listen`) hears of a changed list before the time is up.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::server::{CacheHints, CacheScope, Server};
///
/// let hints = CacheHints { ttl: Duration::from_secs(60), scope: CacheScope::Private };
/// let server = Server::new(mcp_runtime::Registry::global()).with_cache_hints(hints);
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// How long a client may keep a result; sent in whole milliseconds.
    pub ttl: Duration,
    /// Who may share a kept result. A caller an OAuth access token describes is told
    /// [`CacheScope::Private`] whatever this says.
    pub scope: CacheScope,
}

impl Default for CacheHints {
    /// Five minutes, shared by every client: the tools do not depend on who asks.
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(300),
            scope: CacheScope::Public,
        }
    }
}

impl CacheHints {
    pub(super) fn ttl_ms(self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }
}

/// Who may share a result a client keeps (`cacheScope`, 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client, and caches between clients and the server: the result is the same for all.
    Public,
    /// Only the client that asked: the result may depend on who asks (its credentials).
    Private,
}

/// The registry a server serves: the global one, or one of the application's.
#[derive(Debug, Clone)]
pub enum ServedRegistry {
    /// A registry that lives as long as the program, such as [`Registry::global`].
    Static(&'static Registry),
    /// A shared registry.
    Shared(Arc<Registry>),
}

impl Deref for ServedRegistry {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        match self {
            Self::Static(registry) => registry,
            Self::Shared(registry) => registry,
        }
    }
}

impl From<&'static Registry> for ServedRegistry {
    fn from(registry: &'static Registry) -> Self {
        Self::Static(registry)
    }
}

impl From<Arc<Registry>> for ServedRegistry {
    fn from(registry: Arc<Registry>) -> Self {
        Self::Shared(registry)
    }
}

impl From<Registry> for ServedRegistry {
    fn from(registry: Registry) -> Self {
        Self::Shared(Arc::new(registry))
    }
}

/// A registry as served: with its tools' names for LLM APIs, when the server uses them,
/// and the listing `tools/list` serves, written on first use.
pub(super) struct Snapshot {
    pub(super) registry: ServedRegistry,
    pub(super) llm_names: Option<LlmNames>,
    /// Whether `tools/list` carries the portable form of each schema, rather than the
    /// served one.
    pub(super) portable: bool,
    pub(super) listing: OnceLock<Listing>,
}

impl Snapshot {
    /// The listing `tools/list` serves: each tool's wire form, written on first use (so
    /// that a large tool set costs nothing at start-up) and only once.
    pub(super) fn listing(&self) -> &Listing {
        self.listing.get_or_init(|| {
            let (mut names, mut tools, mut scopes) = (Vec::new(), Vec::new(), Vec::new());
            for tool in self.registry.list() {
                let llm_name = self
                    .llm_names
                    .as_ref()
                    .and_then(|names| names.to_llm.get(tool.name().as_str()));
                let wire = serde_json::to_value(tool.definition()).and_then(|mut wire| {
                    if let Some(llm_name) = llm_name {
                        wire["name"] = Value::String(llm_name.clone());
                    }
                    serve_schemas(tool.name().as_str(), &mut wire, self.portable);
                    serde_json::value::to_raw_value(&wire)
                });
                match wire {
                    Ok(raw) => {
                        names.push(tool.name().as_str().to_owned());
                        tools.push(raw);
                        scopes.push(tool.definition().scopes().to_vec());
                    }
                    Err(err) => tracing::error!(tool = %tool.name(), "cannot list tool: {err}"),
                }
            }
            Listing {
                names,
                tools,
                scopes,
            }
        })
    }

    pub(super) fn new(
        registry: ServedRegistry,
        llm_names: bool,
        bare: Option<&str>,
    ) -> Result<Self, LlmNameError> {
        let llm_names = match llm_names {
            true => Some(LlmNames::of(&registry, bare)?),
            false => None,
        };
        Ok(Self {
            registry,
            llm_names,
            portable: false,
            listing: OnceLock::new(),
        })
    }

    /// This snapshot, serving the portable form of each schema when `portable` says so.
    pub(super) fn with_portable(mut self, portable: bool) -> Self {
        self.portable = portable;
        self
    }

    /// The same registry under the same names, its listing made anew: in the portable
    /// form when `portable` says so.
    pub(super) fn relisted(&self, portable: bool) -> Self {
        Self {
            registry: self.registry.clone(),
            llm_names: self.llm_names.clone(),
            portable,
            listing: OnceLock::new(),
        }
    }
}

/// The wire form of a tool with its schemas in the form served by default
/// ([`listing::served`](crate::listing::served)), or in the portable one when `portable`
/// says so ([`listing::portable`](crate::listing::portable)); a schema whose references
/// cannot be inlined (a recursive type) keeps them, with a warning.
fn serve_schemas(name: &str, wire: &mut Value, portable: bool) {
    for key in ["inputSchema", "outputSchema"] {
        let Some(schema) = wire.get_mut(key) else {
            continue;
        };
        *schema = if portable {
            let (portable, err) = crate::listing::portable_or_closest(schema);
            if let Some(err) = err {
                tracing::warn!(tool = %name, "the {key} is served with its `$ref`s: {err}");
            }
            portable
        } else {
            crate::listing::served(schema)
        };
    }
}

/// The registry a server serves at one moment; changes made later are not in it.
pub struct ServedView(pub(super) Arc<Snapshot>);

impl Deref for ServedView {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        &self.0.registry
    }
}

impl std::fmt::Debug for ServedView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Registry::fmt(self, f)
    }
}

/// Each tool's wire form, in name order, as `tools/list` serves it, with the OAuth scopes
/// it needs.
pub(super) struct Listing {
    pub(super) names: Vec<String>,
    pub(super) tools: Vec<Box<RawValue>>,
    pub(super) scopes: Vec<Vec<String>>,
}

/// The two directions of the LLM-name mapping.
#[derive(Debug, Clone, Default)]
pub(super) struct LlmNames {
    pub(super) to_llm: HashMap<String, String>,
    pub(super) to_canonical: HashMap<String, String>,
}

impl LlmNames {
    /// The names of `registry`'s tools for LLM APIs: dots made underscores, and the tools
    /// of namespace `bare`, if given, under their names alone.
    pub(super) fn of(registry: &Registry, bare: Option<&str>) -> Result<Self, LlmNameError> {
        let mut names = Self::default();
        for tool in registry.list() {
            let canonical = tool.name().as_str();
            let unprefixed = bare
                .and_then(|namespace| canonical.strip_prefix(namespace))
                .and_then(|rest| rest.strip_prefix('.'));
            let llm = unprefixed.unwrap_or(canonical).replace('.', "_");
            if llm.len() > 64 {
                return Err(LlmNameError::TooLong {
                    tool: canonical.to_owned(),
                });
            }
            if let Some(other) = names.to_canonical.get(&llm) {
                return Err(LlmNameError::Collision {
                    name: llm,
                    first: other.clone(),
                    second: canonical.to_owned(),
                });
            }
            names.to_canonical.insert(llm.clone(), canonical.to_owned());
            names.to_llm.insert(canonical.to_owned(), llm);
        }
        Ok(names)
    }
}

/// What an edit of a served registry returned says of whether it changed anything
/// ([`Server::change`]).
pub trait Changed {
    /// Whether the registry changed.
    fn changed(&self) -> bool;
}

/// [`Registry::enable`] and [`Registry::disable`]: whether the tool was there.
impl Changed for bool {
    fn changed(&self) -> bool {
        *self
    }
}

/// An edit that returns nothing: taken as a change.
impl Changed for () {
    fn changed(&self) -> bool {
        true
    }
}

/// [`Registry::unregister`]: whether a tool was removed.
impl<T> Changed for Option<T> {
    fn changed(&self) -> bool {
        self.is_some()
    }
}

/// [`Registry::register`] and [`Registry::mount`]: a change when it succeeded.
impl<T: Changed, E> Changed for Result<T, E> {
    fn changed(&self) -> bool {
        self.as_ref().is_ok_and(Changed::changed)
    }
}

/// [`Registry::mount`]'s conflicts: the tools that did not conflict were added.
impl Changed for Vec<crate::registry::ToolConflict> {
    fn changed(&self) -> bool {
        true
    }
}

/// Why tools cannot be served under names valid for LLM APIs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmNameError {
    /// Two tools would get one name.
    #[error("tools `{first}` and `{second}` would both be served as `{name}`: rename one of them")]
    Collision {
        /// The name both would get.
        name: String,
        /// One tool.
        first: String,
        /// The other.
        second: String,
    },
    /// A name would be longer than LLM APIs allow.
    #[error("tool `{tool}` would be served under a name longer than 64 characters: shorten it")]
    TooLong {
        /// The tool.
        tool: String,
    },
}

/// The cursor of the page starting at tool `name`: opaque to clients.
pub(super) fn cursor_of(name: &str) -> String {
    name.bytes().map(|byte| format!("{byte:02x}")).collect()
}

pub(super) fn cursor_name(cursor: &str) -> Option<String> {
    if cursor.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..cursor.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(cursor.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_garbage() {
        assert_eq!(
            cursor_name(&cursor_of("text.word_count")).as_deref(),
            Some("text.word_count")
        );
        assert_eq!(cursor_name("zz"), None);
        assert_eq!(cursor_name("abc"), None);
    }
}
