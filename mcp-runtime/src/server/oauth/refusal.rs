//! Why a request was not let in, and the answer that says so: 401 with a challenge that
//! says where to get a token (RFC 6750, RFC 9728) or what was wrong with its DPoP proof
//! (RFC 9449), 403 naming the scopes a request needs, or
//! 503 when the fault is the authorization server's.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::json;

use super::OAuthConfig;

/// Why a request was not let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No token: the client has to get one.
    NoToken,
    /// A token that is not good here, and why.
    Invalid(String),
    /// The authorization server cannot be asked whether the token is good (its keys cannot
    /// be had, and none kept are young enough), and why.
    Unavailable(String),
    /// A good token, without every scope the request needs: these.
    InsufficientScope(Vec<String>),
    /// A token sent with the wrong scheme for its DPoP binding, or without a good proof.
    Proof(super::proof::ProofError),
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
            // RFC 9449, section 7.1: the DPoP scheme's challenge, with the algorithms taken.
            Self::Proof(wrong) => {
                let why = wrong.to_string();
                (
                    StatusCode::UNAUTHORIZED,
                    Some(format!(
                        "DPoP error=\"{}\", error_description=\"{}\", algs=\"{}\", resource_metadata=\"{metadata}\"{scope}",
                        wrong.code(),
                        quoted(&why),
                        super::proof::algs()
                    )),
                    json!({ "error": wrong.code(), "error_description": why }),
                )
            }
            Self::Unavailable(why) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                json!({ "error": "temporarily_unavailable", "error_description": why }),
            ),
        };
        let mut response = super::super::http::reply::json_response(status, body.to_string());
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let response = Refusal::Unavailable("down".to_owned()).response(&config);
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().get(header::WWW_AUTHENTICATE).is_none());
    }
}
