//! Getting a token: the answer to a refusal (discover, register, authorize, exchange the
//! code), a step up to more scopes, and a refresh.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use url::Url;

use super::challenge::{Challenge, Refusal, split_scopes};
use super::discovery::{self, ResourceMetadata, ServerMetadata};
use super::store::now_secs;
use super::{AuthError, ClientCredentials, Session, Tokens};

/// How long before its expiry a token is refreshed, in seconds: a request sent with it
/// should not arrive after it.
pub(super) const EXPIRY_MARGIN_SECS: u64 = 30;

/// The largest answer read from an authorization server, in bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// What the flows remember between runs.
#[derive(Debug, Default)]
pub(super) struct Known {
    /// The servers whose kept tokens were read from the store.
    loaded: HashSet<String>,
}

/// Why a flow runs.
#[derive(Debug)]
pub(super) enum Trigger {
    /// Before a request: load kept tokens, refresh expired ones.
    Start,
    /// The server refused a request.
    Refused(Challenge),
}

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenAuth {
    None,
    Basic,
    Post,
}

/// A token endpoint's answer (RFC 6749, section 5.1).
#[derive(Debug, Deserialize)]
pub(super) struct TokenResponse {
    pub(super) access_token: String,
    token_type: String,
    #[serde(default)]
    pub(super) expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    pub(super) scope: Option<String>,
}

impl Session {
    /// One flow, while no other runs.
    pub(super) async fn run(
        &self,
        trigger: Trigger,
        used: Option<Arc<Tokens>>,
    ) -> Result<(), AuthError> {
        let shared = &self.oauth.shared;
        let mut known = shared.flow.lock().await;
        if known.loaded.insert(self.server.clone()) && self.current().is_none() {
            if let Some(kept) = shared.store.tokens(&self.server).await? {
                self.set_current(Some(Arc::new(kept)));
            }
        }
        let current = self.current();
        let unchanged = match (&current, &used) {
            (Some(current), Some(used)) => Arc::ptr_eq(current, used),
            (None, None) => true,
            _ => false,
        };
        if !unchanged {
            // Another flow, or the store, already gave newer tokens.
            return Ok(());
        }
        // The lock is held to the end: a request refused meanwhile waits for these tokens.
        match trigger {
            Trigger::Start => match current {
                Some(tokens) if tokens.expires_within(EXPIRY_MARGIN_SECS) => {
                    self.renew(&tokens).await
                }
                _ => Ok(()),
            },
            Trigger::Refused(challenge) => match challenge.kind {
                Refusal::Unauthorized => self.unauthorized(challenge, current).await,
                Refusal::InsufficientScope => self.step_up(challenge, current).await,
            },
        }
    }

    /// A 401: a refresh when the tokens came from the authorization server the server
    /// names now, else an authorization for the scopes asked before and those the
    /// challenge (or the metadata) names.
    async fn unauthorized(
        &self,
        challenge: Challenge,
        current: Option<Arc<Tokens>>,
    ) -> Result<(), AuthError> {
        let resource = self
            .resource_metadata(challenge.resource_metadata.as_deref())
            .await?;
        let metadata = self.server_metadata(&resource).await?;
        if let Some(tokens) = &current {
            if tokens.refresh_token.is_some() && tokens.issuer == metadata.issuer {
                match self.refresh(&metadata, tokens).await {
                    Ok(fresh) => return self.keep(fresh).await,
                    Err(err) => {
                        tracing::debug!(error = %err, "refreshing the token failed; authorizing anew")
                    }
                }
            }
        }
        let mut scopes = current
            .map(|tokens| tokens.requested.clone())
            .unwrap_or_default();
        let wanted = challenge
            .scopes
            .or_else(|| resource.scopes_supported.clone());
        union(&mut scopes, wanted.unwrap_or_default());
        self.obtain(&resource, &metadata, scopes).await
    }

