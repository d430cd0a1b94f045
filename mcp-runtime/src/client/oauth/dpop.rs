//! DPoP (RFC 9449): tokens bound to a key the client holds, so that a token that leaks is
//! of no use without the key.
//!
//! With [`OAuth::dpop`], the client proves possession of its [`DpopKey`] to every
//! authorization server that offers DPoP with ES256 (its metadata's
//! `dpop_signing_alg_values_supported`): each token request carries a proof, and a token
//! issued as `DPoP` is sent to the MCP server as `Authorization: DPoP …`, with a fresh
//! proof on every request that also binds the token (`ath`). An authorization server that
//! does not offer DPoP is asked as before, for a bearer token.
//!
//! A server that wants a nonce in the proofs says so (`use_dpop_nonce`, with a
//! `DPoP-Nonce` header: 400 from an authorization server, 401 from a resource server); the
//! request is sent again once with a proof that carries it, and the latest nonce of each
//! server is kept for its next proofs.
//!
//! A DPoP-bound token is of no use with another key: to keep tokens across runs
//! ([`FileStore`](super::FileStore)), load the same key each run
//! ([`DpopKey::from_pem_file`]) rather than generate one.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use url::Url;

use super::discovery::ServerMetadata;
use super::store::now_secs;
use super::{AuthError, OAuth, Session, Tokens};

/// The one signing algorithm of the client's proofs.
const ALGORITHM: &str = "ES256";

/// Why a DPoP key could not be made or read, or a proof not signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DpopError {
    /// The system's random number generator failed.
    #[error("the system's random number generator failed, so no DPoP key or proof was made")]
    Random,
    /// The file could not be read.
    #[error("reading the DPoP key {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The text is not a PEM `PRIVATE KEY` (PKCS#8) block.
    #[error(
        "the DPoP key is not a PEM `PRIVATE KEY` (PKCS#8) block; make one with `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`"
    )]
    NotPem,
    /// The key is not an ECDSA P-256 key with its public part.
    #[error("the DPoP key is not a P-256 key for ES256: {0}")]
    Key(String),
    /// The URL a proof is for does not parse.
    #[error("a DPoP proof for `{url}`, which is not a URL")]
    NotAUrl {
        /// The URL.
        url: String,
    },
}

/// The key a client proves possession of (ECDSA P-256, proofs signed with ES256): made
/// afresh with [`DpopKey::generate`], or read from a PKCS#8 PEM file. Cheap to clone.
///
/// ```
/// use mcp_runtime::client::oauth::DpopKey;
///
/// let key = DpopKey::generate()?;
/// assert_eq!(key.thumbprint().len(), 43);
/// # Ok::<(), mcp_runtime::client::oauth::DpopError>(())
/// ```
#[derive(Clone)]
pub struct DpopKey {
    pair: Arc<EcdsaKeyPair>,
    /// The public key as a JWK, as the proofs' `jwk` header carries it.
    jwk: Value,
    /// Its RFC 7638 thumbprint: the `cnf.jkt` of the tokens bound to it.
    thumbprint: String,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The private key is never printed.
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A new key, from the system's random number generator.
    pub fn generate() -> Result<Self, DpopError> {
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .map_err(|_| DpopError::Random)?;
        Self::from_pkcs8_der(pkcs8.as_ref())
    }

    /// The key of a PEM `PRIVATE KEY` block (PKCS#8), as `openssl genpkey -algorithm EC
    /// -pkeyopt ec_paramgen_curve:P-256` writes it.
    pub fn from_pem(pem: &str) -> Result<Self, DpopError> {
        let block = pem::parse(pem).map_err(|_| DpopError::NotPem)?;
        if block.tag() != "PRIVATE KEY" {
            return Err(DpopError::NotPem);
        }
        let der = block.into_contents();
        Self::from_pkcs8_der(&der)
    }

    /// The key in the PEM file at `path` (see [`DpopKey::from_pem`]).
    pub fn from_pem_file(path: impl AsRef<Path>) -> Result<Self, DpopError> {
        let path = path.as_ref();
        let pem = std::fs::read_to_string(path).map_err(|err| DpopError::Read {
            path: path.to_owned(),
            reason: err.to_string(),
        })?;
        Self::from_pem(&pem)
    }

