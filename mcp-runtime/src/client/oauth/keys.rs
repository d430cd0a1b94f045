//! The private key a client signs its JWT client assertions with (`private_key_jwt`, RFC
//! 7523, section 2.2): read from a PEM file (PKCS#8, or PKCS#1 for RSA) or a JWK, its
//! algorithm found by signing with it (ES256, ES384, RS256 or EdDSA), unless the JWK names
//! one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use const_oid::db::rfc5912::{ID_EC_PUBLIC_KEY, RSA_ENCRYPTION, SECP_256_R_1, SECP_384_R_1};
use const_oid::db::rfc8410::ID_ED_25519;
use der::asn1::{AnyRef, OctetStringRef, UintRef};
use der::{Decode as _, Encode as _};
use jsonwebtoken::{Algorithm, EncodingKey};
use pkcs8::{AlgorithmIdentifierRef, ObjectIdentifier, PrivateKeyInfoRef};
use serde::Deserialize;

/// Why a signing key could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key's file could not be read.
    #[error("reading the key file {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The text is not a PEM private key this client takes.
    #[error(
        "not a PEM private key: {0} (give a PKCS#8 `PRIVATE KEY`, e.g. from `openssl pkcs8 -topk8 -nocrypt`, or an `RSA PRIVATE KEY`)"
    )]
    Pem(String),
    /// The text is not a private JWK this client takes.
    #[error("not a private JWK: {0}")]
    Jwk(String),
    /// The key parses, but signs with none of the algorithms this client knows, or not
    /// with the one its JWK names.
    #[error("the key does not sign with {0}")]
    Unsupported(String),
}

/// A private key for JWT client assertions. Its Debug output names its algorithm and key
/// id, never the key.
///
/// ```no_run
/// use mcp_runtime::client::oauth::SigningKey;
///
/// let key = SigningKey::from_pem_file("client-key.pem")?;
/// assert_eq!(key.algorithm(), "ES256");
/// # Ok::<(), mcp_runtime::client::oauth::KeyError>(())
/// ```
#[derive(Clone)]
pub struct SigningKey {
    algorithm: Algorithm,
    key: Arc<EncodingKey>,
    /// The DER the key was made of: what two keys are compared by.
    der: Arc<[u8]>,
    key_id: Option<String>,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("algorithm", &self.algorithm)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

impl PartialEq for SigningKey {
    fn eq(&self, other: &Self) -> bool {
        self.algorithm == other.algorithm && self.der == other.der && self.key_id == other.key_id
    }
}

impl Eq for SigningKey {}

impl SigningKey {
    /// A key from PEM text: a PKCS#8 `PRIVATE KEY` (EC P-256 or P-384, RSA, Ed25519) or a
    /// PKCS#1 `RSA PRIVATE KEY`.
    pub fn from_pem(pem: &str) -> Result<Self, KeyError> {
        let block = pem::parse(pem).map_err(|err| KeyError::Pem(err.to_string()))?;
        match block.tag() {
            "PRIVATE KEY" => from_pkcs8(block.into_contents(), None),
            "RSA PRIVATE KEY" => {
                let der = block.into_contents();
                probe(rsa(&der), RSA, der, None)
            }
            other => Err(KeyError::Pem(format!("a `{other}` block"))),
        }
    }

    /// A key from the PEM file at `path`.
    pub fn from_pem_file(path: impl AsRef<Path>) -> Result<Self, KeyError> {
        Self::from_pem(&read(path.as_ref())?)
    }

    /// A key from a private JWK (RFC 7517): `EC` (P-256, P-384), `RSA` or `OKP`
    /// (Ed25519). Its `kid` goes into the assertions' header, and its `alg`, when given,
    /// must be one the key signs with.
    pub fn from_jwk(json: &str) -> Result<Self, KeyError> {
        let jwk: Jwk = serde_json::from_str(json).map_err(|err| KeyError::Jwk(err.to_string()))?;
        let named = match &jwk.alg {
            Some(alg) => Some(
                alg.parse::<Algorithm>()
                    .map_err(|_| KeyError::Unsupported(alg.clone()))?,
            ),
            None => None,
        };
        let mut key = match jwk.kty.as_str() {
            "EC" => {
                let der = ec_pkcs8(&jwk)?;
                probe(EncodingKey::from_ec_der(&der), EC, der, named)
            }
            "OKP" if jwk.crv.as_deref() == Some("Ed25519") => {
                let der = ed25519_pkcs8(&jwk.part("d")?)?;
                probe(EncodingKey::from_ed_der(&der), ED, der, named)
            }
            "RSA" => {
                let der = rsa_pkcs1(&jwk)?;
                probe(rsa(&der), RSA, der, named)
            }
            other => Err(KeyError::Jwk(format!("the key type `{other}`"))),
        }?;
        key.key_id = jwk.kid;
        Ok(key)
    }