    /// A 403 `insufficient_scope`: an authorization for the scopes asked before and those
    /// the challenge names, unless the token has them all already.
    async fn step_up(
        &self,
        challenge: Challenge,
        current: Option<Arc<Tokens>>,
    ) -> Result<(), AuthError> {
        let needed = challenge.scopes.unwrap_or_default();
        let Some(tokens) = current else {
            return Err(AuthError::Refused {
                status: 403,
                scopes: needed,
            });
        };
        if needed.iter().all(|scope| tokens.granted.contains(scope)) {
            return Err(AuthError::Refused {
                status: 403,
                scopes: needed,
            });
        }
        let resource = self
            .resource_metadata(challenge.resource_metadata.as_deref())
            .await?;
        let metadata = self.server_metadata(&resource).await?;
        let mut scopes = tokens.requested.clone();
        union(&mut scopes, needed);
        self.obtain(&resource, &metadata, scopes).await
    }

    /// The server's protected resource metadata, which must describe this server.
    async fn resource_metadata(
        &self,
        from_challenge: Option<&str>,
    ) -> Result<ResourceMetadata, AuthError> {
        let urls = discovery::resource_metadata_urls(&self.url, from_challenge)?;
        for url in &urls {
            let Some(resource) = discovery::fetch::<ResourceMetadata>(&self.http, url).await?
            else {
                continue;
            };
            if !discovery::resource_matches(&resource.resource, &self.url) {
                return Err(AuthError::ResourceMismatch {
                    resource: resource.resource,
                    server: self.server.clone(),
                });
            }
            return Ok(resource);
        }
        let tried: Vec<String> = urls.iter().map(Url::to_string).collect();
        Err(AuthError::Discovery(format!(
            "the server at {} refused without a token and publishes no protected resource metadata (tried {})",
            self.server,
            tried.join(", ")
        )))
    }

    /// The metadata of the first authorization server the resource names.
    async fn server_metadata(
        &self,
        resource: &ResourceMetadata,
    ) -> Result<ServerMetadata, AuthError> {
        let issuer = resource.authorization_servers.first().ok_or_else(|| {
            AuthError::Discovery(format!(
                "the protected resource metadata of {} names no authorization server",
                self.server
            ))
        })?;
        discovery::server_metadata(&self.http, issuer).await
    }

