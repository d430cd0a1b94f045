//! The requests and notifications MCP defines, named once: [`Method`], read once from a
//! message's `method`, and beside each its facts ([`Facts`]): who sends it, which protocol
//! revisions have it, whether it may come without a handshake, which capability it needs,
//! and whether its result carries cache hints.
//!
//! ```
//! use mcp_runtime_core::method::{Capability, Method, Revision};
//!
//! let method = Method::parse("resources/subscribe");
//! assert_eq!(method, Method::ResourcesSubscribe);
//! assert_eq!(method.as_str(), "resources/subscribe");
//! assert_eq!(method.capability(), Some(Capability::Server("resources.subscribe")));
//! assert!(!method.revisions().contains(Revision::V2026_07_28));
//!
//! // A method MCP does not define keeps its name, to be answered as unknown.
//! let other = Method::parse("tools/dance");
//! assert_eq!(other, Method::Other("tools/dance".into()));
//! assert_eq!(other.facts(), None);
//! ```

use std::fmt;

/// The identifier of MCP's tasks extension, under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The identifier of MCP's skills extension, under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = crate::skill::EXTENSION;

/// A protocol revision of MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Revision {
    /// 2025-06-18: the handshake (`initialize`).
    V2025_06_18,
    /// 2025-11-25: the handshake (`initialize`).
    V2025_11_25,
    /// 2026-07-28: stateless, the version in every request's `_meta`.
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Self; 3] = [Self::V2025_06_18, Self::V2025_11_25, Self::V2026_07_28];

    /// The revision's version string, `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Self::V2025_06_18 => 1,
            Self::V2025_11_25 => 2,
            Self::V2026_07_28 => 4,
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of protocol revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Revisions(u8);

impl Revisions {
    /// No revision.
    pub const NONE: Self = Self(0);
    /// Every revision.
    pub const ALL: Self = Self(0b111);
    /// The handshake's revisions, 2025-06-18 and 2025-11-25.
    pub const HANDSHAKE: Self = Self(0b011);
    /// 2025-11-25 and later.
    pub const SINCE_2025_11_25: Self = Self(0b110);
    /// 2025-11-25 alone.
    pub const ONLY_2025_11_25: Self = Self(0b010);
    /// 2026-07-28 alone.
    pub const ONLY_2026_07_28: Self = Self(0b100);

    /// Whether `revision` is in the set.
    pub const fn contains(self, revision: Revision) -> bool {
        self.0 & revision.bit() != 0
    }

    /// The revisions in the set, oldest first.
    pub fn iter(self) -> impl Iterator<Item = Revision> {
        Revision::ALL
            .into_iter()
            .filter(move |revision| self.contains(*revision))
    }
}

/// Whether a method is a request, answered, or a notification, never answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request: the receiver answers it.
    Request,
    /// A notification: never answered.
    Notification,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    /// The client, to the server.
    Client,
    /// The server, to the client.
    Server,
    /// Either side, to the other.
    Either,
}

impl Sender {
    /// Whether a client sends it.
    pub const fn client(self) -> bool {
        matches!(self, Self::Client | Self::Either)
    }

    /// Whether a server sends it.
    pub const fn server(self) -> bool {
        matches!(self, Self::Server | Self::Either)
    }
}

