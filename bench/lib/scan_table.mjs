// W10's table and its ceilings (issue 17: server-side scan planning).
//
//   node scan_table.mjs create --url URL [--out FILE] [--name NAME] [--prefix default]
//        [--namespace bench] [--table scan] --manifests N --files-per-manifest M
//     Creates the table through the REST API (identity partition on `p`), writes N
//     manifests of M data-file entries each (manifest i holds the files of partition p = i)
//     and one manifest list naming them all, in Java's Avro schemas (avsc,
//     tests/node/lib/iceberg_avro.mjs), and commits them as one append snapshot. Only the
//     manifests are written: no data file exists. The result says what was written and
//     how long each part took; with --name it is wrapped as a raw/ document NAME.
//
//   node scan_table.mjs read --list FILE [--out FILE] [--name NAME] [--repeat R]
//     The ceilings of the cold plan, on the same files: the manifest list and every
//     manifest it names (1) read raw (readFileSync), (2) read and their Avro blocks
//     inflated (zlib), (3) read, inflated and every record decoded (avsc, JavaScript).
//     Each is run R times; the result keeps every time and the fastest.
import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { inflateRawSync } from 'node:zlib';

import { avroFile, manifestListSchema, manifestSchema, single, typeFor } from '../../tests/node/lib/iceberg_avro.mjs';
import { writeAt } from '../../tests/node/lib/iceberg_snapshots.mjs';

const require = createRequire(new URL('../../tests/node/package.json', import.meta.url));
const avro = require('avsc');

const { positionals, values: args } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    prefix: { type: 'string', default: 'default' },
    namespace: { type: 'string', default: 'bench' },
    table: { type: 'string', default: 'scan' },
    manifests: { type: 'string', default: '1000' },
    'files-per-manifest': { type: 'string', default: '1000' },
    list: { type: 'string' },
    repeat: { type: 'string', default: '3' },
    out: { type: 'string' },
    name: { type: 'string' },
  },
});

function die(message) {
  process.stderr.write(`scan_table.mjs: ${message}\n`);
  process.exit(1);
}

const now = () => performance.now() / 1000;
const round = (v, d = 3) => Number(v.toFixed(d));
const pathOf = (location) => (location.startsWith('file:') ? fileURLToPath(location) : location);

// ---------------------------------------------------------------------------- create