    /// The authorization code grant with PKCE, through the user agent.
    pub(super) async fn authorize(
        &self,
        resource: &ResourceMetadata,
        metadata: &ServerMetadata,
        mut scopes: Vec<String>,
    ) -> Result<(), AuthError> {
        let shared = &self.oauth.shared;
        let client = self.client(metadata).await?;
        let offers_refresh = metadata
            .scopes_supported
            .as_ref()
            .is_some_and(|supported| supported.iter().any(|scope| scope == "offline_access"));
        if shared.config.offline_access && offers_refresh && !scopes.is_empty() {
            union(&mut scopes, ["offline_access".to_owned()]);
        }
        let verifier = random_text()?;
        let state = random_text()?;
        let redirect_uri = shared.agent.redirect_uri();
        let mut url = Url::parse(&metadata.authorization_endpoint).map_err(|err| {
            AuthError::Discovery(format!(
                "the authorization endpoint `{}` is not a URL: {err}",
                metadata.authorization_endpoint
            ))
        })?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &challenge_of(&verifier))
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &resource.resource);
            if !scopes.is_empty() {
                query.append_pair("scope", &scopes.join(" "));
            }
        }
        let returned = shared.agent.authorize(url.into()).await?;
        let code = accept_callback(&returned, &state, metadata)?;
        let answer = self
            .token_request(
                metadata,
                &client,
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("redirect_uri", &redirect_uri),
                    ("code_verifier", &verifier),
                    ("resource", &resource.resource),
                ],
            )
            .await?;
        let granted = answer
            .scope
            .as_deref()
            .map_or_else(|| scopes.clone(), split_scopes);
        self.keep(Tokens {
            access_token: answer.access_token,
            refresh_token: answer.refresh_token,
            expires_at: answer
                .expires_in
                .map(|secs| now_secs().saturating_add(secs)),
            requested: scopes,
            granted,
            issuer: metadata.issuer.clone(),
            resource: resource.resource.clone(),
        })
        .await
    }

    /// New tokens for a refresh token.
    async fn refresh(
        &self,
        metadata: &ServerMetadata,
        tokens: &Tokens,
    ) -> Result<Tokens, AuthError> {
        let Some(refresh_token) = tokens.refresh_token.as_deref() else {
            return Err(AuthError::Token {
                error: "no refresh token".to_owned(),
                description: None,
            });
        };
        let client = self.client(metadata).await?;
        let answer = self
            .token_request(
                metadata,
                &client,
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", refresh_token),
                    ("resource", &tokens.resource),
                ],
            )
            .await?;
        Ok(Tokens {
            access_token: answer.access_token,
            refresh_token: answer
                .refresh_token
                .or_else(|| tokens.refresh_token.clone()),
            expires_at: answer
                .expires_in
                .map(|secs| now_secs().saturating_add(secs)),
            requested: tokens.requested.clone(),
            granted: answer
                .scope
                .as_deref()
                .map_or_else(|| tokens.granted.clone(), split_scopes),
            issuer: tokens.issuer.clone(),
            resource: tokens.resource.clone(),
        })
    }

    /// Refreshes expiring tokens before a request; when that fails, the refresh token is
    /// dropped and the request goes with what there is, for the server to say what it
    /// wants.
    pub(super) async fn refresh_or_forget(&self, tokens: &Arc<Tokens>) {
        let refreshed = async {
            let metadata = discovery::server_metadata(&self.http, &tokens.issuer).await?;
            self.refresh(&metadata, tokens).await
        }
        .await;
        let outcome = match refreshed {
            Ok(fresh) => self.keep(fresh).await,
            Err(err) => {
                tracing::debug!(error = %err, "refreshing the expiring token failed");
                let mut spent = Tokens::clone(tokens);
                spent.refresh_token = None;
                self.keep(spent).await
            }
        };
        if let Err(err) = outcome {
            tracing::warn!(error = %err, "keeping the tokens failed");
        }
    }

    /// Uses `tokens` from now on, and keeps them in the store.
    pub(super) async fn keep(&self, tokens: Tokens) -> Result<(), AuthError> {
        let stored = self
            .oauth
            .shared
            .store
            .set_tokens(&self.server, Some(tokens.clone()))
            .await;
        self.set_current(Some(Arc::new(tokens)));
        stored
    }

    /// The client id for the authorization server: pre-registered, a Client ID Metadata
    /// Document, one registered before, or a new registration; none when the clients
    /// pre-registered are all for other authorization servers.
    async fn client(&self, metadata: &ServerMetadata) -> Result<ClientCredentials, AuthError> {
        let shared = &self.oauth.shared;
        let issuer = &metadata.issuer;
        if let Some(client) = pre_registered_for(&shared.config.pre_registered, issuer)? {
            return Ok(client.clone());
        }
        if metadata.client_id_metadata_document_supported == Some(true) {
            if let Some(url) = &shared.config.client_metadata_url {
                return Ok(ClientCredentials::public(url).token_endpoint_auth_method("none"));
            }
        }
        if let Some(client) = shared.store.client(issuer).await? {
            return Ok(client);
        }
        let Some(endpoint) = &metadata.registration_endpoint else {
            return Err(AuthError::NoClient {
                issuer: issuer.clone(),
            });
        };
        let client = self.register(endpoint, metadata).await?;
        shared.store.set_client(issuer, client.clone()).await?;
        Ok(client)
    }

    /// Dynamic client registration (RFC 7591): a public client when the authorization
    /// server takes one, else a confidential one.
    async fn register(
        &self,
        endpoint: &str,
        metadata: &ServerMetadata,
    ) -> Result<ClientCredentials, AuthError> {
        let shared = &self.oauth.shared;
        let failed = |reason: String| AuthError::Registration {
            issuer: metadata.issuer.clone(),
            reason,
        };
        let redirect_uri = shared.agent.redirect_uri();
        let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
        let method = match supported {
            Some(methods) if !methods.iter().any(|method| method == "none") => methods
                .iter()
                .find(|method| *method == "client_secret_basic" || *method == "client_secret_post")
                .map_or("none", String::as_str),
            _ => "none",
        };
        let mut grant_types = vec!["authorization_code"];
        if shared.config.offline_access {
            grant_types.push("refresh_token");
        }
        let request = json!({
            "client_name": shared.config.client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": grant_types,
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": application_type(&redirect_uri),
        });
        let request = self
            .http
            .post(endpoint)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(request.to_string());
        let (status, body) = post(request, endpoint)
            .await
            .map_err(|err| failed(err.to_string()))?;
        if !status.is_success() {
            return Err(failed(match super::refusal(status, &body) {
                (error, Some(description)) => format!("{error} ({description})"),
                (error, None) => error,
            }));
        }
        let answer: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let text = |name: &str| answer.get(name).and_then(Value::as_str).map(str::to_owned);
        let client_id =
            text("client_id").ok_or_else(|| failed("the answer has no client_id".to_owned()))?;
        Ok(ClientCredentials {
            client_id,
            client_secret: text("client_secret"),
            token_endpoint_auth_method: text("token_endpoint_auth_method")
                .or_else(|| Some(method.to_owned())),
            signing_key: None,
        })
    }

    /// A token request, authenticated as the client.
    pub(super) async fn token_request(
        &self,
        metadata: &ServerMetadata,
        client: &ClientCredentials,
        params: &[(&str, &str)],
    ) -> Result<TokenResponse, AuthError> {
        let endpoint = &metadata.token_endpoint;
        let failed = |error: String| AuthError::Token {
            error,
            description: None,
        };
        let assertion = super::grants::client_assertion(client, metadata)?;
        let mut form: Vec<(&str, &str)> = params.to_vec();
        let mut request = self
            .http
            .post(endpoint)
            .header(reqwest::header::ACCEPT, "application/json");
        match (
            token_auth(client, metadata),
            client.client_secret.as_deref(),
        ) {
            (TokenAuth::Basic, Some(secret)) => {
                // RFC 6749, section 2.3.1: each part form-encoded, then joined.
                let pair = format!(
                    "{}:{}",
                    form_encoded(&client.client_id),
                    form_encoded(secret)
                );
                request = request.header(
                    reqwest::header::AUTHORIZATION,
                    format!("Basic {}", STANDARD.encode(pair)),
                );
            }
            (TokenAuth::Post, Some(secret)) => {
                form.push(("client_id", &client.client_id));
                form.push(("client_secret", secret));
            }
            _ => form.push(("client_id", &client.client_id)),
        }
        form.extend(super::grants::assertion_form(assertion.as_deref()));
        let (status, body) = self
            .send_token_request(request.form(&form), metadata)
            .await?;
        if !status.is_success() {
            return Err(AuthError::token_refused(status, &body));
        }
        let answer: TokenResponse = serde_json::from_slice(&body)
            .map_err(|err| failed(format!("an answer that is not a token response: {err}")))?;
        self.accept_token_type(&answer.token_type, &answer.access_token, metadata)?;
        Ok(answer)
    }
}

