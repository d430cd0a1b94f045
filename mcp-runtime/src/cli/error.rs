//! Why a command could not run as asked: each a variant, its text the one the command line
//! prints after `error: `.

use std::io;
use std::path::PathBuf;

/// A command's options that cannot be followed, or what it needed and could not get.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// No runtime could start.
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] io::Error),
    /// An `ARGUMENTS` operand of `-`, and standard input could not be read.
    #[error("cannot read the arguments from standard input: {0}")]
    ReadArguments(#[source] io::Error),
    /// An `ARGUMENTS` operand that is not JSON.
    #[error("the arguments are not valid JSON: {0}")]
    ArgumentsNotJson(#[source] serde_json::Error),
    /// A call that breaks the message model (a name that is no tool name, arguments that
    /// are no object).
    #[error(transparent)]
    Call(#[from] mcp_runtime_core::MessageError),
    /// The registry with the options applied could not be built.
    #[error(transparent)]
    Registry(#[from] crate::registry::RegistryError),
    /// `--allow-dangerous NAME`, and no tool is named so.
    #[error("--allow-dangerous: no tool is named `{name}`; {known}")]
    NoSuchDangerousTool {
        /// The name given.
        name: String,
        /// Which tools are marked dangerous, as a clause.
        known: String,
    },
    /// A sandbox option names a tool that is not marked `requires_sandbox`.
    #[error("{flag}: no tool marked requires_sandbox is named `{name}`; {marked}")]
    NoSuchSandboxedTool {
        /// The option, as the message names it.
        flag: String,
        /// The name given.
        name: String,
        /// Which tools are marked `requires_sandbox`, as a clause.
        marked: String,
    },
    /// `--sandbox-path` without `NAME=DIR`.
    #[error("--sandbox-path: `{0}` is not NAME=DIR")]
    SandboxPath(String),
    /// `--sandbox-policy FILE`, and the file could not be read.
    #[error("--sandbox-policy: cannot read `{}`: {source}", path.display())]
    ReadSandboxPolicy {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        source: io::Error,
    },
    /// `--sandbox-policy FILE`, and the file is no policy of these tools.
    #[error("--sandbox-policy `{}`: {problem}", path.display())]
    SandboxPolicy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        problem: crate::isolation::PolicyFileError,
    },
    /// `--task-store` neither `memory` nor a Redis URL.
    #[error("a task store is `memory` or a Redis URL (redis://HOST:PORT)")]
    TaskStoreUrl,
    /// `--task-store redis://…` in a program built without the `redis` feature.
    #[cfg(not(feature = "redis"))]
    #[error("this program was built without mcp-runtime's `redis` feature")]
    NoRedis,
    /// `--tool-cache` picks a tool not marked both `read_only` and `idempotent`.
    #[error(
        "--tool-cache {selector}: `{tool}` is not marked both read_only and idempotent, so its results may not be cached"
    )]
    NotCacheable {
        /// The selector, as written.
        selector: String,
        /// The first tool it picks that may not be cached.
        tool: String,
    },
    /// `--limit-store` names a Redis that cannot be used.
    #[cfg(feature = "redis")]
    #[error("--limit-store: {0}")]
    LimitStore(#[from] crate::layers::LimitStoreError),
    /// `--limit-store redis://…` in a program built without the `redis` feature.
    #[cfg(not(feature = "redis"))]
    #[error("--limit-store {0}: this program was built without mcp-runtime's `redis` feature")]
    LimitStoreNoRedis(String),
    /// The Redis task store could not be reached.
    #[cfg(feature = "redis")]
    #[error(transparent)]
    TaskStore(#[from] crate::tasks::StoreError),
    /// `--oauth-introspection` without the server's client id.
    #[cfg(feature = "oauth")]
    #[error(
        "--oauth-introspection needs this server's client id at the authorization server: --oauth-client-id ID, or the environment variable {0}"
    )]
    NoClientId(&'static str),
    /// `--oauth-introspection` without the server's client secret.
    #[cfg(feature = "oauth")]
    #[error(
        "--oauth-introspection needs this server's client secret at the authorization server: the environment variable {0}, or --oauth-client-secret"
    )]
    NoClientSecret(&'static str),
    /// OAuth settings that the resource server refuses.
    #[cfg(feature = "oauth")]
    #[error("{0}")]
    OAuth(String),
    /// A resource's blob that is not base64.
    #[error("the blob of {uri} is not valid base64: {source}")]
    Blob {
        /// The resource's URI.
        uri: String,
        /// Why it is not base64.
        source: base64::DecodeError,
    },
    /// `--servers FILE` that could not be read.
    #[cfg(feature = "client")]
    #[error(transparent)]
    Servers(#[from] crate::client::ConfigError),
    /// `--mount` without `NAME=SERVER`.
    #[cfg(feature = "client")]
    #[error("--mount {0}: give NAME=SERVER, a URL or a command")]
    MountSyntax(String),
    /// `--mount NAME=SERVER` whose server is neither a URL nor a command.
    #[cfg(feature = "client")]
    #[error("--mount {mount}: {source}")]
    MountTarget {
        /// The option's value.
        mount: String,
        /// Why its server is none.
        source: crate::client::ConfigError,
    },
    /// `--mount-auth NAME=FIELDS` that cannot be followed.
    #[cfg(feature = "client")]
    #[error("--mount-auth {given}: {reason}")]
    MountAuth {
        /// The option's value.
        given: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two servers of one name, from `--mount` and `--servers`.
    #[cfg(feature = "client")]
    #[error("two servers are named `{0}`")]
    DuplicateServer(String),
    /// A server whose tools could not be mounted.
    #[cfg(feature = "client")]
    #[error("server `{name}`: {source}")]
    Mount {
        /// The server's name.
        name: String,
        /// What went wrong (boxed: a client's error is large).
        source: Box<crate::client::ClientError>,
    },
    /// `SSL_CERT_FILE` that could not be read.
    #[cfg(feature = "tls")]
    #[error("SSL_CERT_FILE {}: {source}", path.display())]
    SslCertFile {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        source: io::Error,
    },
}
