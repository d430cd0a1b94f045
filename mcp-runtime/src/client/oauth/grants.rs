//! Tokens for a client with no user: machine-to-machine grants, each answering the server's
//! refusal in place of the authorization code grant, and made anew before its token
//! expires (they give no refresh token to keep).
//!
//! - **Client credentials** (OAuth 2.1, section 4.2; MCP's SEP-1046), the client
//!   authenticated with its secret or with a JWT signed by its private key (RFC 7523,
//!   section 2.2).
//! - **Enterprise-managed authorization**: the user's ID token exchanged at the enterprise
//!   identity provider for an identity assertion grant (ID-JAG, by RFC 8693 token exchange),
//!   which the JWT-bearer grant (RFC 7523, section 2.1) then trades at the MCP server's
//!   authorization server.
//! - **Workload identity federation**: the workload's own token (a Kubernetes projected
//!   service account token, a cloud's identity token) as the JWT-bearer grant's assertion.
//!
//! A grant that fails is reported, never made again with the same assertion nor with
//! another grant.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};

use super::challenge::split_scopes;
use super::discovery::{self, ServerMetadata};
use super::store::now_secs;
use super::{AuthError, ClientCredentials, OAuth, Session, Tokens, UserAgent};

/// RFC 7523's grant type, for a JWT as the authorization grant.
pub(super) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 7523's client assertion type, for a JWT that authenticates the client.
const JWT_CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// RFC 8693's grant type.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 8693's token type of an OpenID Connect ID token.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of an identity assertion JWT authorization grant (ID-JAG).
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// How long a client assertion is good for, in seconds: it is used at once.
const ASSERTION_LIFETIME_SECS: u64 = 60;
/// The largest answer read from an identity provider, in bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// Where a token the client presents comes from: given once, read from a file each time it
/// is used (a Kubernetes projected token rotates in place), or read from an environment
/// variable. Its Debug output never shows the token.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenSource(Source);

#[derive(Clone, PartialEq, Eq)]
enum Source {
    Value(String),
    File(PathBuf),
    Env(String),
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::Value(_) => f.write_str("TokenSource::Value(…)"),
            Source::File(path) => write!(f, "TokenSource::File({})", path.display()),
            Source::Env(name) => write!(f, "TokenSource::Env({name})"),
        }
    }
}

impl TokenSource {
    /// A token given as it is.
    pub fn value(token: impl Into<String>) -> Self {
        Self(Source::Value(token.into()))
    }

    /// The token in the file at `path`, read anew at each grant, so that a token rotated
    /// in place is the one sent (`/var/run/secrets/tokens/…` as Kubernetes projects it).
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self(Source::File(path.into()))
    }

    /// The token in the environment variable `name`, read at each grant.
    pub fn env(name: impl Into<String>) -> Self {
        Self(Source::Env(name.into()))
    }

    /// The token, without the white space around it.
    pub(crate) fn read(&self) -> Result<String, AuthError> {
        let token = match &self.0 {
            Source::Value(token) => token.clone(),
            Source::File(path) => std::fs::read_to_string(path).map_err(|err| {
                AuthError::Credential(format!("reading the token file {}: {err}", path.display()))
            })?,
            Source::Env(name) => std::env::var(name).map_err(|err| {
                AuthError::Credential(format!("the environment variable `{name}`: {err}"))
            })?,
        };
        let token = token.trim();
        if token.is_empty() {
            return Err(AuthError::Credential(format!("{self:?} is empty")));
        }
        Ok(token.to_owned())
    }
}

/// The enterprise identity provider of enterprise-managed authorization: its token
/// endpoint, the client registered with it, and the user's ID token it issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentityProvider {
    token_endpoint: String,
    client: ClientCredentials,
    id_token: TokenSource,
}

impl IdentityProvider {
    /// The identity provider whose token endpoint is `token_endpoint`, where `client`
    /// exchanges `id_token` (the user's, from signing in there) for an ID-JAG.
    pub fn new(
        token_endpoint: impl Into<String>,
        client: ClientCredentials,
        id_token: TokenSource,
    ) -> Self {
        Self {
            token_endpoint: token_endpoint.into(),
            client,
            id_token,
        }
    }
}

