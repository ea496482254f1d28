// Iceberg manifest lists and manifests written with avsc (an independent Avro writer),
// in the schemas and field order the Java reference writes (V1/V2/V3Metadata): for test
// tables and for the fixtures of the C++ reader (tests/data/iceberg). Longs are BigInt so
// that 63-bit snapshot ids survive.
import avro from 'avsc';

const BigLong = avro.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint' || Number.isInteger(n),
  compare: (a, b) => (a === b ? 0 : a < b ? -1 : 1),
});

const opt = (type) => ['null', type];
const field = (id, name, type, optional) => ({
  name,
  type: optional ? opt(type) : type,
  ...(optional ? { default: null } : {}),
  'field-id': id,
});
const intMap = (id, keyId, valueId, valueType) => ({
  type: 'array',
  logicalType: 'map',
  items: {
    type: 'record',
    name: `k${keyId}_v${valueId}`,
    fields: [
      { name: 'key', type: 'int', 'field-id': keyId },
      { name: 'value', type: valueType, 'field-id': valueId },
    ],
  },
});
const list = (elementId, type) => ({ type: 'array', items: type, 'element-id': elementId });

const summary = {
  type: 'record',
  name: 'r508',
  fields: [
    field(509, 'contains_null', 'boolean'),
    field(518, 'contains_nan', 'boolean', true),
    field(510, 'lower_bound', 'bytes', true),
    field(511, 'upper_bound', 'bytes', true),
  ],
};

/** The manifest-list schema Java writes for `version` (1, 2 or 3). */
export function manifestListSchema(version) {
  const v1 = version === 1;
  const fields = [
    field(500, 'manifest_path', 'string'),
    field(501, 'manifest_length', 'long'),
    field(502, 'partition_spec_id', 'int'),
  ];
  if (!v1) {
    fields.push(field(517, 'content', 'int'), field(515, 'sequence_number', 'long'),
                field(516, 'min_sequence_number', 'long'));
  }
  fields.push(field(503, 'added_snapshot_id', 'long'));
  const counts = [
    field(504, 'added_files_count', 'int', v1), field(505, 'existing_files_count', 'int', v1),
    field(506, 'deleted_files_count', 'int', v1)];
  const rows = [
    field(512, 'added_rows_count', 'long', v1), field(513, 'existing_rows_count', 'long', v1),
    field(514, 'deleted_rows_count', 'long', v1)];
  const partitions = field(507, 'partitions', list(508, summary), true);
  if (v1) fields.push(...counts, partitions, ...rows);
  else fields.push(...counts, ...rows, partitions);
  fields.push(field(519, 'key_metadata', 'bytes', true));
  if (version >= 3) fields.push(field(520, 'first_row_id', 'long', true));
  return { type: 'record', name: 'manifest_file', fields };
}

/**
 * The manifest-entry schema Java writes for `version`, with the partition record
 * `partitionFields`: [{id, name, type}] (Avro types of the transforms' results).
 */
