//! DPoP (RFC 9449): a token bound to a key (its `cnf.jkt`, whether from the JWT or from
//! introspection) is taken only with `Authorization: DPoP …` and a proof, in the `DPoP`
//! header, that the caller holds the key, made for this very request. The proof is a JWT
//! (`typ: dpop+jwt`) signed with an asymmetric key it carries (`jwk`), and it must say:
//!
//! - that key's thumbprint (RFC 7638) is the token's `cnf.jkt`;
//! - `htm`: the request's method; `htu`: the request's URL as clients address it, which is
//!   the configured resource for the MCP endpoint (the request's own `Host` may be a
//!   proxy's), its query and fragment aside;
//! - `ath`: the hash of the access token sent with it;
//! - `iat`: made within the last five minutes (give or take the configured leeway);
//! - `jti`: an id not seen in any proof taken before, remembered as long as the proof would
//!   be fresh.
//!
//! Anything else is refused, 401 with `WWW-Authenticate: DPoP error="invalid_dpop_proof"`
//! and what was wrong. A bound token sent as `Bearer`, and an unbound one sent as `DPoP`,
//! are refused as `invalid_token`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use axum::http::{HeaderMap, Method, Uri};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::proof::{ALGORITHMS, ProofError};
use super::refusal::Refusal;
use super::{OAuthConfig, canonical};
use crate::auth::AuthInfo;

/// How old a proof may be, in seconds, besides the configured leeway.
pub(super) const MAX_AGE_SECS: u64 = 5 * 60;

/// How many proof ids are remembered at most. When they are all still fresh, a new proof
/// is refused for the moment (503) rather than an id forgotten early.
const REMEMBERED: usize = 65_536;

/// The scheme an access token came with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scheme {
    /// `Authorization: Bearer …`.
    Bearer,
    /// `Authorization: DPoP …`.
    Dpop,
}

/// The scheme and token of an `Authorization` header: `Bearer` or `DPoP`, in any case.
pub(super) fn credentials(authorization: Option<&str>) -> Option<(Scheme, &str)> {
    let (scheme, token) = authorization?.trim().split_once(' ')?;
    let token = token.trim();
    if token.is_empty() {
        return None;
    }
    if scheme.eq_ignore_ascii_case("bearer") {
        Some((Scheme::Bearer, token))
    } else if scheme.eq_ignore_ascii_case("dpop") {
        Some((Scheme::Dpop, token))
    } else {
        None
    }
}

/// The request, as far as its proof is checked against it.
pub(super) struct Presented<'a> {
    pub(super) method: &'a Method,
    pub(super) uri: &'a Uri,
    pub(super) headers: &'a HeaderMap,
    pub(super) scheme: Scheme,
    pub(super) token: &'a str,
}

/// The proof ids seen, each with when it may be forgotten (seconds since the Unix epoch).
#[derive(Debug, Default)]
pub(super) struct Proofs {
    seen: Mutex<HashMap<[u8; 32], u64>>,
}

impl Proofs {
    /// Whether `presented` may use the token that describes `caller`: with the scheme its
    /// binding asks for, and, when bound, with a good proof, not seen before.
    pub(super) fn check(
        &self,
        presented: &Presented<'_>,
        caller: &AuthInfo,
        config: &OAuthConfig,
        now: u64,
    ) -> Result<(), Refusal> {
        let jkt = caller
            .claims()
            .get("cnf")
            .and_then(|cnf| cnf.get("jkt"))
            .and_then(Value::as_str);
        let Some(jkt) = jkt else {
            return match presented.scheme {
                Scheme::Bearer => Ok(()),
                Scheme::Dpop => Err(Refusal::Proof(ProofError::NotBound)),
            };
        };
        if presented.scheme != Scheme::Dpop {
            return Err(Refusal::Proof(ProofError::SentAsBearer));
        }
        let claims = proof_claims(presented.headers, jkt).map_err(Refusal::Proof)?;
        let expected = expected_htu(presented.uri, &config.resource);
        let jti = check_claims(&claims, presented, &expected, config.leeway, now)
            .map_err(Refusal::Proof)?;
        self.remember(
            jkt,
            jti,
            now.saturating_add(MAX_AGE_SECS + config.leeway.as_secs()),
        )
    }

