//! The example answers only requests that carry its bearer token.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;

use mcp_tests::HttpServer;
use serde_json::Value;

/// One HTTP/1.1 POST of `body` to `url` (`http://host:port/mcp`): the status and the body.
fn post(address: &str, token: Option<&str>, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connects");
    let authorization = token.map_or(String::new(), |token| {
        format!("Authorization: Bearer {token}\r\n")
    });
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json\r\n{authorization}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().expect("a status code");
    let body = response
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    (status, body)
}

#[test]
fn requests_need_the_bearer_token() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_http-example"));
    command
        .env("MCP_TOKEN", "s3cret")
        .env("MCP_ADDR", "127.0.0.1:0");
    let server = HttpServer::start(command);
    let address = server.address.to_string();

    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo.say","arguments":{"text":"hi"}}}"#;
    assert_eq!(post(&address, None, call).0, 401);
    assert_eq!(post(&address, Some("wrong"), call).0, 401);
    let (status, body) = post(&address, Some("s3cret"), call);
    drop(server);
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["result"]["structuredContent"]["result"], "hi");
}
