//! Resources and prompts of an application that reaches the runtime through its own module.

mod reexport {
    pub use mcp_runtime as rt;
}

mod items {
    use crate::reexport::rt::{mcp_prompt, mcp_resource};

    /// The version, through `crate = crate::reexport::rt`.
    #[mcp_resource(uri = "app://version", crate = crate::reexport::rt)]
    pub fn version() -> String {
        "1.0.0".to_owned()
    }

    /// A note by number.
    #[mcp_resource(uri_template = "app://notes/{n}", crate = crate::reexport::rt)]
    pub fn note(n: u8) -> String {
        format!("note {n}")
    }

    /// Says hello.
    #[mcp_prompt(crate = crate::reexport::rt)]
    pub fn hello(name: Option<String>) -> String {
        format!("Hello, {}!", name.unwrap_or_else(|| "world".to_owned()))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    use reexport::rt::Registry;

    assert_eq!(items::version(), "1.0.0");
    assert_eq!(items::note(1), "note 1");
    let registry = Registry::global();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let contents = runtime.block_on(registry.read_resource("app://notes/7"))?;
    assert_eq!(serde_json::to_value(contents)?[0]["text"], "note 7");
    assert_eq!(
        runtime
            .block_on(registry.read_resource("app://version"))?
            .len(),
        1
    );
    let rendered = runtime.block_on(registry.get_prompt("hello", Default::default()))?;
    assert_eq!(
        serde_json::to_value(&rendered.messages[0].content)?["text"],
        "Hello, world!"
    );
    Ok(())
}
