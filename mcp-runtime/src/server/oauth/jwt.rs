//! Access tokens that are JWTs, checked against the authorization server's published keys:
//! signature, issuer, audience (RFC 8707), expiry and start. The keys are fetched when first
//! needed, kept, and fetched again when a token names a key not yet known (the authorization
//! server rotated its keys) or when they are old.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, errors::ErrorKind};
use serde_json::{Map, Value};

use super::issuer::{Issuer, IssuerError};
use super::proof::{ALGORITHMS, RSA};
use super::refusal::Refusal;
use super::{OAuthConfig, names_this_server};
use crate::auth::AuthInfo;

/// Whether tokens signed with `algorithm` are accepted: see [`ALGORITHMS`].
fn accepted(algorithm: Algorithm) -> bool {
    ALGORITHMS.contains(&algorithm)
}

/// How long fetched keys are used before they are fetched again.
const REFRESH_AFTER: Duration = Duration::from_secs(60 * 60);

/// How long fetched keys are still used when they cannot be fetched again.
const KEEP_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// The least time between two fetches that a token naming an unknown key may cause: a
/// stream of forged tokens does not become a stream of requests to the authorization
/// server.
const UNKNOWN_KEY_PAUSE: Duration = Duration::from_secs(1);

/// How many checked tokens are kept; when more come, those kept are forgotten at once.
const CHECKED_KEPT: usize = 4096;

/// The authorization server's signing keys, as far as they are known, and the one fetch of
/// them under way; and the tokens already checked with them.
#[derive(Default)]
pub(super) struct KeyStore {
    keys: RwLock<Keys>,
    /// One fetch at a time; those who wait use its keys.
    fetching: tokio::sync::Mutex<()>,
    /// Tokens whose signature, issuer and audience were checked with the keys there are,
    /// by the whole token: one presented again costs a lookup and a look at its expiry
    /// and start, not a signature check (tens of microseconds, nearly all that a token
    /// costs a call). Forgotten whenever the keys are fetched again, so a key the
    /// authorization server withdrew stops vouching for its tokens as it would without.
    checked: RwLock<HashMap<String, Checked>>,
}

/// A token checked once: whom it describes, and its times.
struct Checked {
    caller: Arc<AuthInfo>,
    /// `exp`, in seconds since the Unix epoch.
    expires: u64,
    /// `nbf`, if it has one.
    starts: Option<u64>,
}

impl Checked {
    /// Whether the token is good at `now`, give or take `leeway` seconds, as the full
    /// check would say.
    fn in_time(&self, now: u64, leeway: u64) -> bool {
        self.expires.saturating_add(leeway) >= now
            && self
                .starts
                .is_none_or(|starts| starts <= now.saturating_add(leeway))
    }
}

/// Seconds since the Unix epoch.
pub(super) fn unix_time() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// A numeric date claim (RFC 7519, section 2), in whole seconds.
fn seconds(claims: &Map<String, Value>, name: &str) -> Option<u64> {
    let value = claims.get(name)?;
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|secs| *secs >= 0.0)
            .map(|secs| secs as u64)
    })
}

#[derive(Default)]
struct Keys {
    by_id: HashMap<String, Key>,
    /// Keys without an id, tried in turn for a token that names none.
    unnamed: Vec<Key>,
    /// When they were fetched.
    fetched: Option<Instant>,
    /// When a fetch was last tried.
    tried: Option<Instant>,
    /// Where they are, once found through the authorization server's metadata.
    jwks_uri: Option<String>,
}

#[derive(Clone)]
struct Key {
    decoding: DecodingKey,
    /// The algorithms this key may sign with.
    algorithms: Vec<Algorithm>,
}

impl KeyStore {
    /// The caller a JWT describes, once its signature, issuer, audience, expiry and start
    /// are checked; or why it is refused.
    pub(super) async fn check(
        &self,
        token: &str,
        config: &OAuthConfig,
        issuer: &Issuer,
    ) -> Result<Arc<AuthInfo>, Refusal> {
        {
            let checked = self
                .checked
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(seen) = checked.get(token) {
                if seen.in_time(unix_time(), config.leeway.as_secs()) {
                    return Ok(Arc::clone(&seen.caller));
                }
            }
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|err| Refusal::Invalid(format!("the token is not a signed JWT ({err})")))?;
        if !accepted(header.alg) {
            return Err(Refusal::Invalid(format!(
                "the token is signed with {:?}, which this server does not accept",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref(), header.alg, issuer).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&config.issuer]);
        // Required, and compared below as URIs are, not as strings.
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = config.leeway.as_secs();
        let checked = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation);
        let claims = match checked {
            Ok(data) => data.claims,
            Err(err) => {
                self.forget(token);
                return Err(Refusal::Invalid(explain(err.kind())));
            }
        };
        if !claims
            .get("aud")
            .is_some_and(|aud| names_this_server(aud, &config.resource))
        {
            return Err(Refusal::Invalid(explain(&ErrorKind::InvalidAudience)));
        }
        let (expires, starts) = (seconds(&claims, "exp"), seconds(&claims, "nbf"));
        let caller = Arc::new(AuthInfo::from_claims(claims));
        if let Some(expires) = expires {
            let mut checked = self
                .checked
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if checked.len() >= CHECKED_KEPT {
                checked.clear();
            }
            let caller = Arc::clone(&caller);
            checked.insert(
                token.to_owned(),
                Checked {
                    caller,
                    expires,
                    starts,
                },
            );
        }
        Ok(caller)
    }

    /// Forgets a token checked before, now refused.
    fn forget(&self, token: &str) {
        self.checked
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(token);
    }

