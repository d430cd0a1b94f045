//! The restricted JSON Schema of an elicitation form, made from a Rust type: an object of
//! named fields, each a primitive (string, number, integer, boolean), an enum of strings, or
//! a list of such an enum.
//!
//! A type says it is a form with `#[derive(Form)]`, which checks its fields at compile time
//! ([`FormField`]); the schema itself is made, and checked again, from its `JsonSchema`.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A type the user can be asked to fill in as a form ([`Asker::elicit`](super::Asker::elicit)):
/// a struct of named fields, each a [`FormField`].
///
/// Derive it, next to `Deserialize` and `JsonSchema`: `#[derive(Form)]` refuses at compile
/// time, on the field, what a form cannot hold (a nested struct, a list of strings, an enum
/// with data, `#[serde(flatten)]`). On a unit-variant enum it makes the enum a field a form
/// can hold, as a choice or a list of choices; a doc comment on a variant is its title.
///
/// ```
/// use mcp_runtime::talk::Form;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// enum Size {
///     /// Small
///     S,
///     /// Large
///     L,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// struct Order {
///     /// How many.
///     count: u32,
///     size: Size,
///     /// Anything else?
///     note: Option<String>,
///     #[serde(default)]
///     extras: Vec<Size>,
/// }
/// ```
///
/// The derive is the only way to a `Form`. What it cannot see, a schema that disagrees with
/// the fields' types (a `JsonSchema` written by hand, a field's `schema_with`), is checked
/// when the registry is built from the inventory ([`RegistryProblem::Form`](crate::RegistryProblem::Form)),
/// for every form that is not generic; a generic one's, when it is asked
/// ([`AskError::Form`](super::AskError::Form)). A field type of your own that is a string,
/// number or boolean on the wire can implement [`FormField`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be asked as an elicitation form: it does not implement `Form`",
    label = "not a form",
    note = "add `#[derive(mcp_runtime::talk::Form)]` to `{Self}`: a struct of named fields, each a string, number, integer, boolean, or an enum of unit variants deriving `Form`"
)]
pub trait Form: JsonSchema + DeserializeOwned {
    /// Only `#[derive(Form)]` implements this.
    #[doc(hidden)]
    fn __derived(_: DerivedForm);
}

/// What only `#[derive(Form)]` names: the argument of `Form`'s hidden method, which seals
/// the trait (the derive reaches it as `__private::DerivedForm`).
#[doc(hidden)]
pub struct DerivedForm(());

/// A type a field of a [`Form`] may have: a string, number, integer or boolean, a
/// unit-variant enum deriving [`Form`], an `Option` of one (a field the user may leave
/// empty), or a `Vec` of such an enum (a multiple choice).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "a form cannot hold this field",
    note = "a form's field is a string, number, integer, boolean, an enum of unit variants deriving `Form`, an `Option` of one, or a `Vec` of such an enum"
)]
pub trait FormField {}

/// A unit-variant enum deriving [`Form`]: a field may be one of its values, or a list of them.
#[diagnostic::on_unimplemented(
    message = "`Vec<{Self}>` cannot be a field of an elicitation form",
    label = "a form's list is a list of choices",
    note = "a list in a form is a multiple choice: a `Vec` of an enum of unit variants deriving `Form`"
)]
pub trait FormChoice: FormField {}

macro_rules! form_fields {
    ($($ty:ty),* $(,)?) => {
        $(impl FormField for $ty {})*
    };
}

form_fields!(
    String, char, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64,
);

impl<T: FormField> FormField for Option<T> {}
impl<T: FormChoice> FormField for Vec<T> {}

/// What a field of a form may say besides its type.
const FIELD_KEYS: [&str; 15] = [
    "type",
    "title",
    "description",
    "default",
    "enum",
    "enumNames",
    "oneOf",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "items",
    "minItems",
    "maxItems",
];

/// Why a type cannot be an elicitation form: what [`form_schema`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormSchemaError {
    /// The type's schema is not an object of named fields.
    #[error("`{form}` is not a struct of named fields")]
    NotAStruct {
        /// The type's schema name.
        form: String,
    },
    /// One of the type's fields is not one a form can hold.
    #[error("field `{field}` of `{form}`: {reason}")]
    Field {
        /// The type's schema name.
        form: String,
        /// The field, as the schema names it.
        field: String,
        /// Why the field cannot be a form's.
        reason: FormFieldError,
    },
}

/// Why one field cannot be a field of an elicitation form ([`FormSchemaError::Field`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormFieldError {
    /// The field's schema is not a JSON object.
    #[error("its schema is not an object")]
    NotAnObject,
    /// The field's schema says something a form's field may not (the keyword).
    #[error(
        "`{0}` is not allowed in a form: a field is a string, number, integer, boolean, an enum of strings, or a list of such an enum"
    )]
    KeywordNotAllowed(String),
    /// The field is a list, but not of an enum of strings.
    #[error("a list in a form is a list of an enum of strings")]
    ListNotOfChoices,
    /// The field's schema has no type, and is not an enum.
    #[error("it has no type")]
    NoType,
    /// The field is a nested struct.
    #[error("a nested struct is not allowed in a form")]
    NestedStruct,
    /// The field's type is none a form allows (the schema's `type`, as JSON).
    #[error("its type {0} is not one a form allows")]
    TypeNotAllowed(String),
}