/// Why a POST to the authorization server has no answer to read.
#[derive(Debug, thiserror::Error)]
enum PostError {
    /// The request could not be sent.
    #[error("POST {endpoint}: {}", super::chain(.source))]
    Send {
        /// Where it went.
        endpoint: String,
        /// Why it failed.
        source: reqwest::Error,
    },
    /// The answer's body could not be read.
    #[error(transparent)]
    Body(#[from] super::BodyError),
}

/// Sends a POST to the authorization server's `endpoint`: the status and the body (read up
/// to [`MAX_ANSWER_BYTES`]), or why there is none.
async fn post(
    request: reqwest::RequestBuilder,
    endpoint: &str,
) -> Result<(reqwest::StatusCode, Vec<u8>), PostError> {
    let response = request.send().await.map_err(|source| PostError::Send {
        endpoint: endpoint.to_owned(),
        source,
    })?;
    let status = response.status();
    let body = super::read_capped(response, MAX_ANSWER_BYTES).await?;
    Ok((status, body))
}

/// The client pre-registered for the authorization server `issuer` (compared as strings,
/// as RFC 8414 compares issuers), if any; an error naming both when clients are
/// pre-registered only for others, since credentials registered with one authorization
/// server are not for another.
fn pre_registered_for<'a>(
    pre_registered: &'a HashMap<String, ClientCredentials>,
    issuer: &str,
) -> Result<Option<&'a ClientCredentials>, AuthError> {
    if let Some(client) = pre_registered.get(issuer) {
        return Ok(Some(client));
    }
    if pre_registered.is_empty() {
        return Ok(None);
    }
    let mut registered_for: Vec<String> = pre_registered.keys().cloned().collect();
    registered_for.sort();
    Err(AuthError::PreRegisteredElsewhere {
        registered_for,
        issuer: issuer.to_owned(),
    })
}