/// How a client with no user gets its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Grant {
    ClientCredentials(ClientCredentials),
    Enterprise {
        client: ClientCredentials,
        idp: IdentityProvider,
    },
    Workload {
        client: ClientCredentials,
        token: TokenSource,
    },
}

/// The user agent of a client with no user: never asked.
struct NoUser;

impl UserAgent for NoUser {
    fn redirect_uri(&self) -> String {
        String::new()
    }

    fn authorize(
        &self,
        _authorization_url: String,
    ) -> futures_util::future::BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async {
            Err(AuthError::UserAgent(
                "a machine client has no user to ask".to_owned(),
            ))
        })
    }
}

impl OAuth {
    fn machine(grant: Grant) -> Self {
        Self::with(
            super::Config::with_grant(grant),
            Arc::new(NoUser),
            Arc::new(super::MemoryStore::new()),
        )
    }

    /// A client with no user that gets its tokens with the client credentials grant, as
    /// `client`: with its secret (`client_secret_basic`, or `client_secret_post` when the
    /// authorization server takes only that), or with JWTs signed by its key
    /// ([`ClientCredentials::private_key_jwt`]).
    ///
    /// ```no_run
    /// use mcp_runtime::client::oauth::{ClientCredentials, OAuth, SigningKey};
    ///
    /// # fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let with_secret = OAuth::client_credentials(ClientCredentials::confidential(
    ///     "reporting-job",
    ///     std::env::var("CLIENT_SECRET")?,
    /// ));
    /// let with_key = OAuth::client_credentials(ClientCredentials::private_key_jwt(
    ///     "reporting-job",
    ///     SigningKey::from_pem_file("reporting-job.pem")?,
    /// ))
    /// .authorization_server("https://auth.example.com");
    /// # Ok(()) }
    /// ```
    pub fn client_credentials(client: ClientCredentials) -> Self {
        Self::machine(Grant::ClientCredentials(client))
    }

    /// A client that acts for a user signed in at the enterprise's identity provider:
    /// the user's ID token is exchanged there for an ID-JAG naming the MCP server's
    /// authorization server and the server, which `client` trades at that authorization
    /// server for an access token (the JWT-bearer grant).
    pub fn enterprise(client: ClientCredentials, idp: IdentityProvider) -> Self {
        Self::machine(Grant::Enterprise { client, idp })
    }

    /// A workload that signs in with its own identity token, read from `token` at each
    /// grant: the JWT-bearer grant, with no client secret (`client_id` only).
    ///
    /// ```no_run
    /// use mcp_runtime::client::oauth::{OAuth, TokenSource};
    ///
    /// let oauth = OAuth::workload_identity(
    ///     "inventory-sync",
    ///     TokenSource::file("/var/run/secrets/tokens/mcp-token"),
    /// );
    /// ```
    pub fn workload_identity(client_id: impl Into<String>, token: TokenSource) -> Self {
        Self::machine(Grant::Workload {
            client: ClientCredentials::public(client_id),
            token,
        })
    }

    /// Sends the client's credentials only to the authorization server whose issuer is
    /// `issuer`: a server whose metadata names another is refused with
    /// [`AuthError::PreRegisteredElsewhere`]. Without it, a machine client's grant goes to
    /// the authorization server the MCP server names.
    #[must_use]
    pub fn authorization_server(self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        self.configure(|config| config.grant_issuer = Some(issuer))
    }
}

impl Session {
    /// New tokens for `scopes`: the machine grant when the client has one, else the
    /// authorization code grant through the user.
    pub(super) async fn obtain(
        &self,
        resource: &discovery::ResourceMetadata,
        metadata: &ServerMetadata,
        scopes: Vec<String>,
    ) -> Result<(), AuthError> {
        match &self.oauth.shared.config.grant {
            None => self.authorize(resource, metadata, scopes).await,
            Some(grant) => {
                let tokens = self
                    .machine_grant(grant, &resource.resource, metadata, scopes)
                    .await?;
                self.keep(tokens).await
            }
        }
    }

