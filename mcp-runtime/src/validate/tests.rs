//! Tests of `validate`.

use super::integers::{has_integral_float, integer_of, mentions_integer};
use super::walk::DEPTH;
use super::*;

#[test]
fn plain_types_are_left_to_serde() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "a": { "type": "integer", "format": "uint8", "minimum": 0, "maximum": 255 },
            "b": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 },
            "c": { "type": "array", "items": { "type": "string" } },
            "d": { "$ref": "#/$defs/Shape" },
        },
        "$defs": { "Shape": { "oneOf": [{ "type": "object", "properties": { "r": { "type": "number" } }, "required": ["r"] }] } },
        "required": ["a"],
        "additionalProperties": false,
    });
    assert!(!beyond_serde(&schema));
}

#[test]
fn a_header_annotation_is_left_to_serde() {
    let schema = json!({
        "type": "object",
        "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
    });
    assert!(!beyond_serde(&schema));
    let constrained = json!({
        "type": "object",
        "properties": { "region": { "type": "string", "x-mcp-header": "Region", "maxLength": 9 } },
    });
    assert!(
        beyond_serde(&constrained),
        "the annotation hides no constraint"
    );
}

#[test]
fn the_range_of_each_integer_type_is_left_to_serde() {
    // The bounds of each integer format: its whole range, which serde checks.
    let ranges = [
        ("uint8", json!(0), Some(json!(u8::MAX))),
        ("uint16", json!(0), Some(json!(u16::MAX))),
        ("uint32", json!(0), Some(json!(u32::MAX))),
        ("uint64", json!(0), None),
        ("uint", json!(0), None),
        ("uint128", json!(0), None),
        ("int8", json!(i8::MIN), Some(json!(i8::MAX))),
        ("int16", json!(i16::MIN), Some(json!(i16::MAX))),
        ("int32", json!(i32::MIN), Some(json!(i32::MAX))),
    ];
    for (format, minimum, maximum) in ranges {
        let mut schema = json!({ "type": "integer", "format": format, "minimum": minimum });
        if let Some(maximum) = &maximum {
            schema["maximum"] = maximum.clone();
        }
        assert!(!beyond_serde(&schema), "{schema}");
        // A bound inside the range is a constraint of its own.
        let above = json!(minimum.as_i64().unwrap() + 1);
        let narrower = json!({ "type": "integer", "format": format, "minimum": above });
        assert!(beyond_serde(&narrower), "{narrower}");
        if let Some(maximum) = maximum {
            let below = json!(maximum.as_i64().unwrap() - 1);
            let narrower = json!({ "type": "integer", "format": format, "maximum": below });
            assert!(beyond_serde(&narrower), "{narrower}");
        }
    }
    // As schemars writes them for the parameter types.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Integers {
        a: u8,
        b: u16,
        c: u32,
        d: u64,
        e: usize,
        f: u128,
        g: i8,
        h: i16,
        i: i32,
        j: i64,
    }
    let schema = mcp_runtime_core::schema::input_schema::<Integers>();
    let properties = schema.as_value()["properties"]
        .as_object()
        .expect("properties");
    assert_eq!(properties.len(), 10);
    for (name, property) in properties {
        assert!(!beyond_serde(property), "{name}: {property}");
    }
    assert!(!beyond_serde(schema.as_value()));
}

