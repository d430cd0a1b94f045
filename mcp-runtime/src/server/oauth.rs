//! The HTTP server as an OAuth 2.1 resource server, as MCP's authorization chapter has it:
//! every request carries an access token, a JWT the authorization server signed for this
//! server. The server publishes where to get one (protected resource metadata, RFC 9728),
//! finds the authorization server's keys through its metadata (RFC 8414, or OpenID
//! discovery), and checks each token's signature, issuer, audience (RFC 8707), expiry and
//! start. A request without a valid token gets 401 and a challenge that says where to look.

use std::collections::HashMap;
use std::fmt;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, errors::ErrorKind};
use serde_json::{Map, Value, json};

use super::http::bearer;
use crate::AuthInfo;

/// The signing algorithms accepted: public-key ones only. `none` is no algorithm at all,
/// and an HMAC one would let anyone who has the public key sign.
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// How long fetched keys are used before they are fetched again.
const REFRESH_AFTER: Duration = Duration::from_secs(60 * 60);

/// How long fetched keys are still used when they cannot be fetched again.
const KEEP_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// The least time between two fetches that a token naming an unknown key may cause: a
/// stream of forged tokens does not become a stream of requests to the authorization
/// server.
const UNKNOWN_KEY_PAUSE: Duration = Duration::from_secs(1);

/// How long a fetch from the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a server's access tokens come from, and what they must say.
///
/// ```
/// use mcp_runtime::server::OAuthConfig;
///
/// let oauth = OAuthConfig::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .scopes_supported(["notes:read", "notes:write"]);
/// assert_eq!(
///     oauth.metadata_url().as_deref(),
///     Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthConfig {
    /// The authorization server's issuer identifier: tokens must carry it as `iss`, and its
    /// metadata is found from it.
    pub issuer: String,
    /// This server's canonical URI, as clients reach it (`https://mcp.example.com/mcp`):
    /// tokens must name it in `aud`.
    pub resource: String,
    /// The scopes a client may ask for, published in the metadata and in challenges.
    pub scopes_supported: Vec<String>,
    /// How far a token's expiry and start may be off this server's clock; a minute by
    /// default.
    pub leeway: Duration,
}

impl OAuthConfig {
    /// Tokens from `issuer`, for the resource `resource`.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            resource: resource.into(),
            scopes_supported: Vec::new(),
            leeway: Duration::from_secs(60),
        }
    }

    /// The scopes a client may ask for.
    #[must_use]
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Where this server's protected resource metadata is: the resource's origin, then
    /// `/.well-known/oauth-protected-resource`, then the resource's path (RFC 9728).
    /// `None` when the resource is not an absolute `http(s)` URL.
    pub fn metadata_url(&self) -> Option<String> {
        let resource = reqwest::Url::parse(&self.resource).ok()?;
        if !matches!(resource.scheme(), "http" | "https") {
            return None;
        }
        let path = resource.path().trim_end_matches('/');
        let origin = resource.origin().ascii_serialization();
        Some(format!("{origin}{}{path}", METADATA_PATH))
    }

    /// The problems that keep this from working, said plainly: each a sentence.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        match reqwest::Url::parse(&self.issuer) {
            Ok(issuer) if matches!(issuer.scheme(), "http" | "https") => {}
            _ => problems.push(format!(
                "the OAuth issuer `{}` is not an http(s) URL",
                self.issuer
            )),
        }
        if self.metadata_url().is_none() {
            problems.push(format!(
                "the OAuth audience `{}` is not an http(s) URL: it is this server's own address, \
                 such as https://mcp.example.com/mcp",
                self.resource
            ));
        }
        problems
    }

    /// The protected resource metadata document.
    pub(crate) fn metadata(&self) -> Value {
        let mut metadata = json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            metadata["scopes_supported"] = json!(self.scopes_supported);
        }
        metadata
    }

    /// The paths this server answers the metadata at: the resource's own (RFC 9728), and
    /// the root, where MCP clients look next.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let mut paths = vec![METADATA_PATH.to_owned()];
        if let Some(url) = self
            .metadata_url()
            .and_then(|url| reqwest::Url::parse(&url).ok())
        {
            if url.path() != METADATA_PATH {
                paths.push(url.path().to_owned());
            }
        }
        paths
    }
}

