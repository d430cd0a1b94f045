//! Agent Skills as MCP's skills extension (SEP-2640, `io.modelcontextprotocol/skills`)
//! serves them: a skill is a folder whose `SKILL.md` begins with YAML front matter (its
//! `name` and `description` at least), served as resources under `skill://NAME/PATH`
//! and listed by `skills/list` and `skills/get`, each entry with the front matter as
//! JSON and a manifest of the skill's files (their digests and sizes).
//!
//! This module reads front matter ([`front_matter`]), checks names ([`check_name`]), and
//! holds the wire forms of the entries ([`SkillEntry`]). The server, the client and the
//! `skills!` macro all read a `SKILL.md` through it, so they agree on what is valid.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};
use yaml_rust2::Yaml;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The file every skill has at its top, which names and describes it.
pub const SKILL_FILE: &str = "SKILL.md";

/// The scheme of the URIs skills are served under: `skill://NAME/PATH`.
pub const SCHEME: &str = "skill";

/// The MIME type `SKILL.md` is served with.
pub const SKILL_FILE_MIME_TYPE: &str = "text/markdown";

/// The MIME type of a directory in `resources/directory/read`.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The most files one skill lists.
pub const MAX_RESOURCES_PER_SKILL: usize = 512;

/// The most bytes one skill's files hold together.
pub const MAX_TOTAL_SIZE: u64 = 16 * 1024 * 1024;

/// The longest a name may be, in characters.
pub const MAX_NAME_LENGTH: usize = 64;

/// The longest a description may be, in characters.
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;

/// The most bytes of front matter read: a `SKILL.md` whose front matter is longer is
/// refused rather than parsed.
pub const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// How deeply front matter may nest mappings and sequences.
const MAX_DEPTH: usize = 32;

/// Why a skill's name breaks the Agent Skills naming rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// The name is empty.
    #[error("it is empty")]
    Empty,
    /// The name is longer than [`MAX_NAME_LENGTH`].
    #[error("it is longer than {MAX_NAME_LENGTH} characters")]
    TooLong,
    /// A character other than a lower-case ASCII letter, a digit or a hyphen.
    #[error("`{0}` is not a lower-case letter, a digit or a hyphen")]
    Character(char),
    /// The name begins or ends with a hyphen.
    #[error("it begins or ends with a hyphen")]
    EdgeHyphen,
    /// Two hyphens in a row.
    #[error("it has two hyphens in a row")]
    DoubleHyphen,
}

/// Checks `name` against the Agent Skills naming rules: 1 to 64 lower-case ASCII letters,
/// digits and hyphens, neither beginning nor ending with a hyphen, with no two hyphens in
/// a row.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(NameError::Character(bad));
    }
    if name.len() > MAX_NAME_LENGTH {
        return Err(NameError::TooLong);
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(NameError::EdgeHyphen);
    }
    if name.contains("--") {
        return Err(NameError::DoubleHyphen);
    }
    Ok(())
}

/// Why a `SKILL.md`'s front matter was refused. Lines count from 1, in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontMatterError {
    /// The file does not begin with a `---` line, or that block has no closing `---`.
    #[error("SKILL.md must begin with front matter: a `---` line, YAML, and a closing `---` line")]
    Missing,
    /// The front matter is longer than [`MAX_FRONT_MATTER_BYTES`].
    #[error("the front matter is longer than {} KiB", MAX_FRONT_MATTER_BYTES / 1024)]
    TooLong,
    /// The YAML could not be parsed.
    #[error("the front matter is not valid YAML, at line {line}, column {column}: {reason}")]
    Yaml {
        /// The line, in the file.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What the parser said.
        reason: String,
    },
    /// The YAML uses what JSON cannot carry or this reader refuses: an alias, a tag, a
    /// number that is not finite, a key that is not a scalar, nesting too deep.
    #[error("the front matter at line {line} uses {what}, which skills do not take")]
    Unsupported {
        /// The line, in the file.
        line: usize,
        /// What it uses.
        what: &'static str,
    },
    /// Front matter given as fields nests deeper than a `SKILL.md`'s may.
    #[error("the front matter nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// The front matter is not a mapping of fields.
    #[error("the front matter is not a mapping of fields")]
    NotAMapping,
    /// A required field is missing, or is not a non-empty string.
    #[error("the front matter's `{0}` must be a non-empty string")]
    Field(&'static str),
    /// The `name` breaks the naming rules.
    #[error("the skill's name `{name}` breaks the naming rules: {reason}")]
    Name {
        /// The name.
        name: String,
        /// Which rule.
        reason: NameError,
    },
    /// The `description` is longer than [`MAX_DESCRIPTION_LENGTH`].
    #[error("the front matter's `description` is longer than {MAX_DESCRIPTION_LENGTH} characters")]
    DescriptionTooLong,
}

