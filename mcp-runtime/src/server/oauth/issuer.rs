//! The authorization server as this server reaches it: over HTTP, its metadata found from
//! its issuer identifier (RFC 8414, then OpenID discovery).

use std::str::FromStr;
use std::time::Duration;

use axum::http::header;
use serde_json::{Map, Value};

/// How long a request to the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a URL does not parse.
type UrlError = <reqwest::Url as FromStr>::Err;

/// Why the authorization server's metadata, or a document it points at, is not had.
#[derive(Debug, thiserror::Error)]
pub(super) enum IssuerError {
    /// The issuer identifier is not a URL.
    #[error("the issuer `{issuer}` is not a URL: {source}")]
    NotAUrl {
        /// The issuer identifier.
        issuer: String,
        /// Why it does not parse.
        source: UrlError,
    },
    /// The metadata found names another issuer.
    #[error("the metadata at {place} is for the issuer {named:?}, not `{issuer}`")]
    OtherIssuer {
        /// Where the metadata was found.
        place: String,
        /// The issuer it names, if any.
        named: Option<String>,
        /// The issuer asked for.
        issuer: String,
    },
    /// No well-known place holds metadata: why not, at each one tried.
    #[error("no authorization server metadata found ({})", joined(.tried))]
    NoMetadata {
        /// Why each place tried failed.
        tried: Vec<IssuerError>,
    },
    /// The metadata has no such field.
    #[error("the metadata of the issuer `{issuer}` has no `{field}`")]
    NoField {
        /// The issuer identifier.
        issuer: String,
        /// The field looked for.
        field: String,
    },
    /// A request, or the reading of its answer, failed.
    #[error("{url}: {source}")]
    Request {
        /// The URL asked.
        url: String,
        /// Why it failed.
        source: reqwest::Error,
    },
    /// The answer's status is not a success.
    #[error("{url}: {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The status answered.
        status: reqwest::StatusCode,
    },
    /// The answer is not the JSON document expected.
    #[error("{url}: not the JSON expected: {source}")]
    NotJson {
        /// The URL asked.
        url: String,
        /// Why it does not read.
        source: serde_json::Error,
    },
}

/// `errors`, each said, joined by `; `.
fn joined(errors: &[IssuerError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

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
    pub(super) async fn metadata(&self) -> Result<Map<String, Value>, IssuerError> {
        let issuer = reqwest::Url::parse(&self.issuer).map_err(|source| IssuerError::NotAUrl {
            issuer: self.issuer.clone(),
            source,
        })?;
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
                        return Err(IssuerError::OtherIssuer {
                            place: place.clone(),
                            named: named.map(str::to_owned),
                            issuer: self.issuer.clone(),
                        });
                    }
                    return Ok(metadata);
                }
                Err(why) => tried.push(why),
            }
        }
        Err(IssuerError::NoMetadata { tried })
    }

    /// The URL the metadata gives under `field`, or why there is none.
    pub(super) async fn endpoint(&self, field: &str) -> Result<String, IssuerError> {
        let metadata = self.metadata().await?;
        metadata
            .get(field)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| IssuerError::NoField {
                issuer: self.issuer.clone(),
                field: field.to_owned(),
            })
    }

    /// The JSON document at `url`.
    pub(super) async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
    ) -> Result<T, IssuerError> {
        let failed = |source| IssuerError::Request {
            url: url.to_owned(),
            source,
        };
        let response = self
            .http
            .get(url)
            .header(header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(failed)?;
        if !response.status().is_success() {
            return Err(IssuerError::Status {
                url: url.to_owned(),
                status: response.status(),
            });
        }
        let body = response.bytes().await.map_err(failed)?;
        serde_json::from_slice(&body).map_err(|source| IssuerError::NotJson {
            url: url.to_owned(),
            source,
        })
    }
}