export function manifestSchema(version, partitionFields) {
  const partition = {
    type: 'record',
    name: 'r102',
    fields: partitionFields.map((f) => field(f.id, f.name, f.type, true)),
  };
  const stats = [
    field(108, 'column_sizes', intMap(108, 117, 118, 'long'), true),
    field(109, 'value_counts', intMap(109, 119, 120, 'long'), true),
    field(110, 'null_value_counts', intMap(110, 121, 122, 'long'), true),
    field(137, 'nan_value_counts', intMap(137, 138, 139, 'long'), true),
    field(125, 'lower_bounds', intMap(125, 126, 127, 'bytes'), true),
    field(128, 'upper_bounds', intMap(128, 129, 130, 'bytes'), true),
    field(131, 'key_metadata', 'bytes', true),
    field(132, 'split_offsets', list(133, 'long'), true),
  ];
  const dataFile = { type: 'record', name: 'r2', fields: [] };
  if (version === 1) {
    dataFile.fields.push(
      field(100, 'file_path', 'string'), field(101, 'file_format', 'string'),
      field(102, 'partition', partition), field(103, 'record_count', 'long'),
      field(104, 'file_size_in_bytes', 'long'), field(105, 'block_size_in_bytes', 'long'),
      ...stats, field(140, 'sort_order_id', 'int', true));
    return {
      type: 'record', name: 'manifest_entry',
      fields: [field(0, 'status', 'int'), field(1, 'snapshot_id', 'long', true),
               field(2, 'data_file', dataFile)],
    };
  }
  dataFile.fields.push(
    field(134, 'content', 'int'), field(100, 'file_path', 'string'),
    field(101, 'file_format', 'string'), field(102, 'partition', partition),
    field(103, 'record_count', 'long'), field(104, 'file_size_in_bytes', 'long'), ...stats,
    field(135, 'equality_ids', list(136, 'int'), true), field(140, 'sort_order_id', 'int', true));
  if (version >= 3) dataFile.fields.push(field(142, 'first_row_id', 'long', true));
  dataFile.fields.push(field(143, 'referenced_data_file', 'string', true));
  if (version >= 3) {
    dataFile.fields.push(field(144, 'content_offset', 'long', true),
                         field(145, 'content_size_in_bytes', 'long', true));
  }
  return {
    type: 'record', name: 'manifest_entry',
    fields: [field(0, 'status', 'int'), field(1, 'snapshot_id', 'long', true),
             field(3, 'sequence_number', 'long', true),
             field(4, 'file_sequence_number', 'long', true), field(2, 'data_file', dataFile)],
  };
}

/** An avsc type for `schema` with BigInt longs. */
export function typeFor(schema) {
  return avro.Type.forSchema(schema, { registry: { long: BigLong }, wrapUnions: false });
}

/**
 * The bytes of an Avro container file of `records` (plain objects; optional fields may be
 * left out) with header `metadata` (string values), `codec` 'null' or 'deflate'.
 */
export function avroFile(schema, records, { metadata = {}, codec = 'deflate', blockSize } = {}) {
  const type = typeFor(schema);
  const meta = Object.fromEntries(
    Object.entries(metadata).map(([k, v]) => [k, Buffer.from(String(v))]));
  return new Promise((resolve, reject) => {
    const encoder = new avro.streams.BlockEncoder(type, {
      codec, metadata: meta, writeHeader: 'auto',
      syncMarker: Buffer.from('cairn-sync-mark!'), ...(blockSize ? { blockSize } : {}),
    });
    // The header gets the schema as given: avsc's own export drops `field-id` and
    // `element-id`, which Iceberg readers resolve fields by. (avsc reads `_schema` when it
    // writes the header, before the first record.)
    encoder._schema = schema;
    const chunks = [];
    encoder.on('data', (chunk) => chunks.push(chunk));
    encoder.on('end', () => resolve(Buffer.concat(chunks)));
    encoder.on('error', reject);
    for (const record of records) encoder.write(fill(type, record));
    encoder.end();
  });
}

// Optional fields left out become null, recursively through records.
function fill(type, value) {
  if (type.typeName === 'record') {
    const out = {};
    for (const f of type.fields) {
      const v = value[f.name];
      out[f.name] = v === undefined ? null : fill(f.type, v);
    }
    return out;
  }
  if (type.typeName === 'union:unwrapped' && value !== null) {
    const branch = type.types.find((t) => t.typeName !== 'null');
    return fill(branch, value);
  }
  if (type.typeName === 'array' && Array.isArray(value)) {
    return value.map((v) => fill(type.itemsType, v));
  }
  return value;
}

/** Appendix D single-value bytes of common types. */
export const single = {
  int: (n) => { const b = Buffer.alloc(4); b.writeInt32LE(n); return b; },
  long: (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; },
  float: (x) => { const b = Buffer.alloc(4); b.writeFloatLE(x); return b; },
  double: (x) => { const b = Buffer.alloc(8); b.writeDoubleLE(x); return b; },
  string: (s) => Buffer.from(s, 'utf8'),
};

/** A stats map value: [{key, value}] from an object {fieldId: value}. */
export const statsMap = (obj) =>
  Object.entries(obj).map(([key, value]) => ({ key: Number(key), value }));
