//! Access tokens checked by asking the authorization server (token introspection, RFC
//! 7662): opaque ones, which carry nothing to check, or every one when so configured. The
//! server posts the token to the introspection endpoint, authenticated as a client of the
//! authorization server (`client_secret_basic`), and takes the caller from the answer once
//! it says the token is active, for this server (`aud`, when named), from its issuer
//! (`iss`, when named), and in its time (`exp`, `nbf`). A good answer is kept for a short
//! while, never past the token's expiry, so that a client's calls do not each cost a round
//! trip; a refusal that lasts (inactive, expired, another audience or issuer) is kept
//! briefly too, so that a token sent again and again is not asked about each time. An
//! authorization server that cannot be asked is never taken for a yes: 503.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::http::{StatusCode, header};
use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::issuer::Issuer;
use super::refusal::Refusal;
use super::{Introspection, OAuthConfig, names_this_server};
use crate::auth::AuthInfo;

/// The most answers kept at once. Past it, those expired go, and when none has, all do:
/// a flood of distinct tokens costs round trips, never unbounded memory.
const MAX_KEPT: usize = 10_000;

/// The longest a refusal is kept: a token refused once is refused again without a round
/// trip for this long, and no longer, so a refusal the authorization server would take back
/// stands only briefly.
const REFUSAL_KEPT_FOR: Duration = Duration::from_secs(10);

/// Asks the authorization server about tokens, and keeps its answers a while.
pub(super) struct Introspector {
    settings: Introspection,
    /// The endpoint: given, or found in the authorization server's metadata once.
    endpoint: tokio::sync::OnceCell<String>,
    /// Good answers by the token's SHA-256, each with when it is to be asked again.
    kept: Mutex<HashMap<[u8; 32], (AuthInfo, Instant)>>,
    /// Refusals by the token's SHA-256, each with when it is to be asked again: apart from
    /// the good answers, so that a flood of bad tokens never pushes those out.
    refused: Mutex<HashMap<[u8; 32], (String, Instant)>>,
}

impl Introspector {
    pub(super) fn new(settings: Introspection) -> Self {
        Self {
            endpoint: match &settings.endpoint {
                Some(endpoint) => tokio::sync::OnceCell::new_with(Some(endpoint.clone())),
                None => tokio::sync::OnceCell::new(),
            },
            settings,
            kept: Mutex::new(HashMap::new()),
            refused: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `token` is introspected: every one when so configured, else one that is not
    /// a JWT.
    pub(super) fn takes(&self, token: &str) -> bool {
        self.settings.always || jsonwebtoken::decode_header(token).is_err()
    }

    /// The caller `token` stands for, as the authorization server says, or why it is
    /// refused.
    pub(super) async fn check(
        &self,
        token: &str,
        config: &OAuthConfig,
        issuer: &Issuer,
    ) -> Result<AuthInfo, Refusal> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(caller) = kept(&self.kept, &key) {
            return Ok(caller);
        }
        if let Some(why) = kept(&self.refused, &key) {
            return Err(Refusal::Invalid(why));
        }
        let endpoint = self
            .endpoint
            .get_or_try_init(|| issuer.endpoint("introspection_endpoint"))
            .await
            .map_err(|why| unavailable(issuer, &why.to_string()))?;
        let answer = self.ask(endpoint, token, issuer).await?;
        let now = unix_time();
        // A token not valid yet will be: its refusal does not last.
        let lasting = !matches!(time(&answer, "nbf"), Ok(Some(nbf)) if nbf > now);
        let caller = match read_answer(answer, config, now) {
            Ok(caller) => caller,
            Err(Refusal::Invalid(why)) if lasting => {
                let keep = REFUSAL_KEPT_FOR.min(self.settings.cache_for);
                if !keep.is_zero() {
                    keep_a_while(&self.refused, key, &why, keep);
                }
                return Err(Refusal::Invalid(why));
            }
            Err(refusal) => return Err(refusal),
        };
        if let Some(keep) = keep_for(&caller, now, self.settings.cache_for) {
            keep_a_while(&self.kept, key, &caller, keep);
        }
        Ok(caller)
    }

    /// The answer of the introspection endpoint about `token`.
    async fn ask(
        &self,
        endpoint: &str,
        token: &str,
        issuer: &Issuer,
    ) -> Result<Map<String, Value>, Refusal> {
        let response = issuer
            .http()
            .post(endpoint)
            .header(header::AUTHORIZATION, self.settings.basic_authorization())
            .header(header::ACCEPT, "application/json")
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await
            .map_err(|err| {
                unavailable(
                    issuer,
                    &format!("the introspection endpoint {endpoint} cannot be reached: {err}"),
                )
            })?;
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(unavailable(
                issuer,
                &format!(
                    "the introspection endpoint {endpoint} refuses this server's client \
                     credentials ({status}): check its client id and secret"
                ),
            ));
        }
        if !status.is_success() {
            return Err(unavailable(
                issuer,
                &format!("the introspection endpoint {endpoint} answered {status}"),
            ));
        }
        let body = response.bytes().await.map_err(|err| {
            unavailable(
                issuer,
                &format!("the introspection endpoint {endpoint}'s answer was cut: {err}"),
            )
        })?;
        serde_json::from_slice(&body).map_err(|err| {
            unavailable(
                issuer,
                &format!(
                    "the introspection endpoint {endpoint} answered what is not an \
                     introspection answer: {err}"
                ),
            )
        })
    }
}

