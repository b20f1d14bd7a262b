//! The header scanner: magic, version, counts, metadata and tensor infos, read through a
//! buffer and never past the tensor-info section. Every length read from the file is checked
//! against the bytes that remain before anything is allocated or skipped.

use std::collections::HashSet;
use std::io::{BufReader, Read, Seek};

use crate::types::GgmlType;
use crate::value::{Array, Entry, Value, ValueType};
use crate::GgufError;

/// How much of the metadata to keep in memory. Everything is always walked and counted.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Arrays with more elements than this keep only their type and length
    /// (tokenizer vocabularies); shorter ones (per-layer head counts) keep their elements.
    pub max_array_items: u64,
    /// Strings longer than this many bytes keep only their length.
    pub max_string_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_array_items: 1024,
            max_string_bytes: 16 << 20,
        }
    }
}

/// Longest key or tensor name accepted. llama.cpp caps tensor names at 64 bytes; keys have no
/// written limit. Anything this long is corruption, and refusing it keeps allocations small.
pub const MAX_NAME_BYTES: u64 = 64 << 10;
/// Deepest array nesting accepted (real files nest at most twice); guards the stack.
pub const MAX_ARRAY_DEPTH: u32 = 32;
/// ggml tensors have at most four dimensions (GGML_MAX_DIMS).
pub const MAX_DIMS: u32 = 4;
/// Alignment when `general.alignment` is absent.
pub const DEFAULT_ALIGNMENT: u64 = 32;

// Fewest bytes a metadata entry (key length, empty key, type, 1-byte value) and a tensor info
// (name length, empty name, n_dims = 0, type, offset) can take: bounds the counts a file can
// truthfully claim.
const MIN_KV_BYTES: u64 = 8 + 4 + 1;
const MIN_TENSOR_INFO_BYTES: u64 = 8 + 4 + 4 + 8;

/// One tensor's info and where its data lies.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    pub name: String,
    pub ggml_type: GgmlType,
    /// Dimensions in ggml order (ne0, the fastest-varying, first), as the file stores them and
    /// as gguf-py's `ReaderTensor.shape` gives them. Only the first `n_dims` are meaningful.
    dims: [u64; MAX_DIMS as usize],
    n_dims: u8,
    pub n_elements: u64,
    /// Offset relative to the shard's data section, as stored.
    pub rel_offset: u64,
    /// Absolute byte offset of the data in the shard file: data_offset + rel_offset.
    pub offset: u64,
    /// Bytes by the type table: n_elements / block × block bytes.
    pub type_size: u64,
    /// Bytes from consecutive offsets: up to the next tensor's start (sorted by offset), the
    /// last one to the end of the file. `size − type_size` is the padding after the tensor.
    pub size: u64,
    /// Byte offset in the file where this tensor's info entry starts.
    pub info_offset: u64,
}

impl TensorInfo {
    /// Dimensions in ggml order (ne0 first).
    pub fn shape(&self) -> &[u64] {
        &self.dims[..usize::from(self.n_dims)]
    }

    pub fn padding(&self) -> u64 {
        self.size - self.type_size
    }
}

/// One GGUF file: its header, metadata, tensor infos and the layout of its data section.
#[derive(Debug, Clone, PartialEq)]
pub struct Shard {
    /// The name errors use: the file's path.
    pub path: String,
    pub file_size: u64,
    pub version: u32,
    pub metadata: Vec<Entry>,
    /// Tensors in the order the file lists them.
    pub tensors: Vec<TensorInfo>,
    /// `general.alignment`, else 32.
    pub alignment: u64,
    /// Byte just past the last tensor info.
    pub tensor_info_end: u64,
    /// Start of the data section: tensor_info_end aligned up to `alignment`.
    pub data_offset: u64,
}

