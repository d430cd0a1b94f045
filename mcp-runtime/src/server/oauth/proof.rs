//! What a DPoP refusal says: which of the request's scheme or proof was wrong, and the
//! algorithms the challenge offers. Both the proof's checks (`dpop`) and the refusal's
//! response (`refusal`) name them; the algorithms are those tokens are taken with too
//! (`jwt`).

use jsonwebtoken::Algorithm;

/// The signing algorithms an RSA key checks: PKCS#1 v1.5 and PSS.
pub(super) const RSA: [Algorithm; 6] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];

/// The algorithms an access token or a DPoP proof may be signed with, as `jsonwebtoken`
/// checks them: public-key ones only (RFC 9449, section 4.2). `none` is no algorithm at
/// all, and an HMAC one would let anyone who has the public key sign.
pub(super) const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::ES256,
    Algorithm::ES384,
    RSA[0],
    RSA[1],
    RSA[2],
    RSA[3],
    RSA[4],
    RSA[5],
    Algorithm::EdDSA,
];

/// The algorithms named in the challenge (`algs`): [`ALGORITHMS`], space-separated.
pub(super) fn algs() -> String {
    let names: Vec<String> = ALGORITHMS
        .iter()
        .map(|algorithm| format!("{algorithm:?}"))
        .collect();
    names.join(" ")
}

/// What is wrong with a request's DPoP: its scheme, or its proof.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProofError {
    /// A bound token sent as a bearer token.
    #[error(
        "the token is bound to a DPoP key (cnf.jkt): send it as `Authorization: DPoP` with a DPoP proof"
    )]
    SentAsBearer,
    /// An unbound token sent with the DPoP scheme.
    #[error("the token is not bound to a DPoP key: send it as `Authorization: Bearer`")]
    NotBound,
    /// No `DPoP` header.
    #[error("no DPoP proof: the `DPoP` header is missing")]
    Missing,
    /// More than one `DPoP` header.
    #[error("more than one DPoP proof")]
    Several,
    /// Not a JWT with a JSON header and claims.
    #[error("the DPoP proof is not a JWT: {0}")]
    Malformed(String),
    /// `typ` is not `dpop+jwt`.
    #[error("the DPoP proof's `typ` is not `dpop+jwt`")]
    Type,
    /// Not signed with an asymmetric algorithm this server takes.
    #[error("the DPoP proof is signed with `{0}`, which this server does not take")]
    Algorithm(String),
    /// `jwk` is missing, private, or not a key.
    #[error("the DPoP proof's `jwk` is not a public key: {0}")]
    Key(String),
    /// The signature does not check with `jwk`.
    #[error("the DPoP proof's signature does not check with its `jwk`")]
    Signature,
    /// The proof's key is not the token's.
    #[error("the DPoP proof is signed with a key the token is not bound to (cnf.jkt)")]
    Thumbprint,
    /// A claim is missing or not of its type.
    #[error("the DPoP proof has no `{0}` of the right type")]
    Claim(&'static str),
    /// `htm` is another method.
    #[error("the DPoP proof is for a `{found}` request (htm), not this `{expected}` one")]
    Method {
        /// The proof's `htm`.
        found: String,
        /// The request's method.
        expected: String,
    },
    /// `htu` is another URL.
    #[error("the DPoP proof is for `{found}` (htu), not `{expected}`")]
    Url {
        /// The proof's `htu`.
        found: String,
        /// The request's URL, as this server is addressed.
        expected: String,
    },
    /// `iat` is too old, or ahead of this server's clock.
    #[error("the DPoP proof was made at {iat} (iat), {why}")]
    Stale {
        /// The proof's `iat`.
        iat: u64,
        /// How it is off.
        why: String,
    },
    /// `ath` is not the token's hash.
    #[error("the DPoP proof's `ath` is not the hash of the access token sent with it")]
    TokenHash,
    /// The `jti` was seen before.
    #[error("the DPoP proof was used before (its jti): each request needs a new one")]
    Replayed,
}

impl ProofError {
    /// The OAuth error code of the challenge: `invalid_token` for the scheme, else
    /// `invalid_dpop_proof` (RFC 9449, section 7.1).
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Self::SentAsBearer | Self::NotBound => "invalid_token",
            _ => "invalid_dpop_proof",
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_challenge_names_every_algorithm_a_proof_may_use() {
        assert_eq!(
            super::algs(),
            "ES256 ES384 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA"
        );
    }
}