    /// The key `kid` names, able to check `algorithm`; fetched first when not known.
    async fn key(
        &self,
        kid: Option<&str>,
        algorithm: Algorithm,
        issuer: &Issuer,
    ) -> Result<Key, Refusal> {
        let found = |keys: &Keys| -> Option<Key> {
            let fits = |key: &&Key| key.algorithms.contains(&algorithm);
            match kid {
                Some(kid) => keys.by_id.get(kid).filter(fits).cloned(),
                None => keys.unnamed.iter().find(fits).cloned(),
            }
        };
        let (known, fresh, may_fetch) = {
            let keys = self
                .keys
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let fresh = keys.fetched.is_some_and(|at| at.elapsed() < REFRESH_AFTER);
            let may_fetch = keys
                .tried
                .is_none_or(|at| at.elapsed() >= UNKNOWN_KEY_PAUSE);
            (found(&keys), fresh, may_fetch)
        };
        if let (Some(key), true) = (&known, fresh) {
            return Ok(key.clone());
        }
        if may_fetch || !fresh {
            self.fetch(issuer).await?;
        }
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        found(&keys).ok_or_else(|| {
            Refusal::Invalid(match kid {
                Some(kid) => format!("the token is signed with a key (`{kid}`) the authorization server does not publish for {algorithm:?}"),
                None => format!("the token names no key, and no key of the authorization server checks {algorithm:?}"),
            })
        })
    }

    /// Fetches the keys, unless another fetch just did. A failure keeps the keys there are
    /// while they are young enough ([`KEEP_FOR`]); past that, requests are refused.
    async fn fetch(&self, issuer: &Issuer) -> Result<(), Refusal> {
        let started = Instant::now();
        let _one = self.fetching.lock().await;
        let (jwks_uri, kept) = {
            let keys = self
                .keys
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if keys.tried.is_some_and(|at| at >= started) {
                // Fetched while this waited.
                return Ok(());
            }
            let kept = keys.fetched.is_some_and(|at| at.elapsed() < KEEP_FOR);
            (keys.jwks_uri.clone(), kept)
        };
        let fetched = fetch_keys(issuer, jwks_uri).await;
        let mut keys = self
            .keys
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        keys.tried = Some(Instant::now());
        match fetched {
            Ok((jwks_uri, fresh)) => {
                *keys = Keys {
                    jwks_uri: Some(jwks_uri),
                    fetched: keys.tried,
                    ..fresh
                };
                drop(keys);
                self.checked
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clear();
                Ok(())
            }
            Err(why) if kept => {
                tracing::warn!(issuer = %issuer.name(), "{why}; the keys fetched before are used meanwhile");
                Ok(())
            }
            Err(why) => {
                tracing::error!(issuer = %issuer.name(), "{why}; access tokens cannot be checked, so requests are refused");
                Err(Refusal::Unavailable(format!(
                    "the authorization server's keys cannot be fetched: {why}"
                )))
            }
        }
    }
}

/// Why the authorization server's keys are not had.
#[derive(Debug, thiserror::Error)]
enum KeysError {
    /// The metadata, or the key set, could not be fetched.
    #[error(transparent)]
    Fetch(#[from] IssuerError),
    /// The key set holds no key that checks a signature this server accepts.
    #[error("{jwks_uri} has no key this server can check a signature with")]
    NoUsableKey {
        /// Where the key set is.
        jwks_uri: String,
    },
}

/// The keys at `jwks_uri`, found first through the issuer's metadata when not known.
async fn fetch_keys(
    issuer: &Issuer,
    jwks_uri: Option<String>,
) -> Result<(String, Keys), KeysError> {
    let jwks_uri = match jwks_uri {
        Some(uri) => uri,
        None => issuer.endpoint("jwks_uri").await?,
    };
    let set: JwkSet = issuer.get_json(&jwks_uri).await?;
    let mut keys = Keys::default();
    for jwk in &set.keys {
        let Some(key) = usable(jwk) else { continue };
        match &jwk.common.key_id {
            Some(kid) => {
                keys.by_id.insert(kid.clone(), key);
            }
            None => keys.unnamed.push(key),
        }
    }
    if keys.by_id.is_empty() && keys.unnamed.is_empty() {
        return Err(KeysError::NoUsableKey { jwks_uri });
    }
    Ok((jwks_uri, keys))
}

/// A key of a JWK set that can check signatures, with the algorithms it may check.
fn usable(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    let family: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => RSA.to_vec(),
        AlgorithmParameters::EllipticCurve(params) => match params.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(_) => vec![Algorithm::EdDSA],
        // A shared secret is not published, and would let anyone sign.
        AlgorithmParameters::OctetKey(_) => return None,
    };
    let algorithms = match jwk.common.key_algorithm {
        // A key that names its algorithm checks that one only.
        Some(named) => {
            let named = signing(named)?;
            family.into_iter().filter(|alg| *alg == named).collect()
        }
        None => family,
    };
    if algorithms.is_empty() {
        return None;
    }
    let decoding = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key {
        decoding,
        algorithms,
    })
}

/// The signing algorithm a JWK's `alg` names, if it names one.
fn signing(algorithm: KeyAlgorithm) -> Option<Algorithm> {
    Some(match algorithm {
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

/// What was wrong with a token, for its client.
fn explain(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidAudience => {
            "the token is not for this server: its audience (aud) does not name it".to_owned()
        }
        ErrorKind::InvalidIssuer => {
            "the token is from another issuer (iss) than this server trusts".to_owned()
        }
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidAlgorithm => {
            "the token's algorithm does not fit the key that signed it".to_owned()
        }
        other => format!("the token cannot be read ({other:?})"),
    }
}