/// How the client authenticates at the token endpoint: as registered, else as the
/// authorization server prefers (RFC 8414's default is `client_secret_basic`).
fn token_auth(client: &ClientCredentials, metadata: &ServerMetadata) -> TokenAuth {
    if client.client_secret.is_none() {
        return TokenAuth::None;
    }
    match client.token_endpoint_auth_method.as_deref() {
        Some("client_secret_basic") => TokenAuth::Basic,
        Some("client_secret_post") => TokenAuth::Post,
        Some("none") => TokenAuth::None,
        _ => {
            let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
            match supported {
                Some(methods)
                    if !methods.iter().any(|method| method == "client_secret_basic")
                        && methods.iter().any(|method| method == "client_secret_post") =>
                {
                    TokenAuth::Post
                }
                _ => TokenAuth::Basic,
            }
        }
    }
}

/// The code of an authorization response, once it is known to answer this request
/// (`state`) from this authorization server (`iss`, RFC 9207, compared as strings).
fn accept_callback(
    returned: &str,
    state: &str,
    metadata: &ServerMetadata,
) -> Result<String, AuthError> {
    let url = Url::parse(returned).map_err(|err| {
        AuthError::Callback(format!("the redirect `{returned}` is not a URL: {err}"))
    })?;
    let mut params: Vec<(String, String)> = Vec::new();
    for (name, value) in url.query_pairs() {
        if params.iter().any(|(seen, _)| *seen == name) {
            return Err(AuthError::Callback(format!(
                "the parameter `{name}` comes more than once"
            )));
        }
        params.push((name.into_owned(), value.into_owned()));
    }
    let param = |name: &str| {
        params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    if param("state") != Some(state) {
        return Err(AuthError::Callback(
            "its `state` is not this request's: it answers another authorization".to_owned(),
        ));
    }
    let promised = metadata.authorization_response_iss_parameter_supported == Some(true);
    match param("iss") {
        Some(iss) if iss != metadata.issuer => {
            return Err(AuthError::Callback(format!(
                "its `iss` is `{iss}`, not the authorization server's issuer `{}` (RFC 9207)",
                metadata.issuer
            )));
        }
        None if promised => {
            return Err(AuthError::Callback(format!(
                "it has no `iss`, which `{}` promises in its metadata (RFC 9207)",
                metadata.issuer
            )));
        }
        _ => {}
    }
    if let Some(error) = param("error") {
        return Err(AuthError::Denied {
            error: error.to_owned(),
            description: param("error_description").map(str::to_owned),
        });
    }
    param("code")
        .filter(|code| !code.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| AuthError::Callback("it has no `code`".to_owned()))
}

/// OpenID Connect's `application_type`: `native` for a redirect to this machine or to an
/// app's own scheme, `web` for one to a web site.
fn application_type(redirect_uri: &str) -> &'static str {
    let Ok(url) = Url::parse(redirect_uri) else {
        return "native";
    };
    let local = match url.host() {
        None => true,
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
    };
    if local || !matches!(url.scheme(), "http" | "https") {
        "native"
    } else {
        "web"
    }
}

