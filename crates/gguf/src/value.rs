//! Metadata values: the thirteen GGUF value types, arrays (nested too) included.

use serde::ser::{SerializeSeq, SerializeStruct};

/// The type tag of a metadata value, as the file numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    String,
    Array,
    U64,
    I64,
    F64,
}

impl ValueType {
    pub fn from_id(id: u32) -> Option<ValueType> {
        use ValueType::*;
        Some(match id {
            0 => U8,
            1 => I8,
            2 => U16,
            3 => I16,
            4 => U32,
            5 => I32,
            6 => F32,
            7 => Bool,
            8 => String,
            9 => Array,
            10 => U64,
            11 => I64,
            12 => F64,
            _ => return None,
        })
    }

    /// Lower-case name, as the JSON schema spells it.
    pub fn name(self) -> &'static str {
        use ValueType::*;
        match self {
            U8 => "u8",
            I8 => "i8",
            U16 => "u16",
            I16 => "i16",
            U32 => "u32",
            I32 => "i32",
            F32 => "f32",
            Bool => "bool",
            String => "string",
            Array => "array",
            U64 => "u64",
            I64 => "i64",
            F64 => "f64",
        }
    }

    /// Bytes of a fixed-size value; `None` for strings and arrays.
    pub fn fixed_size(self) -> Option<u64> {
        use ValueType::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            String | Array => None,
        }
    }

    /// The fewest bytes one value of this type can take in a file: what bounds how many
    /// elements an array can truthfully claim in the bytes left.
    pub fn min_size(self) -> u64 {
        match self {
            ValueType::String => 8,
            ValueType::Array => 12,
            other => other.fixed_size().unwrap_or(1),
        }
    }
}

impl std::fmt::Display for ValueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One metadata value. Large strings and arrays are counted but not kept (see
/// [`crate::ReadOptions`]), so a vocabulary of 250k tokens costs no memory.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    /// A string longer than the keep limit: its length in bytes, its text skipped.
    LongString(u64),
    Array(Array),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// An array value: element type, element count, and the elements when short enough to keep.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub elem: ValueType,
    pub len: u64,
    /// `None` when `len` exceeds the keep limit: the elements were walked, not stored.
    pub items: Option<Vec<Value>>,
}

impl Value {
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::U8(_) => ValueType::U8,
            Value::I8(_) => ValueType::I8,
            Value::U16(_) => ValueType::U16,
            Value::I16(_) => ValueType::I16,
            Value::U32(_) => ValueType::U32,
            Value::I32(_) => ValueType::I32,
            Value::F32(_) => ValueType::F32,
            Value::Bool(_) => ValueType::Bool,
            Value::String(_) | Value::LongString(_) => ValueType::String,
            Value::Array(_) => ValueType::Array,
            Value::U64(_) => ValueType::U64,
            Value::I64(_) => ValueType::I64,
            Value::F64(_) => ValueType::F64,
        }
    }

    /// A non-negative integer of any width; `None` for negatives, floats and the rest.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(v) => Some(v.into()),
            Value::F64(v) => Some(v),
            _ => self.as_u64().map(|v| v as f64),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Element count of an array, else `None`.
    pub fn array_len(&self) -> Option<u64> {
        self.as_array().map(|a| a.len)
    }

    /// Integer elements of a kept array of integers, e.g. per-layer head counts.
    pub fn as_u64_list(&self) -> Option<Vec<u64>> {
        self.as_array()?
            .items
            .as_ref()?
            .iter()
            .map(Value::as_u64)
            .collect()
    }

    /// Type as the JSON schema spells it: "u32", "string", "array[i32]", "array[array[u8]]".
    pub fn type_label(&self) -> String {
        match self {
            Value::Array(a) => {
                let inner = match a.items.as_deref().and_then(|i| i.first()) {
                    Some(first) => first.type_label(),
                    None => a.elem.name().to_string(),
                };
                format!("array[{inner}]")
            }
            other => other.value_type().name().to_string(),
        }
    }
}

/// Values serialize as plain JSON: numbers, strings, booleans, lists; a value that was not
/// kept (long string, long array) serializes as `null` (its length is given beside it).
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::U8(v) => s.serialize_u8(*v),
            Value::I8(v) => s.serialize_i8(*v),
            Value::U16(v) => s.serialize_u16(*v),
            Value::I16(v) => s.serialize_i16(*v),
            Value::U32(v) => s.serialize_u32(*v),
            Value::I32(v) => s.serialize_i32(*v),
            Value::F32(v) => s.serialize_f32(*v),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::String(v) => s.serialize_str(v),
            Value::LongString(_) => s.serialize_none(),
            Value::U64(v) => s.serialize_u64(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::F64(v) => s.serialize_f64(*v),
            Value::Array(a) => match &a.items {
                None => s.serialize_none(),
                Some(items) => {
                    let mut seq = s.serialize_seq(Some(items.len()))?;
                    for v in items {
                        seq.serialize_element(v)?;
                    }
                    seq.end()
                }
            },
        }
    }
}

/// One metadata key/value pair and where it starts in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub value: Value,
    /// Byte offset of the entry (its key length field) in the file.
    pub offset: u64,
}

impl serde::Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_entry(&self.key, &self.value, s)
    }
}

