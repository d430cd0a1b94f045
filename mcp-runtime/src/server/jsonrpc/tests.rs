//! Tests of `jsonrpc`.

use super::*;

/// The refusal of `text`: by the reader, or, for a call, of its arguments when the server
/// reads them (the reader keeps an object's text).
fn refusal(text: &str) -> Refusal {
    match parse(text.as_bytes()) {
        Err(refusal) => refusal,
        Ok(Incoming::Call {
            id,
            params:
                CallParams {
                    arguments: Some(arguments),
                    ..
                },
        }) => arguments.into_value(&id).expect_err("refused"),
        Ok(read) => panic!("not refused: {read:?}"),
    }
}

/// `incoming` with a call's arguments read, as the server reads them.
fn arguments_read(incoming: Incoming) -> Incoming {
    match incoming {
        Incoming::Call { id, mut params } => {
            params.arguments = params
                .arguments
                .map(|arguments| CallArguments::Value(arguments.into_value(&id).expect("read")));
            Incoming::Call { id, params }
        }
        other => other,
    }
}

#[test]
fn error_codes_are_json_rpcs() {
    // JSON-RPC 2.0, section 5.1: clients match on these numbers.
    assert_eq!(
        [
            PARSE_ERROR,
            INVALID_REQUEST,
            METHOD_NOT_FOUND,
            INVALID_PARAMS,
            INTERNAL_ERROR
        ],
        [-32700, -32600, -32601, -32602, -32603]
    );
}