    /// Renews expiring tokens before a request: with the refresh token, or else with a new
    /// machine grant, whose failure is the request's.
    pub(super) async fn renew(&self, tokens: &Arc<Tokens>) -> Result<(), AuthError> {
        let shared = &self.oauth.shared;
        match &shared.config.grant {
            Some(grant) if tokens.refresh_token.is_none() => {
                let metadata = discovery::server_metadata(&self.http, &tokens.issuer).await?;
                let fresh = self
                    .machine_grant(grant, &tokens.resource, &metadata, tokens.requested.clone())
                    .await?;
                self.keep(fresh).await
            }
            _ if tokens.refresh_token.is_some() => {
                self.refresh_or_forget(tokens).await;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Tokens from the machine grant, for `resource` at the authorization server of
    /// `metadata`.
    async fn machine_grant(
        &self,
        grant: &Grant,
        resource: &str,
        metadata: &ServerMetadata,
        scopes: Vec<String>,
    ) -> Result<Tokens, AuthError> {
        if let Some(issuer) = &self.oauth.shared.config.grant_issuer {
            if *issuer != metadata.issuer {
                return Err(AuthError::PreRegisteredElsewhere {
                    registered_for: vec![issuer.clone()],
                    issuer: metadata.issuer.clone(),
                });
            }
        }
        let scope = scopes.join(" ");
        let assertion;
        let (client, mut params) = match grant {
            Grant::ClientCredentials(client) => {
                (client, vec![("grant_type", "client_credentials")])
            }
            Grant::Workload { client, token } => {
                assertion = token.read()?;
                (client, assertion_grant(&assertion))
            }
            Grant::Enterprise { client, idp } => {
                assertion = self.exchange(idp, resource, metadata, &scope).await?;
                (client, assertion_grant(&assertion))
            }
        };
        params.push(("resource", resource));
        if !scope.is_empty() {
            params.push(("scope", &scope));
        }
        let answer = self.token_request(metadata, client, &params).await?;
        Ok(Tokens {
            access_token: answer.access_token,
            // The grant is made anew instead: the credential outlives any refresh token.
            refresh_token: None,
            expires_at: answer
                .expires_in
                .map(|secs| now_secs().saturating_add(secs)),
            granted: answer
                .scope
                .as_deref()
                .map_or_else(|| scopes.clone(), split_scopes),
            requested: scopes,
            issuer: metadata.issuer.clone(),
            resource: resource.to_owned(),
        })
    }

    /// The user's ID token exchanged at the identity provider for an ID-JAG for `resource`
    /// at the authorization server of `metadata` (RFC 8693).
    async fn exchange(
        &self,
        idp: &IdentityProvider,
        resource: &str,
        metadata: &ServerMetadata,
        scope: &str,
    ) -> Result<String, AuthError> {
        let id_token = idp.id_token.read()?;
        let mut form = exchange_form(&id_token, &metadata.issuer, resource, scope);
        let mut request = self
            .http
            .post(&idp.token_endpoint)
            .header(reqwest::header::ACCEPT, "application/json");
        match &idp.client.client_secret {
            Some(secret) => {
                request = request.header(
                    reqwest::header::AUTHORIZATION,
                    basic_authorization(&idp.client.client_id, secret),
                )
            }
            None => form.push(("client_id", &idp.client.client_id)),
        }
        let failed = |error: String| AuthError::Token {
            error,
            description: None,
        };
        let response = request.form(&form).send().await.map_err(|err| {
            failed(format!(
                "POST {}: {}",
                idp.token_endpoint,
                super::chain(&err)
            ))
        })?;
        let status = response.status();
        let body = super::read_capped(response, MAX_ANSWER_BYTES)
            .await
            .map_err(|err| failed(err.to_string()))?;
        if !status.is_success() {
            return Err(AuthError::token_refused(status, &body));
        }
        let answer: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if text(&answer, "issued_token_type").as_deref() != Some(ID_JAG_TYPE) {
            return Err(failed(format!(
                "the identity provider's token exchange did not issue an ID-JAG (`issued_token_type` is not `{ID_JAG_TYPE}`)"
            )));
        }
        text(&answer, "access_token")
            .ok_or_else(|| failed("the identity provider's answer has no access_token".to_owned()))
    }
}

fn text(answer: &Value, name: &str) -> Option<String> {
    answer.get(name).and_then(Value::as_str).map(str::to_owned)
}

/// The JWT-bearer grant's parameters (RFC 7523, section 2.1).
fn assertion_grant(assertion: &str) -> Vec<(&'static str, &str)> {
    vec![("grant_type", JWT_BEARER), ("assertion", assertion)]
}

/// The token exchange parameters that ask for an ID-JAG (RFC 8693, section 2.1).
fn exchange_form<'a>(
    id_token: &'a str,
    audience: &'a str,
    resource: &'a str,
    scope: &'a str,
) -> Vec<(&'static str, &'a str)> {
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG_TYPE),
        ("audience", audience),
        ("resource", resource),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN_TYPE),
    ];
    if !scope.is_empty() {
        form.push(("scope", scope));
    }
    form
}