    /// A key from the JWK file at `path`.
    pub fn from_jwk_file(path: impl AsRef<Path>) -> Result<Self, KeyError> {
        Self::from_jwk(&read(path.as_ref())?)
    }

    /// Names the key in the assertions' header (`kid`), for an authorization server that
    /// knows several of the client's keys.
    #[must_use]
    pub fn key_id(mut self, kid: impl Into<String>) -> Self {
        self.key_id = Some(kid.into());
        self
    }

    /// The JWS algorithm the key signs with (`ES256`, `ES384`, `RS256`, `EdDSA`, …).
    pub fn algorithm(&self) -> &'static str {
        match self.algorithm {
            Algorithm::ES256 => "ES256",
            Algorithm::ES384 => "ES384",
            Algorithm::RS256 => "RS256",
            Algorithm::RS384 => "RS384",
            Algorithm::RS512 => "RS512",
            Algorithm::PS256 => "PS256",
            Algorithm::PS384 => "PS384",
            Algorithm::PS512 => "PS512",
            Algorithm::EdDSA => "EdDSA",
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => "HMAC",
        }
    }

    /// `claims` signed: a compact JWS with the key's algorithm and id.
    pub(crate) fn sign(&self, claims: &serde_json::Value) -> Result<String, KeyError> {
        let mut header = jsonwebtoken::Header::new(self.algorithm);
        header.kid.clone_from(&self.key_id);
        jsonwebtoken::encode(&header, claims, &self.key)
            .map_err(|err| KeyError::Unsupported(format!("{:?}: {err}", self.algorithm)))
    }
}

fn read(path: &Path) -> Result<String, KeyError> {
    std::fs::read_to_string(path).map_err(|source| KeyError::Read {
        path: path.to_owned(),
        source,
    })
}

/// A PKCS#8 key: EC and Ed25519 keys as they are, an RSA key's inner PKCS#1 one.
fn from_pkcs8(der: Vec<u8>, named: Option<Algorithm>) -> Result<SigningKey, KeyError> {
    let info = PrivateKeyInfoRef::from_der(&der)
        .map_err(|err| KeyError::Pem(format!("its PKCS#8 structure: {err}")))?;
    if info.algorithm.oid == RSA_ENCRYPTION {
        let pkcs1 = info.private_key.as_bytes().to_vec();
        return probe(rsa(&pkcs1), RSA, pkcs1, named);
    }
    match probe(EncodingKey::from_ec_der(&der), EC, der.clone(), named) {
        Ok(key) => Ok(key),
        Err(_) => probe(EncodingKey::from_ed_der(&der), ED, der, named),
    }
}

fn rsa(pkcs1: &[u8]) -> EncodingKey {
    EncodingKey::from_rsa_der(pkcs1)
}

/// The algorithms of EC keys (P-256, P-384), in the order they are tried.
const EC: &[Algorithm] = &[Algorithm::ES256, Algorithm::ES384];
/// The algorithm of Ed25519 keys.
const ED: &[Algorithm] = &[Algorithm::EdDSA];
/// The algorithms of RSA keys: RS256 unless the JWK names another.
const RSA: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];

/// The key with the first algorithm of `family` it signs with, or with `named` if that is
/// of the family and the key signs with it.
fn probe(
    key: EncodingKey,
    family: &[Algorithm],
    der: Vec<u8>,
    named: Option<Algorithm>,
) -> Result<SigningKey, KeyError> {
    let candidates = named.map_or_else(|| family.to_vec(), |algorithm| vec![algorithm]);
    let algorithm = candidates
        .into_iter()
        .filter(|algorithm| family.contains(algorithm))
        .find(|algorithm| jsonwebtoken::crypto::sign(b"probe", &key, *algorithm).is_ok())
        .ok_or_else(|| {
            KeyError::Unsupported(named.map_or_else(
                || "ES256, ES384, RS256 or EdDSA".to_owned(),
                |algorithm| format!("{algorithm:?}, which its JWK names"),
            ))
        })?;
    Ok(SigningKey {
        algorithm,
        key: Arc::new(key),
        der: der.into(),
        key_id: None,
    })
}

/// A JWK's members, as far as private keys go.
#[derive(Deserialize)]
struct Jwk {
    kty: String,
    #[serde(default)]
    crv: Option<String>,
    #[serde(default)]
    alg: Option<String>,
    #[serde(default)]
    kid: Option<String>,
    #[serde(flatten)]
    parts: serde_json::Map<String, serde_json::Value>,
}