/// A `SKILL.md`'s front matter: its fields as JSON, in the file's order, with a valid
/// `name` and a `description`.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontMatter {
    fields: Map<String, Value>,
}

impl FrontMatter {
    /// The skill's name.
    pub fn name(&self) -> &str {
        self.fields
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// What the skill is for.
    pub fn description(&self) -> &str {
        self.fields
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Every field, as JSON.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// Every field, as JSON, owned.
    pub fn into_fields(self) -> Map<String, Value> {
        self.fields
    }
}

/// Reads the front matter at the top of a `SKILL.md` (after a byte-order mark, if any):
/// the YAML between a first line `---` and the next line `---`, as JSON. It must be a
/// mapping with a `name` that keeps the naming rules and a non-empty `description`.
pub fn front_matter(text: &str) -> Result<FrontMatter, FrontMatterError> {
    let (yaml, first_line) = front_matter_block(text)?;
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return Err(FrontMatterError::TooLong);
    }
    let value = parse_yaml(yaml, first_line)?;
    let Value::Object(fields) = value else {
        return Err(FrontMatterError::NotAMapping);
    };
    checked(fields)
}

impl FrontMatter {
    /// Front matter given as its fields, as a skill entry's `frontmatter` carries it, held
    /// to what a `SKILL.md`'s is: at most [`MAX_FRONT_MATTER_BYTES`] written as JSON,
    /// nested at most as deep, a `name` that keeps the naming rules, and a `description`.
    pub fn from_fields(fields: Map<String, Value>) -> Result<Self, FrontMatterError> {
        let size = serde_json::to_vec(&fields).map_or(usize::MAX, |bytes| bytes.len());
        if size > MAX_FRONT_MATTER_BYTES {
            return Err(FrontMatterError::TooLong);
        }
        // The fields are one level, as a file's top mapping is; each array or object in
        // them one more.
        let mut open: Vec<(&Value, usize)> = fields.values().map(|value| (value, 2)).collect();
        while let Some((value, depth)) = open.pop() {
            let children: Box<dyn Iterator<Item = &Value>> = match value {
                Value::Array(items) => Box::new(items.iter()),
                Value::Object(fields) => Box::new(fields.values()),
                _ => continue,
            };
            if depth > MAX_DEPTH {
                return Err(FrontMatterError::TooDeep);
            }
            open.extend(children.map(|child| (child, depth + 1)));
        }
        checked(fields)
    }
}

/// `fields` as front matter, once its `name` and `description` are checked.
fn checked(fields: Map<String, Value>) -> Result<FrontMatter, FrontMatterError> {
    let name = required_text(&fields, "name")?;
    check_name(name).map_err(|reason| FrontMatterError::Name {
        name: name.to_owned(),
        reason,
    })?;
    let description = required_text(&fields, "description")?;
    if description.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(FrontMatterError::DescriptionTooLong);
    }
    Ok(FrontMatter { fields })
}

fn required_text<'a>(
    fields: &'a Map<String, Value>,
    field: &'static str,
) -> Result<&'a str, FrontMatterError> {
    match fields.get(field) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text),
        _ => Err(FrontMatterError::Field(field)),
    }
}

/// The YAML between the opening and the closing `---` lines, and the file's line its
/// first line is on.
fn front_matter_block(text: &str) -> Result<(&str, usize), FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(FrontMatterError::Missing)?;
    let mut start = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            return Ok((&rest[..start], 2));
        }
        start += line.len();
    }
    Err(FrontMatterError::Missing)
}

