//! What generated code calls. Not part of the public API.
//!
//! Two devices keep a user's mistake to one compile error on the token at fault:
//! - `assert_*` functions, called with the user's own type tokens, fail with a sentence
//!   about that type (`#[diagnostic::on_unimplemented]` on the traits below);
//! - every other use of those types goes through [`Probe`], whose methods resolve to the
//!   real implementation when the type has the traits and to a fallback that is never run
//!   otherwise, so a missing trait is reported once, by the assertion, and not again by
//!   every place that needs it.

use std::future;
use std::marker::PhantomData;

use mcp_runtime_core::schema::OutputSchema;
use mcp_runtime_core::{HEADER_ANNOTATION, MAX_HEADER_INTEGER, MCPToolResult, ToolError};
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::registration::ArgumentsError;
use crate::service::{BoxError, Request, Response, Stack};

pub use crate::context::{Invocation, ToolContext};
pub use crate::layers::BoxLayer;
pub use crate::registration::{
    Arguments, CompleteFn, Completion, CompletionContext, Failure, FormRegistration, Handler,
    Location, Outcome, Output, PromptFuture, PromptRegistration, ReadRequest, ResourceFuture,
    ResourceKind, ResourceRegistration, SkillFile, SkillRegistration, ToolFuture, ToolRegistration,
};
pub use crate::registry::{
    FromArgument, IntoLastModified, IntoPromptResult, IntoResourceContents, VariableSchema,
    last_modified, optional_prompt_argument, prompt_argument, prompt_ready, resource_ready,
    template_variable, variable_schema, with_variables,
};
pub use crate::state::{State, StateNeed, StateNeedFn};
pub use crate::talk::form::DerivedForm;
pub use crate::talk::{Form, FormChoice, FormField};
pub use inventory;
pub use mcp_runtime_core::sandbox::{
    DEFAULT_MEMORY as SANDBOX_DEFAULT_MEMORY, DEFAULT_PROCESSES as SANDBOX_DEFAULT_PROCESSES,
    Network as SandboxNetwork, SandboxPolicy,
};
pub use mcp_runtime_core::{DefinitionError, TaskSupport, ToolAnnotations, ToolDefinition};
pub use mcp_runtime_core::{
    PromptArgument, PromptDefinition, ResourceAnnotations, ResourceDefinition,
    ResourceTemplateDefinition, Role,
};
pub use schemars;
pub use serde;
pub use serde_json::Value;
pub use std::time::Duration;

/// A future that is already done.
pub fn ready(outcome: Outcome) -> ToolFuture {
    Box::pin(future::ready(outcome))
}

// ----- Assertions: one error each, on the user's type -----

/// A tool parameter's type must be deserializable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `serde::Deserialize`",
    label = "this parameter type is not `Deserialize`",
    note = "tool arguments arrive as JSON: add `#[derive(serde::Deserialize)]` to `{Self}`, or use a type that implements it"
)]
pub trait ToolParameter: DeserializeOwned {}
impl<T: DeserializeOwned> ToolParameter for T {}

/// A tool parameter's type must describe itself as a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `schemars::JsonSchema`",
    label = "this parameter type has no JSON Schema",
    note = "the tool's input schema is generated from its parameter types: add `#[derive(schemars::JsonSchema)]` to `{Self}`"
)]
pub trait ToolParameterSchema: JsonSchema {}
impl<T: JsonSchema> ToolParameterSchema for T {}

/// A tool's success value must serialize.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool: it does not implement `serde::Serialize`",
    label = "this return type is not `Serialize`",
    note = "a tool's result is sent as JSON: add `#[derive(serde::Serialize)]` to `{Self}`, or return a type that implements it"
)]
pub trait ToolOutput: Serialize {}
impl<T: Serialize> ToolOutput for T {}

/// A tool's success value must describe itself as a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool: it does not implement `schemars::JsonSchema`",
    label = "this return type has no JSON Schema",
    note = "the tool's output schema is generated from its return type: add `#[derive(schemars::JsonSchema)]` to `{Self}`"
)]
pub trait ToolOutputSchema: JsonSchema {}
impl<T: JsonSchema> ToolOutputSchema for T {}