impl Jwk {
    /// A base64url member's bytes.
    fn part(&self, name: &str) -> Result<Vec<u8>, KeyError> {
        let text = self
            .parts
            .get(name)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| KeyError::Jwk(format!("no `{name}` (a private key has one)")))?;
        URL_SAFE_NO_PAD
            .decode(text.trim_end_matches('='))
            .map_err(|err| KeyError::Jwk(format!("its `{name}`: {err}")))
    }
}

/// A JWK whose DER encoding failed (a member too long for DER).
fn not_encodable(err: der::Error) -> KeyError {
    KeyError::Jwk(format!("its DER encoding: {err}"))
}

/// The PKCS#8 document of `algorithm` (with its `parameters`) and the DER of its
/// private key.
fn pkcs8(
    algorithm: ObjectIdentifier,
    parameters: Option<AnyRef<'_>>,
    private_key: &[u8],
) -> Result<Vec<u8>, KeyError> {
    let algorithm = AlgorithmIdentifierRef {
        oid: algorithm,
        parameters,
    };
    let private_key = OctetStringRef::new(private_key).map_err(not_encodable)?;
    PrivateKeyInfoRef::new(algorithm, private_key)
        .to_der()
        .map_err(not_encodable)
}

/// The PKCS#8 document of an Ed25519 JWK's 32-byte seed (RFC 8410).
fn ed25519_pkcs8(seed: &[u8]) -> Result<Vec<u8>, KeyError> {
    let seed = OctetStringRef::new(seed)
        .and_then(|seed| seed.to_der())
        .map_err(not_encodable)?;
    pkcs8(ID_ED_25519, None, &seed)
}

/// The PKCS#8 document of an EC JWK (RFC 5915 inside RFC 5208), with its public key, as
/// ring wants it.
fn ec_pkcs8(jwk: &Jwk) -> Result<Vec<u8>, KeyError> {
    let (curve, size) = match jwk.crv.as_deref() {
        Some("P-256") => (SECP_256_R_1, 32),
        Some("P-384") => (SECP_384_R_1, 48),
        other => return Err(KeyError::Jwk(format!("the curve {other:?}"))),
    };
    let (d, x, y) = (jwk.part("d")?, jwk.part("x")?, jwk.part("y")?);
    if [&d, &x, &y].iter().any(|part| part.len() != size) {
        return Err(KeyError::Jwk(format!(
            "its `d`, `x` and `y` must be {size} bytes each"
        )));
    }
    // SEC1's uncompressed point (section 2.3.3): the tag 0x04, then x and y.
    let point = [&[0x04][..], &x, &y].concat();
    let private = sec1::EcPrivateKey {
        private_key: &d,
        parameters: None,
        public_key: Some(&point),
    }
    .to_der()
    .map_err(not_encodable)?;
    pkcs8(ID_EC_PUBLIC_KEY, Some(AnyRef::from(&curve)), &private)
}