/// Parses one YAML document into JSON, through the parser's events: aliases are refused
/// (no expansion to blow up), and so is nesting past [`MAX_DEPTH`].
fn parse_yaml(yaml: &str, first_line: usize) -> Result<Value, FrontMatterError> {
    let mut builder = Builder {
        stack: Vec::new(),
        done: None,
        error: None,
        first_line,
    };
    let mut parser = Parser::new_from_str(yaml);
    parser
        .load(&mut builder, false)
        .map_err(|error| FrontMatterError::Yaml {
            line: error.marker().line() + first_line - 1,
            column: error.marker().col() + 1,
            reason: error.info().to_owned(),
        })?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    Ok(builder.done.unwrap_or(Value::Null))
}

/// A mapping or a sequence being built, with the key a mapping waits to give a value.
enum Open {
    Sequence(Vec<Value>),
    Mapping(Map<String, Value>, Option<String>),
}

struct Builder {
    stack: Vec<Open>,
    done: Option<Value>,
    error: Option<FrontMatterError>,
    first_line: usize,
}

impl Builder {
    fn refuse(&mut self, mark: Marker, what: &'static str) {
        self.error.get_or_insert(FrontMatterError::Unsupported {
            line: mark.line() + self.first_line - 1,
            what,
        });
    }

    fn open(&mut self, open: Open, mark: Marker) {
        if self.stack.len() >= MAX_DEPTH {
            self.refuse(mark, "nesting too deep");
        } else {
            self.stack.push(open);
        }
    }

    fn close(&mut self, mark: Marker) {
        let value = match self.stack.pop() {
            Some(Open::Sequence(items)) => Value::Array(items),
            Some(Open::Mapping(fields, _)) => Value::Object(fields),
            None => return,
        };
        self.insert(value, None, mark);
    }

    /// Puts `value` where it goes; `key` is its text, if a scalar could be a key.
    fn insert(&mut self, value: Value, key: Option<String>, mark: Marker) {
        match self.stack.last_mut() {
            None => self.done = Some(value),
            Some(Open::Sequence(items)) => items.push(value),
            Some(Open::Mapping(fields, waiting)) => match waiting.take() {
                Some(name) => {
                    fields.insert(name, value);
                }
                None => match key {
                    Some(key) => *waiting = Some(key),
                    None => self.refuse(mark, "a key that is not a scalar"),
                },
            },
        }
    }

    fn scalar(&mut self, text: String, style: TScalarStyle, tagged: bool, mark: Marker) {
        if tagged {
            return self.refuse(mark, "a tag");
        }
        let value = if style == TScalarStyle::Plain {
            match Yaml::from_str(&text) {
                Yaml::Integer(number) => Value::Number(number.into()),
                Yaml::Real(real) => match real.parse::<f64>().ok().and_then(Number::from_f64) {
                    Some(number) => Value::Number(number),
                    None => return self.refuse(mark, "a number that is not finite"),
                },
                Yaml::Boolean(truth) => Value::Bool(truth),
                Yaml::Null => Value::Null,
                _ => Value::String(text.clone()),
            }
        } else {
            Value::String(text.clone())
        };
        self.insert(value, Some(text), mark);
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        match event {
            Event::Alias(_) => self.refuse(mark, "an alias"),
            Event::Scalar(text, style, _, tag) => self.scalar(text, style, tag.is_some(), mark),
            Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) if tag.is_some() => {
                self.refuse(mark, "a tag");
            }
            Event::SequenceStart(..) => self.open(Open::Sequence(Vec::new()), mark),
            Event::MappingStart(..) => self.open(Open::Mapping(Map::new(), None), mark),
            Event::SequenceEnd | Event::MappingEnd => self.close(mark),
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
        }
    }
}

/// One file of a skill as its entry lists it: where it is read, its SHA-256 digest
/// (`sha256:` and 64 lower-case hex digits) and its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's `skill://` URI.
    pub uri: String,
    /// `sha256:` and the hex digest of its bytes.
    pub digest: String,
    /// Its size in bytes.
    pub size: u64,
}

/// The files of a skill: listed, or `"dynamic"` where the server cannot list them ahead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// Every file, `SKILL.md` among them.
    Listed(Vec<SkillResource>),
    /// Not listed ahead: the string `"dynamic"`.
    Dynamic(Dynamic),
}

