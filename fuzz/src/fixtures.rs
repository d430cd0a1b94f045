//! The tools the fuzz targets call, all under the `fuzz.` namespace.
//!
//! Two kinds: a few small tools of every execution kind (inline, async, blocking, one that
//! reports progress, one marked `dangerous`) for the dispatcher, and tools with rich
//! parameter types and schema constraints for the arguments. Those echo what they were
//! given in a type that carries the same constraints, so their output schema restates the
//! input's: a success whose data breaks it is a call that should have been refused.

use std::collections::BTreeMap;

use mcp_runtime::{ToolContext, ToolError, mcp_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// For the dispatcher

/// A sum.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// Adds two integers; refuses a sum past 64 bits.
#[mcp_tool(namespace = "fuzz", read_only, idempotent, inline)]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Sum, ToolError> {
    a.checked_add(b)
        .map(|sum| Sum { sum })
        .ok_or_else(|| ToolError::validation("the sum does not fit in 64 bits"))
}

/// What `echo` says back.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Echoed {
    /// The text, as many times as asked.
    #[schemars(length(max = 256))]
    pub text: String,
}

/// Says a short text back, after yielding once.
#[mcp_tool(namespace = "fuzz", read_only)]
pub async fn echo(
    /// At most 64 characters.
    #[schemars(length(max = 64))]
    text: String,
    /// How many times, at most 4; once when absent.
    #[schemars(range(min = 1, max = 4))]
    times: Option<u8>,
) -> Echoed {
    tokio::task::yield_now().await;
    Echoed {
        text: text.repeat(usize::from(times.unwrap_or(1))),
    }
}

/// Repeats a short lower-case code, joined by a separator.
#[mcp_tool(namespace = "fuzz")]
pub fn repeat(
    /// How often, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    count: u8,
    /// One to five lower-case letters.
    #[schemars(length(min = 1, max = 5), regex(pattern = r"^[a-z]+$"))]
    code: String,
    /// What goes between the copies; nothing when absent.
    #[schemars(length(max = 3))]
    separator: Option<String>,
) -> String {
    vec![code; usize::from(count)].join(separator.as_deref().unwrap_or(""))
}

/// Counts to `steps`, reporting progress at each.
#[mcp_tool(namespace = "fuzz", inline)]
pub fn count(
    /// At most 5.
    #[schemars(range(max = 5))]
    steps: u8,
    ctx: &ToolContext,
) -> u8 {
    for step in 1..=steps {
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some("counting"));
    }
    steps
}

/// Pretends to wipe a disk: marked dangerous, so the fuzz registries refuse to run it.
#[mcp_tool(namespace = "fuzz", dangerous, destructive, inline)]
pub fn wipe(
    /// The disk it would wipe.
    disk: String,
) -> String {
    format!("wiped {disk} (not really)")
}

/// Does nothing, and says so without data.
#[mcp_tool(namespace = "fuzz", inline)]
pub fn nothing() {}

// ---------------------------------------------------------------------------------------
// For the arguments

/// A person's profile, as given.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    /// 1 to 16 characters: a letter, then letters, digits or `_`.
    #[schemars(length(min = 1, max = 16), regex(pattern = r"^[A-Za-z][A-Za-z0-9_]*$"))]
    pub name: String,
    /// 1 to 150.
    #[schemars(range(min = 1, max = 150))]
    pub age: u8,
    /// 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub score: f64,
    /// At most four tags.
    #[schemars(length(max = 4))]
    pub tags: Vec<String>,
    /// At most eight characters.
    #[schemars(length(max = 8))]
    pub nickname: Option<String>,
}

/// Checks a profile, and gives it back.
#[mcp_tool(namespace = "fuzz", inline)]
pub fn profile(
    /// The person's name: 1 to 16 characters, a letter first.
    #[schemars(length(min = 1, max = 16), regex(pattern = r"^[A-Za-z][A-Za-z0-9_]*$"))]
    name: String,
    /// Age in years, 1 to 150.
    #[schemars(range(min = 1, max = 150))]
    age: u8,
    /// A score from 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    score: f64,
    /// At most four tags.
    #[schemars(length(max = 4))]
    tags: Vec<String>,
    /// A nickname of at most eight characters.
    #[schemars(length(max = 8))]
    nickname: Option<String>,
) -> Profile {
    Profile {
        name,
        age,
        score,
        tags,
        nickname,
    }
}

/// A point on a grid.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// Across.
    pub x: i32,
    /// Down.
    pub y: i32,
}