/// Adds the scopes of `more` that `scopes` lacks, in order.
fn union(scopes: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
    for scope in more {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
}

/// 32 random bytes, base64url: a PKCE verifier (RFC 7636's 43 characters) or a `state`.
fn random_text() -> Result<String, AuthError> {
    let bytes =
        crate::base::ids::random_bytes::<32>().map_err(|err| AuthError::Random(err.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// PKCE's S256 challenge of a verifier (RFC 7636, section 4.2).
fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `text` form-encoded (`application/x-www-form-urlencoded`).
fn form_encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(iss_promised: Option<bool>) -> ServerMetadata {
        ServerMetadata {
            issuer: "http://localhost:9000".to_owned(),
            authorization_endpoint: "http://localhost:9000/authorize".to_owned(),
            token_endpoint: "http://localhost:9000/token".to_owned(),
            registration_endpoint: None,
            scopes_supported: None,
            code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
            token_endpoint_auth_methods_supported: None,
            client_id_metadata_document_supported: None,
            authorization_response_iss_parameter_supported: iss_promised,
            dpop_signing_alg_values_supported: None,
        }
    }

    const BACK: &str = "http://127.0.0.1:5/callback";

    #[test]
    fn pkce_s256_matches_rfc_7636s_example() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let verifier = random_text().unwrap();
        assert_eq!(verifier.len(), 43);
        assert_ne!(verifier, random_text().unwrap());
    }

    #[test]
    fn the_callback_gives_its_code_only_with_this_requests_state() {
        let ok = accept_callback(&format!("{BACK}?code=c1&state=s1"), "s1", &metadata(None));
        assert_eq!(ok, Ok("c1".to_owned()));
        let other = accept_callback(&format!("{BACK}?code=c1&state=s2"), "s1", &metadata(None));
        assert!(matches!(other, Err(AuthError::Callback(_))), "{other:?}");
        let none = accept_callback(&format!("{BACK}?code=c1"), "s1", &metadata(None));
        assert!(matches!(none, Err(AuthError::Callback(_))), "{none:?}");
        let twice = accept_callback(
            &format!("{BACK}?code=c1&state=s1&code=c2"),
            "s1",
            &metadata(None),
        );
        assert!(matches!(twice, Err(AuthError::Callback(_))), "{twice:?}");
        let no_code = accept_callback(&format!("{BACK}?state=s1"), "s1", &metadata(None));
        assert!(
            matches!(no_code, Err(AuthError::Callback(_))),
            "{no_code:?}"
        );
    }

    #[test]
    fn iss_is_compared_as_a_string_whether_promised_or_not_and_required_when_promised() {
        let with = |iss: &str| format!("{BACK}?code=c&state=s&iss={iss}");
        for promised in [Some(true), Some(false), None] {
            assert_eq!(
                accept_callback(
                    &with("http%3A%2F%2Flocalhost%3A9000"),
                    "s",
                    &metadata(promised)
                ),
                Ok("c".to_owned())
            );
            for wrong in [
                "https%3A%2F%2Fevil.example.com",
                "http%3A%2F%2Flocalhost%3A9000%2F",
                "HTTP%3A%2F%2Flocalhost%3A9000",
            ] {
                let refused = accept_callback(&with(wrong), "s", &metadata(promised));
                assert!(
                    matches!(refused, Err(AuthError::Callback(_))),
                    "{wrong}: {refused:?}"
                );
            }
        }
        let missing = accept_callback(
            &format!("{BACK}?code=c&state=s"),
            "s",
            &metadata(Some(true)),
        );
        assert!(
            matches!(missing, Err(AuthError::Callback(_))),
            "{missing:?}"
        );
        assert_eq!(
            accept_callback(
                &format!("{BACK}?code=c&state=s"),
                "s",
                &metadata(Some(false))
            ),
            Ok("c".to_owned())
        );
    }

    #[test]
    fn an_error_is_reported_only_from_the_right_issuer() {
        let denied = accept_callback(
            &format!(
                "{BACK}?error=access_denied&error_description=no&state=s&iss=http%3A%2F%2Flocalhost%3A9000"
            ),
            "s",
            &metadata(Some(true)),
        );
        assert_eq!(
            denied,
            Err(AuthError::Denied {
                error: "access_denied".to_owned(),
                description: Some("no".to_owned())
            })
        );
        let forged = accept_callback(
            &format!("{BACK}?error=access_denied&state=s&iss=https%3A%2F%2Fevil"),
            "s",
            &metadata(Some(true)),
        );
        assert!(matches!(forged, Err(AuthError::Callback(_))), "{forged:?}");
    }

    #[test]
    fn the_token_endpoint_is_authenticated_as_registered_else_as_the_server_prefers() {
        let mut server = metadata(None);
        let public = ClientCredentials::public("id");
        let secret = ClientCredentials::confidential("id", "s");
        assert_eq!(token_auth(&public, &server), TokenAuth::None);
        assert_eq!(
            token_auth(
                &public
                    .clone()
                    .token_endpoint_auth_method("client_secret_basic"),
                &server
            ),
            TokenAuth::None
        );
        assert_eq!(token_auth(&secret, &server), TokenAuth::Basic);
        server.token_endpoint_auth_methods_supported = Some(vec!["client_secret_post".to_owned()]);
        assert_eq!(token_auth(&secret, &server), TokenAuth::Post);
        assert_eq!(
            token_auth(
                &secret
                    .clone()
                    .token_endpoint_auth_method("client_secret_basic"),
                &server
            ),
            TokenAuth::Basic
        );
        assert_eq!(
            token_auth(&secret.token_endpoint_auth_method("none"), &server),
            TokenAuth::None
        );
    }

    #[test]
    fn a_pre_registered_client_is_used_only_with_its_own_issuer() {
        let mut pre_registered = HashMap::new();
        assert_eq!(pre_registered_for(&pre_registered, "https://b"), Ok(None));
        pre_registered.insert("https://c".to_owned(), ClientCredentials::public("at-c"));
        pre_registered.insert("https://a".to_owned(), ClientCredentials::public("at-a"));
        assert_eq!(
            pre_registered_for(&pre_registered, "https://a"),
            Ok(Some(&ClientCredentials::public("at-a")))
        );
        let refused = pre_registered_for(&pre_registered, "https://b");
        assert_eq!(
            refused,
            Err(AuthError::PreRegisteredElsewhere {
                registered_for: vec!["https://a".to_owned(), "https://c".to_owned()],
                issuer: "https://b".to_owned(),
            })
        );
        let message = refused.unwrap_err().to_string();
        for issuer in ["`https://a`", "`https://c`", "`https://b`"] {
            assert!(message.contains(issuer), "{issuer} in {message}");
        }
    }

    #[test]
    fn a_redirect_to_this_machine_is_a_native_apps() {
        assert_eq!(application_type("http://127.0.0.1:3000/callback"), "native");
        assert_eq!(application_type("http://localhost:3000/callback"), "native");
        assert_eq!(application_type("http://[::1]:3000/callback"), "native");
        assert_eq!(application_type("com.example.app:/callback"), "native");
        assert_eq!(application_type("https://app.example.com/callback"), "web");
    }

    #[test]
    fn scopes_are_joined_without_repeats_in_order() {
        let mut scopes = vec!["a".to_owned(), "b".to_owned()];
        union(&mut scopes, ["b".to_owned(), "c".to_owned()]);
        assert_eq!(scopes, ["a", "b", "c"]);
    }

    #[test]
    fn client_credentials_are_form_encoded_for_basic_authentication() {
        assert_eq!(form_encoded("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }
}