/// The root of RFC 9728's well-known paths.
pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Why a request was not let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No token: the client has to get one.
    NoToken,
    /// A token that is not good here, and why.
    Invalid(String),
    /// The authorization server's keys cannot be had, and none kept are young enough.
    NoKeys(String),
    /// A good token, without every scope the request needs: these.
    InsufficientScope(Vec<String>),
}

impl Refusal {
    /// The response: 401 with a challenge that says where to get a token, or 503 when the
    /// fault is the authorization server's.
    pub(crate) fn response(&self, config: &OAuthConfig) -> Response {
        let metadata = config.metadata_url().unwrap_or_default();
        let scope = if config.scopes_supported.is_empty() {
            String::new()
        } else {
            format!(", scope=\"{}\"", config.scopes_supported.join(" "))
        };
        let (status, challenge, body) = match self {
            // RFC 6750 §3.1: no error code for a request that carried no credentials.
            Self::NoToken => (
                StatusCode::UNAUTHORIZED,
                Some(format!("Bearer resource_metadata=\"{metadata}\"{scope}")),
                json!({
                    "error": "invalid_request",
                    "error_description": "an access token is required (Authorization: Bearer …)",
                }),
            ),
            Self::Invalid(why) => (
                StatusCode::UNAUTHORIZED,
                Some(format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\", resource_metadata=\"{metadata}\"{scope}",
                    quoted(why)
                )),
                json!({ "error": "invalid_token", "error_description": why }),
            ),
            Self::InsufficientScope(needed) => {
                let needed = needed.join(" ");
                let why = format!("this needs the scope `{needed}`");
                (
                    StatusCode::FORBIDDEN,
                    Some(format!(
                        "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{metadata}\", error_description=\"{}\"",
                        quoted(&needed),
                        quoted(&why)
                    )),
                    json!({ "error": "insufficient_scope", "error_description": why, "scope": needed }),
                )
            }
            Self::NoKeys(why) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                json!({ "error": "temporarily_unavailable", "error_description": why }),
            ),
        };
        let mut response = super::http::json_response(status, body.to_string());
        if let Some(challenge) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge);
        }
        response
    }
}

/// A text as an RFC 6750 quoted value may hold it: no quotes, no backslashes, printable
/// ASCII.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if (' '..='~').contains(&c) => c,
            _ => '?',
        })
        .collect()
}

/// Checks access tokens against the authorization server's keys, fetched when first
/// needed, kept, and fetched again when a token names a key not yet known (the
/// authorization server rotated its keys) or when they are old.
pub(crate) struct Verifier {
    config: OAuthConfig,
    http: reqwest::Client,
    keys: RwLock<Keys>,
    /// One fetch at a time; those who wait use its keys.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Keys {
    by_id: HashMap<String, Key>,
    /// Keys without an id, tried in turn for a token that names none.
    unnamed: Vec<Key>,
    /// When they were fetched.
    fetched: Option<Instant>,
    /// When a fetch was last tried.
    tried: Option<Instant>,
    /// Where they are, once found through the authorization server's metadata.
    jwks_uri: Option<String>,
}