    fn from_pkcs8_der(der: &[u8]) -> Result<Self, DpopError> {
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &SystemRandom::new())
                .map_err(|err| DpopError::Key(err.to_string()))?;
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        let (Some(x), Some(y)) = (point.get(1..33), point.get(33..65)) else {
            return Err(DpopError::Key(
                "its public key is not an uncompressed point".to_owned(),
            ));
        };
        let (x, y) = (URL_SAFE_NO_PAD.encode(x), URL_SAFE_NO_PAD.encode(y));
        // RFC 7638: the required members, in lexicographic order, without spaces.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        Ok(Self {
            pair: Arc::new(pair),
            jwk: json!({ "kty": "EC", "crv": "P-256", "x": x, "y": y }),
            thumbprint: URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())),
        })
    }

    /// The key's JWK thumbprint (RFC 7638, SHA-256, base64url): what a token bound to it
    /// names as `cnf.jkt`.
    pub fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A DPoP proof (a `dpop+jwt`) for a `method` request to `url`: `htu` is the URL
    /// without its query and fragment, `ath` binds `access_token` when one is sent with it,
    /// and `nonce` is the server's, when it gave one.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, DpopError> {
        let mut htu = Url::parse(url).map_err(|_| DpopError::NotAUrl {
            url: url.to_owned(),
        })?;
        htu.set_query(None);
        htu.set_fragment(None);
        let jti = crate::base::ids::random_bytes::<16>().map_err(|_| DpopError::Random)?;
        let mut claims = json!({
            "jti": URL_SAFE_NO_PAD.encode(jti),
            "htm": method,
            "htu": htu.as_str(),
            "iat": now_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(access_token_hash(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({ "typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| DpopError::Random)?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

/// The largest answer read from a token endpoint, in bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// A POST to a token endpoint: the status, the headers and the body (read up to
/// [`MAX_ANSWER_BYTES`]).
async fn post(
    request: reqwest::RequestBuilder,
    endpoint: &str,
) -> Result<(reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>), AuthError> {
    let response = request
        .send()
        .await
        .map_err(|err| token_error(&format!("POST {endpoint}: {}", super::chain(&err))))?;
    let (status, headers) = (response.status(), response.headers().clone());
    let body = super::read_capped(response, MAX_ANSWER_BYTES)
        .await
        .map_err(|err| token_error(&err.to_string()))?;
    Ok((status, headers, body))
}

/// A token request that failed before the authorization server answered it.
fn token_error(error: &str) -> AuthError {
    AuthError::Token {
        error: error.to_owned(),
        description: None,
    }
}

/// The `ath` of an access token: base64url(SHA-256(token)) (RFC 9449, section 4.2).
pub(super) fn access_token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// A client's DPoP: its key, the latest nonce of each server, and which tokens are bound.
#[derive(Debug)]
pub(super) struct Dpop {
    key: DpopKey,
    /// The latest `DPoP-Nonce` of each server, by origin.
    nonces: Mutex<HashMap<String, String>>,
    /// The `ath` of the DPoP-bound access token of each MCP server, by its address: a token
    /// issued as `DPoP` is sent as such, any other as `Bearer`.
    bound: Mutex<HashMap<String, String>>,
}

impl Dpop {
    fn new(key: DpopKey) -> Self {
        Self {
            key,
            nonces: Mutex::default(),
            bound: Mutex::default(),
        }
    }

    /// A proof for `method` at `url`, with the nonce that server gave last.
    fn proof(&self, method: &str, url: &str, token: Option<&str>) -> Result<String, DpopError> {
        let nonce = origin(url).and_then(|origin| {
            self.nonces
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&origin)
                .cloned()
        });
        self.key.proof(method, url, token, nonce.as_deref())
    }

    /// Keeps the nonce a response to a request at `url` gave, if any; whether it gave one.
    fn keep_nonce(&self, url: &str, headers: &reqwest::header::HeaderMap) -> bool {
        let given = headers
            .get("DPoP-Nonce")
            .and_then(|value| value.to_str().ok());
        let (Some(nonce), Some(origin)) = (given, origin(url)) else {
            return false;
        };
        self.nonces
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(origin, nonce.to_owned());
        true
    }
}

/// The origin of `url`, which its nonces are kept under.
fn origin(url: &str) -> Option<String> {
    Url::parse(url)
        .ok()
        .map(|url| url.origin().ascii_serialization())
}

impl OAuth {
    /// Asks for DPoP-bound tokens (RFC 9449), proving possession of `key`, from every
    /// authorization server that offers DPoP with ES256; those that do not are asked for
    /// bearer tokens. See [`DpopKey`] for keeping tokens across runs.
    ///
    /// ```
    /// use mcp_runtime::client::oauth::{DpopKey, LoopbackRedirect, OAuth};
    ///
    /// # fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let oauth = OAuth::new(LoopbackRedirect::bind()?).dpop(DpopKey::generate()?);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn dpop(self, key: DpopKey) -> Self {
        let dpop = Arc::new(Dpop::new(key));
        self.configure(|config| config.dpop = Some(dpop))
    }
}

impl Session {
    /// The client's DPoP, when it proves possession to the authorization server of
    /// `metadata`: configured, and offered there with ES256.
    pub(super) fn dpop_with(&self, metadata: &ServerMetadata) -> Option<&Dpop> {
        let offered = metadata
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|alg| alg == ALGORITHM));
        self.oauth.shared.config.dpop.as_deref().filter(|_| offered)
    }

    /// Sends a token request (a POST to `metadata`'s token endpoint): with a DPoP proof
    /// when the client proves possession there, and once more with the server's nonce
    /// when it asks for one (`use_dpop_nonce`). Every grant's token request goes through
    /// here. The status, the headers' nonce kept, and the body.
    pub(super) async fn send_token_request(
        &self,
        request: reqwest::RequestBuilder,
        metadata: &ServerMetadata,
    ) -> Result<(reqwest::StatusCode, Vec<u8>), AuthError> {
        let endpoint = &metadata.token_endpoint;
        let Some(dpop) = self.dpop_with(metadata) else {
            let (status, _, body) = post(request, endpoint).await?;
            return Ok((status, body));
        };
        let mut asked_for_nonce = false;
        loop {
            let proof = dpop.proof("POST", endpoint, None)?;
            let attempt = request
                .try_clone()
                .ok_or_else(|| token_error("a token request whose body cannot be sent twice"))?
                .header("DPoP", proof);
            let (status, headers, body) = post(attempt, endpoint).await?;
            let new_nonce = dpop.keep_nonce(endpoint, &headers);
            let wants_nonce = status == reqwest::StatusCode::BAD_REQUEST
                && serde_json::from_slice::<Value>(&body)
                    .is_ok_and(|answer| answer["error"] == "use_dpop_nonce");
            if !(wants_nonce && new_nonce) || asked_for_nonce {
                return Ok((status, body));
            }
            asked_for_nonce = true;
        }
    }

    /// Whether a token response's `token_type` fits the request made: `Bearer`, or `DPoP`
    /// when the request carried a proof. A DPoP-bound token is remembered as such.
    pub(super) fn accept_token_type(
        &self,
        token_type: &str,
        access_token: &str,
        metadata: &ServerMetadata,
    ) -> Result<(), AuthError> {
        let dpop = self.oauth.shared.config.dpop.as_deref();
        let forget = || {
            if let Some(dpop) = dpop {
                dpop.bound
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&self.server);
            }
        };
        if token_type.eq_ignore_ascii_case("bearer") {
            forget();
            return Ok(());
        }
        match self.dpop_with(metadata) {
            Some(dpop) if token_type.eq_ignore_ascii_case("dpop") => {
                dpop.bound
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(self.server.clone(), access_token_hash(access_token));
                Ok(())
            }
            _ => Err(AuthError::Token {
                error: format!(
                    "a `{token_type}` token, where a bearer{} token was expected",
                    if self.dpop_with(metadata).is_some() {
                        " or DPoP"
                    } else {
                        ""
                    }
                ),
                description: None,
            }),
        }
    }

    /// Puts `tokens` on a request to the MCP server: `Authorization: DPoP …` and a fresh
    /// proof when the token is DPoP-bound, `Authorization: Bearer …` otherwise.
    pub(crate) fn present(
        &self,
        request: &mut reqwest::Request,
        tokens: &Tokens,
    ) -> Result<(), AuthError> {
        let bound = self.oauth.shared.config.dpop.as_deref().filter(|dpop| {
            dpop.bound
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&self.server)
                .is_some_and(|ath| *ath == access_token_hash(&tokens.access_token))
        });
        let (scheme, proof) = match bound {
            Some(dpop) => {
                let proof = dpop.proof(
                    request.method().as_str(),
                    request.url().as_str(),
                    Some(&tokens.access_token),
                )?;
                ("DPoP", Some(proof))
            }
            None => ("Bearer", None),
        };
        let value = format!("{scheme} {}", tokens.access_token);
        let headers = request.headers_mut();
        let invalid = |_| AuthError::Token {
            error: "the access token cannot be sent in a header".to_owned(),
            description: None,
        };
        headers.insert(
            reqwest::header::AUTHORIZATION,
            reqwest::header::HeaderValue::from_str(&value).map_err(invalid)?,
        );
        if let Some(proof) = proof {
            headers.insert(
                "DPoP",
                reqwest::header::HeaderValue::from_str(&proof).map_err(invalid)?,
            );
        }
        Ok(())
    }

    /// Whether a refusal from the MCP server asks for a DPoP nonce (401, `DPoP
    /// error="use_dpop_nonce"` and a `DPoP-Nonce` header): then the nonce is kept, and the
    /// request is worth sending again.
    pub(crate) fn wants_nonce(&self, response: &reqwest::Response) -> bool {
        let Some(dpop) = self.oauth.shared.config.dpop.as_deref() else {
            return false;
        };
        let asks = response.status() == reqwest::StatusCode::UNAUTHORIZED
            && super::Challenge::of(401, response.headers())
                .is_some_and(|challenge| challenge.error.as_deref() == Some("use_dpop_nonce"));
        asks && dpop.keep_nonce(response.url().as_str(), response.headers())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_says_what_it_is_for_and_is_signed_by_its_key() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof(
                "POST",
                "https://mcp.example/mcp?x=1#f",
                Some("the-token"),
                Some("n-1"),
            )
            .unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert!(header["jwk"].get("d").is_none(), "{header}");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["ath"], access_token_hash("the-token"));
        assert_eq!(claims["nonce"], "n-1");
        let iat = claims["iat"].as_u64().unwrap();
        assert!(iat.abs_diff(now_secs()) <= 1, "{iat}");
        // The signature checks with the public key the header carries.
        let x = URL_SAFE_NO_PAD
            .decode(header["jwk"]["x"].as_str().unwrap())
            .unwrap();
        let y = URL_SAFE_NO_PAD
            .decode(header["jwk"]["y"].as_str().unwrap())
            .unwrap();
        let point = [&[4_u8][..], &x, &y].concat();
        let public = ring::signature::UnparsedPublicKey::new(
            &ring::signature::ECDSA_P256_SHA256_FIXED,
            point,
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        assert!(public.verify(signed.as_bytes(), &signature).is_ok());
        assert!(public.verify(b"something else", &signature).is_err());
    }

    #[test]
    fn each_proof_has_its_own_jti_and_no_ath_or_nonce_unless_given() {
        let key = DpopKey::generate().unwrap();
        let claims = |proof: String| decode(proof.split('.').nth(1).unwrap());
        let one = claims(key.proof("GET", "http://a/mcp", None, None).unwrap());
        let two = claims(key.proof("GET", "http://a/mcp", None, None).unwrap());
        assert_ne!(one["jti"], two["jti"]);
        assert!(one["jti"].as_str().is_some_and(|jti| jti.len() >= 16));
        assert!(
            one.get("ath").is_none() && one.get("nonce").is_none(),
            "{one}"
        );
        assert!(matches!(
            key.proof("GET", "not a url", None, None),
            Err(DpopError::NotAUrl { .. })
        ));
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 9449's example key (section 4.1) and the `jkt` it gives for it (section 6.1).
        let canonical = r#"{"crv":"P-256","kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"}"#;
        assert_eq!(
            URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())),
            "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        );
        let key = DpopKey::generate().unwrap();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            key.jwk["x"].as_str().unwrap(),
            key.jwk["y"].as_str().unwrap()
        );
        assert_eq!(
            key.thumbprint(),
            URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
        );
    }

    #[test]
    fn a_key_is_read_from_pkcs8_pem_and_anything_else_is_refused() {
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .unwrap();
        let pem = pem::encode(&pem::Pem::new("PRIVATE KEY", pkcs8.as_ref()));
        let body = pem.lines().nth(1).unwrap().to_owned();
        let one = DpopKey::from_pem(&pem).unwrap();
        let again = DpopKey::from_pem(&pem).unwrap();
        assert_eq!(one.thumbprint(), again.thumbprint());
        assert_eq!(DpopKey::from_pem("hello").unwrap_err(), DpopError::NotPem);
        let wrong = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----";
        assert!(matches!(DpopKey::from_pem(wrong), Err(DpopError::Key(_))));
        let sec1 = pem.replace("PRIVATE KEY", "EC PRIVATE KEY");
        assert_eq!(DpopKey::from_pem(&sec1).unwrap_err(), DpopError::NotPem);
        assert!(!format!("{one:?}").contains(&body));
    }
}