/// `Basic …` of a client id and secret, each form-encoded first (RFC 6749, section
/// 2.3.1).
fn basic_authorization(client_id: &str, secret: &str) -> String {
    let encode =
        |text: &str| -> String { url::form_urlencoded::byte_serialize(text.as_bytes()).collect() };
    let pair = format!("{}:{}", encode(client_id), encode(secret));
    format!("Basic {}", STANDARD.encode(pair))
}

/// The JWT that authenticates a `private_key_jwt` client at the authorization server of
/// `metadata` (RFC 7523, section 3), when the client has a signing key.
pub(super) fn client_assertion(
    client: &ClientCredentials,
    metadata: &ServerMetadata,
) -> Result<Option<String>, AuthError> {
    let Some(key) = &client.signing_key else {
        return Ok(None);
    };
    let jti =
        crate::base::ids::random_bytes::<16>().map_err(|err| AuthError::Random(err.to_string()))?;
    let now = now_secs();
    let claims = assertion_claims(
        &client.client_id,
        &metadata.issuer,
        now,
        &URL_SAFE_NO_PAD.encode(jti),
    );
    key.sign(&claims)
        .map(Some)
        .map_err(|err| AuthError::Credential(err.to_string()))
}

/// A client assertion's claims: the client is its issuer and subject, the authorization
/// server's issuer its audience, and it is good for a minute, once.
fn assertion_claims(client_id: &str, audience: &str, now: u64, jti: &str) -> Value {
    json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_SECS,
        "jti": jti,
    })
}