impl Shard {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata
            .iter()
            .find(|e| e.key == key)
            .map(|e| &e.value)
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.metadata.iter().find(|e| e.key == key)
    }

    /// Zero bytes between the tensor infos and the data section: (A − pos % A) % A.
    pub fn header_padding(&self) -> u64 {
        self.data_offset - self.tensor_info_end
    }

    /// Bytes from the data offset to the end of the file.
    pub fn data_bytes(&self) -> u64 {
        self.file_size.saturating_sub(self.data_offset)
    }

    /// Sum of the tensors' type-table sizes.
    pub fn tensor_bytes(&self) -> u64 {
        self.tensors.iter().map(|t| t.type_size).sum()
    }

    /// Data-section bytes that belong to no tensor by the type table: inter-tensor padding,
    /// trailing bytes, and any gap before the first tensor.
    pub fn padding(&self) -> u64 {
        self.data_bytes() - self.tensor_bytes()
    }
}

/// A bounded cursor over a buffered reader: knows its position and the file's length.
struct Scan<'a, R: Read + Seek> {
    r: BufReader<R>,
    pos: u64,
    len: u64,
    path: &'a str,
}

impl<'a, R: Read + Seek> Scan<'a, R> {
    fn format(&self, offset: u64, what: impl Into<String>) -> GgufError {
        GgufError::Format {
            path: self.path.to_string(),
            offset,
            what: what.into(),
        }
    }

    fn io(&self, e: std::io::Error) -> GgufError {
        GgufError::Io {
            path: self.path.to_string(),
            error: e,
        }
    }

    fn remaining(&self) -> u64 {
        self.len.saturating_sub(self.pos)
    }

    /// Fails cleanly unless `n` more bytes exist.
    fn need(&self, n: u64, what: &str) -> Result<(), GgufError> {
        if n > self.remaining() {
            return Err(self.format(
                self.pos,
                format!(
                    "truncated: {what} needs {n} bytes but the file ends at byte {} ({} left)",
                    self.len,
                    self.remaining()
                ),
            ));
        }
        Ok(())
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], GgufError> {
        self.need(N as u64, what)?;
        let mut b = [0u8; N];
        self.r.read_exact(&mut b).map_err(|e| self.io(e))?;
        self.pos += N as u64;
        Ok(b)
    }

    fn u32(&mut self, what: &str) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<(), GgufError> {
        self.need(n, what)?;
        // n ≤ remaining ≤ file length, which fits i64 for any real file.
        let step = i64::try_from(n)
            .map_err(|_| self.format(self.pos, format!("{what}: skip too large")))?;
        self.r.seek_relative(step).map_err(|e| self.io(e))?;
        self.pos += n;
        Ok(())
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<Vec<u8>, GgufError> {
        self.need(n, what)?;
        // Bounded by the caller (name cap or keep limit) and by the bytes left in the file.
        let mut v = vec![0u8; n as usize];
        self.r.read_exact(&mut v).map_err(|e| self.io(e))?;
        self.pos += n;
        Ok(v)
    }

    /// A key or tensor name: u64 length, then UTF-8 bytes.
    fn name(&mut self, what: &str) -> Result<String, GgufError> {
        let at = self.pos;
        let n = self.u64(&format!("{what} length"))?;
        if n > MAX_NAME_BYTES {
            return Err(self.format(
                at,
                format!("{what} length {n} is implausible (limit {MAX_NAME_BYTES} bytes)"),
            ));
        }
        let b = self.bytes(n, what)?;
        String::from_utf8(b).map_err(|e| {
            self.format(
                at + 8 + e.utf8_error().valid_up_to() as u64,
                format!("{what} is not UTF-8"),
            )
        })
    }

    /// A string value: kept when short, else counted and skipped. Invalid UTF-8 is replaced,
    /// not fatal: token texts are data, not structure.
    fn string_value(&mut self, opts: &ReadOptions) -> Result<Value, GgufError> {
        let n = self.string_len()?;
        if n > opts.max_string_bytes {
            self.skip(n, "string")?;
            return Ok(Value::LongString(n));
        }
        let b = self.bytes(n, "string")?;
        Ok(Value::String(match String::from_utf8(b) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }))
    }