/// The restricted JSON Schema that [`Asker::elicit`](super::Asker::elicit) sends for `T`
/// (the request's `requestedSchema`), or why `T` cannot be a form, naming the field at fault.
///
/// # Errors
///
/// [`FormSchemaError`] when `T`'s `JsonSchema` is not one a form can have.
pub fn form_schema<T: Form>() -> Result<Value, FormSchemaError> {
    schema_of::<T>()
}

/// [`form_schema`] of any type with a schema.
fn schema_of<T: JsonSchema>() -> Result<Value, FormSchemaError> {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>().to_value();
    let name = T::schema_name();
    let not_a_struct = || FormSchemaError::NotAStruct {
        form: name.to_string(),
    };
    let Some(object) = schema.as_object() else {
        return Err(not_a_struct());
    };
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return Err(not_a_struct());
    }
    let mut properties = Map::new();
    for (field, property) in object
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let property = field_schema(property).map_err(|reason| FormSchemaError::Field {
            form: name.to_string(),
            field: field.clone(),
            reason,
        })?;
        properties.insert(field.clone(), property);
    }
    let mut form = Map::new();
    form.insert("type".to_owned(), Value::from("object"));
    form.insert("properties".to_owned(), Value::Object(properties));
    if let Some(required) = object.get("required") {
        form.insert("required".to_owned(), required.clone());
    }
    Ok(Value::Object(form))
}

/// One field's schema, as a form allows it.
fn field_schema(property: &Value) -> Result<Value, FormFieldError> {
    let Some(property) = property.as_object() else {
        return Err(FormFieldError::NotAnObject);
    };
    let mut field = Map::new();
    for (key, value) in property {
        if key == "type" {
            field.insert(key.clone(), Value::from(primitive_type(value)?));
        } else if FIELD_KEYS.contains(&key.as_str()) {
            field.insert(key.clone(), value.clone());
        } else if key != "$schema" {
            return Err(FormFieldError::KeywordNotAllowed(key.clone()));
        }
    }
    match field.get("type").and_then(Value::as_str) {
        Some("array") => {
            let items = field.get("items").and_then(Value::as_object);
            let enumerated = items.is_some_and(|items| {
                items.contains_key("enum")
                    || items.contains_key("anyOf")
                    || items.contains_key("oneOf")
            });
            if !enumerated {
                return Err(FormFieldError::ListNotOfChoices);
            }
        }
        Some(_) => {}
        // A unit-variant enum with documented variants: `oneOf` of `const`s.
        None if field.contains_key("oneOf") || field.contains_key("enum") => {
            field.insert("type".to_owned(), Value::from("string"));
        }
        None => return Err(FormFieldError::NoType),
    }
    Ok(Value::Object(field))
}

/// A field's type, `null` left out (an `Option` field is one the form may leave empty).
fn primitive_type(value: &Value) -> Result<&str, FormFieldError> {
    let types: Vec<&str> = match value {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut kept = types.into_iter().filter(|kind| *kind != "null");
    match (kept.next(), kept.next()) {
        (Some(kind @ ("string" | "number" | "integer" | "boolean" | "array")), None) => Ok(kind),
        (Some("object"), None) => Err(FormFieldError::NestedStruct),
        _ => Err(FormFieldError::TypeNotAllowed(value.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Status {
        Active,
        Inactive,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Contact {
        /// Who.
        name: String,
        /// How old.
        age: Option<u32>,
        score: f64,
        subscribed: bool,
        status: Status,
        tags: Vec<Status>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Point {
        x: i32,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Nested {
        at: Point,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Words {
        words: Vec<String>,
    }

    #[test]
    fn a_struct_of_primitives_and_enums_is_a_form() {
        let form = schema_of::<Contact>().expect("a form");
        assert_eq!(form["type"], "object");
        assert_eq!(
            form["properties"]["name"],
            json!({ "type": "string", "description": "Who." })
        );
        assert_eq!(form["properties"]["age"]["type"], "integer");
        assert_eq!(form["properties"]["score"]["type"], "number");
        assert_eq!(form["properties"]["subscribed"]["type"], "boolean");
        assert_eq!(form["properties"]["status"]["type"], "string");
        assert_eq!(
            form["properties"]["status"]["enum"],
            json!(["Active", "Inactive"])
        );
        assert_eq!(form["properties"]["tags"]["type"], "array");
        assert_eq!(
            form["required"],
            json!(["name", "score", "subscribed", "status", "tags"])
        );
    }

    #[test]
    fn what_a_form_cannot_hold_is_refused_naming_the_field() {
        let nested = schema_of::<Nested>().unwrap_err();
        assert_eq!(
            nested,
            FormSchemaError::Field {
                form: "Nested".to_owned(),
                field: "at".to_owned(),
                reason: FormFieldError::NestedStruct,
            }
        );
        assert_eq!(
            nested.to_string(),
            "field `at` of `Nested`: a nested struct is not allowed in a form"
        );
        let words = schema_of::<Words>().unwrap_err();
        assert!(
            matches!(
                &words,
                FormSchemaError::Field { field, reason: FormFieldError::ListNotOfChoices, .. }
                    if field == "words"
            ),
            "{words}"
        );
        assert_eq!(
            words.to_string(),
            "field `words` of `Words`: a list in a form is a list of an enum of strings"
        );
        let scalar = schema_of::<u32>().unwrap_err();
        assert!(
            matches!(scalar, FormSchemaError::NotAStruct { .. }),
            "{scalar}"
        );
        assert!(
            scalar.to_string().contains("not a struct of named fields"),
            "{scalar}"
        );
    }
}
