//! Helpers shared by mcp-runtime's integration tests; each test file uses some of them.
#![allow(dead_code)]

use std::net::SocketAddr;

use mcp_runtime::{
    ErrorDetails, ErrorType, MCPToolResult, Registry, ToolDefinition, ToolError, ToolStatus,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The error of a failure, its details as JSON.
pub(crate) fn failure(result: &MCPToolResult) -> (ErrorType, String, Value) {
    assert_eq!(result.status(), ToolStatus::Failure, "{result:?}");
    let error = result.error().expect("a failure has an error");
    let details = match &error.error_details {
        Some(ErrorDetails::Object(map)) => Value::Object(map.clone()),
        Some(ErrorDetails::Text(text)) => Value::String(text.clone()),
        None => Value::Null,
    };
    (
        error.error_type.clone(),
        error.error_message.clone(),
        details,
    )
}

/// A registry of dynamic tools, one for each definition in the order given, each answering
/// `{"tool": its name}`.
pub(crate) fn registry_of(definitions: &[ToolDefinition]) -> Registry {
    definitions
        .iter()
        .fold(Registry::builder(), |builder, definition| {
            let name = definition.name().to_string();
            builder.tool(definition.clone(), move |_arguments, _ctx| {
                let name = name.clone();
                async move { Ok::<_, ToolError>(json!({ "tool": name })) }
            })
        })
        .build()
        .expect("a valid registry")
}

/// Writes the HTTP request `request` to `to` on a connection of its own, and reads the
/// whole response (the request asks the server to close the connection after it).
pub(crate) async fn exchange(to: SocketAddr, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(to)
        .await
        .expect("the server accepts connections");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the request is sent");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .await
        .expect("the response is read");
    response
}
