//! What the OAuth client keeps between requests, and between runs when the application
//! wants it to: the tokens each server was given, and the client ids each authorization
//! server issued. [`TokenStore`] is the application's to replace; [`MemoryStore`] keeps
//! them for the life of the process, [`FileStore`] in a file only its owner can read.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::AuthError;
use super::keys::SigningKey;

/// The tokens an authorization server issued for one MCP server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token, sent as `Authorization: Bearer …`.
    pub access_token: String,
    /// The refresh token, if the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch, if the
    /// authorization server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes asked for.
    #[serde(default)]
    pub requested: Vec<String>,
    /// The scopes granted: those the token response named, or those asked for when it
    /// named none (RFC 6749, section 5.1).
    #[serde(default)]
    pub granted: Vec<String>,
    /// The issuer of the authorization server that issued them.
    pub issuer: String,
    /// The resource they were issued for (RFC 8707), as the server's metadata names it.
    pub resource: String,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tokens themselves are credentials.
        f.debug_struct("Tokens")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("requested", &self.requested)
            .field("granted", &self.granted)
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl Tokens {
    /// Whether the access token expires within `margin_secs` seconds from now.
    pub fn expires_within(&self, margin_secs: u64) -> bool {
        self.expires_at
            .is_some_and(|at| at <= now_secs().saturating_add(margin_secs))
    }
}

/// The seconds since the Unix epoch.
pub(super) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// A client id at one authorization server, with its secret and the way it authenticates
/// at the token endpoint: pre-registered by the application, or obtained by dynamic client
/// registration (RFC 7591).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCredentials {
    /// The client id.
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint: `none`, `client_secret_basic`
    /// or `client_secret_post`; chosen from the authorization server's metadata when not
    /// given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The key its JWT client assertions are signed with (`private_key_jwt`); never
    /// stored.
    #[serde(skip)]
    pub(super) signing_key: Option<SigningKey>,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("signing_key", &self.signing_key)
            .finish()
    }
}

impl ClientCredentials {
    /// A public client: an id and no secret.
    pub fn public(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: None,
            signing_key: None,
        }
    }

    /// A confidential client: an id and its secret.
    pub fn confidential(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: Some(secret.into()),
            token_endpoint_auth_method: None,
            signing_key: None,
        }
    }

    /// A confidential client that authenticates with JWTs signed by `key`
    /// (`private_key_jwt`, RFC 7523): the authorization server knows its public key.
    pub fn private_key_jwt(client_id: impl Into<String>, key: SigningKey) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: Some("private_key_jwt".to_owned()),
            signing_key: Some(key),
        }
    }

    /// Authenticates at the token endpoint with `method` (`none`, `client_secret_basic` or
    /// `client_secret_post`), whatever the authorization server's metadata lists.
    #[must_use]
    pub fn token_endpoint_auth_method(mut self, method: impl Into<String>) -> Self {
        self.token_endpoint_auth_method = Some(method.into());
        self
    }
}

/// Where the OAuth client keeps tokens (by MCP server URL) and the client ids it
/// registered (by authorization server issuer). Replace it to keep them in the system's
/// keychain, a database, or anywhere else; [`MemoryStore`] is the default.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for the MCP server at `server`.
    fn tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>>;
    /// Keeps `tokens` for the MCP server at `server`, or forgets them (`None`).
    fn set_tokens(
        &self,
        server: &str,
        tokens: Option<Tokens>,
    ) -> BoxFuture<'_, Result<(), AuthError>>;
    /// The client registered with the authorization server `issuer`.
    fn client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<ClientCredentials>, AuthError>>;
    /// Keeps the client registered with the authorization server `issuer`.
    fn set_client(
        &self,
        issuer: &str,
        client: ClientCredentials,
    ) -> BoxFuture<'_, Result<(), AuthError>>;
}

/// What a store holds.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Kept {
    #[serde(default)]
    tokens: BTreeMap<String, Tokens>,
    #[serde(default)]
    clients: BTreeMap<String, ClientCredentials>,
}

impl Kept {
    fn set_tokens(&mut self, server: &str, tokens: Option<Tokens>) {
        match tokens {
            Some(tokens) => self.tokens.insert(server.to_owned(), tokens),
            None => self.tokens.remove(server),
        };
    }
}

/// Keeps tokens and clients in memory, for the life of the process: the default.
#[derive(Debug, Default)]
pub struct MemoryStore {
    kept: Mutex<Kept>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TokenStore for MemoryStore {
    fn tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>> {
        let tokens = self.kept().tokens.get(server).cloned();
        Box::pin(async move { Ok(tokens) })
    }

    fn set_tokens(
        &self,
        server: &str,
        tokens: Option<Tokens>,
    ) -> BoxFuture<'_, Result<(), AuthError>> {
        self.kept().set_tokens(server, tokens);
        Box::pin(async { Ok(()) })
    }

    fn client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<ClientCredentials>, AuthError>> {
        let client = self.kept().clients.get(issuer).cloned();
        Box::pin(async move { Ok(client) })
    }

    fn set_client(
        &self,
        issuer: &str,
        client: ClientCredentials,
    ) -> BoxFuture<'_, Result<(), AuthError>> {
        self.kept().clients.insert(issuer.to_owned(), client);
        Box::pin(async { Ok(()) })
    }
}