    /// A string's length field, checked against the bytes that follow it.
    fn string_len(&mut self) -> Result<u64, GgufError> {
        let at = self.pos;
        let n = self.u64("string length")?;
        if n > self.remaining() {
            return Err(self.format(
                at,
                format!(
                    "truncated: string of {n} bytes runs past the end of the file ({} bytes left)",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }

    fn value_type(&mut self, what: &str) -> Result<ValueType, GgufError> {
        let at = self.pos;
        let id = self.u32(what)?;
        ValueType::from_id(id).ok_or_else(|| {
            self.format(
                at,
                format!("unknown metadata value type {id} ({what}; known: 0-12)"),
            )
        })
    }

    /// One value of type `ty`. `keep` false walks the value without storing it.
    fn value(
        &mut self,
        ty: ValueType,
        depth: u32,
        keep: bool,
        opts: &ReadOptions,
    ) -> Result<Value, GgufError> {
        let v = match ty {
            ValueType::U8 => Value::U8(self.array::<1>("u8")?[0]),
            ValueType::I8 => Value::I8(i8::from_le_bytes(self.array("i8")?)),
            ValueType::U16 => Value::U16(u16::from_le_bytes(self.array("u16")?)),
            ValueType::I16 => Value::I16(i16::from_le_bytes(self.array("i16")?)),
            ValueType::U32 => Value::U32(u32::from_le_bytes(self.array("u32")?)),
            ValueType::I32 => Value::I32(i32::from_le_bytes(self.array("i32")?)),
            ValueType::F32 => Value::F32(f32::from_le_bytes(self.array("f32")?)),
            ValueType::Bool => Value::Bool(self.array::<1>("bool")?[0] != 0),
            ValueType::U64 => Value::U64(u64::from_le_bytes(self.array("u64")?)),
            ValueType::I64 => Value::I64(i64::from_le_bytes(self.array("i64")?)),
            ValueType::F64 => Value::F64(f64::from_le_bytes(self.array("f64")?)),
            ValueType::String if keep => self.string_value(opts)?,
            ValueType::String => {
                let n = self.string_len()?;
                self.skip(n, "string")?;
                Value::LongString(n)
            }
            ValueType::Array => Value::Array(self.array_value(depth, keep, opts)?),
        };
        Ok(v)
    }

    fn array_value(
        &mut self,
        depth: u32,
        keep: bool,
        opts: &ReadOptions,
    ) -> Result<Array, GgufError> {
        let at = self.pos;
        if depth >= MAX_ARRAY_DEPTH {
            return Err(self.format(
                at,
                format!("arrays nested deeper than {MAX_ARRAY_DEPTH} levels"),
            ));
        }
        let elem = self.value_type("array element type")?;
        let len = self.u64("array length")?;
        let fits = len
            .checked_mul(elem.min_size())
            .is_some_and(|b| b <= self.remaining());
        if !fits {
            return Err(self.format(
                at,
                format!(
                    "array of {len} {elem} elements cannot fit in the {} bytes left in the file",
                    self.remaining()
                ),
            ));
        }
        let keep = keep && len <= opts.max_array_items;
        if !keep {
            if let Some(size) = elem.fixed_size() {
                self.skip(len * size, "array elements")?;
            } else {
                for _ in 0..len {
                    self.value(elem, depth + 1, false, opts)?;
                }
            }
            return Ok(Array {
                elem,
                len,
                items: None,
            });
        }
        // len ≤ max_array_items, so this allocation is bounded by the options, not the file.
        let mut items = Vec::with_capacity(len as usize);
        for _ in 0..len {
            items.push(self.value(elem, depth + 1, true, opts)?);
        }
        Ok(Array {
            elem,
            len,
            items: Some(items),
        })
    }
}

/// Parse one GGUF file's header from `reader`, whose total length is `file_len`. `path` names
/// the file in errors. Reads the header and tensor infos only; never the tensor data.
pub fn read_shard_from<R: Read + Seek>(
    reader: R,
    file_len: u64,
    path: &str,
    opts: &ReadOptions,
) -> Result<Shard, GgufError> {
    let mut s = Scan {
        r: BufReader::with_capacity(256 << 10, reader),
        pos: 0,
        len: file_len,
        path,
    };

    let magic: [u8; 4] = s.array("magic")?;
    if &magic != b"GGUF" {
        return Err(s.format(
            0,
            format!(
                "not a GGUF file: magic is {:02x} {:02x} {:02x} {:02x}, expected 47 47 55 46 (\"GGUF\")",
                magic[0], magic[1], magic[2], magic[3]
            ),
        ));
    }
    let version = s.u32("version")?;
    match version {
        2 | 3 => {}
        1 => {
            return Err(s.format(
                4,
                "GGUF version 1 (32-bit counts) is not supported; re-convert the model",
            ))
        }
        v if v & 0xffff == 0 && matches!(v.swap_bytes(), 2 | 3) => {
            return Err(s.format(
                4,
                format!(
                    "big-endian GGUF (version {} byte-swapped) is not supported",
                    v.swap_bytes()
                ),
            ))
        }
        v => {
            return Err(s.format(
                4,
                format!("unsupported GGUF version {v} (this reader knows 2 and 3)"),
            ))
        }
    }
    let tensor_count = s.u64("tensor count")?;
    let kv_count = s.u64("metadata count")?;
    let left = s.remaining();
    let fits = |count: u64, each: u64| count.checked_mul(each).is_some_and(|b| b <= left);
    if !fits(kv_count, MIN_KV_BYTES) {
        return Err(s.format(
            16,
            format!("metadata count {kv_count} cannot fit in the {left} bytes left (each entry takes at least {MIN_KV_BYTES}): truncated or corrupt"),
        ));
    }
    if !fits(tensor_count, MIN_TENSOR_INFO_BYTES) {
        return Err(s.format(
            8,
            format!("tensor count {tensor_count} cannot fit in the {left} bytes left (each tensor info takes at least {MIN_TENSOR_INFO_BYTES}): truncated or corrupt"),
        ));
    }

    // Metadata. Growth is bounded by bytes actually present, never by the claimed count.
    let mut metadata: Vec<Entry> = Vec::new();
    let mut keys: HashSet<String> = HashSet::new();
    for _ in 0..kv_count {
        let offset = s.pos;
        let key = s.name("metadata key")?;
        let ty = s.value_type(&format!("type of metadata key '{key}'"))?;
        let value = s.value(ty, 0, true, opts)?;
        if !keys.insert(key.clone()) {
            return Err(s.format(offset, format!("duplicate metadata key '{key}'")));
        }
        metadata.push(Entry { key, value, offset });
    }

    // Tensor infos.
    let mut tensors: Vec<TensorInfo> = Vec::new();
    for _ in 0..tensor_count {
        let info_offset = s.pos;
        let name = s.name("tensor name")?;
        let dims_at = s.pos;
        let n_dims = s.u32(&format!("dimension count of tensor '{name}'"))?;
        if n_dims > MAX_DIMS {
            return Err(s.format(
                dims_at,
                format!("tensor '{name}' has {n_dims} dimensions; ggml allows at most {MAX_DIMS}"),
            ));
        }
        let mut dims = [1u64; MAX_DIMS as usize];
        for d in dims.iter_mut().take(n_dims as usize) {
            *d = s.u64(&format!("dimensions of tensor '{name}'"))?;
        }
        let type_at = s.pos;
        let type_id = s.u32(&format!("type of tensor '{name}'"))?;
        let ggml_type = GgmlType::from_id(type_id).ok_or_else(|| GgufError::UnknownType {
            path: path.to_string(),
            offset: type_at,
            id: type_id,
            tensor: name.clone(),
        })?;
        let rel_offset = s.u64(&format!("data offset of tensor '{name}'"))?;
        let shape = &dims[..n_dims as usize];
        let n_elements = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(|| {
                s.format(
                    dims_at,
                    format!("tensor '{name}' shape {shape:?} overflows 2^63 elements"),
                )
            })?;
        let block = u64::from(ggml_type.block_elems);
        if dims[0] % block != 0 {
            return Err(s.format(
                dims_at,
                format!(
                    "tensor '{name}' of type {ggml_type} has a row of {} elements, not a multiple of its block of {block}",
                    dims[0]
                ),
            ));
        }
        let type_size = (n_elements / block)
            .checked_mul(u64::from(ggml_type.block_bytes))
            .ok_or_else(|| {
                s.format(
                    dims_at,
                    format!("tensor '{name}' byte size overflows 64 bits"),
                )
            })?;
        tensors.push(TensorInfo {
            name,
            ggml_type,
            dims,
            n_dims: n_dims as u8,
            n_elements,
            rel_offset,
            offset: 0,
            type_size,
            size: 0,
            info_offset,
        });
    }
    let tensor_info_end = s.pos;
    drop(s);

    let mut shard = Shard {
        path: path.to_string(),
        file_size: file_len,
        version,
        metadata,
        tensors,
        alignment: DEFAULT_ALIGNMENT,
        tensor_info_end,
        data_offset: 0,
    };
    lay_out(&mut shard)?;
    Ok(shard)
}

fn format_err(shard: &Shard, offset: u64, what: String) -> GgufError {
    GgufError::Format {
        path: shard.path.clone(),
        offset,
        what,
    }
}

/// Alignment, data offset, and each tensor's extent from consecutive offsets.
fn lay_out(shard: &mut Shard) -> Result<(), GgufError> {
    if let Some(e) = shard.entry("general.alignment") {
        let a = match e.value {
            Value::U32(a) => u64::from(a),
            ref v => {
                return Err(format_err(
                    shard,
                    e.offset,
                    format!("general.alignment must be a u32, found {}", v.type_label()),
                ))
            }
        };
        if a == 0 || !a.is_power_of_two() {
            return Err(format_err(
                shard,
                e.offset,
                format!("general.alignment {a} is not a power of two"),
            ));
        }
        shard.alignment = a;
    }
    let a = shard.alignment;
    // (A − pos % A) % A: zero when the tensor infos already end on the boundary.
    shard.data_offset = shard.tensor_info_end + (a - shard.tensor_info_end % a) % a;

    let mut names: HashSet<&str> = HashSet::with_capacity(shard.tensors.len());
    for t in &shard.tensors {
        if !names.insert(&t.name) {
            return Err(format_err(
                shard,
                t.info_offset,
                format!("duplicate tensor name '{}'", t.name),
            ));
        }
    }
    drop(names);

    let data_len = shard.data_bytes();
    for t in &shard.tensors {
        if t.rel_offset % a != 0 {
            return Err(format_err(
                shard,
                t.info_offset,
                format!(
                    "tensor '{}' data offset {} is not a multiple of the alignment {a}",
                    t.name, t.rel_offset
                ),
            ));
        }
        let inside = matches!(t.rel_offset.checked_add(t.type_size), Some(end) if end <= data_len);
        if !inside {
            return Err(format_err(
                shard,
                t.info_offset,
                format!(
                    "tensor '{}' ({} {:?}, {} bytes) at byte {} runs past the end of the file ({} bytes)",
                    t.name,
                    t.ggml_type,
                    t.shape(),
                    t.type_size,
                    u128::from(shard.data_offset) + u128::from(t.rel_offset),
                    shard.file_size
                ),
            ));
        }
    }

    // Extents: sort by offset (listing order need not follow it), each one reaches the next
    // tensor's start, the last one the end of the file.
    let mut order: Vec<usize> = (0..shard.tensors.len()).collect();
    order.sort_by_key(|&i| (shard.tensors[i].rel_offset, i));
    for (k, &i) in order.iter().enumerate() {
        let end = match order.get(k + 1) {
            Some(&j) => shard.tensors[j].rel_offset,
            None => data_len,
        };
        let t = &shard.tensors[i];
        let size = end - t.rel_offset;
        if size < t.type_size {
            // Only a following tensor can cut an extent short: the end of file was checked above.
            let next = &shard.tensors[order.get(k + 1).copied().unwrap_or(i)];
            return Err(format_err(
                shard,
                t.info_offset,
                format!(
                    "tensor '{}' ({} bytes at data offset {}) overlaps tensor '{}' at data offset {}",
                    t.name, t.type_size, t.rel_offset, next.name, next.rel_offset
                ),
            ));
        }
        let offset = shard.data_offset + t.rel_offset;
        let t = &mut shard.tensors[i];
        t.size = size;
        t.offset = offset;
    }
    Ok(())
}
