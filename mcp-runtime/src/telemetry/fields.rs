//! The fields of `Span` (opentelemetry/proto/trace/v1/trace.proto) that a span writes
//! itself, each from a value it borrows: the key and length by `prost`'s encoding, the
//! bytes as they are. Each writes its field as the generated `Span` would, and, as there,
//! a field is left out where the generated code would leave it out (an empty string or
//! list, a zero); `spans::tests` decodes them with the generated types.

use opentelemetry_proto::tonic::trace::v1::status;
use prost::encoding::{WireType, encode_varint, encoded_len_varint, key_len};

const TRACE_ID: u32 = 1;
const SPAN_ID: u32 = 2;
pub(super) const TRACE_STATE: u32 = 3;
pub(super) const PARENT_SPAN_ID: u32 = 4;
const START_TIME: u32 = 7;
pub(super) const END_TIME: u32 = 8;
/// `repeated KeyValue attributes = 9`.
const ATTRIBUTES: u32 = 9;
/// `Status status = 15`.
const STATUS: u32 = 15;
const FLAGS: u32 = 16;
/// The keys, each a byte, of an attribute (field 9), and of the first and second string
/// or message of a message (fields 1 and 2), each length-delimited.
const ATTRIBUTE_KEY: u8 = (ATTRIBUTES << 3 | WireType::LengthDelimited as u32) as u8;
const FIRST_STRING: u8 = (1 << 3 | WireType::LengthDelimited as u32) as u8;
const SECOND_STRING: u8 = (2 << 3 | WireType::LengthDelimited as u32) as u8;

/// A varint: one byte below 128, as nearly every key and length of a span is, and two
/// below 16,384, as a span's own length and the key of its flags are.
#[inline]
fn varint(value: u64, to: &mut Vec<u8>) {
    if value < 0x80 {
        to.push(value as u8);
    } else if value < 0x4000 {
        to.extend_from_slice(&[(value as u8) | 0x80, (value >> 7) as u8]);
    } else {
        encode_varint(value, to);
    }
}

/// A field's key: its tag and wire type.
#[inline]
fn write_key(tag: u32, wire_type: WireType, to: &mut Vec<u8>) {
    varint(u64::from(tag << 3 | wire_type as u32), to);
}

/// The head of a length-delimited field of `tag` whose value is `length` bytes: its key
/// and its length, the value to follow.
pub(super) fn open(tag: u32, length: usize, to: &mut Vec<u8>) {
    write_key(tag, WireType::LengthDelimited, to);
    varint(length as u64, to);
}

/// A `bytes` or `string` field, or an embedded message already encoded.
pub(super) fn bytes(tag: u32, value: &[u8], to: &mut Vec<u8>) {
    open(tag, value.len(), to);
    to.extend_from_slice(value);
}

pub(super) fn fixed64(tag: u32, value: u64, to: &mut Vec<u8>) {
    write_key(tag, WireType::SixtyFourBit, to);
    to.extend_from_slice(&value.to_le_bytes());
}

/// The fields of fixed length every span has, written as one run of bytes: its trace
/// and span ids, its flags, its start time (`bytes trace_id = 1`, `bytes span_id = 2`,
/// `fixed32 flags = 16`, `fixed64 start_time_unix_nano = 7`).
pub(super) fn every_spans(
    (trace, span): ([u8; 16], [u8; 8]),
    flags: u32,
    start: u64,
    to: &mut Vec<u8>,
) {
    const FLAGS_KEY: u32 = FLAGS << 3 | WireType::ThirtyTwoBit as u32;
    let mut run = [0; 43];
    run[0] = (TRACE_ID << 3 | WireType::LengthDelimited as u32) as u8;
    run[1] = 16;
    run[2..18].copy_from_slice(&trace);
    run[18] = (SPAN_ID << 3 | WireType::LengthDelimited as u32) as u8;
    run[19] = 8;
    run[20..28].copy_from_slice(&span);
    // The key of field 16, a varint of two bytes.
    run[28] = (FLAGS_KEY as u8) | 0x80;
    run[29] = (FLAGS_KEY >> 7) as u8;
    run[30..34].copy_from_slice(&flags.to_le_bytes());
    run[34] = (START_TIME << 3 | WireType::SixtyFourBit as u32) as u8;
    run[35..43].copy_from_slice(&start.to_le_bytes());
    to.extend_from_slice(&run);
}

/// The length of a `bytes` or `string` field.
fn bytes_len(tag: u32, length: usize) -> usize {
    key_len(tag) + encoded_len_varint(length as u64) + length
}

/// An entry of `attributes`: `KeyValue { key = 1; value = 2 }`, the value an
/// `AnyValue { string_value = 1 }`.
pub(super) fn string_attribute(key: &str, value: &str, to: &mut Vec<u8>) {
    let any_value = bytes_len(1, value.len());
    let key_value =
        bytes_len(1, key.len()) + key_len(2) + encoded_len_varint(any_value as u64) + any_value;
    // Nearly every attribute's lengths are each a byte: its keys and lengths are written
    // in two runs of four bytes, the key and the value after each.
    // (The key and the value are each shorter than the whole.)
    if key_value < 0x80 {
        to.reserve(key_value + 2);
        to.extend_from_slice(&[
            ATTRIBUTE_KEY,
            key_value as u8,
            FIRST_STRING,
            key.len() as u8,
        ]);
        to.extend_from_slice(key.as_bytes());
        let any_value = any_value as u8;
        to.extend_from_slice(&[SECOND_STRING, any_value, FIRST_STRING, value.len() as u8]);
        to.extend_from_slice(value.as_bytes());
        return;
    }
    write_key(ATTRIBUTES, WireType::LengthDelimited, to);
    varint(key_value as u64, to);
    bytes(1, key.as_bytes(), to);
    write_key(2, WireType::LengthDelimited, to);
    varint(any_value as u64, to);
    bytes(1, value.as_bytes(), to);
}

/// `status`: `Status { message = 2; code = 3 }`, the code `STATUS_CODE_ERROR`.
pub(super) fn error_status(message: &str, to: &mut Vec<u8>) {
    let code = status::StatusCode::Error as u64;
    let message_len = if message.is_empty() {
        0
    } else {
        bytes_len(2, message.len())
    };
    let status = message_len + key_len(3) + encoded_len_varint(code);
    write_key(STATUS, WireType::LengthDelimited, to);
    varint(status as u64, to);
    if !message.is_empty() {
        bytes(2, message.as_bytes(), to);
    }
    write_key(3, WireType::Varint, to);
    varint(code, to);
}