// ----- A tool's error type, and how its `Err` becomes a `ToolError` -----

/// The error type `E` of a tool's `Result`, for choosing at compile time how its `Err`
/// becomes a `ToolError`, by autoref dispatch (as `anyhow!` chooses how to take its
/// argument). Called as `(&&&&&ErrorKind::<E>::new()).converter()`, the first of these
/// that `E` has wins:
/// 1. `Into<ToolError>`: converted, keeping the error type the conversion gives;
/// 2. `std::error::Error`: a `ToolExecutionError` of its message, then one line per cause;
/// 3. a view as `dyn Error + Send + Sync` (`anyhow::Error`, `Box<dyn Error + Send + Sync>`),
///    then as `dyn Error` (`Box<dyn Error>`): the same, its whole chain;
/// 4. `Display`: a `ToolExecutionError` of its message.
///
/// An `E` with none of them is reported by `.check()`, on the type, in plain words.
pub struct ErrorKind<E>(PhantomData<fn(E)>);

impl<E> ErrorKind<E> {
    /// The error type `E`.
    #[must_use]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<E> Default for ErrorKind<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Clone for ErrorKind<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for ErrorKind<E> {}

/// How an error of type `E` becomes a `ToolError`.
pub trait ConvertError<E> {
    /// `err` as the `ToolError` the client reads.
    fn convert(&self, err: E) -> ToolError;
}

/// An error with a message of its own for every failure: its `Display`, and its causes'.
fn error_chain(err: &dyn std::error::Error) -> ToolError {
    let mut message = err.to_string();
    let mut cause = err.source();
    while let Some(err) = cause {
        message.push_str("\ncaused by: ");
        message.push_str(&err.to_string());
        cause = err.source();
    }
    ToolError::execution(message)
}

/// Declares the converters, each with the bound under which it converts an `E`, and the
/// trait through which `ErrorKind` picks it at its depth of references.
macro_rules! error_kinds {
    ($(
        $(#[$doc:meta])*
        $kind:ident, $converter:ident for [$($refs:tt)*] where [$($bound:tt)*] => |$err:ident| $convert:expr;
    )*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $converter;

        impl<E> ConvertError<E> for $converter
        where
            $($bound)*
        {
            fn convert(&self, $err: E) -> ToolError {
                $convert
            }
        }

        #[doc = concat!("Picks [`", stringify!($converter), "`]; see [`ErrorKind`].")]
        pub trait $kind {
            #[doc = concat!("[`", stringify!($converter), "`].")]
            fn converter(&self) -> $converter {
                $converter
            }
            /// Compiles: the error type is one a tool may return.
            fn check(&self) {}
        }

        impl<E> $kind for $($refs)* ErrorKind<E> where $($bound)* {}
    )*};
}

error_kinds! {
    /// Converts with `Into<ToolError>`.
    ErrorKindInto, ErrorInto for [&&&&] where [ToolError: From<E>] => |err| err.into();
    /// A `std::error::Error`, its causes one a line.
    ErrorKindStd, ErrorChain for [&&&] where [E: std::error::Error] => |err| error_chain(&err);
    /// What views as a `dyn Error + Send + Sync` (`anyhow::Error`, a boxed error), its
    /// causes one a line.
    ErrorKindDynSend, ErrorChainSend for [&&] where [E: AsRef<dyn std::error::Error + Send + Sync>]
        => |err| error_chain(err.as_ref());
    /// What views as a `dyn Error` (`Box<dyn Error>`), its causes one a line.
    ErrorKindDyn, ErrorChainDyn for [&] where [E: AsRef<dyn std::error::Error>]
        => |err| error_chain(err.as_ref());
    /// What displays, as its message.
    ErrorKindDisplay, ErrorDisplay for [] where [E: std::fmt::Display]
        => |err| ToolError::execution(err.to_string());
}

/// The type of an error that has no message for the client; nothing implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a tool, resource or prompt: it is not `std::error::Error`, has no `Display`, and does not convert into `ToolError`",
    label = "the client could read no message from this error type",
    note = "an `Err` becomes the message the client reads: return `Result<T, ToolError>`, `anyhow::Result<T>`, `Result<T, Box<dyn std::error::Error + Send + Sync>>`, or an error type that implements `std::error::Error` or `Display`"
)]
pub trait ToolErrorType {}