/// The capability a method needs the other side, or both, to have declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// One the server declares, by its path in `ServerCapabilities`
    /// (`"resources.subscribe"`).
    Server(&'static str),
    /// One the client declares, by its path in `ClientCapabilities` (`"roots.listChanged"`).
    Client(&'static str),
    /// An extension, which both declare under `capabilities.extensions`.
    Extension(&'static str),
}

/// What MCP says of one method: one row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Facts {
    /// Its name, as a message's `method` carries it.
    pub name: &'static str,
    /// A request or a notification.
    pub kind: Kind,
    /// Who sends it.
    pub sender: Sender,
    /// The revisions whose schema defines it. A method of an extension is served at any
    /// revision to a peer that declares the extension, whatever this says.
    pub revisions: Revisions,
    /// Whether it may come without a completed handshake: before `notifications/initialized`
    /// at the handshake's revisions (`initialize` itself, `ping`, a server's log messages),
    /// or, as `server/discover`, at any revision with no handshake at all.
    pub without_handshake: bool,
    /// The capability it needs.
    pub capability: Option<Capability>,
    /// Whether its result carries cache hints (`ttlMs`, `cacheScope`) at 2026-07-28.
    pub cache_hints: bool,
}

impl Facts {
    const fn request(name: &'static str, sender: Sender, revisions: Revisions) -> Self {
        Self {
            name,
            kind: Kind::Request,
            sender,
            revisions,
            without_handshake: false,
            capability: None,
            cache_hints: false,
        }
    }

    const fn notification(name: &'static str, sender: Sender, revisions: Revisions) -> Self {
        Self {
            kind: Kind::Notification,
            ..Self::request(name, sender, revisions)
        }
    }

    const fn without_handshake(self) -> Self {
        Self {
            without_handshake: true,
            ..self
        }
    }

    const fn needs(self, capability: Capability) -> Self {
        Self {
            capability: Some(capability),
            ..self
        }
    }

    const fn cached(self) -> Self {
        Self {
            cache_hints: true,
            ..self
        }
    }
}

/// Writes [`Method`] and its table from one list: each method's variant, its name, once,
/// and its facts.
macro_rules! methods {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal: $row:ident($sender:ident, $revisions:ident) $(.$fact:ident($($arg:expr)?))*;
    )*) => {
        /// A method MCP defines, read once from a message's `method`; or another, kept by its
        /// name ([`Method::Other`]), so that it can be answered as a method not found.
        ///
        /// Routing on it is one exhaustive `match`: a new method is a new variant here, and
        /// the compiler names every place that must answer it.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Method {
            $(
                $(#[$doc])*
                $variant,
            )*
            /// A method MCP does not define (or this table does not know), by its name.
            Other(Box<str>),
        }

        impl Method {
            /// Every method MCP defines, in the table's order.
            pub const ALL: &'static [Method] = &[$(Method::$variant),*];

            /// The method named `name`: one MCP defines, or [`Method::Other`].
            pub fn parse(name: &str) -> Self {
                Self::known(name).unwrap_or_else(|| Self::Other(name.into()))
            }

            /// The method named `name`, when MCP defines it; no allocation.
            pub fn known(name: &str) -> Option<Self> {
                Some(match name {
                    $($name => Self::$variant,)*
                    _ => return None,
                })
            }

            /// The method's name, as a message's `method` carries it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $name,)*
                    Self::Other(name) => name,
                }
            }

            /// What MCP says of the method; `None` for [`Method::Other`].
            pub const fn facts(&self) -> Option<&'static Facts> {
                Some(match self {
                    $(Self::$variant => {
                        const ROW: Facts = Facts::$row($name, Sender::$sender, Revisions::$revisions)
                            $(.$fact($($arg)?))*;
                        &ROW
                    })*
                    Self::Other(_) => return None,
                })
            }
        }
    };
}