/// A shape, tagged by `kind`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Not negative.
        #[schemars(range(min = 0.0))]
        radius: f64,
    },
    /// A rectangle of at most 1000 by 1000.
    Rect {
        /// Across.
        #[schemars(range(max = 1000))]
        width: u32,
        /// Down.
        #[schemars(range(max = 1000))]
        height: u32,
    },
    /// A polygon of three to eight corners.
    Polygon {
        /// The corners.
        #[schemars(length(min = 3, max = 8))]
        corners: Vec<Point>,
    },
    /// A shape with no extent.
    Dot,
}

/// A shape placed somewhere.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Placed {
    /// The shape.
    pub shape: Shape,
    /// Where; the origin when absent.
    pub origin: Option<Point>,
    /// A scale factor from 0.5 to 4.
    #[schemars(range(min = 0.5, max = 4.0))]
    pub scale: Option<f64>,
}

/// Places a shape, and gives it back.
#[mcp_tool(namespace = "fuzz")]
pub async fn place(
    /// The shape.
    shape: Shape,
    /// Where; the origin when absent.
    origin: Option<Point>,
    /// A scale factor from 0.5 to 4.
    #[schemars(range(min = 0.5, max = 4.0))]
    scale: Option<f64>,
) -> Placed {
    tokio::task::yield_now().await;
    Placed {
        shape,
        origin,
        scale,
    }
}

/// How loud.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Quiet.
    Low,
    /// The default.
    #[default]
    Medium,
    /// Loud.
    High,
}

/// A number or a text, told apart by their JSON type.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NumberOrText {
    /// An integer.
    Number(i64),
    /// A text of at most ten characters.
    Text(#[schemars(length(max = 10))] String),
}

/// Settings, every one with a default.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Settings {
    /// At most 500.
    #[serde(rename = "maxItems")]
    #[schemars(range(max = 500))]
    pub max_items: u16,
    /// How loud.
    pub level: Level,
    /// Named limits.
    pub limits: BTreeMap<String, u8>,
    /// Switches.
    pub flags: Vec<bool>,
    /// A single character.
    pub letter: char,
    /// A number or a text.
    pub key: NumberOrText,
    /// Anything at all.
    pub extra: Option<Value>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_items: 10,
            level: Level::Medium,
            limits: BTreeMap::new(),
            flags: Vec::new(),
            letter: 'a',
            key: NumberOrText::Number(0),
            extra: None,
        }
    }
}

/// What `configure` was given.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Configured {
    /// The settings.
    pub settings: Settings,
    /// The id.
    pub id: u64,
    /// A small signed number.
    pub delta: i8,
    /// A pair.
    pub pair: (u8, String),
}

/// Applies settings, and gives them back.
#[mcp_tool(namespace = "fuzz")]
pub fn configure(
    /// The settings.
    settings: Settings,
    /// Any unsigned 64-bit id.
    id: u64,
    /// A small signed number.
    #[serde(default)]
    delta: i8,
    /// A byte and a text.
    pair: (u8, String),
) -> Configured {
    Configured {
        settings,
        id,
        delta,
        pair,
    }
}

/// A greeting.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Greeting {
    /// The line.
    pub line: String,
    /// Whether it was shouted.
    pub shouted: bool,
}

/// Greets someone: a tool whose schema states nothing beyond the parameters' types, so that
/// its arguments are checked by deserialization alone.
#[mcp_tool(namespace = "fuzz", inline)]
pub fn greet(
    /// Who to greet.
    #[serde(rename = "userName")]
    user_name: String,
    /// Whether to shout; also accepted as `loud`.
    #[serde(alias = "loud")]
    shout: Option<bool>,
    /// How many exclamation marks.
    #[serde(default)]
    marks: u8,
    /// Where the greeting is.
    place: Option<Point>,
) -> Greeting {
    let mut line = format!(
        "Hello, {user_name}{}",
        "!".repeat(usize::from(marks.min(3)))
    );
    if let Some(Point { x, y }) = place {
        line.push_str(&format!(" at ({x}, {y})"));
    }
    let shouted = shout == Some(true);
    if shouted {
        line = line.to_uppercase();
    }
    Greeting { line, shouted }
}

/// Gives back a matrix of small numbers: at most eight rows of at most eight.
#[mcp_tool(namespace = "fuzz", inline)]
pub fn matrix(
    /// The rows.
    #[schemars(length(max = 8), inner(length(max = 8)))]
    rows: Vec<Vec<i16>>,
) -> Vec<Vec<i16>> {
    rows
}
