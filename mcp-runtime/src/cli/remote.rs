//! `--mount NAME=SERVER` and `--servers FILE`: other MCP servers' tools mounted beside the
//! application's own, each server's under its name, before the command runs. So `list`,
//! `check`, `spec`, `call` and `serve` work on them as on local tools, and `serve` puts
//! several servers behind one endpoint.
//!
//! A program built without mcp-runtime's `client` feature reads the flags all the same, and
//! refuses them with a usage error that names the feature, not as unknown arguments.

use std::path::PathBuf;

use clap::Args;

#[cfg(feature = "client")]
use {
    super::error::CliError,
    crate::client::{self, Client, ClientManager, Target},
    crate::registry::Registry,
    crate::server::Server,
    std::collections::BTreeMap,
    std::sync::Arc,
};

/// The servers to mount.
#[derive(Args, Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct RemoteArgs {
    /// Mount another MCP server's tools under NAME: `NAME=http://host/mcp`, or
    /// `NAME=PROGRAM ARG…` to spawn it (repeatable). Needs mcp-runtime's `client` feature.
    #[arg(long = "mount", value_name = "NAME=SERVER", global = true)]
    mount: Vec<String>,
    /// Mount every server of an `mcpServers` configuration file, each under its name.
    /// Needs mcp-runtime's `client` feature.
    #[arg(long = "servers", value_name = "FILE", global = true)]
    servers: Option<PathBuf>,
}

/// Why `--mount` and `--servers` fail in a program built without the client.
#[cfg(not(feature = "client"))]
pub(super) const NO_CLIENT: &str = "this program was built without the MCP client: enable \
                                    mcp-runtime's `client` feature (features = [\"client\"] \
                                    in its Cargo.toml)";

#[cfg(not(feature = "client"))]
impl RemoteArgs {
    /// The first flag given that mounts a server, if any.
    pub(super) fn given(&self) -> Option<&'static str> {
        if !self.mount.is_empty() {
            Some("--mount")
        } else if self.servers.is_some() {
            Some("--servers")
        } else {
            None
        }
    }
}

/// The servers mounted, to follow while serving.
#[cfg(feature = "client")]
pub(super) struct Mounts {
    manager: Arc<ClientManager>,
    /// Each server's name, and the prefix its tools are mounted under.
    names: Vec<(String, String)>,
}

#[cfg(feature = "client")]
impl Mounts {
    /// Keeps what `server` serves of each mounted server up to date: its list changes, and
    /// what it lists after a restart.
    pub(super) fn follow(&self, server: &Arc<Server>) {
        let Ok(runtime) = super::runtime() else {
            return;
        };
        let _entered = runtime.enter();
        for (name, prefix) in &self.names {
            client::follow_managed(Arc::clone(server), prefix, Arc::clone(&self.manager), name);
        }
    }
}

/// `registry`, or a copy of it with the servers asked for mounted (and those servers, to
/// follow); or why they could not be.
#[cfg(feature = "client")]
pub(super) fn mounted(
    registry: &'static Registry,
    args: &RemoteArgs,
) -> Result<(&'static Registry, Option<Mounts>), CliError> {
    let mut servers: BTreeMap<String, Target> = match &args.servers {
        Some(path) => client::servers_from_file(path)?,
        None => BTreeMap::new(),
    };
    for mount in &args.mount {
        let (name, target) = mount
            .split_once('=')
            .ok_or_else(|| CliError::MountSyntax(mount.clone()))?;
        let target = Target::parse(target).map_err(|source| CliError::MountTarget {
            mount: mount.clone(),
            source,
        })?;
        if servers.insert(name.to_owned(), target).is_some() {
            return Err(CliError::DuplicateServer(name.to_owned()));
        }
    }
    if servers.is_empty() {
        return Ok((registry, None));
    }
    #[cfg(feature = "tls")]
    trust_ssl_cert_file(&mut servers)?;
    let runtime = super::runtime()?;
    let names: Vec<String> = servers.keys().cloned().collect();
    let builder = Client::builder()
        .info(
            std::env::current_exe()
                .ok()
                .and_then(|path| {
                    path.file_stem()
                        .map(|stem| stem.to_string_lossy().into_owned())
                })
                .unwrap_or_else(|| "mcp-runtime".to_owned()),
            env!("CARGO_PKG_VERSION"),
        )
        .relay_requests();
    let manager = Arc::new(ClientManager::new(servers, builder));
    let mut combined = Registry::builder().registry(registry).build()?;
    runtime.block_on(async {
        for name in &names {
            let prefix = prefix_of(name);
            let mounted = client::mount_managed(&mut combined, &prefix, Arc::clone(&manager), name)
                .await
                .map_err(|source| CliError::Mount {
                    name: name.clone(),
                    source: Box::new(source),
                })?;
            for conflict in &mounted.conflicts {
                eprintln!(
                    "warning: `{}` of server `{name}` is not mounted: {} has the name; {}",
                    conflict.tool_name, conflict.shadowed_by, conflict.resolution
                );
            }
            for (tool, reason) in &mounted.skipped {
                eprintln!("warning: `{tool}` of server `{name}` is not mounted: {reason}");
            }
        }
        Ok::<(), CliError>(())
    })?;
    let names = names
        .into_iter()
        .map(|name| {
            let prefix = prefix_of(&name);
            (name, prefix)
        })
        .collect();
    Ok((
        Box::leak(Box::new(combined)),
        Some(Mounts { manager, names }),
    ))
}

/// A server's name as the namespace of its tools: lower case, `-` and spaces as `_`.
#[cfg(feature = "client")]
fn prefix_of(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '_' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '_',
        })
        .collect()
}

/// The roots in `SSL_CERT_FILE` (PEM), as OpenSSL's tools have it, trusted by every HTTP
/// server's connection besides the built-in ones: a private CA's, or a self-signed
/// certificate's.
#[cfg(feature = "tls")]
fn trust_ssl_cert_file(servers: &mut BTreeMap<String, Target>) -> Result<(), CliError> {
    let Some(path) = std::env::var_os("SSL_CERT_FILE") else {
        return Ok(());
    };
    let pem = std::fs::read(&path).map_err(|source| CliError::SslCertFile {
        path: path.clone().into(),
        source,
    })?;
    for target in servers.values_mut() {
        if let Target::Http(server) = target {
            *server = server.clone().root_certificate(pem.clone());
        }
    }
    Ok(())
}