/// The converter of an error type that has none, which never converts: such a tool does
/// not compile, as `ErrorKindNone::check` reports.
#[derive(Debug, Clone, Copy)]
pub struct NoConversion;

impl<E> ConvertError<E> for NoConversion {
    fn convert(&self, _: E) -> ToolError {
        unreachable!("a tool whose error type has no message does not compile")
    }
}

/// The last choice of [`ErrorKind`], taken by value: what no other fits.
pub trait ErrorKindNone<E>: Sized {
    /// [`NoConversion`].
    fn converter(self) -> NoConversion {
        NoConversion
    }
    /// Fails to compile, saying why.
    fn check(self)
    where
        E: ToolErrorType,
    {
    }
}

impl<E> ErrorKindNone<E> for ErrorKind<E> {}

/// A tool returning `Result` must return a `Result<T, E>` (or an alias of one).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `Result<T, E>`",
    label = "a return type named `Result` must be `core::result::Result` or an alias of it",
    note = "a tool may return `Result<T, E>` where `T: Serialize + JsonSchema` and `E` is an error type: `ToolError`, `anyhow::Error`, or any type that implements `std::error::Error` or `Display`"
)]
pub trait FallibleOutput {
    /// The success type, whose schema is the output schema.
    type Ok;
    /// The error type.
    type Err;
    /// The value as the `Result` it is.
    fn into_result(self) -> Result<Self::Ok, Self::Err>;
}

impl<T, E> FallibleOutput for Result<T, E> {
    type Ok = T;
    type Err = E;
    fn into_result(self) -> Self {
        self
    }
}

/// A parameter mirrored into an HTTP header must be a string, an integer or a boolean, as
/// MCP's `x-mcp-header` requires, or an `Option` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mirrored into an HTTP header: MCP mirrors only strings, integers and booleans",
    label = "this parameter type is not a string, an integer or a boolean",
    note = "`#[mcp(header = \"…\")]` takes a `String`, an integer type, `bool`, or an `Option` of one of them; MCP does not mirror floating-point numbers, objects or arrays"
)]
pub trait HeaderArgument {}

/// Implements [`HeaderArgument`] for each type and an `Option` of it.
macro_rules! header_arguments {
    ($($ty:ty),* $(,)?) => {
        $(
            impl HeaderArgument for $ty {}
            impl HeaderArgument for Option<$ty> {}
        )*
    };
}

header_arguments!(
    String, char, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize,
);

/// A parameter whose type is written `State<…>` is the tool's shared state, and must be
/// mcp-runtime's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is taken as the tool's shared state, for its type is written `State<…>`, but it is not `mcp_runtime::State`",
    label = "not `mcp_runtime::State<T>`",
    note = "a parameter of a type written `State<T>` receives the registry's state of type `T`: use `mcp_runtime::State`; an argument whose type is named `State` needs another name, e.g. `use my::State as MyState;`"
)]
pub trait StateParameter {}
impl<T> StateParameter for State<T> {}

/// A state's type must be shareable between the calls, which may run on any thread.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's shared state: it is not `Send + Sync + 'static`",
    label = "calls on several threads share this value",
    note = "the registry keeps one `{Self}` for every call, on any thread: wrap what is not thread-safe, e.g. `Mutex<…>` for a `RefCell`, `Arc` for an `Rc`"
)]
pub trait SharedState: Send + Sync + 'static {}
impl<T: Send + Sync + 'static> SharedState for T {}

/// What `#[mcp_tool(layer = path::to::function)]`'s function returns: a `tower::Layer`
/// whose service answers a call's `Request` with a `Response`, as [`BoxLayer::new`] takes
/// it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's layer: it is not a `tower::Layer` whose service answers `mcp_runtime::layers::Request` with `Response`",
    label = "this function does not return a layer around calls",
    note = "`layer = path::to::function` names a function returning any `tower::Layer` that `mcp_runtime::layers::BoxLayer::new` takes, e.g. `tower::timeout::TimeoutLayer` or `tower::limit::ConcurrencyLimitLayer`; its service must be `Clone + Send + Sync`"
)]
pub trait ToolLayer {
    /// The layer, boxed.
    fn boxed(self) -> BoxLayer;
}