/// What `answers` keeps for the token whose SHA-256 is `key`, while it keeps it.
fn kept<T: Clone>(answers: &Mutex<HashMap<[u8; 32], (T, Instant)>>, key: &[u8; 32]) -> Option<T> {
    let answers = answers
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    answers
        .get(key)
        .filter(|(_, until)| Instant::now() < *until)
        .map(|(answer, _)| answer.clone())
}

/// Keeps `answer` in `answers` for `keep`, at most [`MAX_KEPT`] answers at once: past it,
/// those expired go, and when none has, all do.
fn keep_a_while<T: Clone>(
    answers: &Mutex<HashMap<[u8; 32], (T, Instant)>>,
    key: [u8; 32],
    answer: &T,
    keep: Duration,
) {
    let mut answers = answers
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if answers.len() >= MAX_KEPT {
        let now = Instant::now();
        answers.retain(|_, (_, until)| now < *until);
        if answers.len() >= MAX_KEPT {
            answers.clear();
        }
    }
    answers.insert(key, (answer.clone(), Instant::now() + keep));
}

impl Introspection {
    /// `Authorization: Basic …` of this server as a client of the authorization server:
    /// its id and secret, each form-urlencoded first (RFC 6749 §2.3.1).
    fn basic_authorization(&self) -> String {
        let pair = format!(
            "{}:{}",
            form_urlencoded(&self.client_id),
            form_urlencoded(&self.client_secret)
        );
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// `text` as `application/x-www-form-urlencoded` writes it: letters, digits and `*-._`
/// as they are, a space as `+`, any other byte as `%XX`.
fn form_urlencoded(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                encoded.push(char::from(byte));
            }
            b' ' => encoded.push('+'),
            other => encoded.push_str(&format!("%{other:02X}")),
        }
    }
    encoded
}

/// The refusal of a request whose token cannot be checked because the authorization server
/// cannot be asked, logged: never taken for a yes.
fn unavailable(issuer: &Issuer, why: &str) -> Refusal {
    tracing::error!(
        issuer = %issuer.name(),
        "{why}; access tokens that need introspection cannot be checked, so their requests are refused"
    );
    Refusal::Unavailable(format!(
        "the authorization server cannot be asked about the token: {why}"
    ))
}

/// Seconds since the Unix epoch.
fn unix_time() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The caller of an introspection answer, once it says the token is active and names no
/// other audience, no other issuer, and no time outside the token's: `now` (Unix seconds),
/// give or take the configured leeway.
fn read_answer(
    answer: Map<String, Value>,
    config: &OAuthConfig,
    now: u64,
) -> Result<AuthInfo, Refusal> {
    let invalid = |why: &str| Err(Refusal::Invalid(why.to_owned()));
    if answer.get("active") != Some(&Value::Bool(true)) {
        return invalid(
            "the authorization server says the token is not active: revoked, expired, or not one it issued",
        );
    }
    let leeway = config.leeway.as_secs();
    if let Some(exp) = time(&answer, "exp")? {
        if exp.saturating_add(leeway) < now {
            return invalid("the token has expired");
        }
    }
    if let Some(nbf) = time(&answer, "nbf")? {
        if nbf > now.saturating_add(leeway) {
            return invalid("the token is not valid yet (nbf)");
        }
    }
    if let Some(iss) = answer.get("iss") {
        let named = iss.as_str().map(|iss| iss.trim_end_matches('/'));
        if named != Some(config.issuer.trim_end_matches('/')) {
            return invalid("the token is from another issuer (iss) than this server trusts");
        }
    }
    if let Some(aud) = answer.get("aud") {
        if !names_this_server(aud, &config.resource) {
            return invalid(
                "the token is not for this server: its audience (aud) does not name it",
            );
        }
    }
    Ok(AuthInfo::from_claims(answer))
}

/// The time an answer's `claim` gives, in Unix seconds, when it gives one.
fn time(answer: &Map<String, Value>, claim: &str) -> Result<Option<u64>, Refusal> {
    match answer.get(claim) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .or_else(|| {
                // A time may be written with a fraction; a negative one is before 1970.
                value
                    .as_f64()
                    .filter(|seconds| seconds.is_finite())
                    .map(|seconds| seconds.max(0.0) as u64)
            })
            .map(Some)
            .ok_or_else(|| {
                Refusal::Invalid(format!(
                    "the authorization server's answer has a `{claim}` that is not a time"
                ))
            }),
    }
}

