//! The authorization server as this server reaches it: over HTTP, its metadata found from
//! its issuer identifier (RFC 8414, then OpenID discovery).

use std::time::Duration;

use axum::http::header;
use serde_json::{Map, Value};

/// How long a request to the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The authorization server `issuer` names, and the HTTP client that asks it.
pub(super) struct Issuer {
    issuer: String,
    http: reqwest::Client,
}

impl Issuer {
    pub(super) fn new(issuer: &str) -> Self {
        Self {
            issuer: issuer.to_owned(),
            http: reqwest::Client::builder()
                .timeout(FETCH_TIMEOUT)
                .build()
                .unwrap_or_default(),
        }
    }

    /// The issuer identifier.
    pub(super) fn name(&self) -> &str {
        &self.issuer
    }

    /// The HTTP client requests to the authorization server go through.
    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The issuer's metadata: RFC 8414's, then OpenID's, each at the well-known path
    /// inserted before the issuer's path, then OpenID's appended to it. A document that
    /// names another issuer is refused.
    pub(super) async fn metadata(&self) -> Result<Map<String, Value>, String> {
        let issuer = reqwest::Url::parse(&self.issuer)
            .map_err(|err| format!("the issuer `{}` is not a URL: {err}", self.issuer))?;
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
                        != Some(self.issuer.trim_end_matches('/'))
                    {
                        return Err(format!(
                            "the metadata at {place} is for the issuer {named:?}, not `{}`",
                            self.issuer
                        ));
                    }
                    return Ok(metadata);
                }
                Err(why) => tried.push(why),
            }
        }
        Err(format!(
            "no authorization server metadata found ({})",
            tried.join("; ")
        ))
    }

    /// The URL the metadata gives under `field`, or why there is none.
    pub(super) async fn endpoint(&self, field: &str) -> Result<String, String> {
        let metadata = self.metadata().await?;
        metadata
            .get(field)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                format!(
                    "the metadata of the issuer `{}` has no `{field}`",
                    self.issuer
                )
            })
    }

    /// The JSON document at `url`.
    pub(super) async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
    ) -> Result<T, String> {
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