#[test]
fn names_are_checked_at_a_closed_root_and_by_the_schema_below_it() {
    let root = json!({
        "type": "object",
        "properties": { "a": { "type": "boolean" }, "spot": { "$ref": "#/$defs/Spot" } },
        "additionalProperties": false,
    });
    let names = ClosedNames::of(&root).expect("closed");
    assert!(!beyond_serde(&root), "the root's names are looked up apart");
    assert!(names.admit(&json!({ "a": true, "spot": {} })));
    assert!(names.admit(&json!({})));
    assert!(names.admit(&json!({ "spot": {}, "a": true })));
    assert!(!names.admit(&json!({ "a": true, "alias_of_a": true })));
    assert!(!names.admit(&json!({ "b": true })));
    // An open root admits any name: nothing to look up.
    assert!(ClosedNames::of(&json!({ "type": "object", "properties": {} })).is_none());
    assert!(
        ClosedNames::of(&json!({
            "type": "object",
            "additionalProperties": false,
            "patternProperties": { "^x": {} },
        }))
        .is_none()
    );
    // A closed root without properties admits no name at all.
    let none = ClosedNames::of(&json!({ "type": "object", "additionalProperties": false }))
        .expect("closed");
    assert!(none.admit(&json!({})) && !none.admit(&json!({ "a": 1 })));
    // A closed object below the root (a struct with `deny_unknown_fields`, an enum variant
    // carrying data) may hold an alias deserialization reads: the schema is needed.
    let mut nested = root.clone();
    nested["$defs"] = json!({ "Spot": {
        "type": "object",
        "properties": { "x": { "type": "integer", "format": "int32" } },
        "additionalProperties": false,
    } });
    assert!(beyond_serde(&nested));
    let variant = json!({
        "type": "object",
        "properties": { "step": { "oneOf": [{
            "type": "object",
            "properties": { "by": { "type": "integer", "format": "int32" } },
            "required": ["by"],
            "additionalProperties": false,
        }] } },
    });
    assert!(beyond_serde(&variant));
}

#[test]
fn stated_constraints_need_the_schema() {
    for constraint in [
        json!({ "type": "integer", "format": "uint8", "minimum": 1 }),
        json!({ "type": "string", "pattern": "^a" }),
        json!({ "type": "string", "maxLength": 3 }),
        json!({ "type": "array", "items": { "type": "integer", "maximum": 10 } }),
        json!({ "type": "number", "exclusiveMinimum": 0 }),
    ] {
        let schema = json!({ "type": "object", "properties": { "x": constraint } });
        assert!(beyond_serde(&schema), "{schema}");
    }
}

#[test]
fn deserialize_messages_lose_the_value() {
    let arguments = json!({ "a": "secret" });
    let violation = deserialize_violation(
        "/a".to_owned(),
        "invalid type: string \"secret\", expected i64",
        &arguments,
    );
    assert_eq!(
        violation.message,
        "invalid type: expected i64, found a string"
    );
    let violation = deserialize_violation(
        "/a".to_owned(),
        "unknown variant `secret`, expected `x` or `y`",
        &arguments,
    );
    assert!(
        !violation.message.contains("secret"),
        "{}",
        violation.message
    );
}

/// `arguments` after `normalize_integers` under `schema`.
fn normalized(schema: &Value, arguments: Value) -> Value {
    let Value::Object(mut arguments) = arguments else {
        panic!("arguments are an object");
    };
    let definition = ToolDefinition::new(
        "t.t",
        schemars::Schema::try_from(schema.clone()).expect("a schema"),
    )
    .expect("a definition");
    Validation::new(&definition, Reading::Typed).normalize_integers(&definition, &mut arguments);
    Value::Object(arguments)
}

/// Whether two values are the same JSON, integers told apart from floats.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.is_f64() == y.is_f64() && x.is_i64() == y.is_i64() && x == y
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[track_caller]
fn assert_same(found: &Value, expected: &Value) {
    assert!(same(found, expected), "found {found}, expected {expected}");
}

#[test]
fn integral_floats_are_the_integers_they_stand_for() {
    let integer = |f: f64| integer_of(f).map(Value::Number);
    assert_same(&integer(1.0).unwrap(), &json!(1));
    assert_same(&integer(1e2).unwrap(), &json!(100));
    assert_same(&integer(-0.0).unwrap(), &json!(0));
    assert_same(&integer(-1.0).unwrap(), &json!(-1));
    assert_same(
        &integer(9_007_199_254_740_991.0).unwrap(),
        &json!(9_007_199_254_740_991_u64),
    );
    assert_same(
        &integer(-9_007_199_254_740_991.0).unwrap(),
        &json!(-9_007_199_254_740_991_i64),
    );
    for none in [
        1.5,
        -0.5,
        9_007_199_254_740_992.0,
        -9_007_199_254_740_992.0,
        1e20,
        -9_223_372_036_854_775_808.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        assert_eq!(integer_of(none), None, "{none}");
    }
    // Read from JSON: past ±2^53 the float may not be the number written.
    for text in ["-9223372036854775809", "9007199254740993.0", "1e16"] {
        let read: f64 = serde_json::from_str(text).unwrap();
        assert_eq!(integer_of(read), None, "{text}");
    }
}

