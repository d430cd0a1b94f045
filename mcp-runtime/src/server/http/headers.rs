//! What the transport reads from a request's headers: the bearer token, the media types it
//! accepts, the values it mirrors from its body (2026-07-28), and the session id the
//! handshake's revisions assign. OAuth reads the bearer token here too: this module imports
//! nothing of the transport's, so both can use it.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

use crate::server::stateless::Mirrored;

/// The header of the session id the handshake's streamable HTTP may assign at `initialize`.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A new session id: 128 random bits, in hex, which the client echoes; too many to guess
/// one that is open.
pub(super) fn session_id() -> Option<HeaderValue> {
    let hex = crate::base::ids::random_hex::<16>().ok()?;
    HeaderValue::from_str(&hex).ok()
}

/// The session `headers` name (`Mcp-Session-Id`), if they name one.
pub(super) fn named_session(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(SESSION_ID)
        .and_then(|value| value.to_str().ok())
}

/// What a request mirrors from its body into headers (2026-07-28): read, not yet checked.
pub(super) fn mirrored(headers: &HeaderMap) -> Mirrored<'_> {
    // Names made once: a name given as text is checked and lowered at every look-up.
    const VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
    const METHOD: HeaderName = HeaderName::from_static("mcp-method");
    const NAME: HeaderName = HeaderName::from_static("mcp-name");
    let text = |name: &HeaderName| headers.get(name).and_then(|value| value.to_str().ok());
    Mirrored {
        version: text(&VERSION),
        method: text(&METHOD),
        name: text(&NAME),
        params: headers
            .iter()
            .filter_map(|(name, value)| {
                // Header names arrive in lower case.
                let param = name.as_str().strip_prefix("mcp-param-")?;
                Some((param, value.to_str().ok()))
            })
            .collect(),
    }
}

/// The token of an `Authorization: Bearer …` header; the scheme's name in any case, as
/// RFC 9110 has it.
pub(crate) fn bearer(authorization: Option<&str>) -> Option<&str> {
    let (scheme, token) = authorization?.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Whether `headers` accept `media_type` (`text/event-stream`, say).
pub(super) fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| {
            value
                .split(',')
                .any(|part| part.trim().starts_with(media_type))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_matched_in_any_case_and_a_token_is_required() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("BEARER  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(Some("Bearer")), None);
        assert_eq!(bearer(None), None);
    }
}