async function call(method, url, body) {
  const res = await fetch(url, {
    method, headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? Number(v) : v)),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

// id, p (the partition column), ts, category, value: Java's default metrics mode keeps
// counts and bounds (truncate(16)) of every column, so each entry carries them all.
const SCHEMA = {
  type: 'struct', 'schema-id': 0, fields: [
    { id: 1, name: 'id', type: 'long', required: true },
    { id: 2, name: 'p', type: 'int', required: true },
    { id: 3, name: 'ts', type: 'timestamptz', required: false },
    { id: 4, name: 'category', type: 'string', required: false },
    { id: 5, name: 'value', type: 'double', required: false },
  ],
};
const PARTITION_FIELDS = [{ id: 1000, name: 'p', type: 'int' }];
const ROWS_PER_FILE = 100_000;

// Stats map entries ({key, value}: Avro's map of int keys as Iceberg writes it) and the
// values every entry shares. Longs are plain numbers here (all below 2^53): the bytes are
// those of Java's schema either way, and avsc encodes numbers much faster than BigInts.
const kv = (key, value) => ({ key, value });
const long8 = (n) => { const b = Buffer.allocUnsafe(8); b.writeBigInt64LE(BigInt(n)); return b; };
const NULL_COUNTS = [kv(1, 0), kv(2, 0), kv(3, 0), kv(4, 0), kv(5, 0)];
const NAN_COUNTS = [kv(5, 0)];
const SPLIT_OFFSETS = [4];
const [ALPHA, OMEGA] = [single.string('alpha'), single.string('omega')];
const [ZERO, ONE] = [single.double(0), single.double(1)];
const TS0 = 1_767_225_600_000_000;  // 2026-01-01T00:00:00Z in µs

// The entries of manifest `m` (partition p = m), as Java writes an append's manifest:
// every column with its sizes, counts and bounds (Java's default metrics mode).
function entries(m, location, files) {
  const uuid = randomUUID();
  const partition = { p: m };
  const p4 = single.int(m);
  const out = new Array(files);
  for (let i = 0; i < files; i++) {
    const n = m * files + i;
    const rows = ROWS_PER_FILE + (n % 1000);
    const first = n * ROWS_PER_FILE;
    const ts = TS0 + n * 1_000_000;
    out[i] = {
      status: 1, snapshot_id: null, sequence_number: null, file_sequence_number: null,
      data_file: {
        content: 0,
        file_path: `${location}/data/p=${m}/00000-${i}-${uuid}-00001.parquet`,
        file_format: 'PARQUET', partition, record_count: rows,
        file_size_in_bytes: 64 * 1024 * 1024 + (n % 4096) * 1024,
        column_sizes: [kv(1, rows * 8), kv(2, 64), kv(3, rows * 8), kv(4, rows), kv(5, rows * 8)],
        value_counts: [kv(1, rows), kv(2, rows), kv(3, rows), kv(4, rows), kv(5, rows)],
        null_value_counts: NULL_COUNTS, nan_value_counts: NAN_COUNTS,
        lower_bounds: [kv(1, long8(first)), kv(2, p4), kv(3, long8(ts)), kv(4, ALPHA), kv(5, ZERO)],
        upper_bounds: [kv(1, long8(first + rows - 1)), kv(2, p4), kv(3, long8(ts + 999_999)),
                       kv(4, OMEGA), kv(5, ONE)],
        key_metadata: null, split_offsets: SPLIT_OFFSETS, equality_ids: null, sort_order_id: 0,
        referenced_data_file: null,
      },
    };
  }
  return out;
}

// An Avro container file of `records` (complete, number longs) in `schema`, deflated, as
// lib/iceberg_avro.mjs's avroFile writes it (the header keeps the schema's field ids).
function encode(type, schema, records, metadata) {
  const meta = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, Buffer.from(String(v))]));
  return new Promise((resolve, reject) => {
    const encoder = new avro.streams.BlockEncoder(type, {
      codec: 'deflate', metadata: meta, writeHeader: 'auto', syncMarker: Buffer.from('cairn-sync-mark!'),
    });
    encoder._schema = schema;
    const chunks = [];
    encoder.on('data', (chunk) => chunks.push(chunk));
    encoder.on('end', () => resolve(Buffer.concat(chunks)));
    encoder.on('error', reject);
    for (const record of records) encoder.write(record);
    encoder.end();
  });
}

