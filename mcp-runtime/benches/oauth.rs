//! What checking an OAuth access token adds to a call. One `tools/call` of an inline
//! two-integer tool, POSTed through `mcp_runtime::server::router` in process and its answer
//! read whole, three ways in the same run (group `oauth_call`): without auth; with an RS256
//! access token; with an ES256 one. The tokens are real JWTs, signed with the test keys of
//! `fixtures/`, whose public halves an authorization server in process publishes; one
//! request of each kind before measuring fetches them, and the measured calls use the kept
//! keys (the bench checks that the key set was fetched once). Every measured call carries
//! the same token, as one client's calls do, so after the first the server takes it from
//! the tokens it has checked: these are a token's every call but its first.
//!
//! Group `jwt` takes the check apart with jsonwebtoken alone, on the same tokens and keys:
//! `decode` with a `Validation` built for every token (as the server builds it) and built
//! once, the cost of a token's first call; building the `Validation` alone; reading the
//! token's header; cloning a key; and finding a checked token's claims by its whole text,
//! its expiry checked, as the server does for a token seen before.
//!
//! Run with `cargo bench -p mcp-runtime --features oauth --bench oauth`;
//! `scripts/bench-oauth.sh` runs it in rounds and prints the medians.

mod adder;
mod fixtures;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use criterion::{BatchSize, Criterion, criterion_main};
use fixtures::{Issuer, RESOURCE};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use mcp_runtime::Registry;
use mcp_runtime::server::{HttpConfig, OAuthConfig, Server, router};
use serde_json::{Map, Value, json};
use tower::ServiceExt;

const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bench.add","arguments":{"a":40,"b":2}}}"#;

/// The POST of [`CALL`], with `Authorization: Bearer <token>` when given one.
fn request(token: Option<&str>) -> Request<Body> {
    let mut request = Request::post("/mcp")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    request.body(Body::from(CALL)).expect("a valid request")
}

/// One call through `router`: the status and the answer's body.
async fn call(router: &Router, request: Request<Body>) -> (StatusCode, axum::body::Bytes) {
    let response = router
        .clone()
        .oneshot(request)
        .await
        .expect("the router answers");
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("the body");
    (status, body)
}

/// The `Validation` the server builds for each token (`server/oauth.rs`, `Verifier::verify`).
fn validation(algorithm: Algorithm, issuer: &str) -> Validation {
    let bare = RESOURCE.trim_end_matches('/');
    let mut validation = Validation::new(algorithm);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[bare.to_owned(), format!("{bare}/")]);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.validate_nbf = true;
    validation.leeway = 60;
    validation
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let issuer = Issuer::start().expect("the authorization server starts");
    let rs256 = issuer.token(Algorithm::RS256).expect("an RS256 token");
    let es256 = issuer.token(Algorithm::ES256).expect("an ES256 token");
    let registry = Registry::builder()
        .inventory()
        .build()
        .expect("a valid registry");
    let server = Arc::new(Server::new(registry));
    let open = router(Arc::clone(&server), HttpConfig::default());
    let guarded = router(
        server,
        HttpConfig {
            oauth: Some(OAuthConfig::new(&issuer.url, RESOURCE)),
            ..HttpConfig::default()
        },
    );

    // Check once that every variant answers the sum, and fetch the keys.
    let cases = [
        ("none", &open, None),
        ("rs256_cached_key", &guarded, Some(rs256.as_str())),
        ("es256_cached_key", &guarded, Some(es256.as_str())),
    ];
    for (name, router, token) in cases {
        let (status, body) = runtime.block_on(call(router, request(token)));
        let answer: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(status, StatusCode::OK, "{name}: {answer}");
        assert_eq!(
            answer["result"]["structuredContent"],
            json!({ "sum": 42 }),
            "{name}: {answer}"
        );
    }
    let (status, _) = runtime.block_on(call(&guarded, request(None)));
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a call without a token");
    assert_eq!(issuer.key_fetches(), 1, "the keys are fetched once");

    let mut group = c.benchmark_group("oauth_call");
    for (name, router, token) in cases {
        group.bench_function(name, |b| {
            b.iter_batched(
                || request(token),
                |request| black_box(runtime.block_on(call(router, request))),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
    assert_eq!(
        issuer.key_fetches(),
        1,
        "every measured call used kept keys"
    );

    let jwks: JwkSet = serde_json::from_str(fixtures::JWKS).expect("the test JWK set");
    let key = |kid: &str| {
        let jwk = jwks.find(kid).expect("the test key");
        DecodingKey::from_jwk(jwk).expect("a usable key")
    };
    let tokens = [
        (
            "rs256",
            Algorithm::RS256,
            rs256.as_str(),
            key("bench-rs256"),
        ),
        (
            "es256",
            Algorithm::ES256,
            es256.as_str(),
            key("bench-es256"),
        ),
    ];
    let mut group = c.benchmark_group("jwt");
    for (name, algorithm, token, key) in &tokens {
        let decode = |validation: &Validation| {
            jsonwebtoken::decode::<Map<String, Value>>(token, key, validation)
                .map(|data| data.claims)
        };
        let prebuilt = validation(*algorithm, &issuer.url);
        assert!(decode(&prebuilt).is_ok(), "{name}: the token checks");
        group.bench_function(format!("{name}_decode_validation_per_token"), |b| {
            b.iter(|| black_box(decode(&validation(*algorithm, black_box(&issuer.url)))))
        });
        group.bench_function(format!("{name}_decode_validation_prebuilt"), |b| {
            b.iter(|| black_box(decode(&prebuilt)))
        });
        // The server clones the key it found, with the algorithms it may check.
        let algorithms = vec![*algorithm];
        group.bench_function(format!("{name}_key_clone"), |b| {
            b.iter(|| black_box((key.clone(), algorithms.clone())))
        });
    }
    group.bench_function("validation_build", |b| {
        b.iter(|| black_box(validation(Algorithm::RS256, black_box(&issuer.url))))
    });
    group.bench_function("decode_header", |b| {
        b.iter(|| black_box(jsonwebtoken::decode_header(black_box(&rs256))))
    });
    // A cache of verified tokens, keyed by the token's whole text with a hasher an attacker
    // cannot aim at, each entry good until the token's `exp`.
    let (_, algorithm, token, key) = &tokens[0];
    let claims = jsonwebtoken::decode::<Map<String, Value>>(
        token,
        key,
        &validation(*algorithm, &issuer.url),
    )
    .expect("the token checks")
    .claims;
    let expiry = claims["exp"].as_u64().expect("an expiry");
    let verified: HashMap<String, (u64, Arc<Map<String, Value>>)> =
        HashMap::from([(token.to_string(), (expiry, Arc::new(claims)))]);
    group.bench_function("verified_token_lookup", |b| {
        b.iter(|| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(u64::MAX, |since| since.as_secs());
            black_box(
                verified
                    .get(black_box(*token))
                    .filter(|(expiry, _)| now < *expiry)
                    .map(|(_, claims)| Arc::clone(claims)),
            )
        })
    });
    group.finish();
}

// criterion's macro generates an undocumented function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