/// The string `"dynamic"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// A skill as `skills/list` and `skills/get` give it: its `SKILL.md` URI, the front matter
/// as JSON (identical in content to the file's), and its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// `skill://NAME/SKILL.md`.
    pub uri: String,
    /// The `SKILL.md`'s front matter.
    pub frontmatter: Map<String, Value>,
    /// Its files.
    pub resources: SkillResources,
    /// Metadata, under the `io.modelcontextprotocol.skills/` prefix.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The URI of a file of skill `name`: `skill://NAME/PATH`.
pub fn uri(name: &str, path: &str) -> String {
    format!("{SCHEME}://{name}/{path}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn front_matter_is_read_as_json_in_order() {
        let text = "---\nname: pdf-processing\ndescription: Fill PDF forms.\nlicense: MIT\n\
                    metadata:\n  version: 1.2\n  tags: [a, 'b']\n  count: 3\n  draft: false\n---\n# Body\n";
        let front = front_matter(text).unwrap();
        assert_eq!(front.name(), "pdf-processing");
        assert_eq!(front.description(), "Fill PDF forms.");
        assert_eq!(
            Value::Object(front.fields().clone()),
            json!({
                "name": "pdf-processing",
                "description": "Fill PDF forms.",
                "license": "MIT",
                "metadata": { "version": 1.2, "tags": ["a", "b"], "count": 3, "draft": false }
            })
        );
        let keys: Vec<&String> = front.fields().keys().collect();
        assert_eq!(keys, ["name", "description", "license", "metadata"]);
    }

    #[test]
    fn a_byte_order_mark_and_crlf_lines_are_taken() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: b\r\n---  \r\nbody";
        assert_eq!(front_matter(text).unwrap().name(), "a");
    }

    #[test]
    fn quoted_scalars_stay_strings() {
        let text = "---\nname: a\ndescription: '123'\nversion: \"true\"\n---\n";
        let front = front_matter(text).unwrap();
        assert_eq!(front.fields()["description"], json!("123"));
        assert_eq!(front.fields()["version"], json!("true"));
    }

    #[test]
    fn missing_or_unclosed_front_matter_is_refused() {
        for text in [
            "# no front matter",
            "---\nname: a\ndescription: b\n",
            " ---\nname: a\n---\n",
        ] {
            assert_eq!(
                front_matter(text),
                Err(FrontMatterError::Missing),
                "{text:?}"
            );
        }
    }

    #[test]
    fn required_fields_must_be_non_empty_strings() {
        let cases = [
            ("---\ndescription: b\n---\n", "name"),
            ("---\nname: a\n---\n", "description"),
            ("---\nname: a\ndescription: ''\n---\n", "description"),
            ("---\nname: 12\ndescription: b\n---\n", "name"),
        ];
        for (text, field) in cases {
            assert_eq!(
                front_matter(text),
                Err(FrontMatterError::Field(field)),
                "{text:?}"
            );
        }
        assert_eq!(
            front_matter("---\n- a\n- b\n---\n"),
            Err(FrontMatterError::NotAMapping)
        );
    }

    #[test]
    fn names_keep_the_naming_rules() {
        for good in ["a", "pdf-processing", "x9", &"a".repeat(64)] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        let cases = [
            ("", NameError::Empty),
            ("PDF", NameError::Character('P')),
            ("a_b", NameError::Character('_')),
            ("a/b", NameError::Character('/')),
            ("-a", NameError::EdgeHyphen),
            ("a-", NameError::EdgeHyphen),
            ("a--b", NameError::DoubleHyphen),
        ];
        for (name, error) in cases {
            assert_eq!(check_name(name), Err(error), "{name}");
        }
        assert_eq!(check_name(&"a".repeat(65)), Err(NameError::TooLong));
        let text = "---\nname: Bad_Name\ndescription: b\n---\n";
        assert!(matches!(
            front_matter(text),
            Err(FrontMatterError::Name {
                reason: NameError::Character('B'),
                ..
            })
        ));
    }

    #[test]
    fn aliases_tags_and_deep_nesting_are_refused_with_their_line() {
        let alias = "---\nname: a\ndescription: b\nx: &one [1]\ny: *one\n---\n";
        assert_eq!(
            front_matter(alias),
            Err(FrontMatterError::Unsupported {
                line: 5,
                what: "an alias"
            })
        );
        let tag = "---\nname: a\ndescription: !custom b\n---\n";
        assert!(matches!(
            front_matter(tag),
            Err(FrontMatterError::Unsupported { what: "a tag", .. })
        ));
        let deep = format!(
            "---\nname: a\ndescription: b\nx: {}{}\n---\n",
            "[".repeat(40),
            "]".repeat(40)
        );
        assert!(matches!(
            front_matter(&deep),
            Err(FrontMatterError::Unsupported {
                what: "nesting too deep",
                ..
            })
        ));
        let infinite = "---\nname: a\ndescription: b\nx: .inf\n---\n";
        assert!(matches!(
            front_matter(infinite),
            Err(FrontMatterError::Unsupported {
                what: "a number that is not finite",
                ..
            })
        ));
    }

    #[test]
    fn broken_yaml_names_its_line_in_the_file() {
        let text = "---\nname: a\ndescription: b\nx: [unclosed\n---\n";
        match front_matter(text) {
            Err(FrontMatterError::Yaml { line, .. }) => assert!((4..=6).contains(&line), "{line}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn entries_have_the_wire_shape() {
        let entry = SkillEntry {
            uri: uri("a", SKILL_FILE),
            frontmatter: Map::new(),
            resources: SkillResources::Listed(vec![SkillResource {
                uri: uri("a", SKILL_FILE),
                digest: format!("sha256:{}", "0".repeat(64)),
                size: 3,
            }]),
            meta: None,
        };
        let wire = serde_json::to_value(&entry).unwrap();
        assert_eq!(wire["uri"], "skill://a/SKILL.md");
        assert_eq!(wire["resources"][0]["size"], 3);
        assert!(wire.get("_meta").is_none());
        let dynamic: SkillEntry = serde_json::from_value(
            json!({ "uri": "skill://a/SKILL.md", "frontmatter": {}, "resources": "dynamic" }),
        )
        .unwrap();
        assert_eq!(dynamic.resources, SkillResources::Dynamic(Dynamic::Dynamic));
    }

    /// `depth` nested objects, the innermost holding a number, as the one field `deep`.
    fn nested(depth: usize) -> Value {
        (0..depth).fold(json!(1), |inner, _| json!({ "x": inner }))
    }

    #[test]
    fn fields_are_held_to_what_a_skill_md_is() {
        let fields = |extra: Value| {
            let mut fields = json!({ "name": "pdf-processing", "description": "Fill forms." });
            fields
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            fields.as_object().unwrap().clone()
        };
        let given = fields(json!({ "metadata": { "version": "2" } }));
        let file = format!("---\n{}\n---\n", serde_json::to_string(&given).unwrap());
        assert_eq!(
            FrontMatter::from_fields(given.clone()).unwrap(),
            front_matter(&file).unwrap()
        );
        // As deep as a file's may nest, and one more: the same answer from both.
        for (depth, ok) in [(MAX_DEPTH - 1, true), (MAX_DEPTH, false)] {
            let given = fields(json!({ "deep": nested(depth) }));
            let file = format!("---\n{}\n---\n", serde_json::to_string(&given).unwrap());
            assert_eq!(front_matter(&file).is_ok(), ok, "{depth}");
            let from_fields = FrontMatter::from_fields(given);
            assert_eq!(from_fields.is_ok(), ok, "{depth}");
            if !ok {
                assert_eq!(from_fields.unwrap_err(), FrontMatterError::TooDeep);
            }
        }
        // Kept as given, whatever the text holds.
        let verbatim = fields(json!({
            "description": "Fill \"PDF\" forms: fast\n---\nreally",
            "metadata": { "version": 1.5, "tags": ["a", "b: c"], "draft": false },
            "license": null,
        }));
        let read = FrontMatter::from_fields(verbatim.clone()).unwrap();
        assert_eq!(read.fields(), &verbatim);
        let long = fields(json!({ "notes": "x".repeat(MAX_FRONT_MATTER_BYTES) }));
        assert_eq!(
            FrontMatter::from_fields(long).unwrap_err(),
            FrontMatterError::TooLong
        );
        let mut nameless = fields(json!({}));
        nameless.remove("name");
        assert_eq!(
            FrontMatter::from_fields(nameless).unwrap_err(),
            FrontMatterError::Field("name")
        );
        let bad_name = fields(json!({ "name": "PDF" }));
        assert!(matches!(
            FrontMatter::from_fields(bad_name),
            Err(FrontMatterError::Name { .. })
        ));
    }
}
