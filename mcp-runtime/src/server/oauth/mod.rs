//! The HTTP server as an OAuth 2.1 resource server, as MCP's authorization chapter has it:
//! every request carries an access token the authorization server issued for this server.
//! The server publishes where to get one (protected resource metadata, RFC 9728), checks
//! each token (`jwt.rs`: a JWT against the keys the authorization server publishes;
//! `introspect.rs`: an opaque one, or every one, by asking the authorization server), and
//! answers a request without a good one 401 with a challenge that says where to look, and a
//! caller without the scopes a request needs 403 naming them (`refusal.rs`). A token bound
//! to a key (`cnf.jkt`) is taken only with a DPoP proof of that key, made for the request
//! (`dpop.rs`, RFC 9449).

mod dpop;
mod introspect;
mod issuer;
mod jwt;
mod proof;
mod refusal;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::http::reply::json_response;
use crate::auth::AuthInfo;
use issuer::Issuer;
use refusal::Refusal;

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
    /// Whether the listings (`tools/list`, `resources/list`, `resources/templates/list`,
    /// `prompts/list`) show a caller only the items its scopes let it use. Off by default:
    /// everything is listed, and a request for an item without its scopes gets 403.
    pub hide_unauthorized: bool,
    /// Whether, and how, tokens are checked by asking the authorization server (token
    /// introspection, RFC 7662); none by default, when only JWTs are taken.
    pub introspection: Option<Introspection>,
}

impl OAuthConfig {
    /// Tokens from `issuer`, for the resource `resource`.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            resource: resource.into(),
            scopes_supported: Vec::new(),
            leeway: Duration::from_secs(60),
            hide_unauthorized: false,
            introspection: None,
        }
    }

    /// Takes opaque access tokens too (those that are not JWTs), or every token, checked
    /// by asking the authorization server as `introspection` says.
    #[must_use]
    pub fn introspection(mut self, introspection: Introspection) -> Self {
        self.introspection = Some(introspection);
        self
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

    /// Lists a caller only the tools, resources, templates and prompts its scopes let it
    /// use. Hiding is about what a caller is shown: a request that names a hidden item
    /// still gets 403 with the scopes to ask for, so that its client can step up.
    #[must_use]
    pub fn hide_unauthorized(mut self, hide: bool) -> Self {
        self.hide_unauthorized = hide;
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
        if let Some(introspection) = &self.introspection {
            problems.extend(introspection.problems());
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

/// How tokens are checked by asking the authorization server (token introspection, RFC
/// 7662): where, as which client, which tokens, and how long a good answer is kept.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::server::{Introspection, OAuthConfig};
///
/// let secret = std::env::var("MCP_OAUTH_CLIENT_SECRET").unwrap_or_default();
/// let oauth = OAuthConfig::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .introspection(Introspection::new("mcp-server", secret).cache_for(Duration::from_secs(30)));
/// assert!(oauth.introspection.is_some_and(|introspection| introspection.endpoint.is_none()));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Introspection {
    /// The introspection endpoint; when `None`, the `introspection_endpoint` the
    /// authorization server's metadata names.
    pub endpoint: Option<String>,
    /// This server's client id at the authorization server.
    pub client_id: String,
    /// Its client secret, sent with the id in HTTP Basic (`client_secret_basic`). Never
    /// printed, not even by `Debug`.
    pub client_secret: String,
    /// Whether every token is introspected, JWTs too; by default only those that are not
    /// JWTs are, and JWTs are checked against the authorization server's keys.
    pub always: bool,
    /// The longest a good answer is kept, so that a client's calls do not each cost a
    /// round trip: a minute by default, and never past the token's expiry. A token revoked
    /// meanwhile is taken until then.
    pub cache_for: Duration,
}

impl Introspection {
    /// Introspection as the client `client_id` with the secret `client_secret`, at the
    /// endpoint the authorization server's metadata names, of tokens that are not JWTs.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self {
            endpoint: None,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            always: false,
            cache_for: Duration::from_secs(60),
        }
    }

    /// At `endpoint`, instead of the one the metadata names.
    #[must_use]
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = Some(endpoint.into());
        self
    }

    /// Every token (`true`), JWTs too, or only those that are not JWTs.
    #[must_use]
    pub fn always(mut self, always: bool) -> Self {
        self.always = always;
        self
    }

    /// Keeps a good answer at most `cache_for`; zero keeps none.
    #[must_use]
    pub fn cache_for(mut self, cache_for: Duration) -> Self {
        self.cache_for = cache_for;
        self
    }

    /// The problems that keep this from working, each a sentence.
    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(endpoint) = &self.endpoint {
            if !reqwest::Url::parse(endpoint)
                .is_ok_and(|url| matches!(url.scheme(), "http" | "https"))
            {
                problems.push(format!(
                    "the introspection endpoint `{endpoint}` is not an http(s) URL"
                ));
            }
        }
        if self.client_id.trim().is_empty() {
            problems.push(
                "token introspection needs this server's client id at the authorization server"
                    .to_owned(),
            );
        }
        if self.client_secret.is_empty() {
            problems.push(
                "token introspection needs this server's client secret at the authorization server"
                    .to_owned(),
            );
        }
        problems
    }
}