impl<L> ToolLayer for L
where
    L: tower::Layer<Stack> + Send + Sync + 'static,
    L::Service: tower::Service<Request, Response = Response> + Clone + Send + Sync + 'static,
    <L::Service as tower::Service<Request>>::Error: Into<BoxError>,
    <L::Service as tower::Service<Request>>::Future: Send + 'static,
{
    fn boxed(self) -> BoxLayer {
        BoxLayer::new(self)
    }
}

/// The layer of `#[mcp_tool(layer = …)]`, boxed; a value that is no layer around calls is
/// reported on the function's path, by [`ToolLayer`].
pub fn boxed_layer<L: ToolLayer>(layer: L) -> BoxLayer {
    layer.boxed()
}

/// Checks that `S` is `State<T>`.
pub const fn assert_state_parameter<S: StateParameter>() {}
/// Checks that `T` can be shared as a tool's state.
pub const fn assert_shared_state<T: SharedState>() {}

/// Checks that `T` can be a tool parameter.
pub const fn assert_parameter<T: ToolParameter>() {}
/// Checks that `T` has a schema as a tool parameter.
pub const fn assert_parameter_schema<T: ToolParameterSchema>() {}
/// Checks that `T` can be a tool's success value.
pub const fn assert_output<T: ToolOutput>() {}
/// Checks that `T` has a schema as a tool's success value.
pub const fn assert_output_schema<T: ToolOutputSchema>() {}
/// Checks that `R` is a `Result`.
pub const fn assert_fallible<R: FallibleOutput>() {}
/// Checks that `T` can be the type of a field of a `#[derive(Form)]` struct.
pub const fn assert_form_field<T: ?Sized + FormField>() {}
/// Checks that `T` can be mirrored into an HTTP header.
pub const fn assert_header<T: HeaderArgument>() {}

// ----- Probe: the real implementation when the bounds hold, an unused fallback otherwise -----

/// Selects an implementation by the traits `T` has; see the module docs.
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe of `T`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