/// An entry as documents carry it: key and value (the file offset stays with [`Entry`]).
/// Serializes as `{key, type, len, kept, value}`, and reads back from that.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataEntry {
    pub key: String,
    pub value: Value,
}

impl From<&Entry> for MetadataEntry {
    fn from(e: &Entry) -> MetadataEntry {
        MetadataEntry {
            key: e.key.clone(),
            value: e.value.clone(),
        }
    }
}

impl serde::Serialize for MetadataEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_entry(&self.key, &self.value, s)
    }
}

fn serialize_entry<S: serde::Serializer>(
    key: &str,
    value: &Value,
    s: S,
) -> Result<S::Ok, S::Error> {
    let len = match value {
        Value::Array(a) => Some(a.len),
        Value::LongString(n) => Some(*n),
        Value::String(v) => Some(v.len() as u64),
        _ => None,
    };
    let kept = !matches!(
        value,
        Value::LongString(_) | Value::Array(Array { items: None, .. })
    );
    let mut st = s.serialize_struct("Entry", 5)?;
    st.serialize_field("key", key)?;
    st.serialize_field("type", &value.type_label())?;
    st.serialize_field("len", &len)?;
    st.serialize_field("kept", &kept)?;
    st.serialize_field("value", value)?;
    st.end()
}

/// A metadata value as JSON holds it, before its type label says which GGUF type it is.
enum Json {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    List(Vec<Json>),
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a GGUF metadata value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
                serde::Deserialize::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::U64(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::I64(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(Json::F64(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::Str(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(x) = a.next_element()? {
                    items.push(x);
                }
                Ok(Json::List(items))
            }
        }
        d.deserialize_any(V)
    }
}

fn value_type_named(name: &str) -> Option<ValueType> {
    (0..13)
        .filter_map(ValueType::from_id)
        .find(|t| t.name() == name)
}

/// Reads a kept value back by its type label ("u32", "array[string]", ...).
fn typed(label: &str, v: Json) -> Result<Value, String> {
    let bad = || format!("a value that is not {label}");
    if let Some(inner) = label
        .strip_prefix("array[")
        .and_then(|l| l.strip_suffix(']'))
    {
        let Json::List(items) = v else {
            return Err(bad());
        };
        let elem = if inner.starts_with("array[") {
            ValueType::Array
        } else {
            value_type_named(inner).ok_or_else(|| format!("unknown type {inner}"))?
        };
        let items = items
            .into_iter()
            .map(|x| typed(inner, x))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Value::Array(Array {
            elem,
            len: items.len() as u64,
            items: Some(items),
        }));
    }
    let int = |v: &Json| match *v {
        Json::U64(u) => i128::from(u),
        Json::I64(i) => i128::from(i),
        _ => i128::MAX,
    };
    let n = int(&v);
    Ok(match (label, v) {
        ("bool", Json::Bool(b)) => Value::Bool(b),
        ("string", Json::Str(s)) => Value::String(s),
        ("f32", Json::F64(f)) => Value::F32(f as f32),
        ("f32", _) if n != i128::MAX => Value::F32(n as f32),
        ("f64", Json::F64(f)) => Value::F64(f),
        ("f64", _) if n != i128::MAX => Value::F64(n as f64),
        ("u8", _) => Value::U8(u8::try_from(n).map_err(|_| bad())?),
        ("i8", _) => Value::I8(i8::try_from(n).map_err(|_| bad())?),
        ("u16", _) => Value::U16(u16::try_from(n).map_err(|_| bad())?),
        ("i16", _) => Value::I16(i16::try_from(n).map_err(|_| bad())?),
        ("u32", _) => Value::U32(u32::try_from(n).map_err(|_| bad())?),
        ("i32", _) => Value::I32(i32::try_from(n).map_err(|_| bad())?),
        ("u64", _) => Value::U64(u64::try_from(n).map_err(|_| bad())?),
        ("i64", _) => Value::I64(i64::try_from(n).map_err(|_| bad())?),
        _ => return Err(bad()),
    })
}

/// Reads an entry back from its JSON form (the inverse of its `Serialize`): the type label
/// says which GGUF type each number is; a value that was not kept comes back as its length.
impl<'de> serde::Deserialize<'de> for MetadataEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MetadataEntry, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            key: String,
            #[serde(rename = "type")]
            ty: String,
            len: Option<u64>,
            kept: bool,
            value: Json,
        }
        use serde::de::Error;
        let r = Raw::deserialize(d)?;
        let at = |e: String| D::Error::custom(format!("metadata {}: {e}", r.key));
        let value = if r.kept {
            typed(&r.ty, r.value).map_err(at)?
        } else {
            let len = r
                .len
                .ok_or_else(|| at("a value not kept needs its len".into()))?;
            match r
                .ty
                .strip_prefix("array[")
                .and_then(|l| l.strip_suffix(']'))
            {
                Some(inner) => Value::Array(Array {
                    elem: if inner.starts_with("array[") {
                        ValueType::Array
                    } else {
                        value_type_named(inner)
                            .ok_or_else(|| at(format!("unknown type {inner}")))?
                    },
                    len,
                    items: None,
                }),
                None if r.ty == "string" => Value::LongString(len),
                None => return Err(at(format!("a {} value is always kept", r.ty))),
            }
        };
        Ok(MetadataEntry { key: r.key, value })
    }
}