    /// Remembers a proof's id until `until`; refuses it when it was seen before.
    fn remember(&self, jkt: &str, jti: &str, until: u64) -> Result<(), Refusal> {
        let id: [u8; 32] = Sha256::new()
            .chain_update(jkt.as_bytes())
            .chain_update(b".")
            .chain_update(jti.as_bytes())
            .finalize()
            .into();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seen.contains_key(&id) {
            return Err(Refusal::Proof(ProofError::Replayed));
        }
        if seen.len() >= REMEMBERED {
            let now = until.saturating_sub(MAX_AGE_SECS);
            seen.retain(|_, forget_at| *forget_at > now);
            if seen.len() >= REMEMBERED {
                return Err(Refusal::Unavailable(
                    "too many DPoP proofs to remember at once; try again shortly".to_owned(),
                ));
            }
        }
        seen.insert(id, until);
        Ok(())
    }
}

/// The claims of the request's one proof, once its type, algorithm, key, signature and the
/// key's thumbprint (`jkt`) are checked.
fn proof_claims(headers: &HeaderMap, jkt: &str) -> Result<Map<String, Value>, ProofError> {
    let mut proofs = headers.get_all("DPoP").iter();
    let proof = proofs.next().ok_or(ProofError::Missing)?;
    if proofs.next().is_some() {
        return Err(ProofError::Several);
    }
    let proof = proof
        .to_str()
        .map_err(|_| ProofError::Malformed("it is not text".to_owned()))?;
    let header = proof
        .split('.')
        .next()
        .and_then(|part| URL_SAFE_NO_PAD.decode(part).ok())
        .and_then(|bytes| serde_json::from_slice::<Map<String, Value>>(&bytes).ok())
        .ok_or_else(|| ProofError::Malformed("its header is not base64url JSON".to_owned()))?;
    if header.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
        return Err(ProofError::Type);
    }
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or("none");
    let algorithm = alg
        .parse::<Algorithm>()
        .ok()
        .filter(|algorithm| ALGORITHMS.contains(algorithm))
        .ok_or_else(|| ProofError::Algorithm(alg.to_owned()))?;
    let jwk = header
        .get("jwk")
        .and_then(Value::as_object)
        .ok_or_else(|| ProofError::Key("there is none".to_owned()))?;
    if ["d", "p", "q", "dp", "dq", "qi", "k"]
        .iter()
        .any(|private| jwk.contains_key(*private))
    {
        return Err(ProofError::Key("it holds a private key".to_owned()));
    }
    let key = serde_json::from_value::<Jwk>(Value::Object(jwk.clone()))
        .ok()
        .and_then(|jwk| DecodingKey::from_jwk(&jwk).ok())
        .ok_or_else(|| ProofError::Key("it does not parse".to_owned()))?;
    let mut validation = Validation::new(algorithm);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    let claims = jsonwebtoken::decode::<Map<String, Value>>(proof, &key, &validation)
        .map_err(|_| ProofError::Signature)?
        .claims;
    if thumbprint(jwk).as_deref() != Some(jkt) {
        return Err(ProofError::Thumbprint);
    }
    Ok(claims)
}

/// The checks of a proof's claims against the request: `htm`, `htu`, `iat`, `ath`; its
/// `jti`.
fn check_claims<'a>(
    claims: &'a Map<String, Value>,
    presented: &Presented<'_>,
    expected_htu: &str,
    leeway: Duration,
    now: u64,
) -> Result<&'a str, ProofError> {
    let text = |name: &'static str| {
        claims
            .get(name)
            .and_then(Value::as_str)
            .ok_or(ProofError::Claim(name))
    };
    let jti = text("jti").and_then(|jti| {
        if jti.is_empty() {
            Err(ProofError::Claim("jti"))
        } else {
            Ok(jti)
        }
    })?;
    let htm = text("htm")?;
    if htm != presented.method.as_str() {
        return Err(ProofError::Method {
            found: htm.to_owned(),
            expected: presented.method.to_string(),
        });
    }
    let htu = text("htu")?;
    if without_query(htu) != expected_htu {
        return Err(ProofError::Url {
            found: htu.to_owned(),
            expected: expected_htu.to_owned(),
        });
    }
    let iat = claims
        .get("iat")
        .and_then(Value::as_u64)
        .ok_or(ProofError::Claim("iat"))?;
    let leeway = leeway.as_secs();
    if iat > now.saturating_add(leeway) {
        return Err(ProofError::Stale {
            iat,
            why: format!("ahead of this server's clock ({now})"),
        });
    }
    if now.saturating_sub(iat) > MAX_AGE_SECS + leeway {
        return Err(ProofError::Stale {
            iat,
            why: format!("more than {} seconds before {now}", MAX_AGE_SECS + leeway),
        });
    }
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(presented.token.as_bytes()));
    if text("ath")? != ath {
        return Err(ProofError::TokenHash);
    }
    Ok(jti)
}