async function create() {
  const base = `${args.url}/v1/${args.prefix}`;
  const manifests = Number(args.manifests);
  const files = Number(args['files-per-manifest']);
  if (!(manifests > 0 && files > 0)) die('--manifests and --files-per-manifest must be positive');
  const t0 = now();
  let res = await call('POST', `${base}/namespaces`, { namespace: [args.namespace] });
  if (res.status !== 200 && res.status !== 409) die(`create namespace: ${res.status} ${res.text.slice(0, 300)}`);
  res = await call('POST', `${base}/namespaces/${args.namespace}/tables`, {
    name: args.table, schema: SCHEMA,
    'partition-spec': { 'spec-id': 0, fields: [{ name: 'p', transform: 'identity', 'source-id': 2, 'field-id': 1000 }] },
    'write-order': { 'order-id': 0, fields: [] },
  });
  if (res.status !== 200) die(`create table: ${res.status} ${res.text.slice(0, 300)}`);
  const metadata = res.json.metadata;
  const location = metadata.location;
  const snapshotId = 1_000_000_000 + Math.floor(Math.random() * 1e9);
  const sequenceNumber = 1;
  const metaDir = `${location}/metadata`;
  const schema = manifestSchema(2, PARTITION_FIELDS);
  const type = avro.Type.forSchema(schema, { wrapUnions: false });
  const header = {
    'format-version': 2, content: 'data', 'partition-spec-id': 0,
    'partition-spec': JSON.stringify([{ name: 'p', transform: 'identity', 'source-id': 2, 'field-id': 1000 }]),
    schema: JSON.stringify(SCHEMA),
  };
  const t1 = now();
  const listed = [];
  let manifestBytes = 0;
  let encodeS = 0;
  for (let m = 0; m < manifests; m++) {
    const records = entries(m, location, files);
    const e0 = now();
    const bytes = await encode(type, schema, records, header);
    encodeS += now() - e0;
    const path = `${metaDir}/${randomUUID()}-m${m}.avro`;
    writeAt(path, bytes);
    manifestBytes += bytes.length;
    const rows = BigInt(records.reduce((s, r) => s + r.data_file.record_count, 0));
    listed.push({
      manifest_path: path, manifest_length: BigInt(bytes.length), partition_spec_id: 0,
      content: 0, sequence_number: BigInt(sequenceNumber), min_sequence_number: BigInt(sequenceNumber),
      added_snapshot_id: BigInt(snapshotId), added_files_count: files, existing_files_count: 0,
      deleted_files_count: 0, added_rows_count: rows, existing_rows_count: 0n, deleted_rows_count: 0n,
      // The partition summary that lets a planner skip every other manifest of a filter
      // on p: here lower = upper = m.
      partitions: [{ contains_null: false, contains_nan: null, lower_bound: single.int(m), upper_bound: single.int(m) }],
    });
  }
  const t2 = now();
  const list = `${metaDir}/snap-${snapshotId}-1-${randomUUID()}.avro`;
  const listBytes = await avroFile(manifestListSchema(2), listed, {
    metadata: { 'snapshot-id': snapshotId, 'parent-snapshot-id': 'null', 'sequence-number': sequenceNumber, 'format-version': 2 },
  });
  writeAt(list, listBytes);
  const t3 = now();
  const totalRows = listed.reduce((s, l) => s + l.added_rows_count, 0n);
  res = await call('POST', `${base}/namespaces/${args.namespace}/tables/${args.table}`, {
    requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null }],
    updates: [
      { action: 'add-snapshot', snapshot: {
        'snapshot-id': snapshotId, 'sequence-number': sequenceNumber, 'timestamp-ms': Date.now(),
        'manifest-list': list, 'schema-id': 0,
        summary: { operation: 'append', 'added-data-files': String(manifests * files),
                   'total-data-files': String(manifests * files), 'added-records': String(totalRows),
                   'total-records': String(totalRows) } } },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId },
    ],
  });
  if (res.status !== 200) die(`commit: ${res.status} ${res.text.slice(0, 300)}`);
  const t4 = now();
  return {
    subcommand: 'scan-table-setup', namespace: args.namespace, table: args.table,
    location, manifest_list: pathOf(list), snapshot_id: snapshotId,
    manifests, files_per_manifest: files, files: manifests * files,
    partitions: manifests, rows: Number(totalRows),
    manifest_bytes: manifestBytes, manifest_list_bytes: listBytes.length,
    mean_manifest_bytes: Math.round(manifestBytes / manifests),
    create_s: round(t1 - t0), manifests_s: round(t2 - t1), encode_s: round(encodeS),
    list_s: round(t3 - t2), commit_s: round(t4 - t3), seconds: round(t4 - t0),
  };
}

// ---------------------------------------------------------------------------- read

// Avro's zig-zag varint long at `pos`: [value, next position].
function readLong(buf, pos) {
  let n = 0n;
  let shift = 0n;
  let b;
  do {
    b = buf[pos++];
    n |= BigInt(b & 0x7f) << shift;
    shift += 7n;
  } while (b & 0x80);
  return [Number((n >> 1n) ^ -(n & 1n)), pos];
}

// The header of an Avro container file: its metadata, sync marker and where blocks start.
function header(buf) {
  if (buf.toString('latin1', 0, 4) !== 'Obj\x01') throw new Error('not an Avro container file');
  let pos = 4;
  const meta = {};
  for (;;) {
    let count;
    [count, pos] = readLong(buf, pos);
    if (count === 0) break;
    if (count < 0) { count = -count; [, pos] = readLong(buf, pos); }
    for (let i = 0; i < count; i++) {
      let len;
      [len, pos] = readLong(buf, pos);
      const key = buf.toString('utf8', pos, pos + len);
      pos += len;
      [len, pos] = readLong(buf, pos);
      meta[key] = buf.subarray(pos, pos + len);
      pos += len;
    }
  }
  return { meta, sync: buf.subarray(pos, pos + 16), start: pos + 16 };
}