#[test]
fn the_schema_already_counts_integral_floats_as_integers() {
    let validator = compile(&json!({ "type": "integer" })).unwrap();
    for accepted in [json!(1.0), json!(1e2), json!(-0.0), json!(1e20)] {
        assert!(validator.is_valid(&accepted), "{accepted}");
    }
    assert!(!validator.is_valid(&json!(1.5)));
}

#[test]
fn integral_floats_become_integers_where_the_schema_admits_integers_only() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "count": { "type": "integer", "format": "int64" },
            "maybe": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 },
            "list": { "type": "array", "items": { "type": "integer" } },
            "pair": {
                "type": "array",
                "prefixItems": [{ "type": "integer" }, { "type": "number" }],
                "items": false,
            },
            "map": { "type": "object", "additionalProperties": { "type": "integer" } },
            "point": { "$ref": "#/$defs/Point", "description": "Where." },
            "shape": { "anyOf": [{ "$ref": "#/$defs/Point" }, { "type": "null" }] },
            "both": { "allOf": [{ "type": "number" }, { "type": "integer" }] },
            "ratio": { "type": "number", "format": "double" },
            "either": { "anyOf": [{ "type": "integer" }, { "type": "number" }] },
            "mixed": { "type": ["number", "integer"] },
            "big": { "type": "array", "items": { "type": "integer" } },
            "raw": true,
            "untyped": {},
            "patterned": {
                "type": "object",
                "patternProperties": { "^n": { "type": "number" } },
                "additionalProperties": { "type": "integer" },
            },
            "variant": {
                "oneOf": [
                    { "type": "string", "enum": ["none"] },
                    {
                        "type": "object",
                        "properties": { "Fixed": { "type": "integer" } },
                        "additionalProperties": false,
                    },
                    {
                        "type": "object",
                        "properties": { "Scaled": { "type": "number" } },
                        "additionalProperties": false,
                    },
                ],
            },
            "tree": { "$ref": "#/$defs/Tree" },
        },
        "$defs": {
            "Point": {
                "type": "object",
                "properties": { "x": { "type": "integer" }, "y": { "type": "number" } },
            },
            "Tree": {
                "type": "object",
                "properties": {
                    "value": { "type": "integer" },
                    "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } },
                },
            },
        },
        "additionalProperties": false,
    });
    let arguments = json!({
        "count": 1.0,
        "maybe": 1e2,
        "list": [1.0, -0.0, 2, 1.5, 1e20],
        "pair": [3.0, 4.0],
        "map": { "a": 5.0 },
        "point": { "x": 6.0, "y": 7.0 },
        "shape": { "x": 8.0, "y": 9.0 },
        "both": 10.0,
        "ratio": 11.0,
        "either": 12.0,
        "mixed": 12.0,
        // Integers already, past what a float holds exactly: left exactly as they are.
        "big": [9_007_199_254_740_993_u64, -9_007_199_254_740_993_i64, u64::MAX],
        "raw": { "n": 13.0, "list": [14.0] },
        "untyped": 15.0,
        "patterned": { "n": 16.0, "m": 17.0 },
        "variant": { "Fixed": 18.0 },
        "tree": { "value": 19.0, "children": [{ "value": 20.0, "children": [] }] },
    });
    let expected = json!({
        "count": 1,
        "maybe": 100,
        "list": [1, 0, 2, 1.5, 1e20],
        "pair": [3, 4.0],
        "map": { "a": 5 },
        "point": { "x": 6, "y": 7.0 },
        "shape": { "x": 8, "y": 9.0 },
        "both": 10,
        "ratio": 11.0,
        "either": 12.0,
        "mixed": 12.0,
        // Integers already, past what a float holds exactly: left exactly as they are.
        "big": [9_007_199_254_740_993_u64, -9_007_199_254_740_993_i64, u64::MAX],
        "raw": { "n": 13.0, "list": [14.0] },
        "untyped": 15.0,
        // `m` may match no pattern, but telling needs the regular expression: left alone.
        "patterned": { "n": 16.0, "m": 17.0 },
        "variant": { "Fixed": 18 },
        "tree": { "value": 19, "children": [{ "value": 20, "children": [] }] },
    });
    assert_same(&normalized(&schema, arguments), &expected);
    let scaled = normalized(&schema, json!({ "variant": { "Scaled": 1.0 } }));
    assert_same(&scaled, &json!({ "variant": { "Scaled": 1.0 } }));
}