/// The URL a proof for a request at `uri` must name: the configured `resource` for the MCP
/// endpoint, since that is this server as clients address it (behind a proxy, the request
/// holds the proxy's view); for any other path, that path at the resource's origin.
fn expected_htu(uri: &Uri, resource: &str) -> String {
    if uri.path() == "/mcp" {
        return without_query(resource);
    }
    match url::Url::parse(resource) {
        Ok(resource) => without_query(&format!(
            "{}{}",
            resource.origin().ascii_serialization(),
            uri.path()
        )),
        Err(_) => without_query(resource),
    }
}

/// `url` without its query and fragment, in the form [`canonical`] gives.
fn without_query(url: &str) -> String {
    let cut = url.find(['?', '#']).map_or(url, |at| &url[..at]);
    canonical(cut)
}

/// The RFC 7638 thumbprint of a public JWK: SHA-256 of its required members, in order,
/// as JSON without spaces; base64url. `None` for a key type it does not know.
fn thumbprint(jwk: &Map<String, Value>) -> Option<String> {
    let kty = jwk.get("kty")?.as_str()?;
    let members: &[&str] = match kty {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut required = Map::new();
    for member in members {
        required.insert(
            (*member).to_owned(),
            Value::String(jwk.get(*member)?.as_str()?.to_owned()),
        );
    }
    // serde_json keeps the order of insertion, which is the order above.
    let json = Value::Object(required).to_string();
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(json.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    use serde_json::json;

    const RESOURCE: &str = "https://mcp.example/public/mcp";
    const TOKEN: &str = "the-access-token";
    const NOW: u64 = 1_800_000_000;

    /// A P-256 key of the test's own, and its public JWK.
    struct Key {
        pair: EcdsaKeyPair,
        jwk: Value,
    }

    impl Key {
        fn new() -> Self {
            let rng = SystemRandom::new();
            let pkcs8 =
                EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
            let pair =
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
                    .unwrap();
            let point = pair.public_key().as_ref().to_vec();
            let jwk = json!({
                "kty": "EC",
                "crv": "P-256",
                "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
            });
            Self { pair, jwk }
        }

        fn jkt(&self) -> String {
            thumbprint(self.jwk.as_object().unwrap()).unwrap()
        }

        /// A proof with `header` and `claims`, signed ES256.
        fn sign(&self, header: &Value, claims: &Value) -> String {
            let input = format!(
                "{}.{}",
                URL_SAFE_NO_PAD.encode(header.to_string()),
                URL_SAFE_NO_PAD.encode(claims.to_string())
            );
            let signature = self
                .pair
                .sign(&SystemRandom::new(), input.as_bytes())
                .unwrap();
            format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
        }

        fn header(&self) -> Value {
            json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk })
        }

        /// A good proof for a POST to the resource, with `jti`, changed by `change`.
        fn proof(&self, jti: &str, change: impl FnOnce(&mut Value)) -> String {
            let mut claims = good_claims(jti);
            change(&mut claims);
            self.sign(&self.header(), &claims)
        }
    }

    fn good_claims(jti: &str) -> Value {
        json!({
            "jti": jti,
            "htm": "POST",
            "htu": RESOURCE,
            "iat": NOW,
            "ath": URL_SAFE_NO_PAD.encode(Sha256::digest(TOKEN.as_bytes())),
        })
    }

    fn bound_to(jkt: &str) -> AuthInfo {
        AuthInfo::from_claims(
            json!({ "sub": "u", "cnf": { "jkt": jkt } })
                .as_object()
                .unwrap()
                .clone(),
        )
    }

    /// `proofs`' verdict on a request with `proof` and `scheme`, by a caller bound to `jkt`
    /// (none: unbound), sent as `method` to `path` at `NOW`.
    fn verdict(
        proofs: &Proofs,
        proof: Option<&str>,
        scheme: Scheme,
        caller: &AuthInfo,
        method: &str,
        path: &str,
    ) -> Result<(), Refusal> {
        let mut headers = HeaderMap::new();
        if let Some(proof) = proof {
            headers.insert("DPoP", proof.parse().unwrap());
        }
        // The request as a proxy passed it on: another host, and a query.
        let uri: Uri = format!("http://10.0.0.7:8080{path}?session=1")
            .parse()
            .unwrap();
        let method: Method = method.parse().unwrap();
        let presented = Presented {
            method: &method,
            uri: &uri,
            headers: &headers,
            scheme,
            token: TOKEN,
        };
        proofs.check(
            &presented,
            caller,
            &OAuthConfig::new("https://as.example", RESOURCE),
            NOW,
        )
    }

    fn refused(result: Result<(), Refusal>) -> ProofError {
        match result {
            Err(Refusal::Proof(wrong)) => wrong,
            other => panic!("expected a refused proof, got {other:?}"),
        }
    }

    #[test]
    fn a_good_proof_is_taken_once_and_its_replay_refused() {
        let (key, proofs) = (Key::new(), Proofs::default());
        let caller = bound_to(&key.jkt());
        let proof = key.proof("one", |_| {});
        assert_eq!(
            verdict(&proofs, Some(&proof), Scheme::Dpop, &caller, "POST", "/mcp"),
            Ok(())
        );
        assert_eq!(
            refused(verdict(
                &proofs,
                Some(&proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp"
            )),
            ProofError::Replayed
        );
        // Another id is another proof.
        let next = key.proof("two", |_| {});
        assert_eq!(
            verdict(&proofs, Some(&next), Scheme::Dpop, &caller, "POST", "/mcp"),
            Ok(())
        );
    }

    #[test]
    fn a_proof_for_another_method_is_refused() {
        let key = Key::new();
        let proof = key.proof("m", |claims| claims["htm"] = json!("GET"));
        let wrong = refused(verdict(
            &Proofs::default(),
            Some(&proof),
            Scheme::Dpop,
            &bound_to(&key.jkt()),
            "POST",
            "/mcp",
        ));
        assert!(matches!(wrong, ProofError::Method { .. }), "{wrong:?}");
        // The same proof is good for the method it names.
        let proof = key.proof("m2", |claims| claims["htm"] = json!("DELETE"));
        assert_eq!(
            verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &bound_to(&key.jkt()),
                "DELETE",
                "/mcp"
            ),
            Ok(())
        );
    }

    #[test]
    fn a_proof_for_another_url_is_refused_and_the_resource_is_this_servers_address() {
        let key = Key::new();
        let caller = bound_to(&key.jkt());
        for other in [
            "https://mcp.example/other/mcp",
            "https://evil.example/public/mcp",
            "http://mcp.example/public/mcp",
            "http://10.0.0.7:8080/mcp",
        ] {
            let proof = key.proof(other, |claims| claims["htu"] = json!(other));
            let wrong = refused(verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp",
            ));
            assert!(
                matches!(wrong, ProofError::Url { .. }),
                "{other}: {wrong:?}"
            );
        }
        // Query, fragment, the case of the host and a default port aside.
        for same in [
            "https://mcp.example/public/mcp?x=1",
            "https://MCP.example:443/public/mcp#f",
        ] {
            let proof = key.proof(same, |claims| claims["htu"] = json!(same));
            assert_eq!(
                verdict(
                    &Proofs::default(),
                    Some(&proof),
                    Scheme::Dpop,
                    &caller,
                    "POST",
                    "/mcp"
                ),
                Ok(()),
                "{same}"
            );
        }
        // Another path of the server is that path at the resource's origin.
        let proof = key.proof("metrics", |claims| {
            claims["htu"] = json!("https://mcp.example/metrics")
        });
        assert_eq!(
            verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/metrics"
            ),
            Ok(())
        );
    }

    #[test]
    fn a_proof_that_does_not_bind_the_token_sent_is_refused() {
        let key = Key::new();
        let caller = bound_to(&key.jkt());
        let other = URL_SAFE_NO_PAD.encode(Sha256::digest(b"another-token"));
        let proof = key.proof("a", |claims| claims["ath"] = json!(other));
        assert_eq!(
            refused(verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp"
            )),
            ProofError::TokenHash
        );
        let proof = key.proof("b", |claims| {
            claims.as_object_mut().unwrap().remove("ath");
        });
        assert_eq!(
            refused(verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp"
            )),
            ProofError::Claim("ath")
        );
    }

    #[test]
    fn a_proof_made_too_long_ago_or_ahead_of_the_clock_is_refused() {
        let key = Key::new();
        let caller = bound_to(&key.jkt());
        // The leeway is a minute by default.
        let window = MAX_AGE_SECS + 60;
        for (iat, good) in [
            (NOW - window, true),
            (NOW - window - 1, false),
            (NOW + 60, true),
            (NOW + 61, false),
        ] {
            let proof = key.proof(&format!("t{iat}"), |claims| claims["iat"] = json!(iat));
            let result = verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp",
            );
            if good {
                assert_eq!(result, Ok(()), "{iat}");
            } else {
                assert!(matches!(refused(result), ProofError::Stale { .. }), "{iat}");
            }
        }
    }

    #[test]
    fn a_proof_by_a_key_the_token_is_not_bound_to_is_refused() {
        let (key, stranger) = (Key::new(), Key::new());
        let proof = stranger.proof("k", |_| {});
        assert_eq!(
            refused(verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &bound_to(&key.jkt()),
                "POST",
                "/mcp"
            )),
            ProofError::Thumbprint
        );
    }

    #[test]
    fn a_bound_token_needs_the_dpop_scheme_and_a_proof_and_an_unbound_one_the_bearer_scheme() {
        let key = Key::new();
        let caller = bound_to(&key.jkt());
        let proof = key.proof("s", |_| {});
        assert_eq!(
            refused(verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Bearer,
                &caller,
                "POST",
                "/mcp"
            )),
            ProofError::SentAsBearer
        );
        assert_eq!(
            refused(verdict(
                &Proofs::default(),
                None,
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp"
            )),
            ProofError::Missing
        );
        let unbound = AuthInfo::from_claims(Map::new());
        assert_eq!(
            verdict(
                &Proofs::default(),
                None,
                Scheme::Bearer,
                &unbound,
                "POST",
                "/mcp"
            ),
            Ok(())
        );
        assert_eq!(
            refused(verdict(
                &Proofs::default(),
                Some(&proof),
                Scheme::Dpop,
                &unbound,
                "POST",
                "/mcp"
            )),
            ProofError::NotBound
        );
        assert_eq!(credentials(Some("DPoP abc")), Some((Scheme::Dpop, "abc")));
        assert_eq!(
            credentials(Some("bearer abc")),
            Some((Scheme::Bearer, "abc"))
        );
        assert_eq!(credentials(Some("Basic abc")), None);
        assert_eq!(credentials(Some("DPoP ")), None);
    }

    #[test]
    fn a_proof_that_is_not_signed_by_its_own_public_key_as_a_dpop_jwt_is_refused() {
        let key = Key::new();
        let caller = bound_to(&key.jkt());
        let check = |proof: &str| {
            refused(verdict(
                &Proofs::default(),
                Some(proof),
                Scheme::Dpop,
                &caller,
                "POST",
                "/mcp",
            ))
        };
        // Claims changed after signing.
        let good = key.proof("x", |_| {});
        let parts: Vec<&str> = good.split('.').collect();
        let mut claims = good_claims("y");
        claims["htm"] = json!("POST");
        let forged = format!(
            "{}.{}.{}",
            parts[0],
            URL_SAFE_NO_PAD.encode(claims.to_string()),
            parts[2]
        );
        assert_eq!(check(&forged), ProofError::Signature);
        let mut header = key.header();
        header["typ"] = json!("JWT");
        assert_eq!(
            check(&key.sign(&header, &good_claims("z"))),
            ProofError::Type
        );
        for alg in ["HS256", "none"] {
            let mut header = key.header();
            header["alg"] = json!(alg);
            assert_eq!(
                check(&key.sign(&header, &good_claims(alg))),
                ProofError::Algorithm(alg.to_owned())
            );
        }
        let mut header = key.header();
        header["jwk"]["d"] = json!("AAAA");
        assert!(matches!(
            check(&key.sign(&header, &good_claims("d"))),
            ProofError::Key(_)
        ));
        assert!(matches!(check("not.a-proof"), ProofError::Malformed(_)));
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s_as_rfc_9449_gives_it() {
        let jwk = json!({
            "kty": "EC",
            "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
            "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
            "crv": "P-256",
        });
        assert_eq!(
            thumbprint(jwk.as_object().unwrap()).as_deref(),
            Some("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        );
    }

    #[test]
    fn a_refused_proof_gets_a_dpop_challenge_naming_what_was_wrong() {
        let config = OAuthConfig::new("https://as.example", RESOURCE);
        let response = Refusal::Proof(ProofError::TokenHash).response(&config);
        assert_eq!(response.status(), axum::http::StatusCode::UNAUTHORIZED);
        let challenge = response.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.starts_with(
                "DPoP error=\"invalid_dpop_proof\", error_description=\"the DPoP proof's `ath`"
            ),
            "{challenge}"
        );
        let response = Refusal::Proof(ProofError::SentAsBearer).response(&config);
        let challenge = response.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.starts_with("DPoP error=\"invalid_token\""),
            "{challenge}"
        );
    }
}