methods! {
    /// `initialize`: opens the handshake.
    Initialize = "initialize": request(Client, HANDSHAKE).without_handshake();
    /// `ping`.
    Ping = "ping": request(Either, HANDSHAKE).without_handshake();
    /// `server/discover` (2026-07-28): the versions and capabilities, without a handshake.
    ServerDiscover = "server/discover": request(Client, ONLY_2026_07_28)
        .without_handshake()
        .cached();
    /// `tools/list`.
    ToolsList = "tools/list": request(Client, ALL)
        .needs(Capability::Server("tools"))
        .cached();
    /// `tools/call`.
    ToolsCall = "tools/call": request(Client, ALL).needs(Capability::Server("tools"));
    /// `resources/list`.
    ResourcesList = "resources/list": request(Client, ALL)
        .needs(Capability::Server("resources"))
        .cached();
    /// `resources/templates/list`.
    ResourceTemplatesList = "resources/templates/list": request(Client, ALL)
        .needs(Capability::Server("resources"))
        .cached();
    /// `resources/read`.
    ResourcesRead = "resources/read": request(Client, ALL)
        .needs(Capability::Server("resources"))
        .cached();
    /// `resources/subscribe` (the handshake's revisions).
    ResourcesSubscribe = "resources/subscribe": request(Client, HANDSHAKE)
        .needs(Capability::Server("resources.subscribe"));
    /// `resources/unsubscribe` (the handshake's revisions).
    ResourcesUnsubscribe = "resources/unsubscribe": request(Client, HANDSHAKE)
        .needs(Capability::Server("resources.subscribe"));
    /// `prompts/list`.
    PromptsList = "prompts/list": request(Client, ALL)
        .needs(Capability::Server("prompts"))
        .cached();
    /// `prompts/get`.
    PromptsGet = "prompts/get": request(Client, ALL).needs(Capability::Server("prompts"));
    /// `completion/complete`.
    CompletionComplete = "completion/complete": request(Client, ALL)
        .needs(Capability::Server("completions"));
    /// `logging/setLevel` (the handshake's revisions).
    LoggingSetLevel = "logging/setLevel": request(Client, HANDSHAKE)
        .needs(Capability::Server("logging"));
    /// `subscriptions/listen` (2026-07-28): a stream of the changes asked for.
    SubscriptionsListen = "subscriptions/listen": request(Client, ONLY_2026_07_28);
    /// `tasks/get` (the tasks extension).
    TasksGet = "tasks/get": request(Client, ONLY_2025_11_25)
        .needs(Capability::Extension(TASKS_EXTENSION));
    /// `tasks/update` (the tasks extension): answers to a task's questions.
    TasksUpdate = "tasks/update": request(Client, NONE)
        .needs(Capability::Extension(TASKS_EXTENSION));
    /// `tasks/cancel` (the tasks extension).
    TasksCancel = "tasks/cancel": request(Client, ONLY_2025_11_25)
        .needs(Capability::Extension(TASKS_EXTENSION));
    /// `skills/list` (the skills extension): the skills served, each with its manifest.
    SkillsList = "skills/list": request(Client, NONE)
        .needs(Capability::Extension(SKILLS_EXTENSION))
        .cached();
    /// `skills/get` (the skills extension): one skill, by its `SKILL.md`'s URI.
    SkillsGet = "skills/get": request(Client, NONE)
        .needs(Capability::Extension(SKILLS_EXTENSION))
        .cached();
    /// `resources/directory/read` (the skills extension, where `directoryRead` is on): the
    /// direct children of a skill's folder.
    ResourcesDirectoryRead = "resources/directory/read": request(Client, NONE)
        .needs(Capability::Extension(SKILLS_EXTENSION))
        .cached();
    /// `sampling/createMessage`: the server asks the client's model.
    SamplingCreateMessage = "sampling/createMessage": request(Server, ALL)
        .needs(Capability::Client("sampling"));
    /// `elicitation/create`: the server asks the user.
    ElicitationCreate = "elicitation/create": request(Server, ALL)
        .needs(Capability::Client("elicitation"));
    /// `roots/list`: the server asks the client's roots.
    RootsList = "roots/list": request(Server, ALL).needs(Capability::Client("roots"));
    /// `notifications/initialized`: closes the handshake.
    Initialized = "notifications/initialized": notification(Client, HANDSHAKE)
        .without_handshake();
    /// `notifications/cancelled`.
    Cancelled = "notifications/cancelled": notification(Either, ALL);
    /// `notifications/progress`.
    Progress = "notifications/progress": notification(Either, ALL);
    /// `notifications/message`: a log message.
    Message = "notifications/message": notification(Server, ALL)
        .without_handshake()
        .needs(Capability::Server("logging"));
    /// `notifications/tools/list_changed`.
    ToolsListChanged = "notifications/tools/list_changed": notification(Server, ALL)
        .needs(Capability::Server("tools.listChanged"));
    /// `notifications/resources/list_changed`.
    ResourcesListChanged = "notifications/resources/list_changed": notification(Server, ALL)
        .needs(Capability::Server("resources.listChanged"));
    /// `notifications/resources/updated`.
    ResourcesUpdated = "notifications/resources/updated": notification(Server, ALL)
        .needs(Capability::Server("resources.subscribe"));
    /// `notifications/prompts/list_changed`.
    PromptsListChanged = "notifications/prompts/list_changed": notification(Server, ALL)
        .needs(Capability::Server("prompts.listChanged"));
    /// `notifications/roots/list_changed` (the handshake's revisions).
    RootsListChanged = "notifications/roots/list_changed": notification(Client, HANDSHAKE)
        .needs(Capability::Client("roots.listChanged"));
    /// `notifications/elicitation/complete` (2025-11-25): an elicitation by URL ended.
    ElicitationComplete = "notifications/elicitation/complete": notification(Server, ONLY_2025_11_25)
        .needs(Capability::Client("elicitation"));
    /// `notifications/tasks/status` (2025-11-25): a task's status changed.
    TaskStatus = "notifications/tasks/status": notification(Server, ONLY_2025_11_25)
        .needs(Capability::Extension(TASKS_EXTENSION));
    /// `notifications/subscriptions/acknowledged` (2026-07-28): a `subscriptions/listen`
    /// stream is open.
    SubscriptionsAcknowledged = "notifications/subscriptions/acknowledged":
        notification(Server, ONLY_2026_07_28);
}