/// Defines a pair of traits: `$real`, implemented for `&Probe<T>` when `T` has the bounds,
/// and `$fallback`, implemented for every `Probe<T>`, whose methods never run. Called as
/// `(&&Probe::<T>::new()).method(…)`, method lookup takes `$real` when it applies.
macro_rules! probe {
    (
        $(#[$doc:meta])*
        $real:ident, $fallback:ident, <$t:ident $(, $u:ident)*> for $target:ty where [$($bounds:tt)*] {
            $(fn $method:ident(&self $(, $arg:ident: $arg_ty:ty)*) -> $ret:ty $body:block)*
        }
    ) => {
        $(#[$doc])*
        pub trait $real<$t $(, $u)*> {
            $(
                #[doc = concat!("See [`", stringify!($real), "`].")]
                fn $method(&self $(, $arg: $arg_ty)*) -> $ret;
            )*
        }

        impl<$t $(, $u)*> $real<$t $(, $u)*> for &Probe<$target> where $($bounds)* {
            $(fn $method(&self $(, $arg: $arg_ty)*) -> $ret $body)*
        }

        #[doc = concat!("The fallback of [`", stringify!($real), "`]: reached only by code that does not compile.")]
        pub trait $fallback<$t $(, $u)*> {
            $(
                #[doc = "Never runs."]
                fn $method(&self $(, $arg: $arg_ty)*) -> $ret;
            )*
        }

        impl<$t $(, $u)*> $fallback<$t $(, $u)*> for Probe<$target> {
            $(
                #[allow(unused_variables)]
                fn $method(&self $(, $arg: $arg_ty)*) -> $ret {
                    unreachable!("a tool whose types lack a required trait does not compile")
                }
            )*
        }
    };
}

probe! {
    /// Deserializes a tool's arguments.
    ProbeParse, ProbeParseFallback, <T> for T where [T: DeserializeOwned] {
        fn parse_arguments(&self, arguments: &Value) -> Result<T, Failure> {
            parse_arguments(arguments)
        }
        fn parse_text(&self, text: &str) -> Result<T, Failure> {
            parse_text(text)
        }
    }
}

probe! {
    /// Generates a tool's schemas.
    ProbeSchema, ProbeSchemaFallback, <T> for T where [T: JsonSchema] {
        fn arguments_schema(&self) -> Schema {
            arguments_schema::<T>()
        }
        fn output_schema(&self) -> OutputSchema {
            mcp_runtime_core::schema::output_schema::<T>()
        }
    }
}

probe! {
    /// Serializes a tool's success value.
    ProbeSerialize, ProbeSerializeFallback, <T> for T where [T: Serialize] {
        fn value_output(&self, value: T, text: bool) -> Outcome {
            value_output(value, text)
        }
    }
}

// A tool's `Result` is probed as a whole, through `FallibleOutput`: a return type named
// `Result` that is not one is then reported once, by `assert_fallible`. Its error goes
// through the converter that `ErrorKind` picked for it in the tool's own code.

/// Converts a tool's `Result`: `Ok` is the data, `Err` a failure, made by `converter`.
pub trait ProbeResult<R, E> {
    /// See [`ProbeResult`]; the data as JSON text with `text` (see [`value_output`]).
    fn result_output<C: ConvertError<E>>(&self, result: R, converter: C, text: bool) -> Outcome;
    /// The error type, to pick its converter.
    fn error_kind(&self) -> ErrorKind<E> {
        ErrorKind::new()
    }
}

impl<R> ProbeResult<R, R::Err> for &Probe<R>
where
    R: FallibleOutput,
    R::Ok: Serialize,
{
    fn result_output<C: ConvertError<R::Err>>(
        &self,
        result: R,
        converter: C,
        text: bool,
    ) -> Outcome {
        match result.into_result() {
            Ok(value) => value_output(value, text),
            Err(err) => Err(Failure::from(converter.convert(err))),
        }
    }
}

/// The fallback of [`ProbeResult`]: reached only by code that does not compile.
pub trait ProbeResultFallback<R> {
    /// Never runs.
    fn result_output<C>(&self, result: R, converter: C, text: bool) -> Outcome;
    /// Any error type that converts, so that nothing else fails to compile.
    fn error_kind(&self) -> ErrorKind<ToolError> {
        ErrorKind::new()
    }
}

impl<R> ProbeResultFallback<R> for Probe<R> {
    fn result_output<C>(&self, _: R, _: C, _: bool) -> Outcome {
        unreachable!("a tool whose types lack a required trait does not compile")
    }
}

probe! {
    /// The output schema of a tool returning `Result`: its `Ok` type's.
    ProbeResultSchema, ProbeResultSchemaFallback, <R> for R where [R: FallibleOutput, R::Ok: JsonSchema] {
        fn result_output_schema(&self) -> OutputSchema {
            mcp_runtime_core::schema::output_schema::<R::Ok>()
        }
    }
}

/// Takes a tool's `State<T>` parameter from the registry.
pub trait ProbeState<S> {
    /// The state, or why the registry has none (which its build prevents).
    fn state(&self, invocation: Invocation<'_>) -> Result<S, Failure>;
}

impl<T: Send + Sync + 'static> ProbeState<State<T>> for &Probe<State<T>> {
    #[inline]
    fn state(&self, invocation: Invocation<'_>) -> Result<State<T>, Failure> {
        match invocation.states.shared::<T>() {
            Some(value) => Ok(State::from(value)),
            None => Err(missing_state::<T>()),
        }
    }
}

/// A state a registry does not hold: not built by [`RegistryBuilder::build`], which
/// refuses it.
///
/// [`RegistryBuilder::build`]: crate::RegistryBuilder::build
#[cold]
#[inline(never)]
fn missing_state<T>() -> Failure {
    Failure::from(ToolError::execution(format!(
        "the tool needs state `{}`, which its registry was never given",
        std::any::type_name::<T>()
    )))
}

/// The fallback of [`ProbeState`]: reached only by code that does not compile.
pub trait ProbeStateFallback<S> {
    /// Never runs.
    fn state(&self, invocation: Invocation<'_>) -> Result<S, Failure>;
}

impl<S> ProbeStateFallback<S> for Probe<S> {
    fn state(&self, _: Invocation<'_>) -> Result<S, Failure> {
        unreachable!("a tool whose types lack a required trait does not compile")
    }
}

// ----- What the probes and generated code run -----

/// The input schema of a generated arguments struct: without the struct's internal name as
/// its title, with `properties` even when there are none, as clients expect, and with each
/// mirrored integer bounded as MCP requires.
pub fn arguments_schema<T: JsonSchema>() -> Schema {
    let mut schema = mcp_runtime_core::schema::input_schema::<T>();
    schema.remove("title");
    if schema.get("properties").is_none() {
        schema.insert("properties".to_owned(), json!({}));
    }
    bound_mirrored_integers(&mut schema);
    schema
}

/// MCP requires an integer mirrored into a header to lie within ±(2^53 − 1), where a double
/// holds it exactly: the schema of each mirrored integer argument says so where its type's
/// range is wider (`i64`, `u64`), and calls are validated against it.
fn bound_mirrored_integers(schema: &mut Schema) {
    #[allow(clippy::cast_precision_loss)] // 2^53 - 1 is exact as a double.
    const LIMIT: f64 = MAX_HEADER_INTEGER as f64;
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    let admits_integer = |ty: &Value| match ty {
        Value::Array(types) => types.iter().any(|ty| ty == "integer"),
        ty => ty == "integer",
    };
    for property in properties.values_mut() {
        let Value::Object(property) = property else {
            continue;
        };
        if !property.contains_key(HEADER_ANNOTATION)
            || !property.get("type").is_some_and(admits_integer)
        {
            continue;
        }
        let bound = |property: &serde_json::Map<String, Value>, keyword: &str| {
            property.get(keyword).and_then(Value::as_f64)
        };
        if !bound(property, "minimum").is_some_and(|minimum| minimum >= -LIMIT) {
            property.insert("minimum".to_owned(), json!(-MAX_HEADER_INTEGER));
        }
        if !bound(property, "maximum").is_some_and(|maximum| maximum <= LIMIT) {
            property.insert("maximum".to_owned(), json!(MAX_HEADER_INTEGER));
        }
    }
}

/// The client capabilities of `requires_client(…)`, each as `{}`.
pub fn client_capabilities(names: &[&str]) -> serde_json::Map<String, Value> {
    names
        .iter()
        .map(|name| ((*name).to_owned(), json!({})))
        .collect()
}

/// Deserializes the arguments into the generated struct. An error names the argument at
/// fault by its JSON pointer; the registry turns it into a `ValidationError` listing every
/// violation, without the submitted values.
#[inline]
pub fn parse_arguments<T: DeserializeOwned>(arguments: &Value) -> Result<T, Failure> {
    // Deserializing is deterministic: the path is tracked only to explain a failure.
    T::deserialize(arguments).map_err(|_| unread::<T>(arguments))
}

/// Deserializes a tool's arguments from their JSON text. A failure says nothing of why:
/// the call is then made again from the arguments read into a JSON value, which names
/// what is wrong ([`crate::registration::Handler::InlineText`]).
pub fn parse_text<T: DeserializeOwned>(text: &str) -> Result<T, Failure> {
    serde_json::from_str(text).map_err(|_| {
        Failure::Arguments(crate::registration::ArgumentsError {
            path: String::new(),
            message: String::new(),
        })
    })
}

/// Why `arguments` did not deserialize into `T`, read again with the path tracked: kept
/// out of the call's way.
#[cold]
#[inline(never)]
fn unread<T: DeserializeOwned>(arguments: &Value) -> Failure {
    let err = match serde_path_to_error::deserialize::<_, T>(arguments) {
        Err(err) => err,
        Ok(_) => {
            return Failure::Arguments(ArgumentsError {
                path: String::new(),
                message: "the arguments could not be read".to_owned(),
            });
        }
    };
    Failure::Arguments(ArgumentsError {
        path: pointer_of(err.path()),
        message: err.into_inner().to_string(),
    })
}

/// serde_path_to_error's path as a JSON pointer (`/a/b/0`), built from its segments, so
/// that a key holding `.` or `[` stays one segment; the root is `""`.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        let part = match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => continue,
        };
        pointer.push('/');
        pointer.push_str(&mcp_runtime_core::pointer_token(&part));
    }
    pointer
}