/// Keeps tokens and clients in a JSON file, so that a command-line program authorizes
/// once, not at every start. The file is written whole (a new file renamed over the old)
/// and, on Unix, readable by its owner only: it holds refresh tokens and client secrets.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    /// Serializes the reads and writes of this process.
    lock: tokio::sync::Mutex<()>,
}

impl FileStore {
    /// A store in the file at `path`, made when first written.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: tokio::sync::Mutex::new(()),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn read(&self) -> Result<Kept, AuthError> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|err| {
                AuthError::Store(format!(
                    "{} is not a token file: {err}",
                    self.path.display()
                ))
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Kept::default()),
            Err(err) => Err(AuthError::Store(format!(
                "reading {}: {err}",
                self.path.display()
            ))),
        }
    }

    async fn write(&self, kept: &Kept) -> Result<(), AuthError> {
        let failed = |err: std::io::Error| {
            AuthError::Store(format!("writing {}: {err}", self.path.display()))
        };
        let text = serde_json::to_vec_pretty(kept)
            .map_err(|err| AuthError::Store(format!("encoding the tokens: {err}")))?;
        let mut staged = self.path.clone().into_os_string();
        staged.push(".new");
        let staged = PathBuf::from(staged);
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        options.mode(0o600);
        let mut file = options.open(&staged).await.map_err(failed)?;
        tokio::io::AsyncWriteExt::write_all(&mut file, &text)
            .await
            .map_err(failed)?;
        file.sync_all().await.map_err(failed)?;
        drop(file);
        tokio::fs::rename(&staged, &self.path).await.map_err(failed)
    }

    async fn change(&self, change: impl FnOnce(&mut Kept)) -> Result<(), AuthError> {
        let _held = self.lock.lock().await;
        let mut kept = self.read().await?;
        change(&mut kept);
        self.write(&kept).await
    }
}

impl TokenStore for FileStore {
    fn tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>> {
        let server = server.to_owned();
        Box::pin(async move {
            let _held = self.lock.lock().await;
            Ok(self.read().await?.tokens.remove(&server))
        })
    }

    fn set_tokens(
        &self,
        server: &str,
        tokens: Option<Tokens>,
    ) -> BoxFuture<'_, Result<(), AuthError>> {
        let server = server.to_owned();
        Box::pin(self.change(move |kept| kept.set_tokens(&server, tokens)))
    }

    fn client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<ClientCredentials>, AuthError>> {
        let issuer = issuer.to_owned();
        Box::pin(async move {
            let _held = self.lock.lock().await;
            Ok(self.read().await?.clients.remove(&issuer))
        })
    }

    fn set_client(
        &self,
        issuer: &str,
        client: ClientCredentials,
    ) -> BoxFuture<'_, Result<(), AuthError>> {
        let issuer = issuer.to_owned();
        Box::pin(self.change(move |kept| {
            kept.clients.insert(issuer, client);
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(access: &str) -> Tokens {
        Tokens {
            access_token: access.to_owned(),
            refresh_token: Some("refresh".to_owned()),
            expires_at: Some(now_secs() + 3600),
            requested: vec!["notes:read".to_owned()],
            granted: vec!["notes:read".to_owned()],
            issuer: "http://issuer".to_owned(),
            resource: "http://server/mcp".to_owned(),
        }
    }

    #[tokio::test]
    async fn a_file_store_keeps_tokens_and_clients_across_instances_readable_by_its_owner_only() {
        let dir = std::env::temp_dir().join(format!("mcp-oauth-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let _ = std::fs::remove_file(&path);
        let store = FileStore::new(&path);
        assert_eq!(store.tokens("http://server/mcp").await.unwrap(), None);
        store
            .set_tokens("http://server/mcp", Some(tokens("first")))
            .await
            .unwrap();
        store
            .set_client(
                "http://issuer",
                ClientCredentials::confidential("id", "secret"),
            )
            .await
            .unwrap();

        let again = FileStore::new(&path);
        assert_eq!(
            again.tokens("http://server/mcp").await.unwrap(),
            Some(tokens("first"))
        );
        assert_eq!(
            again.client("http://issuer").await.unwrap(),
            Some(ClientCredentials::confidential("id", "secret"))
        );
        again.set_tokens("http://server/mcp", None).await.unwrap();
        assert_eq!(store.tokens("http://server/mcp").await.unwrap(), None);
        assert!(store.client("http://issuer").await.unwrap().is_some());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_token_file_is_an_error_naming_it() {
        let path = std::env::temp_dir().join(format!("mcp-oauth-bad-{}.json", std::process::id()));
        std::fs::write(&path, "not json").unwrap();
        let err = FileStore::new(&path).tokens("x").await.unwrap_err();
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn debug_output_hides_the_tokens_and_the_secret() {
        let shown = format!("{:?}", tokens("s3cr3t-access"));
        assert!(
            !shown.contains("s3cr3t-access") && !shown.contains("refresh\""),
            "{shown}"
        );
        let shown = format!("{:?}", ClientCredentials::confidential("id", "s3cr3t"));
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
}
