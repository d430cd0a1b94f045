//! Finding the authorization server: the MCP server's protected resource metadata (RFC
//! 9728), then the authorization server's own metadata (RFC 8414, or OpenID Connect
//! Discovery), in the order MCP's authorization chapter gives, each checked before it is
//! trusted.

use serde::Deserialize;
use serde_json::Value;
use url::Url;

use super::AuthError;

/// The largest metadata document read, in bytes.
const MAX_METADATA_BYTES: usize = 256 * 1024;

/// An MCP server's protected resource metadata (RFC 9728, section 2), as far as the client
/// uses it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct ResourceMetadata {
    /// The resource identifier: sent as RFC 8707's `resource`, exactly as written here.
    pub(crate) resource: String,
    /// The authorization servers' issuers.
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    /// The scopes the server names for basic use.
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// An authorization server's metadata (RFC 8414, section 2), as far as the client uses it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    /// Empty at an authorization server that has none (it offers only machine grants).
    #[serde(default)]
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: Option<bool>,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: Option<bool>,
    /// The algorithms of DPoP proofs it takes (RFC 9449, section 5.1): it offers DPoP.
    #[serde(default)]
    pub(crate) dpop_signing_alg_values_supported: Option<Vec<String>>,
}

/// Where to look for the protected resource metadata of the server at `server`: the
/// address its challenge gave, or else the path-based well-known address and then the
/// root one (RFC 9728, section 3.1).
pub(crate) fn resource_metadata_urls(
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<Vec<Url>, AuthError> {
    if let Some(given) = from_challenge {
        let url = Url::parse(given).map_err(|err| {
            AuthError::Discovery(format!(
                "the server's challenge names `{given}` as its metadata, which is not a URL: {err}"
            ))
        })?;
        return Ok(vec![url]);
    }
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(well_known(server, "oauth-protected-resource", path));
    }
    urls.push(well_known(server, "oauth-protected-resource", ""));
    Ok(urls)
}

/// Where to look for the metadata of the authorization server `issuer`, in the order MCP
/// gives: RFC 8414's path-inserted address, then OpenID Connect's path-inserted and
/// path-appended ones; for an issuer without a path, the two at the root.
pub(crate) fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            well_known(issuer, "oauth-authorization-server", ""),
            well_known(issuer, "openid-configuration", ""),
        ];
    }
    let mut appended = issuer.clone();
    appended.set_path(&format!("{path}/.well-known/openid-configuration"));
    appended.set_query(None);
    appended.set_fragment(None);
    vec![
        well_known(issuer, "oauth-authorization-server", path),
        well_known(issuer, "openid-configuration", path),
        appended,
    ]
}

/// `/.well-known/{name}{path}` at the origin of `base`.
fn well_known(base: &Url, name: &str, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(&format!("/.well-known/{name}{path}"));
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// Whether the resource metadata describes the server at `server`: the same origin, and a
/// path the server's is, or lies under (RFC 9728, section 3.3; MCP's canonical server
/// URI). Scheme and host compare without case, as URL parsing has them.
pub(crate) fn resource_matches(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.scheme() != server.scheme()
        || resource.host_str() != server.host_str()
        || resource.port_or_known_default() != server.port_or_known_default()
        || resource.fragment().is_some()
    {
        return false;
    }
    let prefix = resource.path().trim_end_matches('/');
    let path = server.path();
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Fetches a metadata document: `Ok(None)` when there is none at `url` (a 4xx answer),
/// an error when it cannot be fetched or read.
pub(crate) async fn fetch<T: for<'de> Deserialize<'de>>(
    http: &reqwest::Client,
    url: &Url,
) -> Result<Option<T>, AuthError> {
    let response = http
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|err| AuthError::Discovery(format!("GET {url}: {}", super::chain(&err))))?;
    let status = response.status();
    if status.is_client_error() {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(AuthError::Discovery(format!("GET {url}: HTTP {status}")));
    }
    let body = super::read_capped(response, MAX_METADATA_BYTES)
        .await
        .map_err(|err| AuthError::Discovery(format!("GET {url}: {err}")))?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|err| AuthError::Discovery(format!("{url} is not the metadata expected: {err}")))
}