/// The arguments of an `example = …`, checked to be a JSON object when the tool compiled.
pub fn example_arguments(json: &str) -> serde_json::Map<String, Value> {
    serde_json::from_str(json).unwrap_or_default()
}

/// A tool returning `()`.
pub fn unit_output(_: ()) -> Outcome {
    Ok(Output::Value(Value::Null))
}

/// A tool returning a value: serialized into a JSON value, or, with `text`, into JSON
/// text, for a call read from its arguments' text ([`Handler::InlineText`]).
#[inline]
pub fn value_output<T: Serialize>(value: T, text: bool) -> Outcome {
    if text {
        return serde_json::to_string(&value)
            .map(Output::Text)
            .map_err(unserialized);
    }
    serde_json::to_value(&value)
        .map(Output::Value)
        .map_err(unserialized)
}

#[cold]
#[inline(never)]
fn unserialized(err: serde_json::Error) -> Failure {
    Failure::from(ToolError::execution(format!(
        "the tool's output could not be serialized: {err}"
    )))
}

/// A tool returning `MCPToolResult`.
pub fn tool_result_output(result: MCPToolResult) -> Outcome {
    Ok(Output::Result(Box::new(result)))
}

/// Whether a `#[derive(Form)]` type's schema is one a form can have; the derive registers
/// it, and the registry runs it when it is built.
pub fn form_check<T: Form>() -> Result<(), crate::talk::FormSchemaError> {
    crate::talk::form::form_schema::<T>().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_become_json_pointers() {
        use std::collections::BTreeMap;
        let pointer = |arguments: serde_json::Value| match parse_arguments::<
            BTreeMap<String, BTreeMap<String, Vec<i64>>>,
        >(&arguments)
        {
            Err(Failure::Arguments(err)) => err.path,
            _ => panic!("refused"),
        };
        assert_eq!(pointer(json!({ "a": { "b": [1, "x"] } })), "/a/b/1");
        assert_eq!(pointer(json!({ "a.b": { "[0]": ["x"] } })), "/a.b/[0]/0");
        assert_eq!(pointer(json!({ "x/y": { "m~n": ["x"] } })), "/x~1y/m~0n/0");
        assert_eq!(pointer(json!([])), "");
    }

    #[test]
    fn mirrored_integers_are_bounded_to_what_a_double_holds_exactly() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Arguments {
            #[schemars(extend("x-mcp-header" = "A"))]
            a: i64,
            #[schemars(extend("x-mcp-header" = "B"))]
            b: Option<u64>,
            #[schemars(extend("x-mcp-header" = "C"))]
            c: u8,
            #[schemars(extend("x-mcp-header" = "D"), range(min = -5))]
            d: i64,
            #[schemars(extend("x-mcp-header" = "E"))]
            e: String,
            f: i64,
        }
        let schema = arguments_schema::<Arguments>();
        let properties = &schema.as_value()["properties"];
        let bounds = |name: &str| {
            (
                properties[name].get("minimum").cloned(),
                properties[name].get("maximum").cloned(),
            )
        };
        let (min, max) = (json!(-MAX_HEADER_INTEGER), json!(MAX_HEADER_INTEGER));
        assert_eq!(bounds("a"), (Some(min.clone()), Some(max.clone())));
        assert_eq!(bounds("b"), (Some(json!(0)), Some(max.clone())));
        assert_eq!(bounds("c"), (Some(json!(0)), Some(json!(255))));
        assert_eq!(bounds("d"), (Some(json!(-5)), Some(max)));
        assert_eq!(bounds("e"), (None, None), "not an integer");
        assert_eq!(bounds("f"), (None, None), "not mirrored");
        assert_eq!(properties["a"]["x-mcp-header"], "A");
    }

    #[test]
    fn required_client_capabilities_are_each_an_empty_object() {
        assert_eq!(
            Value::Object(client_capabilities(&["sampling", "roots"])),
            json!({ "sampling": {}, "roots": {} })
        );
        assert!(client_capabilities(&[]).is_empty());
    }
}
