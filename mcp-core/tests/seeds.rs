//! Seed conformance of the message model.
//!
//! The fixtures under `tests/fixtures/seeds/` are one JSON message per file. A file name
//! reads `<seed>[_<section>]_<kind>_<what>.json`, where `<kind>` is `call`, `result` or
//! `error_detail` (the type the message deserializes into).
//!
//! `valid/` holds every JSON example of seed 002 (§3.1 call, §3.2 success and failure
//! results; the §8.1 call is identical to §3.1, so one file `002_3.1+8.1_…` covers both,
//! while the §8.2 results differ from §3.2 and have their own files) and every example
//! initialization of seeds 000 and 001, written as the JSON that the seed's Pydantic model
//! produces with `model_dump_json()` (all fields present, absent optional ones as `null`).
//! Seeds 000 and 001 contain the same four example initializations verbatim, so each is one
//! file named `000+001_…`.
//!
//! Transcription note: the two success examples of seed 002 (§3.2 and §8.2) contain a raw
//! newline inside the JSON string `"def sum_numbers(numbers):<newline>    return
//! sum(numbers)"`, which is not valid JSON. The fixtures escape it as `\n`.
//!
//! `invalid/` holds messages that break one rule each; [`INVALID`] says which field each
//! one must be rejected for, both by deserialization and by the schemars-generated schema.

use std::fmt::Debug;
use std::fs;
use std::path::{Path, PathBuf};

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use mcp_runtime_core::{
    ErrorType, MCPErrorDetail, MCPToolCall, MCPToolResult, MessageError, ToolStatus,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------
// Fixture tables
// ---------------------------------------------------------------------------------------

/// Every valid fixture. The directory must hold exactly these files.
const VALID: &[&str] = &[
    "000+001_call_read_file_content.json",
    "000+001_error_detail_resource_not_found.json",
    "000+001_result_failure_file_not_found.json",
    "000+001_result_success_read_file.json",
    // §3.1 and §8.1 show the same call.
    "002_3.1+8.1_call_generate_code.json",
    "002_3.2_result_failure_validation_error.json",
    // Raw newline in `generated_code` transcribed as `\n` (see the crate doc).
    "002_3.2_result_success_generate_code.json",
    "002_8.2_result_failure_validation_error.json",
    // Raw newline in `generated_code` transcribed as `\n` (see the crate doc).
    "002_8.2_result_success_generate_code.json",
];

/// An invalid fixture and the field its rejection must name, as a path
/// (`MessageError::field()` spelling: `tool_name`, `error.error_details`, `error.severity`).
struct Invalid {
    file: &'static str,
    field: &'static str,
}

const fn invalid(file: &'static str, field: &'static str) -> Invalid {
    Invalid { file, field }
}

/// Every invalid fixture. The directory must hold exactly these files.
const INVALID: &[Invalid] = &[
    // §3.1 tool call
    invalid("002_3.1_call_missing_tool_name.json", "tool_name"),
    invalid("002_3.1_call_tool_name_without_dot.json", "tool_name"),
    invalid("002_3.1_call_tool_name_upper_case.json", "tool_name"),
    invalid("002_3.1_call_tool_name_with_hyphen.json", "tool_name"),
    invalid("002_3.1_call_tool_name_empty_segment.json", "tool_name"),
    invalid("002_3.1_call_tool_name_number.json", "tool_name"),
    invalid("002_3.1_call_missing_arguments.json", "arguments"),
    invalid("002_3.1_call_arguments_array.json", "arguments"),
    invalid("002_3.1_call_arguments_string.json", "arguments"),
    invalid("002_3.1_call_extra_top_level_field.json", "request_id"),
    // §3.2 tool result
    invalid("002_3.2_result_failure_without_error.json", "error"),
    invalid("002_3.2_result_failure_error_null.json", "error"),
    invalid("002_3.2_result_failure_with_data.json", "data"),
    invalid("002_3.2_result_unknown_status.json", "status"),
    invalid("002_3.2_result_missing_status.json", "status"),
    invalid("002_3.2_result_data_array.json", "data"),
    invalid("002_3.2_result_explanation_number.json", "explanation"),
    invalid("002_3.2_result_extra_top_level_field.json", "metadata"),
    invalid("002_3.2_result_error_string.json", "error"),
    invalid(
        "002_3.2_result_error_details_number.json",
        "error.error_details",
    ),
    invalid(
        "002_3.2_result_error_details_array.json",
        "error.error_details",
    ),
    invalid(
        "002_3.2_result_error_missing_error_message.json",
        "error.error_message",
    ),
    invalid("002_3.2_result_error_unknown_field.json", "error.severity"),
    // §3.3 error detail
    invalid(
        "002_3.3_error_detail_missing_error_message.json",
        "error_message",
    ),
    invalid("002_3.3_error_detail_missing_error_type.json", "error_type"),
    invalid("002_3.3_error_detail_error_type_number.json", "error_type"),
    invalid(
        "002_3.3_error_detail_error_details_number.json",
        "error_details",
    ),
    invalid(
        "002_3.3_error_detail_error_details_array.json",
        "error_details",
    ),
    invalid("002_3.3_error_detail_unknown_field.json", "http_status"),
];

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// The message type a fixture deserializes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Call,
    Result,
    ErrorDetail,
}

