//! A receiver of OTLP exports over HTTP, for the measurements of what exporting costs the
//! server: it takes every export (`POST /v1/traces`, `/v1/metrics`), reads it to its end
//! and answers 200, and counts what it took. It decodes nothing: the tests that read what
//! the server exports do so with the official definitions (`tests/python/otel`). Written
//! here so that it keeps up with the server on a machine they share: a receiver that falls
//! behind fills the server's export queue, which then drops spans and sends less.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Bytes;
use axum::http::StatusCode;

/// What the sink took, in exports and bytes.
#[derive(Default)]
struct Taken {
    exports: AtomicU64,
    bytes: AtomicU64,
}

/// Listens on 127.0.0.1 (a port of its own), writes the port to `port_file` once it
/// listens, and takes exports until it is stopped; on its way out, says what it took.
pub(crate) fn run(port_file: &std::path::Path) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        // Written whole, then renamed: a reader never sees half a port.
        let partial = port_file.with_extension("partial");
        std::fs::write(&partial, port.to_string())?;
        std::fs::rename(&partial, port_file)?;
        let taken = Arc::new(Taken::default());
        let counted = Arc::clone(&taken);
        let app = axum::Router::new().fallback(move |body: Bytes| {
            let counted = Arc::clone(&counted);
            async move {
                counted.exports.fetch_add(1, Ordering::Relaxed);
                counted
                    .bytes
                    .fetch_add(body.len() as u64, Ordering::Relaxed);
                (StatusCode::OK, [("content-type", "application/x-protobuf")])
            }
        });
        let stopped = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        let terminated = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut terminate) => {
                    terminate.recv().await;
                }
                Err(_) => std::future::pending().await,
            }
        };
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                tokio::select! {
                    () = stopped => {}
                    () = terminated => {}
                }
            })
            .await?;
        eprintln!(
            "otlp-sink: took {} exports, {} bytes",
            taken.exports.load(Ordering::Relaxed),
            taken.bytes.load(Ordering::Relaxed)
        );
        Ok(())
    })
}
