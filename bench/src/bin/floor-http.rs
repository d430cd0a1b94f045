//! The HTTP floor: a minimal axum server on a multi-thread Tokio runtime, `POST /mcp`
//! answered with the same JSON as the framework's, parsed and written by hand.
//!
//! ```text
//! floor-http --addr 127.0.0.1:0
//! ```
//!
//! Prints `listening on http://ADDR/mcp` on standard error once bound, as the framework
//! does.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use clap::Parser;

#[path = "../floor.rs"]
mod floor;

/// The HTTP floor's command line.
#[derive(Parser)]
struct Args {
    /// The address to listen on (port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
}

async fn post_mcp(body: Bytes) -> Response {
    let mut out = Vec::with_capacity(256);
    match floor::answer(&body, "floor-http", &mut out) {
        Ok(true) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            out,
        )
            .into_response(),
        Ok(false) => StatusCode::ACCEPTED.into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        eprintln!("listening on http://{}/mcp", listener.local_addr()?);
        axum::serve(listener, Router::new().route("/mcp", post(post_mcp))).await
    })
}