#[derive(Clone)]
struct Key {
    decoding: DecodingKey,
    /// The algorithms this key may sign with.
    algorithms: Vec<Algorithm>,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    pub(crate) fn new(config: OAuthConfig) -> Self {
        Self {
            config,
            http: reqwest::Client::builder()
                .timeout(FETCH_TIMEOUT)
                .build()
                .unwrap_or_default(),
            keys: RwLock::new(Keys::default()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    pub(crate) fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// The caller an `Authorization` header's token describes, or why it is refused.
    pub(crate) async fn verify(&self, authorization: Option<&str>) -> Result<AuthInfo, Refusal> {
        let token = bearer(authorization).ok_or(Refusal::NoToken)?;
        let header = jsonwebtoken::decode_header(token)
            .map_err(|err| Refusal::Invalid(format!("the token is not a signed JWT ({err})")))?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(Refusal::Invalid(format!(
                "the token is signed with {:?}, which this server does not accept",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(&audiences(&self.config.resource));
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.config.leeway.as_secs();
        let claims = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|err| Refusal::Invalid(explain(err.kind())))?
            .claims;
        Ok(AuthInfo::from_claims(claims))
    }

    /// The key `kid` names, able to check `algorithm`; fetched first when not known.
    async fn key(&self, kid: Option<&str>, algorithm: Algorithm) -> Result<Key, Refusal> {
        let found = |keys: &Keys| -> Option<Key> {
            let fits = |key: &&Key| key.algorithms.contains(&algorithm);
            match kid {
                Some(kid) => keys.by_id.get(kid).filter(fits).cloned(),
                None => keys.unnamed.iter().find(fits).cloned(),
            }
        };
        let (known, fresh, may_fetch) = {
            let keys = self
                .keys
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let fresh = keys.fetched.is_some_and(|at| at.elapsed() < REFRESH_AFTER);
            let may_fetch = keys
                .tried
                .is_none_or(|at| at.elapsed() >= UNKNOWN_KEY_PAUSE);
            (found(&keys), fresh, may_fetch)
        };
        if let (Some(key), true) = (&known, fresh) {
            return Ok(key.clone());
        }
        if may_fetch || !fresh {
            self.fetch().await?;
        }
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        found(&keys).ok_or_else(|| {
            Refusal::Invalid(match kid {
                Some(kid) => format!("the token is signed with a key (`{kid}`) the authorization server does not publish for {algorithm:?}"),
                None => format!("the token names no key, and no key of the authorization server checks {algorithm:?}"),
            })
        })
    }

    /// Fetches the keys, unless another fetch just did. A failure keeps the keys there are
    /// while they are young enough ([`KEEP_FOR`]); past that, requests are refused.
    async fn fetch(&self) -> Result<(), Refusal> {
        let started = Instant::now();
        let _one = self.fetching.lock().await;
        let (jwks_uri, kept) = {
            let keys = self
                .keys
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if keys.tried.is_some_and(|at| at >= started) {
                // Fetched while this waited.
                return Ok(());
            }
            let kept = keys.fetched.is_some_and(|at| at.elapsed() < KEEP_FOR);
            (keys.jwks_uri.clone(), kept)
        };
        let fetched = self.fetch_keys(jwks_uri).await;
        let mut keys = self
            .keys
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        keys.tried = Some(Instant::now());
        match fetched {
            Ok((jwks_uri, fresh)) => {
                *keys = Keys {
                    jwks_uri: Some(jwks_uri),
                    fetched: keys.tried,
                    ..fresh
                };
                Ok(())
            }
            Err(why) if kept => {
                tracing::warn!(issuer = %self.config.issuer, "{why}; the keys fetched before are used meanwhile");
                Ok(())
            }
            Err(why) => {
                tracing::error!(issuer = %self.config.issuer, "{why}; access tokens cannot be checked, so requests are refused");
                Err(Refusal::NoKeys(format!(
                    "the authorization server's keys cannot be fetched: {why}"
                )))
            }
        }
    }

    /// The keys at `jwks_uri`, found first through the issuer's metadata when not known.
    async fn fetch_keys(&self, jwks_uri: Option<String>) -> Result<(String, Keys), String> {
        let jwks_uri = match jwks_uri {
            Some(uri) => uri,
            None => self.discover().await?,
        };
        let set: JwkSet = self.get_json(&jwks_uri).await?;
        let mut keys = Keys::default();
        for jwk in &set.keys {
            let Some(key) = usable(jwk) else { continue };
            match &jwk.common.key_id {
                Some(kid) => {
                    keys.by_id.insert(kid.clone(), key);
                }
                None => keys.unnamed.push(key),
            }
        }
        if keys.by_id.is_empty() && keys.unnamed.is_empty() {
            return Err(format!(
                "{jwks_uri} has no key this server can check a signature with"
            ));
        }
        Ok((jwks_uri, keys))
    }

    /// The issuer's `jwks_uri`, from its metadata: RFC 8414's, then OpenID's, each at the
    /// well-known path inserted before the issuer's path, then OpenID's appended to it.
    async fn discover(&self) -> Result<String, String> {
        let issuer = reqwest::Url::parse(&self.config.issuer)
            .map_err(|err| format!("the issuer `{}` is not a URL: {err}", self.config.issuer))?;
        let origin = issuer.origin().ascii_serialization();
        let path = issuer.path().trim_end_matches('/');
        let places = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ];
        let mut tried = Vec::new();
        for place in &places {
            match self.get_json::<Map<String, Value>>(place).await {
                Ok(metadata) => {
                    let named = metadata.get("issuer").and_then(Value::as_str);
                    if named.map(|n| n.trim_end_matches('/'))
                        != Some(self.config.issuer.trim_end_matches('/'))
                    {
                        return Err(format!(
                            "the metadata at {place} is for the issuer {named:?}, not `{}`",
                            self.config.issuer
                        ));
                    }
                    return metadata
                        .get("jwks_uri")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| format!("the metadata at {place} has no `jwks_uri`"));
                }
                Err(why) => tried.push(why),
            }
        }
        Err(format!(
            "no authorization server metadata found ({})",
            tried.join("; ")
        ))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .http
            .get(url)
            .header(header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|err| format!("{url}: {err}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: {}", response.status()));
        }
        let body = response
            .bytes()
            .await
            .map_err(|err| format!("{url}: {err}"))?;
        serde_json::from_slice(&body).map_err(|err| format!("{url}: not the JSON expected: {err}"))
    }
}

/// The audiences a token for `resource` may name: it, with or without a trailing slash.
fn audiences(resource: &str) -> Vec<String> {
    let bare = resource.trim_end_matches('/');
    vec![bare.to_owned(), format!("{bare}/")]
}

/// A key of a JWK set that can check signatures, with the algorithms it may check.
fn usable(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    let family: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => vec![
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(params) => match params.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(_) => vec![Algorithm::EdDSA],
        // A shared secret is not published, and would let anyone sign.
        AlgorithmParameters::OctetKey(_) => return None,
    };
    let algorithms = match jwk.common.key_algorithm {
        // A key that names its algorithm checks that one only.
        Some(named) => {
            let named = signing(named)?;
            family.into_iter().filter(|alg| *alg == named).collect()
        }
        None => family,
    };
    if algorithms.is_empty() {
        return None;
    }
    let decoding = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key {
        decoding,
        algorithms,
    })
}

/// The signing algorithm a JWK's `alg` names, if it names one.
fn signing(algorithm: KeyAlgorithm) -> Option<Algorithm> {
    Some(match algorithm {
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

/// What was wrong with a token, for its client.
fn explain(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidAudience => {
            "the token is not for this server: its audience (aud) does not name it".to_owned()
        }
        ErrorKind::InvalidIssuer => {
            "the token is from another issuer (iss) than this server trusts".to_owned()
        }
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidAlgorithm => {
            "the token's algorithm does not fit the key that signed it".to_owned()
        }
        other => format!("the token cannot be read ({other:?})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_lives_under_the_resources_path_and_at_the_root() {
        let config = OAuthConfig::new("https://as.example", "https://mcp.example/public/mcp/");
        assert_eq!(
            config.metadata_url().as_deref(),
            Some("https://mcp.example/.well-known/oauth-protected-resource/public/mcp")
        );
        assert_eq!(
            config.metadata_paths(),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/public/mcp"
            ]
        );
        let root = OAuthConfig::new("https://as.example", "https://mcp.example");
        assert_eq!(
            root.metadata_url().as_deref(),
            Some("https://mcp.example/.well-known/oauth-protected-resource")
        );
        assert_eq!(
            root.metadata_paths(),
            ["/.well-known/oauth-protected-resource"]
        );
        assert!(OAuthConfig::new("not a url", "mcp").problems().len() == 2);
    }

    #[test]
    fn a_challenge_says_where_to_get_a_token_and_quotes_nothing_it_should_not() {
        let config = OAuthConfig::new("https://as.example", "https://mcp.example/mcp")
            .scopes_supported(["a", "b"]);
        let response = Refusal::NoToken.response(&config);
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            response.headers()[header::WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\", scope=\"a b\""
        );
        let response = Refusal::Invalid("a \"quoted\" é".to_owned()).response(&config);
        let challenge = response.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap();
        assert!(
            challenge.starts_with(
                "Bearer error=\"invalid_token\", error_description=\"a 'quoted' ?\", resource_metadata="
            ),
            "{challenge}"
        );
        let response = Refusal::NoKeys("down".to_owned()).response(&config);
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().get(header::WWW_AUTHENTICATE).is_none());
    }
}