impl Kind {
    /// The kind named in a fixture's file name: the first token after the leading
    /// seed/section tokens (those starting with a digit).
    fn of_file(file: &str) -> Kind {
        let stem = file
            .strip_suffix(".json")
            .expect("fixture files end in .json");
        let mut tokens = stem
            .split('_')
            .skip_while(|t| t.starts_with(|c: char| c.is_ascii_digit()));
        match (tokens.next(), tokens.next()) {
            (Some("call"), _) => Kind::Call,
            (Some("result"), _) => Kind::Result,
            (Some("error"), Some("detail")) => Kind::ErrorDetail,
            _ => panic!("{file}: the file name does not name a kind (call, result, error_detail)"),
        }
    }

    /// Deserializes `text` into the kind's type and serializes it back.
    fn round_trip(self, text: &str) -> Result<Value, serde_json::Error> {
        match self {
            Kind::Call => round_trip::<MCPToolCall>(text),
            Kind::Result => round_trip::<MCPToolResult>(text),
            Kind::ErrorDetail => round_trip::<MCPErrorDetail>(text),
        }
    }

    /// Builds the kind's type from a JSON object through its `TryFrom<Map>` impl.
    fn try_from_map(self, map: Map<String, Value>) -> Result<(), MessageError> {
        match self {
            Kind::Call => MCPToolCall::try_from(map).map(drop),
            Kind::Result => MCPToolResult::try_from(map).map(drop),
            Kind::ErrorDetail => MCPErrorDetail::try_from(map).map(drop),
        }
    }

    /// The schemars-generated root schema of the kind's type.
    fn schema(self) -> Value {
        match self {
            Kind::Call => schema_for::<MCPToolCall>(),
            Kind::Result => schema_for::<MCPToolResult>(),
            Kind::ErrorDetail => schema_for::<MCPErrorDetail>(),
        }
    }
}

fn fixtures_dir(which: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/seeds")
        .join(which)
}