/// The parameters that carry a client assertion, if there is one.
pub(super) fn assertion_form(assertion: Option<&str>) -> Vec<(&'static str, &str)> {
    assertion.map_or_else(Vec::new, |assertion| {
        vec![
            ("client_assertion_type", JWT_CLIENT_ASSERTION),
            ("client_assertion", assertion),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};

    const P256_PEM: &str = include_str!("testdata/p256.pem");
    const P256_JWK: &str = include_str!("testdata/p256.jwk");

    fn metadata() -> ServerMetadata {
        serde_json::from_value(json!({
            "issuer": "https://auth.example.com",
            "token_endpoint": "https://auth.example.com/token",
        }))
        .expect("metadata without an authorization endpoint")
    }

    #[test]
    fn a_client_assertion_names_the_client_the_issuer_and_a_minute_once() {
        let key = super::super::SigningKey::from_pem(P256_PEM).unwrap();
        let client = ClientCredentials::private_key_jwt("reporting-job", key);
        let first = client_assertion(&client, &metadata()).unwrap().unwrap();
        let second = client_assertion(&client, &metadata()).unwrap().unwrap();
        let jwk: Value = serde_json::from_str(P256_JWK).unwrap();
        let public =
            DecodingKey::from_ec_components(jwk["x"].as_str().unwrap(), jwk["y"].as_str().unwrap())
                .unwrap();
        let mut validation = Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.set_audience(&["https://auth.example.com"]);
        validation.set_issuer(&["reporting-job"]);
        validation.set_required_spec_claims(&["iss", "sub", "aud", "exp"]);
        let claims = |token: &str| {
            jsonwebtoken::decode::<Value>(token, &public, &validation)
                .unwrap()
                .claims
        };
        let (one, two) = (claims(&first), claims(&second));
        assert_eq!(one["sub"], "reporting-job");
        assert_eq!(one["aud"], "https://auth.example.com");
        let (iat, exp) = (one["iat"].as_u64().unwrap(), one["exp"].as_u64().unwrap());
        assert_eq!(exp - iat, ASSERTION_LIFETIME_SECS);
        assert!(iat.abs_diff(now_secs()) <= 5, "{iat}");
        let jti = one["jti"].as_str().unwrap();
        assert!(jti.len() >= 20, "{jti}");
        assert_ne!(jti, two["jti"].as_str().unwrap());
        assert_eq!(
            client_assertion(&ClientCredentials::confidential("c", "s"), &metadata()),
            Ok(None)
        );
    }

    #[test]
    fn the_assertion_and_grant_forms_carry_their_rfc_types() {
        assert_eq!(
            assertion_form(Some("a.b.c")),
            [
                (
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
                ),
                ("client_assertion", "a.b.c"),
            ]
        );
        assert!(assertion_form(None).is_empty());
        assert_eq!(
            assertion_grant("w.x.y"),
            [
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", "w.x.y"),
            ]
        );
    }

    #[test]
    fn the_token_exchange_asks_for_an_id_jag_for_the_server_at_its_authorization_server() {
        let form = exchange_form(
            "id.token.here",
            "https://auth.example.com",
            "https://mcp.example.com/mcp",
            "notes:read",
        );
        assert_eq!(
            form,
            [
                (
                    "grant_type",
                    "urn:ietf:params:oauth:grant-type:token-exchange"
                ),
                (
                    "requested_token_type",
                    "urn:ietf:params:oauth:token-type:id-jag"
                ),
                ("audience", "https://auth.example.com"),
                ("resource", "https://mcp.example.com/mcp"),
                ("subject_token", "id.token.here"),
                (
                    "subject_token_type",
                    "urn:ietf:params:oauth:token-type:id_token"
                ),
                ("scope", "notes:read"),
            ]
        );
        let unscoped = exchange_form("t", "a", "r", "");
        assert!(unscoped.iter().all(|(name, _)| *name != "scope"));
    }

    #[test]
    fn a_token_file_is_read_anew_at_each_use_and_an_empty_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("mcp-token-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "first\n").unwrap();
        let source = TokenSource::file(&path);
        assert_eq!(source.read(), Ok("first".to_owned()));
        std::fs::write(&path, "rotated").unwrap();
        assert_eq!(source.read(), Ok("rotated".to_owned()));
        std::fs::write(&path, " \n").unwrap();
        assert!(matches!(source.read(), Err(AuthError::Credential(_))));
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = TokenSource::env("MCP_RUNTIME_TEST_NO_SUCH_VARIABLE").read();
        let message = missing.unwrap_err().to_string();
        assert!(
            message.contains("MCP_RUNTIME_TEST_NO_SUCH_VARIABLE"),
            "{message}"
        );
    }

    #[test]
    fn no_token_or_secret_shows_in_debug_output() {
        let shown = format!(
            "{:?}",
            OAuth::enterprise(
                ClientCredentials::confidential("app", "app-secret"),
                IdentityProvider::new(
                    "https://idp.example.com/token",
                    ClientCredentials::public("idp-app"),
                    TokenSource::value("eyJ.user.token"),
                ),
            )
        );
        for secret in ["app-secret", "eyJ.user.token"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("idp-app"), "{shown}");
    }

    #[test]
    fn basic_credentials_are_form_encoded_before_base64() {
        let header = basic_authorization("a b", "s:/+");
        let decoded = STANDARD
            .decode(header.strip_prefix("Basic ").unwrap())
            .unwrap();
        assert_eq!(decoded, b"a+b:s%3A%2F%2B");
    }
}