impl Method {
    /// Whether it is a request (answered); `true` for [`Method::Other`], which may be one.
    pub fn is_request(&self) -> bool {
        self.facts().is_none_or(|facts| facts.kind == Kind::Request)
    }

    /// The revisions whose schema defines it; none for [`Method::Other`].
    pub fn revisions(&self) -> Revisions {
        self.facts()
            .map_or(Revisions::NONE, |facts| facts.revisions)
    }

    /// Whether it may come without a completed handshake (the field `without_handshake` of [`Facts`]).
    pub fn without_handshake(&self) -> bool {
        self.facts().is_some_and(|facts| facts.without_handshake)
    }

    /// The capability it needs, if any.
    pub fn capability(&self) -> Option<Capability> {
        self.facts().and_then(|facts| facts.capability)
    }

    /// Whether its result carries cache hints at 2026-07-28.
    pub fn cache_hints(&self) -> bool {
        self.facts().is_some_and(|facts| facts.cache_hints)
    }

    /// The extension it belongs to, if any (`tasks/*`: [`TASKS_EXTENSION`]; `skills/*` and
    /// `resources/directory/read`: [`SKILLS_EXTENSION`]).
    pub fn extension(&self) -> Option<&'static str> {
        match self.capability() {
            Some(Capability::Extension(extension)) => Some(extension),
            _ => None,
        }
    }

    /// Whether it is a request a client sends that a handshake revision has and
    /// `revision` removed: at 2026-07-28 `initialize`, `ping`, `logging/setLevel`,
    /// `resources/subscribe` and `resources/unsubscribe`. A method of an extension is
    /// served wherever the extension is, and never removed.
    pub fn removed_at(&self, revision: Revision) -> bool {
        self.facts().is_some_and(|facts| {
            facts.kind == Kind::Request
                && facts.sender.client()
                && facts
                    .capability
                    .is_none_or(|capability| !matches!(capability, Capability::Extension(_)))
                && !facts.revisions.contains(revision)
                && facts
                    .revisions
                    .iter()
                    .any(|had| (had as u8) < (revision as u8))
        })
    }
}

impl From<&str> for Method {
    fn from(name: &str) -> Self {
        Self::parse(name)
    }
}