/// The PKCS#1 `RSAPrivateKey` of an RSA JWK (RFC 8017, appendix A.1.2).
fn rsa_pkcs1(jwk: &Jwk) -> Result<Vec<u8>, KeyError> {
    let [n, e, d, p, q, dp, dq, qi] =
        ["n", "e", "d", "p", "q", "dp", "dq", "qi"].map(|name| jwk.part(name));
    let (n, e, d, p, q, dp, dq, qi) = (n?, e?, d?, p?, q?, dp?, dq?, qi?);
    let uint = |bytes| UintRef::new(bytes).map_err(not_encodable);
    pkcs1::RsaPrivateKey {
        modulus: uint(&n)?,
        public_exponent: uint(&e)?,
        private_exponent: uint(&d)?,
        prime1: uint(&p)?,
        prime2: uint(&q)?,
        exponent1: uint(&dp)?,
        exponent2: uint(&dq)?,
        coefficient: uint(&qi)?,
        other_prime_infos: None,
    }
    .to_der()
    .map_err(not_encodable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};
    use serde_json::{Value, json};

    const P256_PEM: &str = include_str!("testdata/p256.pem");
    const P256_JWK: &str = include_str!("testdata/p256.jwk");
    const P384_PEM: &str = include_str!("testdata/p384.pem");
    const P384_PUBLIC: &str = include_str!("testdata/p384.public.jwk");
    const ED25519_PEM: &str = include_str!("testdata/ed25519.pem");
    const ED25519_JWK: &str = include_str!("testdata/ed25519.jwk");
    const RSA_PKCS1_PEM: &str = include_str!("testdata/rsa.pkcs1.pem");
    const RSA_PKCS8_PEM: &str = include_str!("testdata/rsa.pkcs8.pem");
    const RSA_JWK: &str = include_str!("testdata/rsa.jwk");

    fn member(json: &str, name: &str) -> String {
        let value: Value = serde_json::from_str(json).unwrap();
        value[name].as_str().unwrap().to_owned()
    }

    /// Signs claims with `key` and checks the signature with the public key.
    fn verifies(key: &SigningKey, public: &DecodingKey) -> jsonwebtoken::Header {
        let token = key
            .sign(&json!({ "sub": "s", "exp": 4_000_000_000u64 }))
            .unwrap();
        let mut validation = Validation::new(key.algorithm);
        validation.validate_aud = false;
        let decoded = jsonwebtoken::decode::<Value>(&token, public, &validation)
            .unwrap_or_else(|err| panic!("{:?}: {err}", key.algorithm));
        assert_eq!(decoded.claims["sub"], "s");
        decoded.header
    }

    #[test]
    fn pem_and_jwk_keys_sign_with_their_own_algorithm_and_verify_with_their_public_key() {
        let p256 = DecodingKey::from_ec_components(&member(P256_JWK, "x"), &member(P256_JWK, "y"))
            .unwrap();
        let p384 =
            DecodingKey::from_ec_components(&member(P384_PUBLIC, "x"), &member(P384_PUBLIC, "y"))
                .unwrap();
        let ed = DecodingKey::from_ed_components(&member(ED25519_JWK, "x")).unwrap();
        let rsa =
            DecodingKey::from_rsa_components(&member(RSA_JWK, "n"), &member(RSA_JWK, "e")).unwrap();
        let cases = [
            (SigningKey::from_pem(P256_PEM), "ES256", &p256),
            (SigningKey::from_jwk(P256_JWK), "ES256", &p256),
            (SigningKey::from_pem(P384_PEM), "ES384", &p384),
            (SigningKey::from_pem(ED25519_PEM), "EdDSA", &ed),
            (SigningKey::from_jwk(ED25519_JWK), "EdDSA", &ed),
            (SigningKey::from_pem(RSA_PKCS1_PEM), "RS256", &rsa),
            (SigningKey::from_pem(RSA_PKCS8_PEM), "RS256", &rsa),
            (SigningKey::from_jwk(RSA_JWK), "RS256", &rsa),
        ];
        for (key, algorithm, public) in cases {
            let key = key.unwrap_or_else(|err| panic!("{algorithm}: {err}"));
            assert_eq!(key.algorithm(), algorithm);
            verifies(&key, public);
        }
    }

    #[test]
    fn a_jwks_kid_and_alg_are_used_and_an_alg_the_key_cannot_sign_with_is_refused() {
        let key = SigningKey::from_jwk(P256_JWK).unwrap();
        let public =
            DecodingKey::from_ec_components(&member(P256_JWK, "x"), &member(P256_JWK, "y"))
                .unwrap();
        assert_eq!(verifies(&key, &public).kid.as_deref(), Some("k1"));
        let renamed = key.key_id("k2");
        assert_eq!(verifies(&renamed, &public).kid.as_deref(), Some("k2"));
        let mut jwk: Value = serde_json::from_str(P256_JWK).unwrap();
        jwk["alg"] = json!("ES384");
        let wrong = SigningKey::from_jwk(&jwk.to_string());
        assert!(matches!(wrong, Err(KeyError::Unsupported(_))), "{wrong:?}");
    }

    #[test]
    fn what_is_not_a_private_key_is_refused_saying_what_it_is() {
        let not_pem = SigningKey::from_pem("hello");
        assert!(matches!(not_pem, Err(KeyError::Pem(_))), "{not_pem:?}");
        let public =
            SigningKey::from_pem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
        let message = public.unwrap_err().to_string();
        assert!(message.contains("`PUBLIC KEY`"), "{message}");
        let annotated = SigningKey::from_pem(&format!("Bag Attributes\n{P256_PEM}"));
        assert_eq!(annotated.unwrap().algorithm(), "ES256");
        let truncated = SigningKey::from_pem(&P256_PEM.replace("-----END PRIVATE KEY-----", ""));
        assert!(matches!(truncated, Err(KeyError::Pem(_))), "{truncated:?}");
        let mut no_d: Value = serde_json::from_str(P256_JWK).unwrap();
        no_d.as_object_mut().unwrap().remove("d");
        let message = SigningKey::from_jwk(&no_d.to_string())
            .unwrap_err()
            .to_string();
        assert!(message.contains("no `d`"), "{message}");
        let missing = SigningKey::from_pem_file("/nonexistent/key.pem").unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent/key.pem"),
            "{missing}"
        );
    }

    #[test]
    fn debug_output_names_the_algorithm_never_the_key() {
        let key = SigningKey::from_jwk(P256_JWK).unwrap();
        let shown = format!("{key:?}");
        assert!(shown.contains("ES256") && shown.contains("k1"), "{shown}");
        let d = member(P256_JWK, "d");
        assert!(!shown.contains(&d) && !shown.contains("der"), "{shown}");
    }
}
