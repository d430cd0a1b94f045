//! What a server's refusal says: a 401 (no token, or one it does not take) or a 403 with
//! `error="insufficient_scope"`, and the `Bearer` challenge of its `WWW-Authenticate`
//! header (RFC 6750, section 3): where the server's metadata is, and which scopes it wants.

/// A refusal the OAuth client can answer by getting a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// What kind of refusal.
    pub(crate) kind: Refusal,
    /// The `resource_metadata` parameter (RFC 9728, section 5.1).
    pub(crate) resource_metadata: Option<String>,
    /// The `scope` parameter, split.
    pub(crate) scopes: Option<Vec<String>>,
    /// The `error` parameter.
    pub(crate) error: Option<String>,
}

/// The two refusals the client answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// HTTP 401: a token is missing, expired or not taken.
    Unauthorized,
    /// HTTP 403 with `error="insufficient_scope"`: the token lacks scopes.
    InsufficientScope,
}

impl Challenge {
    /// The challenge of a response, if it is one the client answers.
    pub(crate) fn of(status: u16, headers: &reqwest::header::HeaderMap) -> Option<Self> {
        let bearer = headers
            .get_all(reqwest::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .find_map(bearer_params)
            .unwrap_or_default();
        let param = |name: &str| {
            bearer
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value.clone())
        };
        let error = param("error");
        let kind = match status {
            401 => Refusal::Unauthorized,
            403 if error.as_deref() == Some("insufficient_scope") => Refusal::InsufficientScope,
            _ => return None,
        };
        Some(Self {
            kind,
            resource_metadata: param("resource_metadata"),
            scopes: param("scope").map(|scope| split_scopes(&scope)),
            error,
        })
    }
}

/// The parameters of the `Bearer` (or `DPoP`, RFC 9449 section 7.1) challenge in one
/// `WWW-Authenticate` value, unescaped;
/// `None` when the value holds none or does not parse.
fn bearer_params(value: &str) -> Option<Vec<(String, String)>> {
    let challenges = http_auth::parse_challenges(value).ok()?;
    let bearer = challenges.into_iter().find(|challenge| {
        challenge.scheme.eq_ignore_ascii_case("Bearer")
            || challenge.scheme.eq_ignore_ascii_case("DPoP")
    })?;
    Some(
        bearer
            .params
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value.to_unescaped()))
            .collect(),
    )
}

/// A space-separated scope list (RFC 6749, section 3.3), without empty entries.
pub(crate) fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_whitespace().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue, WWW_AUTHENTICATE};

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(WWW_AUTHENTICATE, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn a_401_gives_the_metadata_address_and_the_scopes_unescaped() {
        let challenge = Challenge::of(
            401,
            &headers(&[
                r#"Bearer resource_metadata="http://a/.well-known/oauth-protected-resource/mcp", scope="files:read  files:write", error_description="say \"hi\"""#,
            ]),
        )
        .unwrap();
        assert_eq!(challenge.kind, Refusal::Unauthorized);
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://a/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            challenge.scopes,
            Some(vec!["files:read".to_owned(), "files:write".to_owned()])
        );
        assert_eq!(challenge.error, None);
    }

    #[test]
    fn the_bearer_challenge_is_found_among_others_and_in_any_case() {
        let challenge = Challenge::of(
            401,
            &headers(&[
                r#"Basic realm="x""#,
                r#"bearer scope="a", ERROR="invalid_token""#,
            ]),
        )
        .unwrap();
        assert_eq!(challenge.scopes, Some(vec!["a".to_owned()]));
        assert_eq!(challenge.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn a_401_without_a_challenge_is_still_one_to_answer() {
        let challenge = Challenge::of(401, &HeaderMap::new()).unwrap();
        assert_eq!(challenge.resource_metadata, None);
        assert_eq!(challenge.scopes, None);
        let garbled = Challenge::of(401, &headers(&["Bearer ,,, =\"x"])).unwrap();
        assert_eq!(garbled.resource_metadata, None);
    }

    #[test]
    fn a_403_is_a_challenge_only_for_insufficient_scope() {
        let step_up = Challenge::of(
            403,
            &headers(&[r#"Bearer error="insufficient_scope", scope="mcp:write""#]),
        )
        .unwrap();
        assert_eq!(step_up.kind, Refusal::InsufficientScope);
        assert_eq!(step_up.scopes, Some(vec!["mcp:write".to_owned()]));
        assert_eq!(
            Challenge::of(403, &headers(&[r#"Bearer error="invalid_request""#])),
            None
        );
        assert_eq!(Challenge::of(403, &HeaderMap::new()), None);
        assert_eq!(Challenge::of(500, &headers(&["Bearer"])), None);
    }
}
