//! The authorization server of the OAuth tests: `oauth2-mock-server` from npm, run by
//! `tests/oauth/issuer.mjs` under Node (installed by the test command with `npm ci --prefix
//! tests/oauth`). It signs real tokens with keys it publishes through OpenID discovery, runs
//! the authorization code flow of a real client (registration, PKCE, `iss`, the resource as
//! `aud`, refresh tokens), and has routes of the tests' own for tokens it would not issue.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};

use serde_json::{Value, json};

/// The authorization server, until dropped.
pub struct Issuer {
    /// Its issuer identifier, which is also its address.
    pub url: String,
    process: Child,
    /// Held open: the issuer exits when it closes.
    _stdin: ChildStdin,
}

impl Issuer {
    /// Starts it on a free loopback port, and waits until it listens.
    pub fn start() -> Self {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("oauth");
        assert!(
            dir.join("node_modules/oauth2-mock-server").is_dir(),
            "oauth2-mock-server is not installed: run `npm ci --prefix tests/oauth` (scripts/test.sh does)"
        );
        let mut process = Command::new("node")
            .arg(dir.join("issuer.mjs"))
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs");
        let stdin = process.stdin.take().expect("its input");
        let mut line = String::new();
        BufReader::new(process.stdout.take().expect("its output"))
            .read_line(&mut line)
            .expect("it says where it listens");
        let said: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{line:?}"));
        Self {
            url: said["issuer"].as_str().expect("an issuer").to_owned(),
            process,
            _stdin: stdin,
        }
    }

    /// A token from one of the issuer's own endpoints, `path`, given `body`.
    pub async fn token(&self, path: &str, body: Value) -> String {
        let answer = self.post(path, body).await;
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: {answer}"))
            .to_owned()
    }

    /// The JSON answer to a POST of `body` to `path`: a form for the token endpoint, JSON
    /// for the tests' own routes.
    async fn post(&self, path: &str, body: Value) -> Value {
        let http = reqwest::Client::new();
        let request = if path == "/token" {
            http.post(format!("{}{path}", self.url)).form(&body)
        } else {
            http.post(format!("{}{path}", self.url)).json(&body)
        };
        request
            .send()
            .await
            .expect("the issuer answers")
            .json()
            .await
            .expect("JSON")
    }

    /// An opaque token the issuer remembers with `body`'s claims, for its introspection.
    pub async fn opaque(&self, body: Value) -> String {
        self.token("/test/opaque", body).await
    }

    /// How many introspection requests the issuer has had.
    pub async fn introspections(&self) -> u64 {
        let said: Value = reqwest::get(format!("{}/test/introspections", self.url))
            .await
            .expect("the issuer answers")
            .json()
            .await
            .expect("JSON");
        said["count"].as_u64().expect("a count")
    }

    /// A new RS256 signing key, published at once: its key id.
    pub async fn rotate(&self) -> String {
        self.rotate_to("RS256").await
    }

    /// A new signing key for `alg` (`RS256`, `ES256`, …), published at once: its key id.
    pub async fn rotate_to(&self, alg: &str) -> String {
        self.new_key(json!({ "alg": alg })).await
    }

    /// A new RS256 key in the place of the key `kid`, which is withdrawn.
    pub async fn replace(&self, kid: &str) {
        self.new_key(json!({ "kid": kid })).await;
    }

    async fn new_key(&self, body: Value) -> String {
        let answer = self.post("/test/rotate", body).await;
        answer["kid"].as_str().expect("a key id").to_owned()
    }

    /// Stops it: its address no longer answers.
    pub fn stop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        self.stop();
    }
}