#[test]
fn ids_are_equal_when_written_alike() {
    let id = |text: &str| Id::of(&RawValue::from_string(text.to_owned()).unwrap()).unwrap();
    assert_eq!(id("7"), id("7"));
    assert_eq!(id(r#""a""#), id(r#""a""#));
    assert_ne!(id("7"), id("8"));
    assert_ne!(id("7"), id(r#""7""#));
    assert_ne!(id("7"), Id::NONE);
    assert_eq!(Id::NONE, Id::NONE);
}

#[test]
fn the_general_reader_keeps_every_value_as_written() {
    // `params` before `method`: the direct reader leaves it to the general one.
    let text = r#"{"params":{"b":true,"i":-3,"u":18446744073709551615,"f":1.5,"s":"a","e":"\u0041","n":null,"l":[false,{"k":0}]},"jsonrpc":"2.0","id":1,"method":"m"}"#;
    let Ok(Incoming::Request { method, params, .. }) = parse(text.as_bytes()) else {
        panic!("not read as a request: {text}");
    };
    assert_eq!(method, Method::parse("m"));
    assert_eq!(
        Value::Object(params),
        json!({"b": true, "i": -3, "u": u64::MAX, "f": 1.5, "s": "a", "e": "A", "n": null,
               "l": [false, {"k": 0}]})
    );
}

#[test]
fn a_member_of_the_envelope_given_twice_is_refused() {
    for text in [
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{}}"#,
    ] {
        let refused = refusal(text);
        assert_eq!(refused.code, INVALID_REQUEST, "{text}");
        assert!(
            refused.message.contains("appears twice"),
            "{text}: {}",
            refused.message
        );
    }
}

#[test]
fn a_batch_is_refused_as_such() {
    let refused = refusal(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (
            INVALID_REQUEST,
            "batches are not supported: send one JSON-RPC message at a time"
        )
    );
}

#[test]
fn a_notification_is_written_as_json_rpc() {
    assert_eq!(
        notification(&Method::Progress, json!({"progress": 1})),
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#
    );
}

#[test]
fn malformed_messages_get_the_right_codes() {
    assert_eq!(refusal("{").code, PARSE_ERROR);
    assert_eq!(refusal("[]").code, INVALID_REQUEST);
    assert_eq!(refusal("3").code, INVALID_REQUEST);
    let wrong_version = refusal(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#);
    assert_eq!(
        (wrong_version.code, wrong_version.id),
        (
            INVALID_REQUEST,
            Id::of(&RawValue::from_string("1".to_owned()).unwrap()).unwrap()
        )
    );
    assert_eq!(refusal(r#"{"jsonrpc":"2.0","id":1}"#).code, INVALID_REQUEST);
    assert_eq!(
        refusal(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).code,
        INVALID_REQUEST
    );
    assert_eq!(
        refusal(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#).code,
        INVALID_PARAMS
    );
    assert_eq!(
        refusal(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#).code,
        INVALID_REQUEST
    );
    for silent in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
        r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
    ] {
        assert!(parse(silent.as_bytes()).is_ok(), "{silent}");
    }
}

#[test]
fn requests_notifications_and_responses_are_told_apart() {
    assert!(matches!(
        parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
        Ok(Incoming::Request { .. })
    ));
    assert!(matches!(
        parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        Ok(Incoming::Notification { .. })
    ));
    assert!(matches!(
        parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        Ok(Incoming::Response {
            id: Some(_),
            outcome: Ok(_)
        })
    ));
    let Ok(Incoming::Response {
        id: Some(id),
        outcome,
    }) = parse(br#"{"jsonrpc":"2.0","id":"a\u0062","error":{"code":-1,"message":"no"}}"#)
    else {
        panic!("a response");
    };
    assert_eq!(id.as_string().as_deref(), Some("ab"));
    assert_eq!(id.written(), Some(r#""a\u0062""#));
    assert_eq!(
        outcome,
        Err(serde_json::json!({ "code": -1, "message": "no" }))
    );
}

/// The key of the request `id` is written as (either reader), and the key of the
/// request a cancellation names with `id` written as `named`.
fn keys(id: &str, named: &str) -> (String, String) {
    let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    let Ok(Incoming::Request { id: read, .. }) = parse(request.as_bytes()) else {
        panic!("{request}")
    };
    if let Some(Incoming::Request { id: direct, .. }) = parse_request(&request) {
        assert_eq!(direct.key(), read.key(), "{request}");
    }
    let general = match parse_value(request.as_bytes()) {
        Ok(Incoming::Request { id, .. }) => id,
        other => panic!("{other:?}"),
    };
    assert_eq!(general.key(), read.key(), "{request}");
    let cancel = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{named}}}}}"#
    );
    let Ok(Incoming::Cancelled {
        request_id: Some(cancelled),
    }) = parse(cancel.as_bytes())
    else {
        panic!("{cancel}")
    };
    (read.key(), cancelled.key())
}

#[test]
fn an_id_and_a_cancellation_naming_it_agree_however_it_is_spelled() {
    for (written, named) in [
        ("1e2", "100"),
        ("100.0", "1E+2"),
        ("0.15e3", "150"),
        ("-0", "0"),
        ("0e-5", "0.000"),
        ("-7", "-7.0"),
        ("7", "7"),
        (r#""a\u0062""#, r#""ab""#),
        (r#""\"""#, r#""\u0022""#),
        (
            "123456789012345678901234567890",
            "1.2345678901234567890123456789e29",
        ),
    ] {
        let (id, cancelled) = keys(written, named);
        assert_eq!(id, cancelled, "{written} and {named}");
    }
}

#[test]
fn different_ids_never_share_a_key() {
    for (one, other) in [
        // One apart past 64 bits, and past 10^29: a float cannot tell them apart.
        ("18446744073709551616", "18446744073709551617"),
        ("-18446744073709551616", "-18446744073709551617"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567891",
        ),
        ("1", r#""1""#),
        ("100", r#""1e2""#),
        ("10", "1"),
        ("1", "-1"),
        ("120", "12"),
        (r#""""#, "0"),
        (r#""a""#, r#""A""#),
    ] {
        let (id, cancelled) = keys(one, other);
        assert_ne!(id, cancelled, "{one} and {other}");
    }
}

#[test]
fn a_number_that_is_no_integer_is_no_id() {
    for written in [
        "1.5",
        "1e-1",
        "-0.25",
        "12345678901234567890.5",
        "1e-9999999999999999999",
        "1e9999999999999999999",
    ] {
        let message = format!(r#"{{"jsonrpc":"2.0","id":{written},"method":"ping"}}"#);
        let refused = refusal(&message);
        assert_eq!(
            (refused.code, refused.id.is_none()),
            (INVALID_REQUEST, true),
            "{written}"
        );
        // Past the range of a float, the number cannot even be read.
        let named = [
            "string or an integer",
            "`id` is valid JSON, but cannot be read",
        ];
        assert!(
            named.iter().any(|words| refused.message.contains(words)),
            "{}",
            refused.message
        );
    }
    // A cancellation naming one names no call.
    let cancel =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}"#;
    assert!(matches!(
        parse(cancel.as_bytes()),
        Ok(Incoming::Cancelled { request_id: None })
    ));
}

/// `digits` (an integer's decimal digits, without leading zeros) written another way
/// JSON allows: `shift` digits moved behind the point and made up by the exponent, and
/// `zeros` zeros added behind it.
fn respelled(negative: bool, digits: &str, shift: usize, zeros: usize, upper: bool) -> String {
    let sign = if negative { "-" } else { "" };
    let shift = shift.min(digits.len());
    let (whole, fraction) = digits.split_at(digits.len() - shift);
    let whole = if whole.is_empty() { "0" } else { whole };
    let fraction = format!("{fraction}{}", "0".repeat(zeros));
    let point = if fraction.is_empty() {
        String::new()
    } else {
        format!(".{fraction}")
    };
    let e = if upper { "E" } else { "e" };
    format!("{sign}{whole}{point}{e}{}", shift)
}

proptest::proptest! {
    #[test]
    fn an_integer_has_one_key_however_it_is_written(
        negative: bool,
        digits in "0|[1-9][0-9]{0,45}",
        shift in 0usize..50,
        zeros in 0usize..4,
        upper: bool,
    ) {
        let plain = format!("{}{digits}", if negative { "-" } else { "" });
        let other = respelled(negative, &digits, shift, zeros, upper);
        let (id, cancelled) = keys(&plain, &other);
        proptest::prop_assert_eq!(id, cancelled, "{} and {}", plain, other);
    }

    #[test]
    fn different_integers_have_different_keys(
        one in "-?(0|[1-9][0-9]{0,45})",
        other in "-?(0|[1-9][0-9]{0,45})",
    ) {
        // Written without exponent or point, an integer has one spelling, but for `-0`.
        let zero = |text: &str| if text == "-0" { "0".to_owned() } else { text.to_owned() };
        let same = zero(&one) == zero(&other);
        let (a, b) = keys(&one, &other);
        proptest::prop_assert_eq!(a == b, same, "{} and {}", one, other);
    }

    #[test]
    fn a_string_has_one_key_however_it_is_escaped(text: String, other: String) {
        let plain = serde_json::to_string(&text).unwrap();
        let escaped: String = text
            .encode_utf16()
            .map(|unit| format!("\\u{unit:04x}"))
            .collect();
        let escaped = format!("\"{escaped}\"");
        let (id, cancelled) = keys(&plain, &escaped);
        proptest::prop_assert_eq!(id, cancelled);
        let (a, b) = keys(&plain, &serde_json::to_string(&other).unwrap());
        proptest::prop_assert_eq!(a == b, text == other);
    }

    #[test]
    fn a_string_is_never_keyed_as_a_number(number in "-?(0|[1-9][0-9]{0,30})") {
        let (as_number, as_string) = keys(&number, &format!("\"{number}\""));
        proptest::prop_assert_ne!(as_number, as_string);
    }
}

#[test]
fn a_repeated_key_is_refused_naming_it_and_where() {
    for (message, id, named) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            None,
            "the key `id` appears twice in the message",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"ping"}"#,
            Some("1"),
            "the key `method` appears twice in the message",
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a.b","arguments":{"n":{"k":1,"k":1}}}}"#,
            Some(r#""x""#),
            "the key `k` appears twice in `params.arguments.n`",
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}"#,
            Some("3"),
            "the key `cursor` appears twice in `params`",
        ),
    ] {
        let refused = refusal(message);
        assert_eq!(refused.code, INVALID_REQUEST, "{message}");
        assert_eq!(refused.id.written(), id, "{message}");
        assert!(refused.message.starts_with(named), "{}", refused.message);
    }
    // One key in several objects is no repetition.
    let value = serde_json::from_str::<Strict>(r#"[{"a":1},{"a":1,"b":{"a":2}}]"#);
    assert!(value.is_ok());
}

#[test]
fn the_general_reader_keeps_the_id_as_written_and_names_an_id_it_cannot_take() {
    // `params` before `method`: the direct reader leaves each to the general one.
    for (message, id) in [
        (
            r#"{"params":{},"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#,
            r#""a\u0062""#,
        ),
        (
            r#"{"params":{},"jsonrpc":"2.0","id":1.0e2,"method":"ping"}"#,
            "1.0e2",
        ),
        (
            r#"{"params":{},"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            "123456789012345678901234567890",
        ),
    ] {
        let Ok(Incoming::Request { id: read, .. }) = parse_value(message.as_bytes()) else {
            panic!("not read as a request: {message}");
        };
        assert_eq!(read.written(), Some(id), "{message}");
    }
    for (message, named) in [
        (
            r#"{"params":{},"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            "`id` must be a string or an integer",
        ),
        (
            r#"{"params":{},"jsonrpc":"2.0","id":[[1]],"method":"ping"}"#,
            "`id` must be a string or an integer",
        ),
        (
            r#"{"params":{},"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
            "`id` is valid JSON, but cannot be read",
        ),
        (
            r#"{"params":{},"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            "`id` is valid JSON, but cannot be read",
        ),
    ] {
        let refused = refusal(message);
        assert_eq!(refused.code, INVALID_REQUEST, "{message}");
        assert!(refused.message.starts_with(named), "{}", refused.message);
    }
}

#[test]
fn valid_json_that_cannot_be_held_is_refused_under_its_id_naming_the_place() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"a.b","arguments":{{"x":{}1{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let surrogate = r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"a.b","arguments":{"t":"\ud800"}}}"#;
    let range = r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":1e400}}"#;
    let envelope = r#"{"jsonrpc":"2.0","id":2,"extra":1e400,"params":{},"method":"ping"}"#;
    for (message, code, id, place) in [
        (deep.as_str(), INVALID_PARAMS, "9", "`params.arguments.x[0]"),
        (surrogate, INVALID_PARAMS, r#""s""#, "`params.arguments.t`"),
        (range, INVALID_PARAMS, "1", "`params.n`"),
        (envelope, INVALID_REQUEST, "2", "`extra`"),
    ] {
        let refused = refusal(message);
        assert_eq!(refused.code, code, "{message}");
        assert_eq!(refused.id.written(), Some(id));
        assert!(refused.message.starts_with(place), "{}", refused.message);
        assert!(
            refused
                .message
                .contains("is valid JSON, but cannot be read")
        );
    }
    // A path nested 128 deep is cut short.
    let refused = refusal(&deep);
    assert!(refused.message.contains("…"), "{}", refused.message);
    assert!(refused.message.len() < 250, "{}", refused.message);
    // Text that is no JSON, or no UTF-8, is a parse error without an id.
    for message in [
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"[..],
        b"{\"id\":1,",
    ] {
        let refused = parse(message).expect_err("refused");
        assert_eq!((refused.code, refused.id.is_none()), (PARSE_ERROR, true));
    }
}

#[test]
fn integer_keys_are_exact_and_spelled_once() {
    for (written, key) in [
        ("0", Some("0")),
        ("-0.0e7", Some("0")),
        ("12300", Some("123e2")),
        ("1.23e4", Some("123e2")),
        ("-1.5e1", Some("-15e0")),
        ("1.5", None),
        ("true", None),
        ("null", None),
        ("{}", None),
        ("[1]", None),
    ] {
        assert_eq!(integer_key(written).as_deref(), key, "{written}");
    }
}

#[test]
fn requests_read_directly_are_read_as_the_general_reader_reads_them() {
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"61"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a.b","arguments":{"x":[1,{"y":null}]},"_meta":{"progressToken":7},"extra":1}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":null,"arguments":null}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":null}"#,
        r#"{"id":6,"method":"initialize","params":{},"jsonrpc":"2.0","other":true}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
    ];
    for message in messages {
        let direct = parse_request(message);
        assert!(direct.is_some(), "{message} is read directly");
        assert_eq!(
            direct.map(arguments_read).ok_or(()),
            parse_value(message.as_bytes()).map_err(drop),
            "{message}"
        );
    }
    // Ids come back exactly as written, however large.
    for (message, id) in [
        (
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            "123456789012345678901234567890",
        ),
        (
            r#"{"jsonrpc":"2.0","params":{},"id":-18446744073709551617,"method":"ping"}"#,
            "-18446744073709551617",
        ),
        (
            r#"{"jsonrpc":"1.0","id":18446744073709551616,"method":"ping"}"#,
            "18446744073709551616",
        ),
    ] {
        let read = match parse(message.as_bytes()) {
            Ok(Incoming::Request { id, .. }) => id,
            Err(refusal) => refusal.id,
            Ok(other) => panic!("{other:?}"),
        };
        assert_eq!(read.key(), keys(id, id).1, "{message}");
        let answer = error_response(&read, -1, "m", None);
        assert!(answer.contains(&format!(r#""id":{id},"#)), "{answer}");
    }
    // Everything else is left to the general reader, which names the mistake.
    for message in [
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        // Well-formed, but `params` before `method`: read the general way.
        r#"{"jsonrpc":"2.0","id":1,"params":{},"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a.b"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
    ] {
        assert!(parse_request(message).is_none(), "{message}");
    }
}

/// A call's data as the direct writer and the wire form write it, under `id`.
fn both_ways(id: &str, data: serde_json::Map<String, Value>) -> (String, String) {
    let id = Id::of(&RawValue::from_string(id.to_owned()).unwrap()).unwrap();
    let direct = data_call_response(&id, &data, None).unwrap();
    let wire = mcp_runtime_core::wire::CallToolResult::from(
        mcp_runtime_core::MCPToolResult::success(Value::Object(data)),
    );
    (direct, result_response(&id, &wire))
}

#[test]
fn a_call_s_data_is_written_directly_as_its_wire_form_has_it() {
    let data = serde_json::json!({
        "sum": 3,
        "text": "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} é 😀 \u{2028}",
        "nested": {"list": [1, -2.5, null, true, "x"], "empty": {}},
        "big": 18446744073709551615u64,
    });
    let Value::Object(data) = data else {
        unreachable!()
    };
    for id in ["1", "\"a\\\"b\"", "-7", "1e2"] {
        let (direct, wire) = both_ways(id, data.clone());
        assert_eq!(direct, wire, "under the id {id}");
    }
    // The 2026-07-28 form adds what `resultType` and the server's info say, after the rest.
    let id = Id::of(&RawValue::from_string("5".to_owned()).unwrap()).unwrap();
    let complete = data_call_response(&id, &data, Some(("srv \"x\"", "1.0"))).unwrap();
    let read: Value = serde_json::from_str(&complete).unwrap();
    assert_eq!(read["result"]["resultType"], "complete");
    assert_eq!(
        read["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
        serde_json::json!({"name": "srv \"x\"", "version": "1.0"})
    );
    assert_eq!(
        read["result"]["structuredContent"],
        Value::Object(data.clone())
    );
    assert_eq!(
        read["result"]["content"][0]["text"],
        serde_json::to_string(&data).unwrap()
    );
    assert_eq!(read["result"]["isError"], false);
    // An id that could not be read is left to the general writer.
    assert_eq!(data_call_response(&Id::NONE, &data, None), None);
}

/// A call's data: a few members, each a string, an integer, a number or a boolean.
fn call_data() -> impl proptest::strategy::Strategy<Value = serde_json::Map<String, Value>> {
    use proptest::strategy::Strategy as _;
    let member = proptest::prop_oneof![
        ".*".prop_map(Value::from),
        proptest::num::i64::ANY.prop_map(Value::from),
        proptest::num::f64::NORMAL.prop_map(Value::from),
        proptest::bool::ANY.prop_map(Value::from),
    ];
    proptest::collection::vec((".*", member), 0..6)
        .prop_map(|entries| entries.into_iter().collect())
}

proptest::proptest! {
    #[test]
    fn any_data_is_written_directly_as_its_wire_form_has_it(data in call_data()) {
        let (direct, wire) = both_ways("42", data);
        proptest::prop_assert_eq!(direct, wire);
    }
}