/// The authorization server's metadata, found from its issuer and checked: its `issuer`
/// must be the one the address was made from, character for character (RFC 8414, section
/// 3.3), and it must offer PKCE with S256.
pub(crate) async fn server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<ServerMetadata, AuthError> {
    let parsed = Url::parse(issuer).map_err(|err| {
        AuthError::Discovery(format!(
            "the authorization server `{issuer}` is not a URL: {err}"
        ))
    })?;
    let urls = server_metadata_urls(&parsed);
    for url in &urls {
        let Some(document) = fetch::<Value>(http, url).await? else {
            continue;
        };
        let found = document.get("issuer").and_then(Value::as_str).unwrap_or("");
        if found != issuer {
            return Err(AuthError::IssuerMismatch {
                metadata: url.to_string(),
                expected: issuer.to_owned(),
                found: found.to_owned(),
            });
        }
        let metadata: ServerMetadata = serde_json::from_value(document).map_err(|err| {
            AuthError::Discovery(format!("{url} is not authorization server metadata: {err}"))
        })?;
        let s256 = metadata
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|methods| methods.iter().any(|method| method == "S256"));
        if !s256 {
            return Err(AuthError::NoPkce {
                issuer: issuer.to_owned(),
            });
        }
        return Ok(metadata);
    }
    let tried: Vec<String> = urls.iter().map(Url::to_string).collect();
    Err(AuthError::Discovery(format!(
        "no metadata for the authorization server `{issuer}` (tried {})",
        tried.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn resource_metadata_is_looked_for_at_the_path_then_the_root_unless_the_challenge_says() {
        assert_eq!(
            strings(resource_metadata_urls(&url("http://h:1/public/mcp?x=1"), None).unwrap()),
            [
                "http://h:1/.well-known/oauth-protected-resource/public/mcp",
                "http://h:1/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            strings(resource_metadata_urls(&url("http://h/"), None).unwrap()),
            ["http://h/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            strings(
                resource_metadata_urls(&url("http://h/mcp"), Some("http://h/custom/prm.json"))
                    .unwrap()
            ),
            ["http://h/custom/prm.json"]
        );
        assert!(matches!(
            resource_metadata_urls(&url("http://h/mcp"), Some("not a url")),
            Err(AuthError::Discovery(_))
        ));
    }

    #[test]
    fn server_metadata_is_looked_for_in_mcps_order() {
        assert_eq!(
            strings(server_metadata_urls(&url("https://auth.example.com"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            strings(server_metadata_urls(&url(
                "https://auth.example.com/tenant1/"
            ))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_resource_matches_its_own_server_and_the_servers_under_it_only() {
        let server = url("http://localhost:8080/mcp");
        assert!(resource_matches("http://localhost:8080/mcp", &server));
        assert!(resource_matches("HTTP://LOCALHOST:8080/mcp", &server));
        assert!(resource_matches("http://localhost:8080", &server));
        assert!(resource_matches("http://localhost:8080/", &server));
        assert!(resource_matches(
            "http://localhost:8080/",
            &url("http://localhost:8080/")
        ));
        assert!(!resource_matches("https://evil.example.com/mcp", &server));
        assert!(!resource_matches("http://localhost:8081/mcp", &server));
        assert!(!resource_matches("https://localhost:8080/mcp", &server));
        assert!(!resource_matches("http://localhost:8080/mc", &server));
        assert!(!resource_matches("http://localhost:8080/mcp/more", &server));
        assert!(!resource_matches("http://localhost:8080/mcp#x", &server));
        assert!(!resource_matches("not a url", &server));
    }
}