impl fmt::Debug for Introspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &"…")
            .field("always", &self.always)
            .field("cache_for", &self.cache_for)
            .finish()
    }
}

/// Checks the access tokens of a server's requests: the one place that knows how.
pub(crate) struct Verifier {
    config: OAuthConfig,
    issuer: Issuer,
    keys: jwt::KeyStore,
    introspector: Option<introspect::Introspector>,
    /// The DPoP proofs taken, against their replay.
    proofs: dpop::Proofs,
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
            issuer: Issuer::new(&config.issuer),
            introspector: config
                .introspection
                .clone()
                .map(introspect::Introspector::new),
            config,
            keys: jwt::KeyStore::default(),
            proofs: dpop::Proofs::default(),
        }
    }

    /// Whether listings show a caller only what its scopes let it use.
    pub(crate) fn hides_unauthorized(&self) -> bool {
        self.config.hide_unauthorized
    }

    /// The caller the access token of `request` describes, once its DPoP proof is checked
    /// when the token is bound to a key; or why it is refused.
    ///
    /// The request comes in parts: its body, which is not `Sync`, stays where it is.
    pub(crate) async fn verify(
        &self,
        method: &axum::http::Method,
        uri: &axum::http::Uri,
        headers: &axum::http::HeaderMap,
    ) -> Result<Arc<AuthInfo>, Refusal> {
        let authorization = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        let (scheme, token) = dpop::credentials(authorization).ok_or(Refusal::NoToken)?;
        let caller = match self.introspector.as_ref().filter(|i| i.takes(token)) {
            Some(introspector) => introspector
                .check(token, &self.config, &self.issuer)
                .await
                .map(Arc::new)?,
            None => self.keys.check(token, &self.config, &self.issuer).await?,
        };
        let presented = dpop::Presented {
            method,
            uri,
            headers,
            scheme,
            token,
        };
        self.proofs
            .check(&presented, &caller, &self.config, jwt::unix_time())?;
        Ok(caller)
    }

    /// `router` with the routes of the protected resource metadata, open to all: where
    /// clients find the authorization server (RFC 9728). A web page of any origin may read
    /// it (CORS), as a browser-based client must before it can sign in: the metadata is
    /// public, and reading it changes nothing.
    pub(crate) fn routes<S: Clone + Send + Sync + 'static>(
        &self,
        mut router: Router<S>,
    ) -> Router<S> {
        let metadata = self.config.metadata().to_string();
        for path in self.config.metadata_paths() {
            let metadata = metadata.clone();
            let get = move || async move {
                let mut response = json_response(StatusCode::OK, metadata);
                response.headers_mut().extend(open_to_any_origin());
                response
            };
            router = router.route(&path, axum::routing::get(get).options(preflight));
        }
        router
    }

    /// Whether `path` is one of the metadata's, which any origin may read.
    pub(crate) fn is_metadata(&self, path: &str) -> bool {
        path.starts_with("/.well-known/oauth-protected-resource")
            && self
                .config
                .metadata_paths()
                .iter()
                .any(|served| served == path)
    }

    /// Lets `request` in with its caller (in its extensions, as an `Arc<AuthInfo>`), or
    /// the response that refuses it. The metadata, which says how to get a token, needs
    /// none.
    pub(crate) async fn admit(&self, request: &mut Request) -> Option<Response> {
        if request.uri().path().starts_with("/.well-known/") {
            return None;
        }
        let verified = self
            .verify(request.method(), request.uri(), request.headers())
            .await;
        match verified {
            Ok(caller) => {
                request.extensions_mut().insert(caller);
                None
            }
            Err(refusal) => Some(refusal.response(&self.config)),
        }
    }

    /// 403 for a caller without every scope in `needed`, with the challenge that names
    /// them (RFC 6750 §3.1), so that its client can ask for them.
    pub(crate) fn insufficient_scope(&self, needed: Vec<String>) -> Response {
        Refusal::InsufficientScope(needed).response(&self.config)
    }
}

