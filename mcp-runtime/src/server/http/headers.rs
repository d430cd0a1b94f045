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

/// What a `POST` mirrors from its body into headers (2026-07-28), read, not yet checked;
/// and the session it names (`Mcp-Session-Id`). One pass over the headers: a look-up by
/// name hashes the name, and this reads four names and a family.
pub(super) fn mirrored_and_session(headers: &HeaderMap) -> (Mirrored<'_>, Option<&str>) {
    // The first value of each, as `HeaderMap::get` gives it; `None` inside for a value
    // that is not visible ASCII.
    let (mut version, mut method, mut name, mut session) = (None, None, None, None);
    let mut params = Vec::new();
    for (header, value) in headers {
        // Header names arrive in lower case; those read here all begin with `mcp-`.
        let Some(rest) = header.as_str().strip_prefix("mcp-") else {
            continue;
        };
        let slot = match rest {
            "protocol-version" => &mut version,
            "method" => &mut method,
            "name" => &mut name,
            "session-id" => &mut session,
            _ => {
                if let Some(param) = rest.strip_prefix("param-") {
                    params.push((param, value.to_str().ok()));
                }
                continue;
            }
        };
        slot.get_or_insert(value.to_str().ok());
    }
    let mirrored = Mirrored {
        version: version.flatten(),
        method: method.flatten(),
        name: name.flatten(),
        params,
    };
    (mirrored, session.flatten())
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

    #[test]
    fn one_pass_reads_the_first_of_each_mirrored_header_every_param_and_the_session() {
        let mut headers = HeaderMap::new();
        let add = |headers: &mut HeaderMap, name: &'static str, value: &[u8]| {
            headers.append(name, HeaderValue::from_bytes(value).unwrap());
        };
        add(&mut headers, "content-type", b"application/json");
        add(&mut headers, "mcp-protocol-version", b"2026-07-28");
        add(&mut headers, "mcp-protocol-version", b"2025-06-18");
        add(&mut headers, "mcp-method", b"tools/call");
        add(&mut headers, "mcp-name", b"\xffbad");
        add(&mut headers, "mcp-name", b"good");
        add(&mut headers, "mcp-param-city", b"Paris");
        add(&mut headers, "mcp-param-raw", b"\xff");
        add(&mut headers, "mcp-session-id", b"abc");
        add(&mut headers, "mcp-other", b"x");
        let (mirrored, session) = mirrored_and_session(&headers);
        assert_eq!(mirrored.version, Some("2026-07-28"));
        assert_eq!(mirrored.method, Some("tools/call"));
        // As `HeaderMap::get` reads it: the first value, which is not text.
        assert_eq!(mirrored.name, None);
        assert_eq!(
            mirrored.params,
            vec![("city", Some("Paris")), ("raw", None)]
        );
        assert_eq!(session, Some("abc"));
        let empty = HeaderMap::new();
        let (mirrored, session) = mirrored_and_session(&empty);
        assert_eq!(
            (mirrored.version, mirrored.params.len(), session),
            (None, 0, None)
        );
    }
}
