//! The sealed `requestState` of 2026-07-28: what a server must remember between the rounds
//! of one call (the answers already given) handed to the client, and given back on the
//! next round, so that no server process has to keep it.
//!
//! A state is signed with HMAC-SHA-256 under the server's [`StateKey`], bound to the
//! request it belongs to (its `context`), and has an expiry. It is signed, not encrypted:
//! the client can read it, and it holds nothing the client did not send.
//!
//! A sealed state is `1.<body>.<tag>`, both parts base64url without padding:
//! - `body` is the key's id (4 bytes), the expiry (seconds since the Unix epoch, 8 bytes,
//!   big-endian) and the payload;
//! - `tag` is the MAC of a domain label, the context's length and bytes, and `body`.

use std::fmt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// What each MAC begins with, so that a tag made for anything else never fits.
const DOMAIN: &[u8] = b"mcp-runtime requestState v1\0";
/// The version a sealed state starts with.
const VERSION: &str = "1";
/// The bytes of a key's id.
const KEY_ID_LEN: usize = 4;
/// The bytes of the expiry.
const EXPIRY_LEN: usize = 8;
/// The shortest secret a key accepts.
pub const MIN_SECRET_LEN: usize = 32;
/// The environment variable [`StateKey::from_env`] reads by default.
pub const STATE_KEY_ENV: &str = "MCP_STATE_KEY";

/// The key that seals and opens `requestState`. Every replica behind a load balancer must
/// have the same one, so that any of them opens a state another sealed: give it from a
/// file ([`StateKey::from_file`]) or the environment ([`StateKey::from_env`]). A key
/// [`generated`](StateKey::generate) at start-up serves one process only.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::talk::{StateError, StateKey};
///
/// let key = StateKey::new(b"an example secret of at least 32 bytes")?;
/// let sealed = key.seal(b"tools/call demo.ask", br#"{"name":"Alice"}"#, Duration::from_secs(600));
/// assert_eq!(key.open(b"tools/call demo.ask", &sealed)?, br#"{"name":"Alice"}"#);
/// // Another request's state does not open here, nor does one changed on the way.
/// assert_eq!(key.open(b"tools/call demo.other", &sealed), Err(StateError::Tampered));
/// assert!(key.open(b"tools/call demo.ask", &format!("{sealed}-TAMPERED")).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct StateKey {
    /// The MAC with the key already absorbed: each use clones it instead of hashing the
    /// key again.
    mac: HmacSha256,
    id: [u8; KEY_ID_LEN],
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret: only the id, which names the key without revealing it.
        f.debug_struct("StateKey")
            .field("id", &hex(&self.id))
            .finish_non_exhaustive()
    }
}

/// Why a key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StateKeyError {
    /// The secret is shorter than [`MIN_SECRET_LEN`] bytes.
    #[error(
        "the requestState key is {0} bytes; it needs at least {MIN_SECRET_LEN} (e.g. the output of `openssl rand -hex 32`)"
    )]
    TooShort(usize),
    /// The key file could not be read.
    #[error("cannot read the requestState key from {path}: {source}")]
    File {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The environment variable is not valid UTF-8.
    #[error("the environment variable {0} is not valid UTF-8")]
    NotUnicode(String),
    /// No randomness was available for a generated key.
    #[error("cannot generate a requestState key: {0}")]
    Random(String),
}

/// Why a sealed state was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Not a sealed state at all.
    #[error("the requestState is malformed: {0}")]
    Malformed(&'static str),
    /// Sealed with another key: another server, or a replica configured with another key.
    #[error("the requestState was sealed with another key (every replica must share the same key)")]
    ForeignKey,
    /// Its tag does not fit: changed on the way, or made for another request.
    #[error("the requestState was altered, or belongs to another request")]
    Tampered,
    /// Its time is up.
    #[error("the requestState expired; start the request again without it")]
    Expired,
}