/// The CORS headers of a response any origin may read, with no credentials.
fn open_to_any_origin() -> [(header::HeaderName, header::HeaderValue); 1] {
    [(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        header::HeaderValue::from_static("*"),
    )]
}

/// The answer to a browser's CORS preflight of the metadata: a `GET` from any origin,
/// with any header (the MCP clients send `MCP-Protocol-Version`), for a day.
async fn preflight() -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.extend(open_to_any_origin());
    for (name, value) in [
        (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS"),
        (header::ACCESS_CONTROL_ALLOW_HEADERS, "*"),
        (header::ACCESS_CONTROL_MAX_AGE, "86400"),
    ] {
        headers.insert(name, header::HeaderValue::from_static(value));
    }
    response
}

/// Whether a token's audience claim, `aud` (one string or a list of them), names the
/// server at `resource`. A claim of any other form names nothing.
fn names_this_server(aud: &serde_json::Value, resource: &str) -> bool {
    let resource = canonical(resource);
    let names =
        |one: &serde_json::Value| one.as_str().is_some_and(|one| canonical(one) == resource);
    match aud {
        serde_json::Value::Array(many) => many.iter().any(names),
        one => names(one),
    }
}

/// `uri` in the form two URIs of one resource share: its scheme and host in lower case and
/// a default port left out (RFC 3986 §6.2.2.1, §6.2.3), as `url` parses it, and no
/// trailing slash. A string that is no URI is kept as written, but the slash.
fn canonical(uri: &str) -> String {
    let parsed = url::Url::parse(uri).map(String::from);
    let uri = parsed.as_deref().unwrap_or(uri);
    uri.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audience_names_this_server_whatever_the_case_of_its_scheme_and_host() {
        let resource = "https://mcp.example/public/mcp";
        for aud in [
            "https://mcp.example/public/mcp",
            "https://mcp.example/public/mcp/",
            "HTTPS://MCP.Example/public/mcp",
            "https://mcp.example:443/public/mcp",
        ] {
            assert!(
                names_this_server(&serde_json::json!(aud), resource),
                "{aud}"
            );
            assert!(
                names_this_server(&serde_json::json!(["other", aud]), resource),
                "{aud}"
            );
        }
        for aud in [
            // The path is compared as written.
            "https://mcp.example/Public/mcp",
            "http://mcp.example/public/mcp",
            "https://mcp.example:8443/public/mcp",
            "https://mcp.example.evil/public/mcp",
            "https://mcp.example/public/mcp/more",
            "",
        ] {
            assert!(
                !names_this_server(&serde_json::json!(aud), resource),
                "{aud}"
            );
        }
        for aud in [
            serde_json::json!(1),
            serde_json::json!(null),
            serde_json::json!([1]),
        ] {
            assert!(!names_this_server(&aud, resource), "{aud}");
        }
    }

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
    fn introspection_settings_are_checked_and_the_secret_never_printed() {
        let oauth = OAuthConfig::new("https://as.example", "https://mcp.example/mcp")
            .introspection(Introspection::new("mcp-server", "very-secret"));
        assert_eq!(oauth.problems(), Vec::<String>::new());
        let printed = format!("{oauth:?}");
        assert!(printed.contains("mcp-server"), "{printed}");
        assert!(!printed.contains("very-secret"), "{printed}");
        let wrong = OAuthConfig::new("https://as.example", "https://mcp.example/mcp")
            .introspection(Introspection::new(" ", "").endpoint("ftp://as.example/x"));
        let problems = wrong.problems().join("\n");
        for said in [
            "`ftp://as.example/x` is not an http(s) URL",
            "client id",
            "client secret",
        ] {
            assert!(problems.contains(said), "{problems}");
        }
    }
}