impl From<String> for Method {
    /// As [`Method::parse`], keeping `name`'s allocation for a method MCP does not define.
    fn from(name: String) -> Self {
        Self::known(&name).unwrap_or_else(|| Self::Other(name.into_boxed_str()))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    use super::*;

    #[test]
    fn every_methods_name_parses_back_to_itself() {
        for method in Method::ALL {
            assert_eq!(&Method::parse(method.as_str()), method);
            assert_eq!(Method::known(method.as_str()).as_ref(), Some(method));
            assert_eq!(&Method::from(method.as_str().to_owned()), method);
        }
        let names: BTreeSet<&str> = Method::ALL.iter().map(Method::as_str).collect();
        assert_eq!(names.len(), Method::ALL.len(), "two methods share a name");
    }

    #[test]
    fn an_unknown_method_keeps_its_name() {
        for name in [
            "tools/dance",
            "",
            "Tools/List",
            "tools/list ",
            "notifications/",
        ] {
            let method = Method::parse(name);
            assert_eq!(method, Method::Other(name.into()));
            assert_eq!(method.as_str(), name);
            assert_eq!(Method::from(name.to_owned()), method);
            assert!(method.facts().is_none());
            assert!(method.is_request());
        }
    }

    #[test]
    fn the_methods_removed_at_2026_07_28_are_the_five_of_the_handshake() {
        let removed: Vec<&str> = Method::ALL
            .iter()
            .filter(|method| method.removed_at(Revision::V2026_07_28))
            .map(Method::as_str)
            .collect();
        assert_eq!(
            removed,
            [
                "initialize",
                "ping",
                "resources/subscribe",
                "resources/unsubscribe",
                "logging/setLevel"
            ]
        );
        assert!(
            !Method::ALL
                .iter()
                .any(|method| method.removed_at(Revision::V2025_06_18))
        );
    }

    /// The `$defs` of a revision's schema.
    fn definitions(revision: Revision) -> serde_json::Map<String, Value> {
        let path = format!(
            "{}/../spec/mcp/{revision}/schema.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("the MCP schema is in spec/mcp");
        let schema: Value = serde_json::from_str(&text).expect("the MCP schema is JSON");
        let definitions = schema
            .get("$defs")
            .or_else(|| schema.get("definitions"))
            .and_then(Value::as_object)
            .expect("the schema has definitions");
        definitions.clone()
    }

    /// Every method a revision's schema defines, with the definition of each.
    fn schema_methods(definitions: &serde_json::Map<String, Value>) -> Vec<(String, String)> {
        let mut methods: Vec<(String, String)> = definitions
            .iter()
            .filter_map(|(definition, body)| {
                let name = body.pointer("/properties/method/const")?.as_str()?;
                Some((name.to_owned(), definition.clone()))
            })
            // A union of notifications (`ClientNotification`) names one again.
            .filter(|(_, definition)| {
                definition.ends_with("Request") || definition.ends_with("Notification")
            })
            .filter(|(_, definition)| {
                !definition.starts_with("Client") && !definition.starts_with("Server")
            })
            .collect();
        methods.sort();
        methods
    }

    /// The methods of 2025-11-25's core tasks that the tasks extension replaced, which no
    /// part of this workspace sends or serves.
    const NOT_IN_THE_TABLE: [&str; 2] = ["tasks/list", "tasks/result"];

    #[test]
    fn the_table_has_every_method_of_each_revisions_schema_and_no_other() {
        for revision in Revision::ALL {
            let definitions = definitions(revision);
            let in_schema: BTreeSet<String> = schema_methods(&definitions)
                .into_iter()
                .map(|(name, _)| name)
                .filter(|name| !NOT_IN_THE_TABLE.contains(&name.as_str()))
                .collect();
            let in_table: BTreeSet<String> = Method::ALL
                .iter()
                .filter(|method| method.revisions().contains(revision))
                .map(|method| method.as_str().to_owned())
                .collect();
            assert_eq!(in_table, in_schema, "the methods of {revision}");
        }
    }

    #[test]
    fn the_table_says_what_each_schema_says_of_kind_and_cache_hints() {
        for revision in Revision::ALL {
            let definitions = definitions(revision);
            for (name, definition) in schema_methods(&definitions) {
                let Some(method) = Method::known(&name) else {
                    continue;
                };
                let facts = method.facts().expect("a known method has facts");
                let kind = if definition.ends_with("Request") {
                    Kind::Request
                } else {
                    Kind::Notification
                };
                assert_eq!(facts.kind, kind, "{name} at {revision}");
                if revision != Revision::V2026_07_28 || kind == Kind::Notification {
                    continue;
                }
                let result = format!("{}Result", definition.trim_end_matches("Request"));
                let hinted = definitions
                    .get(&result)
                    .and_then(|result| result.pointer("/properties/ttlMs"))
                    .is_some();
                assert_eq!(facts.cache_hints, hinted, "the cache hints of {name}");
            }
        }
    }

    #[test]
    fn each_capability_a_method_needs_is_one_its_revisions_define() {
        for method in Method::ALL {
            let Some(capability) = method.capability() else {
                continue;
            };
            for revision in method.revisions().iter() {
                let definitions = definitions(revision);
                let (side, path) = match capability {
                    Capability::Server(path) => ("ServerCapabilities", path),
                    Capability::Client(path) => ("ClientCapabilities", path),
                    Capability::Extension(_) => continue,
                };
                let mut at = &definitions[side];
                for part in path.split('.') {
                    at = at
                        .pointer(&format!("/properties/{part}"))
                        .unwrap_or_else(|| panic!("{side} has no {path} at {revision}"));
                }
            }
        }
    }
}