#[test]
fn a_union_rewrites_only_what_all_its_numeric_branches_demand_as_integers() {
    // An untagged enum of `Int { n: i64 }` and `Float { n: f64 }`: `n` may be either.
    let schema = json!({
        "type": "object",
        "properties": {
            "v": {
                "anyOf": [
                    { "type": "object", "properties": { "n": { "type": "integer" } } },
                    { "type": "object", "properties": { "n": { "type": "number" } } },
                    { "type": "integer" },
                ],
            },
        },
    });
    assert_same(
        &normalized(&schema, json!({ "v": { "n": 1.0 } })),
        &json!({ "v": { "n": 1.0 } }),
    );
    // A number can only be the integer branch: the object branches refuse numbers.
    assert_same(
        &normalized(&schema, json!({ "v": 1.0 })),
        &json!({ "v": 1 }),
    );
}

#[test]
fn schemas_that_loop_or_branch_without_end_are_walked_safely() {
    let looping = json!({
        "type": "object",
        "anyOf": [{ "$ref": "#" }, { "allOf": [{ "$ref": "#" }] }],
        "additionalProperties": { "anyOf": [{ "$ref": "#" }, { "type": "integer" }] },
    });
    assert_same(
        &normalized(&looping, json!({ "a": { "b": 1.0 }, "c": 2.0 })),
        &json!({ "a": { "b": 1 }, "c": 2 }),
    );
    // Ten `anyOf`s of four branches each: 4^10 alternatives, too many to follow.
    let branch = json!({ "anyOf": [{}, { "type": "object" }, { "title": "a" }, { "title": "b" }] });
    let integer = json!({ "properties": { "n": { "type": "integer" } } });
    let mut all = vec![branch.clone(); 2];
    all.push(integer.clone());
    // Two of them, sixteen alternatives, are followed.
    let narrow = json!({ "type": "object", "allOf": all });
    assert_same(
        &normalized(&narrow, json!({ "n": 1.0 })),
        &json!({ "n": 1 }),
    );
    let mut all = vec![branch; 10];
    all.push(integer);
    let wide = json!({ "type": "object", "allOf": all });
    assert_same(
        &normalized(&wide, json!({ "n": 1.0 })),
        &json!({ "n": 1.0 }),
    );
    // Deeper than the walk goes: left as it is.
    let mut deep = json!(1.0);
    for _ in 0..DEPTH + 1 {
        deep = json!({ "d": deep });
    }
    let nested = json!({ "type": "object", "additionalProperties": { "$ref": "#/$defs/D" },
        "$defs": { "D": { "anyOf": [
            { "type": "object", "additionalProperties": { "$ref": "#/$defs/D" } },
            { "type": "integer" },
        ] } } });
    let found = normalized(&nested, json!({ "d": deep }));
    let mut leaf = &found;
    while let Some(inner) = leaf.get("d") {
        leaf = inner;
    }
    assert!(leaf.is_f64(), "{leaf}");
    let mut deep = json!(1.0);
    for _ in 0..DEPTH + 1 {
        deep = json!([deep]);
    }
    let arrays = json!({ "type": "object", "additionalProperties": { "$ref": "#/$defs/A" },
        "$defs": { "A": { "anyOf": [
            { "type": "array", "items": { "$ref": "#/$defs/A" } },
            { "type": "integer" },
        ] } } });
    let found = normalized(&arrays, json!({ "d": deep }));
    let mut leaf = &found["d"];
    while let Some(inner) = leaf.get(0) {
        leaf = inner;
    }
    assert!(leaf.is_f64(), "{leaf}");
    assert_same(
        &normalized(&arrays, json!({ "d": [[1.0], 2.0] })),
        &json!({ "d": [[1], 2] }),
    );
    assert_same(
        &normalized(&nested, json!({ "d": { "d": 1.0 } })),
        &json!({ "d": { "d": 1 } }),
    );
}