// Every block of `buf` (a container file) inflated: [{count, data}].
function blocks(buf) {
  const { meta, start } = header(buf);
  const codec = meta['avro.codec']?.toString() ?? 'null';
  const out = [];
  let pos = start;
  while (pos < buf.length) {
    let count;
    let size;
    [count, pos] = readLong(buf, pos);
    [size, pos] = readLong(buf, pos);
    const raw = buf.subarray(pos, pos + size);
    pos += size + 16;
    if (codec === 'deflate') out.push({ count, data: inflateRawSync(raw) });
    else if (codec === 'null') out.push({ count, data: raw });
    else throw new Error(`codec ${codec} not handled here`);
  }
  return { meta, blocks: out };
}

// Every record of `buf` decoded with avsc against its own writer schema.
function decodeAll(buf, types) {
  const { meta, blocks: parts } = blocks(buf);
  const schemaText = meta['avro.schema'].toString();
  let type = types.get(schemaText);
  if (!type) {
    type = typeFor(JSON.parse(schemaText));
    types.set(schemaText, type);
  }
  let records = 0;
  for (const { count, data } of parts) {
    let pos = 0;
    for (let i = 0; i < count; i++) {
      const { value, offset } = type.decode(data, pos);
      if (value === undefined) throw new Error('truncated block');
      pos = offset;
      records++;
    }
  }
  return records;
}

function read() {
  if (!args.list) die('--list is required');
  const repeat = Math.max(1, Number(args.repeat));
  const listBuf = readFileSync(args.list);
  // The manifest list itself, decoded once to know the files (not timed).
  const listType = typeFor(JSON.parse(header(listBuf).meta['avro.schema'].toString()));
  const files = [args.list];
  for (const { data, count } of blocks(listBuf).blocks) {
    let pos = 0;
    for (let i = 0; i < count; i++) {
      const { value, offset } = listType.decode(data, pos);
      files.push(pathOf(value.manifest_path));
      pos = offset;
    }
  }
  const phases = {
    raw: () => {
      let bytes = 0;
      for (const f of files) bytes += readFileSync(f).length;
      return { bytes };
    },
    inflate: () => {
      let bytes = 0;
      let inflated = 0;
      for (const f of files) {
        const buf = readFileSync(f);
        bytes += buf.length;
        for (const b of blocks(buf).blocks) inflated += b.data.length;
      }
      return { bytes, inflated_bytes: inflated };
    },
    decode: () => {
      const types = new Map();
      let records = 0;
      for (const f of files) records += decodeAll(readFileSync(f), types);
      return { records };
    },
  };
  const result = { subcommand: 'manifest-read', files: files.length, repeat };
  for (const [name, run] of Object.entries(phases)) {
    const times = [];
    let facts;
    for (let r = 0; r < repeat; r++) {
      const t0 = now();
      facts = run();
      times.push(round(now() - t0, 4));
    }
    result[name] = { ...facts, seconds: Math.min(...times), runs_s: times };
  }
  // The records decoded include the manifest list's own entries.
  result.entries = result.decode.records - (files.length - 1);
  return result;
}

// ---------------------------------------------------------------------------- main

const [command] = positionals;
let result;
if (command === 'create') {
  if (!args.url) die('--url is required');
  result = await create();
} else if (command === 'read') {
  result = read();
} else {
  die(`unknown command '${command ?? ''}' (create or read)`);
}
// With --name, a raw/ document as bench/run's measure writes them (without a server: this
// is the client alone).
const doc = JSON.stringify(args.name ? {
  name: args.name, workload: args.name.split('-')[0], argv: process.argv.slice(2).join(' '), result,
} : result, null, 1) + '\n';
if (args.out) writeFileSync(args.out, doc);
else process.stdout.write(doc);