impl StateKey {
    /// A key of `secret`, which must be at least [`MIN_SECRET_LEN`] bytes.
    pub fn new(secret: &[u8]) -> Result<Self, StateKeyError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(StateKeyError::TooShort(secret.len()));
        }
        let mac = HmacSha256::new_from_slice(secret).expect("HMAC takes a key of any length");
        let mut naming = mac.clone();
        naming.update(b"mcp-runtime requestState key id");
        let digest = naming.finalize().into_bytes();
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&digest[..KEY_ID_LEN]);
        Ok(Self { mac, id })
    }

    /// A random key, for one process: states it seals open nowhere else, nor after a
    /// restart.
    pub fn generate() -> Result<Self, StateKeyError> {
        let secret = crate::base::ids::random_bytes::<32>()
            .map_err(|err| StateKeyError::Random(err.to_string()))?;
        Self::new(&secret)
    }

    /// The key whose secret is the contents of `path`, less surrounding whitespace.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, StateKeyError> {
        let path = path.as_ref();
        let secret = std::fs::read(path).map_err(|source| StateKeyError::File {
            path: path.display().to_string(),
            source,
        })?;
        Self::new(secret.trim_ascii())
    }

    /// The key whose secret is the environment variable `name` (less surrounding
    /// whitespace); `None` when it is not set.
    pub fn from_env(name: &str) -> Result<Option<Self>, StateKeyError> {
        match std::env::var(name) {
            Ok(secret) => Self::new(secret.trim().as_bytes()).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(StateKeyError::NotUnicode(name.to_owned()))
            }
        }
    }

    /// Seals `payload` for the request `context` names, to be opened within `ttl`.
    pub fn seal(&self, context: &[u8], payload: &[u8], ttl: Duration) -> String {
        let expires = unix_seconds(SystemTime::now()).saturating_add(ttl.as_secs().max(1));
        self.seal_until(context, payload, expires)
    }

    /// Seals `payload` to expire at `expires` (seconds since the Unix epoch).
    pub(crate) fn seal_until(&self, context: &[u8], payload: &[u8], expires: u64) -> String {
        let mut body = Vec::with_capacity(KEY_ID_LEN + EXPIRY_LEN + payload.len());
        body.extend_from_slice(&self.id);
        body.extend_from_slice(&expires.to_be_bytes());
        body.extend_from_slice(payload);
        let tag = self.tagged(context, &body).finalize().into_bytes();
        let mut sealed = String::with_capacity(
            VERSION.len() + 2 + (body.len() * 4).div_ceil(3) + (tag.len() * 4).div_ceil(3),
        );
        sealed.push_str(VERSION);
        sealed.push('.');
        URL_SAFE_NO_PAD.encode_string(&body, &mut sealed);
        sealed.push('.');
        URL_SAFE_NO_PAD.encode_string(tag, &mut sealed);
        sealed
    }

    /// The payload of `sealed`, if this key sealed it for the request `context` names and
    /// it has not expired.
    pub fn open(&self, context: &[u8], sealed: &str) -> Result<Vec<u8>, StateError> {
        self.open_at(context, sealed, unix_seconds(SystemTime::now()))
    }

    /// [`StateKey::open`] at `now` (seconds since the Unix epoch).
    pub(crate) fn open_at(
        &self,
        context: &[u8],
        sealed: &str,
        now: u64,
    ) -> Result<Vec<u8>, StateError> {
        let mut parts = sealed.split('.');
        let (Some(version), Some(body), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(StateError::Malformed("expected `1.<body>.<tag>`"));
        };
        if version != VERSION {
            return Err(StateError::Malformed("unknown version"));
        }
        let body = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Malformed("the body is not base64url"))?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Malformed("the tag is not base64url"))?;
        if body.len() < KEY_ID_LEN + EXPIRY_LEN {
            return Err(StateError::Malformed("the body is too short"));
        }
        let (id, rest) = body.split_at(KEY_ID_LEN);
        if id != self.id {
            return Err(StateError::ForeignKey);
        }
        // Checked in constant time; nothing of the body is trusted before this.
        self.tagged(context, &body)
            .verify_slice(&tag)
            .map_err(|_| StateError::Tampered)?;
        let (expiry, payload) = rest.split_at(EXPIRY_LEN);
        let expires = u64::from_be_bytes(expiry.try_into().expect("eight bytes"));
        if now >= expires {
            return Err(StateError::Expired);
        }
        Ok(payload.to_vec())
    }

    /// The MAC over the domain, the context and `body`, not yet finalized.
    fn tagged(&self, context: &[u8], body: &[u8]) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(DOMAIN);
        // The context's length first, so that no context and body pair reads as another.
        mac.update(
            &u64::try_from(context.len())
                .unwrap_or(u64::MAX)
                .to_be_bytes(),
        );
        mac.update(context);
        mac.update(body);
        mac
    }
}

fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";
    const CONTEXT: &[u8] = b"tools/call demo.ask";

    fn key() -> StateKey {
        StateKey::new(SECRET).expect("a long enough secret")
    }

    #[test]
    fn a_sealed_state_opens_with_its_key_and_context_until_it_expires() {
        let sealed = key().seal_until(CONTEXT, b"payload", 1_000);
        assert!(sealed.starts_with("1."), "{sealed}");
        assert_eq!(
            key().open_at(CONTEXT, &sealed, 999),
            Ok(b"payload".to_vec())
        );
        assert_eq!(
            key().open_at(CONTEXT, &sealed, 1_000),
            Err(StateError::Expired)
        );
        let empty = key().seal_until(CONTEXT, b"", 1_000);
        assert_eq!(key().open_at(CONTEXT, &empty, 0), Ok(Vec::new()));
    }

    #[test]
    fn another_context_or_any_changed_byte_is_tampered() {
        let sealed = key().seal_until(CONTEXT, b"payload", 1_000);
        assert_eq!(
            key().open_at(b"tools/call demo.other", &sealed, 0),
            Err(StateError::Tampered)
        );
        // Each character of the body and of the tag, changed in turn.
        let (prefix, _) = sealed.split_at(2);
        for at in 2..sealed.len() {
            let mut changed: Vec<char> = sealed.chars().collect();
            if changed[at] == '.' {
                continue;
            }
            changed[at] = if changed[at] == 'A' { 'B' } else { 'A' };
            let changed: String = changed.into_iter().collect();
            let opened = key().open_at(CONTEXT, &changed, 0);
            assert!(
                matches!(
                    opened,
                    Err(StateError::Tampered | StateError::ForeignKey | StateError::Malformed(_))
                ),
                "{prefix}… changed at {at}: {opened:?}"
            );
        }
        // A later expiry written into the body does not fit the tag.
        let mut body = URL_SAFE_NO_PAD
            .decode(sealed.split('.').nth(1).expect("a body"))
            .expect("base64url");
        body[KEY_ID_LEN + EXPIRY_LEN - 1] ^= 0xff;
        let tag = sealed.split('.').nth(2).expect("a tag");
        let forged = format!("1.{}.{tag}", URL_SAFE_NO_PAD.encode(&body));
        assert_eq!(
            key().open_at(CONTEXT, &forged, 0),
            Err(StateError::Tampered)
        );
    }

    #[test]
    fn a_state_of_another_key_is_foreign_and_junk_is_malformed() {
        let other = StateKey::new(b"another secret, also 32 bytes or more").expect("a key");
        let sealed = other.seal_until(CONTEXT, b"payload", 1_000);
        assert_eq!(
            key().open_at(CONTEXT, &sealed, 0),
            Err(StateError::ForeignKey)
        );
        for junk in [
            "",
            "1",
            "1.",
            "1..",
            "2.AAAA.AAAA",
            "1.!!!.AAAA",
            "1.AAAA.!!!",
            "1.AAAA.AAAA",
            "1.AAAA.AAAA.AAAA",
        ] {
            assert!(
                matches!(
                    key().open_at(CONTEXT, junk, 0),
                    Err(StateError::Malformed(_))
                ),
                "{junk:?}"
            );
        }
    }

    #[test]
    fn a_key_needs_32_bytes_and_never_shows_its_secret() {
        assert!(matches!(
            StateKey::new(&SECRET[..31]),
            Err(StateKeyError::TooShort(31))
        ));
        let shown = format!("{:?}", key());
        assert!(shown.starts_with("StateKey { id: \""), "{shown}");
        assert!(!shown.contains("0123456789abcdef"), "{shown}");
        let generated = StateKey::generate().expect("randomness");
        let sealed = generated.seal(CONTEXT, b"x", Duration::from_secs(60));
        assert_eq!(generated.open(CONTEXT, &sealed), Ok(b"x".to_vec()));
        assert_eq!(key().open(CONTEXT, &sealed), Err(StateError::ForeignKey));
    }

    #[test]
    fn a_key_is_read_from_a_file_or_the_environment_less_whitespace() {
        let dir = std::env::temp_dir().join(format!("mcp-state-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let path = dir.join("key");
        std::fs::write(&path, [SECRET, b"\n"].concat()).expect("a key file");
        let from_file = StateKey::from_file(&path).expect("a key");
        let sealed = key().seal(CONTEXT, b"x", Duration::from_secs(60));
        assert_eq!(from_file.open(CONTEXT, &sealed), Ok(b"x".to_vec()));
        let missing = StateKey::from_file(dir.join("missing")).expect_err("no such file");
        assert!(missing.to_string().contains("missing"), "{missing}");
        std::fs::remove_dir_all(&dir).expect("cleaned up");

        assert!(
            StateKey::from_env("MCP_RUNTIME_TEST_NO_SUCH_VARIABLE")
                .expect("not an error")
                .is_none()
        );
    }
}