fn read_fixture(which: &str, file: &str) -> String {
    let path = fixtures_dir(which).join(file);
    fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn fixture_value(which: &str, file: &str) -> Value {
    serde_json::from_str(&read_fixture(which, file))
        .unwrap_or_else(|err| panic!("{which}/{file} is not valid JSON: {err}"))
}

fn files_in(which: &str) -> Vec<String> {
    let mut files: Vec<String> = fs::read_dir(fixtures_dir(which))
        .expect("fixture directory exists")
        .map(|entry| {
            entry
                .expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    files
}

fn round_trip<T: DeserializeOwned + Serialize>(text: &str) -> Result<Value, serde_json::Error> {
    let value: T = serde_json::from_str(text)?;
    serde_json::to_value(&value)
}

fn schema_for<T: JsonSchema>() -> Value {
    mcp_runtime_core::schema::settings()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

fn validator_for(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema)
        .unwrap_or_else(|err| panic!("the generated schema does not compile: {err}\n{schema:#}"))
}

/// One schema validation error, flattened out of `anyOf`/`oneOf` contexts.
struct Found {
    instance_path: String,
    message: String,
    /// The property a `required` error misses or an `additionalProperties` error refuses.
    properties: Vec<String>,
}

fn flatten(err: &ValidationError<'_>, out: &mut Vec<Found>) {
    let properties = match err.kind() {
        ValidationErrorKind::Required { property } => {
            vec![property.as_str().unwrap_or_default().to_owned()]
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected.clone(),
        _ => Vec::new(),
    };
    out.push(Found {
        instance_path: err.instance_path().as_str().to_owned(),
        message: err.to_string(),
        properties,
    });
    if let ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } =
        err.kind()
    {
        for branch in context {
            for inner in branch {
                flatten(inner, out);
            }
        }
    }
}

fn schema_errors(schema: &Value, instance: &Value) -> Vec<Found> {
    let validator = validator_for(schema);
    let mut found = Vec::new();
    for err in validator.iter_errors(instance) {
        flatten(&err, &mut found);
    }
    found
}

fn describe(found: &[Found]) -> String {
    found
        .iter()
        .map(|f| format!("    at `{}`: {}", f.instance_path, f.message))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `error.error_details` → `/error/error_details`.
fn pointer(field: &str) -> String {
    field
        .split('.')
        .map(|segment| format!("/{segment}"))
        .collect()
}

/// Whether a schema error names `field`: it sits at the field's location, or it sits at the
/// field's parent and is a `required`/`additionalProperties` error about the field whose
/// message says the field's name (`"status" is a required property`, `('extra' was
/// unexpected)`).
fn names_field(found: &Found, field: &str) -> bool {
    let (parent, leaf) = field.rsplit_once('.').map_or(("", field), |(p, l)| (p, l));
    let parent = if parent.is_empty() {
        String::new()
    } else {
        pointer(parent)
    };
    found.instance_path == pointer(field)
        || (found.instance_path == parent
            && found.properties.iter().any(|p| p == leaf)
            && found.message.contains(leaf))
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("expected a JSON object, got {other}"),
    }
}

// ---------------------------------------------------------------------------------------
// Valid fixtures
// ---------------------------------------------------------------------------------------

#[test]
fn valid_fixture_directory_holds_exactly_the_listed_seed_examples() {
    assert_eq!(
        files_in("valid"),
        VALID,
        "update VALID when adding or removing fixtures"
    );
    let kinds: Vec<Kind> = VALID.iter().map(|file| Kind::of_file(file)).collect();
    for kind in [Kind::Call, Kind::Result, Kind::ErrorDetail] {
        assert!(kinds.contains(&kind), "no valid fixture of kind {kind:?}");
    }
}

#[test]
fn valid_fixtures_deserialize_and_reserialize_to_the_same_json() {
    let mut problems = Vec::new();
    for file in VALID {
        let text = read_fixture("valid", file);
        let expected: Value = serde_json::from_str(&text).expect("fixture is JSON");
        match Kind::of_file(file).round_trip(&text) {
            Ok(actual) if actual == expected => {}
            Ok(actual) => problems.push(format!(
                "{file}: re-serialized differently\n  file:  {expected}\n  serde: {actual}"
            )),
            Err(err) => problems.push(format!("{file}: does not deserialize: {err}")),
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn valid_fixtures_validate_against_the_schemars_schema_of_their_type() {
    let mut problems = Vec::new();
    for file in VALID {
        let kind = Kind::of_file(file);
        let found = schema_errors(&kind.schema(), &fixture_value("valid", file));
        if !found.is_empty() {
            problems.push(format!("{file} ({kind:?}):\n{}", describe(&found)));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn errors_inside_valid_result_fixtures_are_valid_error_details() {
    let schema = schema_for::<MCPErrorDetail>();
    let mut checked = 0;
    for file in VALID
        .iter()
        .filter(|file| Kind::of_file(file) == Kind::Result)
    {
        let error = &fixture_value("valid", file)["error"];
        if error.is_null() {
            continue;
        }
        let detail: MCPErrorDetail = serde_json::from_value(error.clone())
            .unwrap_or_else(|err| panic!("{file}: `error` is no MCPErrorDetail: {err}"));
        assert_eq!(&serde_json::to_value(&detail).unwrap(), error, "{file}");
        let found = schema_errors(&schema, error);
        assert!(found.is_empty(), "{file}:\n{}", describe(&found));
        checked += 1;
    }
    assert_eq!(checked, 3, "three failure examples carry an error");
}

#[test]
fn generated_schemas_are_valid_draft_2020_12_schemas() {
    for kind in [Kind::Call, Kind::Result, Kind::ErrorDetail] {
        let schema = kind.schema();
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{kind:?}"
        );
        if let Err(err) = jsonschema::meta::validate(&schema) {
            panic!("{kind:?}: {err}\n{schema:#}");
        }
    }
}

/// Asserts that `built` serializes to the fixture's JSON and equals the deserialized fixture.
fn assert_built_matches_fixture<T>(file: &str, built: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let expected = fixture_value("valid", file);
    assert_eq!(
        serde_json::to_value(built).unwrap(),
        expected,
        "{file}: serialized value"
    );
    let parsed: T = serde_json::from_value(expected).unwrap();
    assert_eq!(&parsed, built, "{file}: deserialized value");
}

#[test]
fn constructors_build_the_seed_000_001_examples() {
    assert_built_matches_fixture(
        "000+001_error_detail_resource_not_found.json",
        &MCPErrorDetail::new(
            "ResourceNotFound",
            "The requested resource could not be located.",
        )
        .with_details(object(json!({ "resource_id": "xyz-123" }))),
    );
    assert_built_matches_fixture(
        "000+001_call_read_file_content.json",
        &MCPToolCall::new(
            "file_utility.read_file_content",
            json!({ "file_path": "/path/to/file.txt", "max_chars": 1024 }),
        )
        .unwrap(),
    );
    assert_built_matches_fixture(
        "000+001_result_success_read_file.json",
        &MCPToolResult::success(json!({ "file_content": "Hello World" }))
            .with_explanation("Read file successfully."),
    );
    assert_built_matches_fixture(
        "000+001_result_failure_file_not_found.json",
        &MCPToolResult::failure(MCPErrorDetail::new(
            ErrorType::from("FileNotFound"),
            "The target file was not found.",
        )),
    );
}

#[test]
fn constructors_build_the_seed_002_examples() {
    assert_built_matches_fixture(
        "002_3.1+8.1_call_generate_code.json",
        &MCPToolCall::new(
            "ai_code_editing.generate_code",
            json!({
                "prompt": "Create a Python function to sum a list of numbers.",
                "language": "python",
                "context_code": "# This is where the function should be placed",
            }),
        )
        .unwrap(),
    );
    assert_built_matches_fixture(
        "002_3.2_result_success_generate_code.json",
        &MCPToolResult::success(json!({
            "generated_code": "def sum_numbers(numbers):\n    return sum(numbers)",
            "language": "python",
            "lines_generated": 2,
        }))
        .with_explanation("Generated Python function to sum a list of numbers."),
    );
    assert_built_matches_fixture(
        "002_8.2_result_success_generate_code.json",
        &MCPToolResult::success(json!({
            "generated_code": "def sum_numbers(numbers):\n    return sum(numbers)",
            "language": "python",
        }))
        .with_explanation("Generated Python function to sum a list of numbers."),
    );
    assert_built_matches_fixture(
        "002_3.2_result_failure_validation_error.json",
        &MCPToolResult::failure(
            MCPErrorDetail::new(
                ErrorType::ValidationError,
                "Invalid prompt: prompt cannot be empty",
            )
            .with_details(object(json!({
                "parameter": "prompt",
                "provided_value": "",
                "constraint": "non-empty string",
            }))),
        )
        .with_explanation("The tool call failed due to invalid input parameters."),
    );
    assert_built_matches_fixture(
        "002_8.2_result_failure_validation_error.json",
        &MCPToolResult::failure(
            MCPErrorDetail::new(
                ErrorType::ValidationError,
                "Invalid prompt: prompt cannot be empty",
            )
            .with_details(object(
                json!({ "parameter": "prompt", "provided_value": "" }),
            )),
        )
        .with_explanation("The tool call failed due to invalid input parameters."),
    );
}

#[test]
fn seed_results_deserialize_to_the_seed_status_and_parts() {
    let ok: MCPToolResult = serde_json::from_str(&read_fixture(
        "valid",
        "002_3.2_result_success_generate_code.json",
    ))
    .unwrap();
    assert_eq!(ok.status(), ToolStatus::Success);
    assert!(ok.is_success());
    assert_eq!(ok.data().unwrap()["lines_generated"], 2);
    assert!(ok.error().is_none());

    let failed: MCPToolResult = serde_json::from_str(&read_fixture(
        "valid",
        "002_3.2_result_failure_validation_error.json",
    ))
    .unwrap();
    assert_eq!(failed.status(), ToolStatus::Failure);
    assert!(failed.data().is_none());
    let error = failed.error().unwrap();
    assert_eq!(error.error_type, ErrorType::ValidationError);
    assert_eq!(
        error.error_message,
        "Invalid prompt: prompt cannot be empty"
    );
    assert_eq!(
        failed.explanation(),
        Some("The tool call failed due to invalid input parameters.")
    );
}

// ---------------------------------------------------------------------------------------
// Invalid fixtures
// ---------------------------------------------------------------------------------------

#[test]
fn invalid_fixture_directory_holds_exactly_the_listed_cases() {
    let listed: Vec<&str> = INVALID.iter().map(|case| case.file).collect();
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    assert_eq!(
        files_in("invalid"),
        sorted,
        "update INVALID when adding or removing fixtures"
    );
    assert!(INVALID.len() >= 16, "at least 16 invalid fixtures");
    for case in INVALID {
        Kind::of_file(case.file);
    }
}

#[test]
fn invalid_fixtures_fail_deserialization_with_a_message_naming_the_field() {
    let mut report = Vec::new();
    let mut problems = 0;
    for case in INVALID {
        let text = read_fixture("invalid", case.file);
        match Kind::of_file(case.file).round_trip(&text) {
            Ok(value) => {
                problems += 1;
                report.push(format!("FAIL {}: deserialized to {value}", case.file));
            }
            Err(err) => {
                let message = err.to_string();
                let names = case
                    .field
                    .split('.')
                    .all(|segment| message.contains(segment));
                if !names {
                    problems += 1;
                }
                let verdict = if names { "ok  " } else { "FAIL" };
                report.push(format!(
                    "{verdict} {} (field `{}`): {message}",
                    case.file, case.field
                ));
            }
        }
    }
    assert_eq!(problems, 0, "\n{}", report.join("\n"));
}

#[test]
fn invalid_fixtures_fail_schema_validation_with_an_error_naming_the_field() {
    let mut report = Vec::new();
    let mut problems = 0;
    for case in INVALID {
        let kind = Kind::of_file(case.file);
        let found = schema_errors(&kind.schema(), &fixture_value("invalid", case.file));
        let names = found.iter().any(|f| names_field(f, case.field));
        if !names {
            problems += 1;
        }
        let verdict = if names { "ok  " } else { "FAIL" };
        report.push(format!(
            "{verdict} {} (field `{}`, pointer `{}`):\n{}",
            case.file,
            case.field,
            pointer(case.field),
            if found.is_empty() {
                "    (valid against the schema)".to_owned()
            } else {
                describe(&found)
            }
        ));
    }
    assert_eq!(problems, 0, "\n{}", report.join("\n"));
}

#[test]
fn message_error_field_is_the_exact_path_for_every_invalid_fixture() {
    let mut report = Vec::new();
    let mut problems = 0;
    for case in INVALID {
        let map = object(fixture_value("invalid", case.file));
        match Kind::of_file(case.file).try_from_map(map) {
            Ok(()) => {
                problems += 1;
                report.push(format!("FAIL {}: accepted", case.file));
            }
            Err(err) => {
                let field = err.field();
                let ok = field == case.field;
                if !ok {
                    problems += 1;
                }
                let verdict = if ok { "ok  " } else { "FAIL" };
                report.push(format!(
                    "{verdict} {}: field() = `{field}`, expected `{}` ({err})",
                    case.file, case.field
                ));
            }
        }
    }
    assert_eq!(problems, 0, "\n{}", report.join("\n"));
}

#[test]
fn message_error_field_names_nested_missing_and_rule_fields() {
    let cases: [(&str, Result<(), MessageError>, &str); 6] = [
        (
            "error_details a number inside error",
            MCPToolResult::try_from(object(json!({
                "status": "failure",
                "error": { "error_type": "X", "error_message": "m", "error_details": 1 },
            })))
            .map(drop),
            "error.error_details",
        ),
        (
            "tool_name without a dot",
            MCPToolCall::try_from(object(json!({ "tool_name": "read", "arguments": {} })))
                .map(drop),
            "tool_name",
        ),
        (
            "arguments missing",
            MCPToolCall::try_from(object(json!({ "tool_name": "a.b" }))).map(drop),
            "arguments",
        ),
        (
            "failure with data",
            MCPToolResult::try_from(object(json!({
                "status": "failure",
                "data": { "x": 1 },
                "error": { "error_type": "X", "error_message": "m" },
            })))
            .map(drop),
            "data",
        ),
        (
            "failure without error",
            MCPToolResult::try_from(object(json!({ "status": "failure" }))).map(drop),
            "error",
        ),
        (
            "unknown field inside error",
            MCPToolResult::try_from(object(json!({
                "status": "failure",
                "error": { "error_type": "X", "error_message": "m", "code": 7 },
            })))
            .map(drop),
            "error.code",
        ),
    ];
    for (what, result, field) in cases {
        let err = result.expect_err(what);
        assert_eq!(err.field(), field, "{what}: {err}");
    }
}

// ---------------------------------------------------------------------------------------
// Error types
// ---------------------------------------------------------------------------------------

#[test]
fn custom_error_type_round_trips_as_the_plain_string() {
    let result: MCPToolResult = serde_json::from_str(&read_fixture(
        "valid",
        "000+001_result_failure_file_not_found.json",
    ))
    .unwrap();
    let error_type = &result
        .error()
        .expect("the failure carries an error")
        .error_type;
    assert!(
        matches!(error_type, ErrorType::Custom(s) if s == "FileNotFound"),
        "{error_type:?}"
    );
    assert!(!error_type.is_standard());
    assert_eq!(error_type.as_str(), "FileNotFound");
    assert_eq!(
        serde_json::to_value(error_type).unwrap(),
        json!("FileNotFound")
    );
    assert_eq!(
        serde_json::to_value(&result).unwrap()["error"]["error_type"],
        json!("FileNotFound")
    );
    // A custom name close to a standard one stays custom.
    assert!(matches!(
        ErrorType::from("FileNotFound"),
        ErrorType::Custom(_)
    ));
    assert_ne!(
        ErrorType::from("FileNotFound"),
        ErrorType::FileNotFoundError
    );
}

#[test]
fn all_eight_standard_error_types_round_trip_to_their_variants() {
    let seed_names = [
        "ValidationError",
        "FileNotFoundError",
        "AuthenticationError",
        "ResourceNotFound",
        "ToolExecutionError",
        "ApiLimitExceeded",
        "TimeoutError",
        "PermissionError",
    ];
    let names: Vec<&str> = ErrorType::STANDARD.iter().map(ErrorType::as_str).collect();
    assert_eq!(names, seed_names);
    for standard in ErrorType::STANDARD {
        let name = standard.as_str();
        assert!(standard.is_standard(), "{name}");
        let parsed: ErrorType = serde_json::from_value(json!(name)).unwrap();
        assert!(parsed.is_standard(), "{name} parsed as {parsed:?}");
        assert_eq!(
            std::mem::discriminant(&parsed),
            std::mem::discriminant(&standard),
            "{name}"
        );
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json!(name));

        let detail = json!({ "error_type": name, "error_message": "m", "error_details": null });
        let parsed: MCPErrorDetail = serde_json::from_value(detail.clone()).unwrap();
        assert_eq!(
            std::mem::discriminant(&parsed.error_type),
            std::mem::discriminant(&standard),
            "{name}"
        );
        assert_eq!(serde_json::to_value(&parsed).unwrap(), detail);
    }
    assert!(matches!(
        ErrorType::from("ValidationError"),
        ErrorType::ValidationError
    ));
    assert!(matches!(
        ErrorType::from("PermissionError"),
        ErrorType::PermissionError
    ));
}

// ---------------------------------------------------------------------------------------
// Model text (seed 003)
// ---------------------------------------------------------------------------------------

fn rendered(file: &str) -> String {
    let result: MCPToolResult = serde_json::from_str(&read_fixture("valid", file)).unwrap();
    result.to_string()
}

#[test]
fn seed_002_success_result_renders_the_ok_text() {
    assert_eq!(
        rendered("002_3.2_result_success_generate_code.json"),
        "[OK] Tool executed successfully:\n\
         {\"generated_code\":\"def sum_numbers(numbers):\\n    return sum(numbers)\",\"language\":\"python\",\"lines_generated\":2}\n\
         Generated Python function to sum a list of numbers."
    );
    assert_eq!(
        rendered("000+001_result_success_read_file.json"),
        "[OK] Tool executed successfully:\n{\"file_content\":\"Hello World\"}\nRead file successfully."
    );
}

#[test]
fn seed_002_failure_result_renders_the_fail_text() {
    assert_eq!(
        rendered("002_3.2_result_failure_validation_error.json"),
        "[FAIL] Tool execution failed:\n\
         Error: ValidationError: Invalid prompt: prompt cannot be empty \
         ({\"parameter\":\"prompt\",\"provided_value\":\"\",\"constraint\":\"non-empty string\"})\n\
         Output: The tool call failed due to invalid input parameters."
    );
    assert_eq!(
        rendered("000+001_result_failure_file_not_found.json"),
        "[FAIL] Tool execution failed:\nError: FileNotFound: The target file was not found."
    );
}
