//! The client over `https://` (the `tls` feature): the quickstart behind nginx, which ends
//! TLS with a certificate made for the test by `openssl`. Trusted as a root, the certificate
//! lets the client call through, at either revision; not trusted, the connection is refused
//! with a clear error, never called in the clear. From the app's command line,
//! `--mount NAME=https://…` mounts such a server once `SSL_CERT_FILE` trusts it.

use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_runtime::client::{Client, ClientError, HttpServer};
use mcp_tests::nginx::{Nginx, temp_dir};
use mcp_tests::{HttpServer as Served, quickstart_bin};
use serde_json::json;

/// A self-signed certificate for 127.0.0.1, and its key: their paths.
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1"])
        // A server's certificate, not a CA's, which rustls refuses to see serve.
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs: scripts/test.sh installs it");
    assert!(
        made.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    (cert, key)
}

/// nginx ending TLS on a free port and passing `/mcp` to `upstream`.
fn tls_proxy(upstream: &str, cert: &Path, key: &Path) -> Nginx {
    Nginx::start(|address| {
        format!(
            "daemon off;
worker_processes 1;
pid nginx.pid;
error_log error.log notice;
events {{ worker_connections 64; }}
http {{
    access_log access.log;
    client_body_temp_path client_body_temp;
    proxy_temp_path proxy_temp;
    fastcgi_temp_path fastcgi_temp;
    uwsgi_temp_path uwsgi_temp;
    scgi_temp_path scgi_temp;
    server {{
        listen {address} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location = /mcp {{
            proxy_pass http://{upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_buffering off;
        }}
    }}
}}
",
            cert = cert.display(),
            key = key.display(),
        )
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_over_https_with_the_certificate_trusted_and_refuses_it_otherwise() {
    let dir = temp_dir("tls");
    let (cert, key) = certificate(&dir);
    let served = Served::spawn(quickstart_bin(), &[]);
    let proxy = tls_proxy(&served.address.to_string(), &cert, &key);
    let url = format!("https://{}/mcp", proxy.address);
    let pem = std::fs::read(&cert).expect("the certificate");

    for handshake in [false, true] {
        let mut builder = Client::builder();
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder
            .http(HttpServer::new(&url).root_certificate(pem.clone()))
            .await
            .unwrap_or_else(|err| panic!("handshake {handshake}: {err}\n{}", proxy.error_log()));
        let sum = client
            .call_tool("calculator.add", json!({ "a": 20, "b": 22 }))
            .await
            .expect("answered");
        assert_eq!(
            sum.data().map(|data| json!(data)),
            Some(json!({ "sum": 42 })),
            "handshake {handshake}: {sum}"
        );
    }

    // Not trusted: no connection, and the error says why.
    let refused = Client::builder()
        .http(HttpServer::new(&url))
        .await
        .expect_err("an unknown certificate is refused");
    assert!(matches!(refused, ClientError::Connect(_)), "{refused:?}");
    assert!(
        refused.to_string().to_lowercase().contains("certificate")
            || refused.to_string().contains(&proxy.address),
        "{refused}"
    );
    let not_pem = Client::builder()
        .http(HttpServer::new(&url).root_certificate(b"not a certificate".to_vec()))
        .await
        .expect_err("a root that is not PEM is refused");
    assert!(not_pem.to_string().contains("PEM"), "{not_pem}");

    // The command line: the quickstart mounts it with the certificate trusted through
    // `SSL_CERT_FILE`, and only then.
    let call = |trusted: bool| {
        let mut command = Command::new(quickstart_bin());
        command
            .args([
                "--mount",
                &format!("far={url}"),
                "call",
                "far.calculator.add",
            ])
            .arg(r#"{"a": 1, "b": 2}"#)
            .env_remove("SSL_CERT_FILE");
        if trusted {
            command.env("SSL_CERT_FILE", &cert);
        }
        command.output().expect("runs")
    };
    let trusted = call(true);
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    assert!(String::from_utf8_lossy(&trusted.stdout).contains("\"sum\": 3"));
    let untrusted = call(false);
    let said = String::from_utf8_lossy(&untrusted.stderr);
    assert!(!untrusted.status.success(), "{said}");
    assert!(said.contains("server `far`"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