#[test]
fn only_schemas_with_integers_look_at_the_arguments() {
    assert!(mentions_integer(
        &json!({ "properties": { "a": { "type": ["null", "integer"] } } })
    ));
    assert!(mentions_integer(
        &json!({ "anyOf": [{ "type": "integer" }] })
    ));
    assert!(!mentions_integer(
        &json!({ "properties": { "a": { "type": "number" } } })
    ));
    assert!(!mentions_integer(
        &json!({ "properties": { "integer": { "type": "string" } } })
    ));
    let schema = json!({ "type": "object", "properties": { "a": { "type": "number" } } });
    assert_same(
        &normalized(&schema, json!({ "a": 1.0 })),
        &json!({ "a": 1.0 }),
    );
    assert!(!has_integral_float(&json!({ "a": [1, 1.5, "1.0"] })));
    assert!(has_integral_float(&json!({ "a": [1, { "b": 2.0 }] })));
}

#[test]
fn the_walk_runs_only_for_integral_floats_under_a_schema_with_integers() {
    let validation = |schema: Value| {
        let schema = schemars::Schema::try_from(schema).unwrap();
        Validation::new(&ToolDefinition::new("t.t", schema).unwrap(), Reading::Typed)
    };
    let integers = validation(json!({ "type": "object", "properties": {
        "a": { "type": "integer" }, "b": { "type": "number" } } }));
    let numbers = validation(json!({ "type": "object", "properties": {
        "a": { "type": "number" }, "b": { "type": "number" } } }));
    let Value::Object(floats) = json!({ "a": 1, "b": [1.0] }) else {
        unreachable!()
    };
    let Value::Object(none) = json!({ "a": 1, "b": 1.5 }) else {
        unreachable!()
    };
    assert!(integers.may_rewrite(&floats));
    assert!(!integers.may_rewrite(&none));
    assert!(!numbers.may_rewrite(&floats));
}

#[test]
fn alike_alternatives_count_once() {
    // Every level holds two alternatives (`a` and `b`), each of which leads to the same
    // `next`: counted apart, they would double at each level, past what is followed.
    let schema = json!({
        "type": "object",
        "properties": { "next": { "$ref": "#/$defs/Node" } },
        "$defs": { "Node": {
            "type": "object",
            "properties": { "n": { "type": "integer" }, "next": { "$ref": "#/$defs/Node" } },
            "anyOf": [{ "title": "a" }, { "title": "b" }],
        } },
    });
    let mut deep = json!({ "n": 1.0 });
    for _ in 0..12 {
        deep = json!({ "n": 2.0, "next": deep });
    }
    let found = normalized(&schema, json!({ "next": deep }));
    let mut node = &found["next"];
    while let Some(next) = node.get("next") {
        assert!(node["n"].is_u64(), "{node}");
        node = next;
    }
    assert_same(node, &json!({ "n": 1 }));
}

#[test]
fn an_integer_a_float_does_not_hold_exactly_is_named_as_such() {
    let arguments = json!({ "a": 1e16, "b": 1.5, "c": 2.0 });
    let message = |path: &str| {
        deserialize_violation(
            path.to_owned(),
            "invalid type: floating point `1e20`, expected i64",
            &arguments,
        )
        .message
    };
    assert_eq!(
        message("/a"),
        "invalid type: expected i64, found an integral number beyond ±2^53, which a float \
         does not hold exactly"
    );
    assert_eq!(message("/b"), "invalid type: expected i64, found a number");
    assert_eq!(json_type(&json!(u64::MAX)), "an integer");
    assert_eq!(json_type(&json!(i64::MIN)), "an integer");
    assert_eq!(message("/c"), "invalid type: expected i64, found a number");
}