/// How long a good answer about a token is kept: `at_most`, and never past the token's
/// expiry; `None` when it is not to be kept at all.
fn keep_for(caller: &AuthInfo, now: u64, at_most: Duration) -> Option<Duration> {
    let left = match time(caller.claims(), "exp").ok().flatten() {
        Some(exp) => Duration::from_secs(exp.checked_sub(now)?),
        None => at_most,
    };
    Some(left.min(at_most)).filter(|keep| !keep.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> OAuthConfig {
        OAuthConfig::new("https://as.example/", "https://mcp.example/mcp")
    }

    fn answer(claims: Value) -> Map<String, Value> {
        claims.as_object().cloned().unwrap_or_default()
    }

    const NOW: u64 = 1_800_000_000;

    #[test]
    fn an_active_answer_gives_the_caller_its_subject_and_scopes() {
        let caller = read_answer(
            answer(json!({
                "active": true, "sub": "alice", "scope": "notes:read notes:write",
                "iss": "https://as.example", "aud": ["other", "https://mcp.example/mcp/"],
                "exp": NOW + 60, "nbf": NOW - 1,
            })),
            &config(),
            NOW,
        )
        .expect("a good answer");
        assert_eq!(caller.subject(), Some("alice"));
        assert_eq!(caller.scopes(), ["notes:read", "notes:write"]);
        // Nothing but `active` is required.
        let bare = read_answer(answer(json!({ "active": true })), &config(), NOW);
        assert!(bare.is_ok_and(|caller| caller.scopes().is_empty()));
        // One audience may be written alone.
        let alone = json!({ "active": true, "aud": "https://mcp.example/mcp" });
        assert!(read_answer(answer(alone), &config(), NOW).is_ok());
        // The scheme and host in any case, as URIs compare.
        let shouted = json!({ "active": true, "aud": "HTTPS://MCP.Example/mcp" });
        assert!(read_answer(answer(shouted), &config(), NOW).is_ok());
    }

    #[test]
    fn an_answer_that_is_not_a_yes_for_this_server_now_is_a_no() {
        let cases = [
            (json!({ "active": false, "sub": "alice" }), "not active"),
            (json!({ "active": "true" }), "not active"),
            (json!({ "sub": "alice" }), "not active"),
            (json!({ "active": true, "exp": NOW - 61 }), "expired"),
            (json!({ "active": true, "nbf": NOW + 61 }), "not valid yet"),
            (
                json!({ "active": true, "exp": "soon" }),
                "`exp` that is not a time",
            ),
            (
                json!({ "active": true, "iss": "https://evil.example" }),
                "issuer",
            ),
            (json!({ "active": true, "iss": 7 }), "issuer"),
            (
                json!({ "active": true, "aud": "https://elsewhere.example/mcp" }),
                "audience",
            ),
            (json!({ "active": true, "aud": ["a", "b"] }), "audience"),
            (json!({ "active": true, "aud": 1 }), "audience"),
        ];
        for (claims, why) in cases {
            match read_answer(answer(claims.clone()), &config(), NOW) {
                Err(Refusal::Invalid(said)) => assert!(said.contains(why), "{claims}: {said}"),
                other => panic!("{claims}: {other:?}"),
            }
        }
        // Within the leeway (a minute by default), a time is still good.
        for claims in [
            json!({ "active": true, "exp": NOW - 59 }),
            json!({ "active": true, "exp": NOW - 60 }),
            json!({ "active": true, "nbf": NOW + 59 }),
            json!({ "active": true, "nbf": NOW + 60 }),
            json!({ "active": true, "exp": NOW as f64 + 0.5 }),
        ] {
            assert!(
                read_answer(answer(claims.clone()), &config(), NOW).is_ok(),
                "{claims}"
            );
        }
    }

    #[test]
    fn an_answer_is_kept_at_most_its_while_and_never_past_the_tokens_expiry() {
        let minute = Duration::from_secs(60);
        let with = |claims: Value| AuthInfo::from_claims(answer(claims));
        assert_eq!(keep_for(&with(json!({})), NOW, minute), Some(minute));
        assert_eq!(
            keep_for(&with(json!({ "exp": NOW + 3600 })), NOW, minute),
            Some(minute)
        );
        assert_eq!(
            keep_for(&with(json!({ "exp": NOW + 5 })), NOW, minute),
            Some(Duration::from_secs(5))
        );
        assert_eq!(keep_for(&with(json!({ "exp": NOW })), NOW, minute), None);
        assert_eq!(
            keep_for(&with(json!({ "exp": NOW - 30 })), NOW, minute),
            None
        );
        assert_eq!(keep_for(&with(json!({})), NOW, Duration::ZERO), None);
        // A time written with a fraction is a time all the same.
        assert_eq!(
            keep_for(&with(json!({ "exp": NOW as f64 + 5.5 })), NOW, minute),
            Some(Duration::from_secs(5))
        );
    }

    #[test]
    fn client_credentials_are_form_urlencoded_before_basic() {
        assert_eq!(form_urlencoded("a-Z_0.9*"), "a-Z_0.9*");
        assert_eq!(
            form_urlencoded("s3cret:with/odd+chars é"),
            "s3cret%3Awith%2Fodd%2Bchars+%C3%A9"
        );
        let settings = Introspection::new("my client", "p:w");
        let encoded = settings
            .basic_authorization()
            .strip_prefix("Basic ")
            .map(str::to_owned)
            .expect("the Basic scheme");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .expect("base64");
        assert_eq!(decoded, b"my+client:p%3Aw");
    }

    /// Every event logged while `run` runs, as `LEVEL message`.
    fn logged<T>(run: impl FnOnce() -> T) -> (T, Vec<String>) {
        use std::sync::Arc;
        use tracing::field::{Field, Visit};
        use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

        struct Record(Arc<Mutex<Vec<String>>>);
        struct Message(String);
        impl Visit for Message {
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        impl<S: tracing::Subscriber> Layer<S> for Record {
            fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
                let mut message = Message(String::new());
                event.record(&mut message);
                let line = format!("{} {}", event.metadata().level(), message.0);
                self.0.lock().expect("not poisoned").push(line);
            }
        }
        let lines = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Record(Arc::clone(&lines)));
        let outcome = tracing::subscriber::with_default(subscriber, run);
        let lines = lines.lock().expect("not poisoned").clone();
        (outcome, lines)
    }

    #[test]
    fn an_authorization_server_that_cannot_be_asked_is_a_503_and_a_log_line_never_a_yes() {
        // A port nothing listens on.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port");
        let issuer = format!("http://{closed}");
        let config = config();
        let introspector = Introspector::new(
            Introspection::new("id", "secret").endpoint(format!("{issuer}/introspect")),
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let (refused, lines) = logged(|| {
            runtime.block_on(introspector.check("opaque", &config, &Issuer::new(&issuer)))
        });
        match refused {
            Err(Refusal::Unavailable(why)) => assert!(why.contains("cannot be reached"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("ERROR ") && line.contains("cannot be reached")),
            "{lines:?}"
        );
        // Without an endpoint, the metadata that would name one cannot be had either.
        let discovering = Introspector::new(Introspection::new("id", "secret"));
        let (refused, lines) = logged(|| {
            runtime.block_on(discovering.check("opaque", &config, &Issuer::new(&issuer)))
        });
        assert!(
            matches!(refused, Err(Refusal::Unavailable(_))),
            "{refused:?}"
        );
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("ERROR ") && line.contains("metadata")),
            "{lines:?}"
        );
    }

    #[test]
    fn kept_answers_are_bounded() {
        let key = |i: usize| {
            let mut key = [0u8; 32];
            key[..8].copy_from_slice(&(i as u64).to_le_bytes());
            key
        };
        let minute = Duration::from_secs(60);
        let introspector = Introspector::new(Introspection::new("id", "secret"));
        let caller = AuthInfo::from_claims(Map::new());
        let count =
            |introspector: &Introspector| introspector.kept.lock().expect("not poisoned").len();
        // Full, half of it expired: the expired half goes.
        for i in 0..MAX_KEPT {
            let keep = if i % 2 == 0 { Duration::ZERO } else { minute };
            keep_a_while(&introspector.kept, key(i), &caller, keep);
        }
        assert!(
            kept(&introspector.kept, &key(0)).is_none(),
            "an expired answer is not used"
        );
        keep_a_while(&introspector.kept, [0xff; 32], &caller, minute);
        assert_eq!(count(&introspector), MAX_KEPT / 2 + 1);
        assert!(kept(&introspector.kept, &key(1)).is_some());
        assert!(kept(&introspector.kept, &[0xff; 32]).is_some());
        // Full of good answers: they all go.
        for i in 0..MAX_KEPT / 2 - 1 {
            keep_a_while(&introspector.kept, key(MAX_KEPT + i), &caller, minute);
        }
        assert_eq!(count(&introspector), MAX_KEPT);
        keep_a_while(&introspector.kept, [0xee; 32], &caller, minute);
        assert_eq!(
            count(&introspector),
            1,
            "a full store of good answers starts afresh"
        );
        assert!(kept(&introspector.kept, &[0xee; 32]).is_some());
        assert!(kept(&introspector.kept, &key(1)).is_none());
    }
}
