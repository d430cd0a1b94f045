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
    /// Sign in to the HTTP server mounted as NAME with a machine grant, its credentials
    /// read from the files and environment variables named:
    /// `NAME=grant=client_credentials,client_id=ID,client_secret_env=VAR`. FIELDS are
    /// those of an `mcpServers` file's `auth`, `KEY=VALUE` separated by commas; a KEY
    /// alone (`dpop`) is true (repeatable). Needs mcp-runtime's `client` feature.
    #[arg(long = "mount-auth", value_name = "NAME=FIELDS", global = true)]
    mount_auth: Vec<String>,
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
        } else if !self.mount_auth.is_empty() {
            Some("--mount-auth")
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
    sign_in(&mut servers, &args.mount_auth)?;
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

/// Gives each server that a `--mount-auth` names its OAuth client, in place of any `auth`
/// its `mcpServers` file gave.
#[cfg(feature = "client")]
fn sign_in(servers: &mut BTreeMap<String, Target>, given: &[String]) -> Result<(), CliError> {
    let mut named = std::collections::BTreeSet::new();
    for given in given {
        let refuse = |reason: String| CliError::MountAuth {
            given: given.clone(),
            reason,
        };
        let (name, fields) = given
            .split_once('=')
            .ok_or_else(|| refuse("give NAME=FIELDS, the name of a mounted server".to_owned()))?;
        if !named.insert(name) {
            return Err(refuse(format!("`{name}` is signed in to twice")));
        }
        match servers.get(name) {
            Some(Target::Http(_)) => {}
            Some(Target::Stdio(_)) => {
                return Err(refuse(format!(
                    "`{name}` is a command, spoken to over stdio: only a server at an HTTP endpoint signs in"
                )));
            }
            None if servers.is_empty() => {
                return Err(refuse(format!(
                    "no server is mounted as `{name}`: mount it with --mount or --servers"
                )));
            }
            None => {
                let mounted: Vec<&str> = servers.keys().map(String::as_str).collect();
                return Err(refuse(format!(
                    "no server is mounted as `{name}`; mounted: {}",
                    mounted.join(", ")
                )));
            }
        }
        let oauth =
            client::oauth::oauth_of(auth_fields(fields).map_err(refuse)?).map_err(refuse)?;
        if let Some(Target::Http(server)) = servers.get_mut(name) {
            *server = server.clone().oauth(oauth);
        }
    }
    Ok(())
}

/// `KEY=VALUE,KEY=VALUE` as the JSON object of an `auth`: each value a string, a `KEY`
/// alone `true`. A value may hold `=` but not `,`.
#[cfg(feature = "client")]
fn auth_fields(fields: &str) -> Result<serde_json::Value, String> {
    let mut auth = serde_json::Map::new();
    for field in fields.split(',') {
        let (key, value) = match field.split_once('=') {
            Some((key, value)) => (key.trim(), serde_json::Value::from(value)),
            None => (field.trim(), serde_json::Value::Bool(true)),
        };
        if key.is_empty() {
            return Err(format!(
                "`{field}` has no field name: give KEY=VALUE pairs separated by commas"
            ));
        }
        if auth.insert(key.to_owned(), value).is_some() {
            return Err(format!("`{key}` is given twice"));
        }
    }
    Ok(serde_json::Value::Object(auth))
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

#[cfg(all(test, feature = "client"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn auth_fields_are_key_value_pairs_and_a_bare_key_is_true() {
        assert_eq!(
            auth_fields("grant=client_credentials, client_id=a=b,dpop").unwrap(),
            json!({ "grant": "client_credentials", "client_id": "a=b", "dpop": true })
        );
        let empty = auth_fields("grant=x,,dpop").unwrap_err();
        assert!(empty.contains("no field name"), "{empty}");
        let twice = auth_fields("grant=x,grant=y").unwrap_err();
        assert!(twice.contains("`grant` is given twice"), "{twice}");
    }

    fn servers() -> BTreeMap<String, Target> {
        [
            ("remote", "http://127.0.0.1:1/mcp"),
            ("local", "some-program --flag"),
        ]
        .into_iter()
        .map(|(name, target)| (name.to_owned(), Target::parse(target).unwrap()))
        .collect()
    }

    fn refusal(given: &[&str]) -> String {
        let given: Vec<String> = given.iter().map(|&given| given.to_owned()).collect();
        let err = sign_in(&mut servers(), &given).expect_err("refused");
        assert!(matches!(err, CliError::MountAuth { .. }), "{err}");
        err.to_string()
    }

    #[test]
    fn mount_auth_gives_the_named_http_server_its_grant_and_dpop() {
        let mut mounted = servers();
        let given = ["remote=grant=workload_identity,client_id=w,token_env=TOKEN,dpop".to_owned()];
        sign_in(&mut mounted, &given).expect("signed in");
        let Target::Http(server) = &mounted["remote"] else {
            panic!("an HTTP server");
        };
        let shown = format!("{server:?}");
        assert!(
            shown.contains("Workload") && shown.contains("thumbprint"),
            "{shown}"
        );
        assert_eq!(mounted["local"], servers()["local"]);
    }

    #[test]
    fn mount_auth_names_what_is_wrong() {
        let grant = "grant=workload_identity,client_id=w,token_env=T";
        for (given, says) in [
            (vec!["remote"], "give NAME=FIELDS"),
            (
                vec!["nowhere=grant=x"],
                "no server is mounted as `nowhere`; mounted: local, remote",
            ),
            (
                vec!["local=grant=workload_identity"],
                "only a server at an HTTP endpoint",
            ),
            (
                vec!["remote=grant=password,client_id=w"],
                "the grant `password`",
            ),
            (
                vec!["remote=grant=workload_identity,client_id=w"],
                "`token_file` or `token_env`",
            ),
            (
                vec!["remote=grant=x,client_id=w,client_secret=s"],
                "unknown field `client_secret`",
            ),
            (
                vec!["remote=grant=x,client_id=w,dpop=yes"],
                "invalid type: string \"yes\"",
            ),
            (vec!["remote=client_id=w"], "missing field `grant`"),
        ] {
            let said = refusal(&given);
            assert!(said.contains(says), "{given:?}: {said}");
            assert!(
                said.starts_with(&format!("--mount-auth {}: ", given[0])),
                "{said}"
            );
        }
        let twice = refusal(&[&format!("remote={grant}"), &format!("remote={grant}")]);
        assert!(twice.contains("`remote` is signed in to twice"), "{twice}");
        let key = refusal(&[&format!(
            "remote={grant},dpop_key_file=/nonexistent/key.pem"
        )]);
        assert!(key.contains("/nonexistent/key.pem"), "{key}");
        let unmounted = sign_in(&mut BTreeMap::new(), &["x=grant=y".to_owned()]).unwrap_err();
        assert!(
            unmounted
                .to_string()
                .contains("mount it with --mount or --servers"),
            "{unmounted}"
        );
    }
}