#[test]
fn deserialization_messages_lose_the_value_but_keep_what_was_expected() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "snake_case", deny_unknown_fields)]
    #[allow(dead_code)]
    enum Shape {
        Circle,
        Square,
    }
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Point {
        x: i64,
    }
    fn serde_message<T: serde::de::DeserializeOwned + std::fmt::Debug>(value: Value) -> String {
        serde_json::from_value::<T>(value)
            .expect_err("does not deserialize")
            .to_string()
    }
    let arguments = json!({ "v": "secret" });
    let cleaned = |message: &str| {
        let violation = deserialize_violation("/v".to_owned(), message, &arguments);
        assert_eq!(violation.path, "/v");
        assert_eq!(violation.keyword, "deserialize");
        violation.message
    };
    let cases = [
        (
            serde_message::<i64>(json!("secret")),
            "invalid type: string \"secret\", expected i64",
            "invalid type: expected i64, found a string",
        ),
        (
            serde_message::<u8>(json!(300)),
            "invalid value: integer `300`, expected u8",
            "invalid value: expected u8",
        ),
        (
            serde_message::<Shape>(json!("secret")),
            "unknown variant `secret`, expected `circle` or `square`",
            "unknown variant: expected `circle` or `square`",
        ),
        (
            serde_message::<[u8; 2]>(json!([1])),
            "invalid length 1, expected an array of length 2",
            "invalid length: expected an array of length 2",
        ),
        // A field's name is no value: said as serde says it.
        (
            serde_message::<Point>(json!({ "x": 1, "secret": 2 })),
            "unknown field `secret`, expected `x`",
            "unknown field `secret`, expected `x`",
        ),
    ];
    for (message, serde_says, expected) in cases {
        assert_eq!(message, serde_says);
        assert_eq!(cleaned(&message), expected, "{message}");
    }
}

#[test]
fn only_scalar_properties_leave_repeated_keys_to_deserialization() {
    let schema = |properties: Value| json!({ "type": "object", "properties": properties });
    for (properties, scalar) in [
        (
            json!({ "a": { "type": "integer" }, "b": { "type": ["string", "null"] } }),
            true,
        ),
        (json!({}), true),
        (json!({ "a": { "type": ["integer", "object"] } }), false),
        (
            json!({ "a": { "type": "array", "items": { "type": "integer" } } }),
            false,
        ),
        (json!({ "a": { "$ref": "#/$defs/A" } }), false),
        (json!({ "a": true }), false),
        (json!({ "a": {} }), false),
    ] {
        assert_eq!(
            scalar_properties(&schema(properties.clone())),
            scalar,
            "{properties}"
        );
    }
    assert!(!scalar_properties(&json!({ "type": "object" })));
}

#[test]
fn a_key_written_twice_is_found_at_any_depth_and_in_large_objects() {
    let unrepeated = |text: &str| serde_json::from_str::<Unrepeated>(text).is_ok();
    let object = |keys: &[usize]| {
        let members: Vec<String> = keys
            .iter()
            .map(|key| format!(r#""k{key}":{key}"#))
            .collect();
        format!("{{{}}}", members.join(","))
    };
    let distinct: Vec<usize> = (0..20).collect();
    assert!(unrepeated(&object(&distinct)));
    for (first, second) in [(1, 5), (3, 12), (15, 19)] {
        let mut keys = distinct.clone();
        keys[second] = keys[first];
        assert!(!unrepeated(&object(&keys)), "{first} and {second}");
    }
    assert!(unrepeated(r#"[{"a":1},{"a":{"a":[{"a":2}]}}]"#));
    assert!(!unrepeated(r#"{"a":[1,{"b":1,"b":2}]}"#));
    // A key with escapes is not compared: counted as a repeat, left to the full reader.
    assert!(!unrepeated(r#"{"\u0061":1}"#));
}
