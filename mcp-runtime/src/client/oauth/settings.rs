//! How an HTTP server's `auth` is written down, in the `mcpServers` file and on the command
//! line (`--mount-auth`): a machine grant and the places its credentials are read from,
//! never the credentials themselves; and whether its tokens are DPoP-bound.

use serde::Deserialize;
use serde_json::Value;

use super::{ClientCredentials, DpopKey, IdentityProvider, OAuth, SigningKey, TokenSource};

/// The grants an `auth` may name.
const GRANTS: &str = "`client_credentials`, `workload_identity`, `enterprise`";

/// An `auth`:
///
/// - `{"grant": "client_credentials", "client_id", "client_secret_env" | "private_key_file" | "private_key_jwk_file"}`
/// - `{"grant": "workload_identity", "client_id", "token_file" | "token_env"}`
/// - `{"grant": "enterprise", "client_id", "client_secret_env", "idp_token_endpoint",
///   "idp_client_id", "id_token_file" | "id_token_env"}`
///
/// Each takes `"issuer"`, the only authorization server its credentials may go to, and
/// `"dpop": true` (a key made afresh) or `"dpop_key_file"` (a PKCS#8 PEM of a P-256 key)
/// for DPoP-bound tokens.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    grant: String,
    client_id: String,
    #[serde(default)]
    client_secret_env: Option<String>,
    #[serde(default)]
    private_key_file: Option<String>,
    #[serde(default)]
    private_key_jwk_file: Option<String>,
    #[serde(default)]
    token_file: Option<String>,
    #[serde(default)]
    token_env: Option<String>,
    #[serde(default)]
    idp_token_endpoint: Option<String>,
    #[serde(default)]
    idp_client_id: Option<String>,
    #[serde(default)]
    id_token_file: Option<String>,
    #[serde(default)]
    id_token_env: Option<String>,
    #[serde(default)]
    issuer: Option<String>,
    #[serde(default)]
    dpop: Option<bool>,
    #[serde(default)]
    dpop_key_file: Option<String>,
}

/// The OAuth client an `auth` object describes, its credentials read; or why it cannot be
/// made, naming the field or the file at fault.
pub(crate) fn oauth_of(auth: Value) -> Result<OAuth, String> {
    let settings: Settings = serde_json::from_value(auth)
        .map_err(|err| format!("`auth`: {err}; it names a `grant` ({GRANTS}) and a `client_id`"))?;
    settings.oauth()
}

impl Settings {
    fn oauth(self) -> Result<OAuth, String> {
        let missing =
            |field: &str| format!("`auth` needs `{field}` for the grant `{}`", self.grant);
        let oauth = match self.grant.as_str() {
            "client_credentials" => OAuth::client_credentials(self.client()?.ok_or_else(|| {
                missing("client_secret_env`, `private_key_file` or `private_key_jwk_file")
            })?),
            "workload_identity" => OAuth::workload_identity(
                &self.client_id,
                source(&self.token_file, &self.token_env)
                    .ok_or_else(|| missing("token_file` or `token_env"))?,
            ),
            "enterprise" => {
                let client = self.client()?.ok_or_else(|| missing("client_secret_env"))?;
                let endpoint = self
                    .idp_token_endpoint
                    .clone()
                    .ok_or_else(|| missing("idp_token_endpoint"))?;
                let idp_client = self
                    .idp_client_id
                    .clone()
                    .ok_or_else(|| missing("idp_client_id"))?;
                let id_token = source(&self.id_token_file, &self.id_token_env)
                    .ok_or_else(|| missing("id_token_file` or `id_token_env"))?;
                OAuth::enterprise(
                    client,
                    IdentityProvider::new(
                        endpoint,
                        ClientCredentials::public(idp_client),
                        id_token,
                    ),
                )
            }
            other => {
                return Err(format!("the grant `{other}` is none of {GRANTS}"));
            }
        };
        let oauth = match self.dpop_key()? {
            Some(key) => oauth.dpop(key),
            None => oauth,
        };
        Ok(match self.issuer {
            Some(issuer) => oauth.authorization_server(issuer),
            None => oauth,
        })
    }

    /// The client at the authorization server, with its secret or its key, if given.
    fn client(&self) -> Result<Option<ClientCredentials>, String> {
        let id = &self.client_id;
        if let Some(variable) = &self.client_secret_env {
            let secret = std::env::var(variable)
                .map_err(|err| format!("the environment variable `{variable}`: {err}"))?;
            return Ok(Some(ClientCredentials::confidential(id, secret.trim())));
        }
        let key = match (&self.private_key_file, &self.private_key_jwk_file) {
            (Some(pem), _) => SigningKey::from_pem_file(pem),
            (None, Some(jwk)) => SigningKey::from_jwk_file(jwk),
            (None, None) => return Ok(None),
        };
        let key = key.map_err(|err| err.to_string())?;
        Ok(Some(ClientCredentials::private_key_jwt(id, key)))
    }

    /// The key the tokens are bound to: read from `dpop_key_file`, or made afresh for
    /// `"dpop": true`; none without either.
    fn dpop_key(&self) -> Result<Option<DpopKey>, String> {
        let key = match (self.dpop, &self.dpop_key_file) {
            (Some(false), Some(_)) => {
                return Err(
                    "`auth` has a `dpop_key_file` but `\"dpop\": false`: leave one out".to_owned(),
                );
            }
            (_, Some(file)) => DpopKey::from_pem_file(file),
            (Some(true), None) => DpopKey::generate(),
            (Some(false) | None, None) => return Ok(None),
        };
        key.map(Some).map_err(|err| format!("`auth`: {err}"))
    }
}

fn source(file: &Option<String>, env: &Option<String>) -> Option<TokenSource> {
    match (file, env) {
        (Some(file), _) => Some(TokenSource::file(file)),
        (None, Some(env)) => Some(TokenSource::env(env)),
        (None, None) => None,
    }
}
