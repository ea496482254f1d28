// DescribeTable with detailed metadata and GetTableStats, read by Cairn from the manifests
// LanceDB 0.39 wrote, against what LanceDB itself reports of the same table: the schema
// (table.schema(), in the namespace's JSON Arrow form), the version, the row counts and
// fragment statistics (table.stats(), countRows()). Every answer is validated against the
// latest Lance spec.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import * as arrow from 'apache-arrow';
import { withServerLog } from '../node/lib/server.mjs';
import { startWithCatalogs } from './lib/managed.mjs';

let server;
let db;
let api;
before(async () => {
  ({ server, db, api } = await startWithCatalogs());
});
after(async () => {
  await server?.cleanup();
});

/** Several column types: nullable and not, nested, field and schema metadata. */
const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('score', new arrow.Float32(), true),
  new arrow.Field('name', new arrow.Utf8(), true, new Map([['comment', 'the name']])),
  new arrow.Field('vec', new arrow.FixedSizeList(4, new arrow.Field('item', new arrow.Float32(), true)), true),
  new arrow.Field('point', new arrow.Struct([
    new arrow.Field('x', new arrow.Float64(), true),
    new arrow.Field('y', new arrow.Float64(), false),
  ]), true),
  new arrow.Field('tags', new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), true),
  new arrow.Field('ts', new arrow.TimestampMicrosecond('UTC'), true),
  new arrow.Field('day', new arrow.DateDay(), true),
  new arrow.Field('flag', new arrow.Bool(), false),
], new Map([['owner', 'cairn-test']]));

function rows(first, n) {
  return Array.from({ length: n }, (_, i) => {
    const id = first + i;
    return {
      id: BigInt(id), score: id / 2, name: `n${id}`, vec: [id, id + 1, id + 2, id + 3],
      point: { x: id, y: -id }, tags: [`t${id}`], ts: new Date(1700000000000 + id * 1000),
      day: new Date(86400000 * id), flag: id % 2 === 0,
    };
  });
}

/** An apache-arrow type in the JSON Arrow form of the Lance namespace (`arrow_type_to_json`). */
function jsonType(type) {
  const T = arrow.DataType;
  const nested = (name, children, extra = {}) => ({ type: name, fields: children.map(jsonField), ...extra });
  if (T.isDictionary(type)) return jsonType(type.dictionary);
  if (T.isNull(type)) return { type: 'null' };
  if (T.isBool(type)) return { type: 'bool' };
  if (T.isInt(type)) return { type: `${type.isSigned ? '' : 'u'}int${type.bitWidth}` };
  if (T.isFloat(type)) return { type: ['float16', 'float32', 'float64'][type.precision] };
  if (T.isUtf8(type)) return { type: 'utf8' };
  if (T.isLargeUtf8(type)) return { type: 'large_utf8' };
  if (T.isBinary(type)) return { type: 'binary' };
  if (T.isLargeBinary(type)) return { type: 'large_binary' };
  if (T.isFixedSizeBinary(type)) return { type: 'fixed_size_binary', length: type.byteWidth };
  if (T.isDate(type)) return { type: type.unit === arrow.DateUnit.DAY ? 'date32' : 'date64' };
  if (T.isTime(type)) return { type: `time${type.bitWidth}` };
  if (T.isTimestamp(type)) return { type: 'timestamp' };
  if (T.isDuration(type)) return { type: 'duration' };
  if (T.isDecimal(type)) return { type: `decimal${type.bitWidth}`, length: type.precision * 1000 + type.scale };
  if (T.isFixedSizeList(type)) return nested('fixed_size_list', type.children, { length: type.listSize });
  if (T.isList(type)) return nested('list', type.children);
  if (T.isStruct(type)) return nested('struct', type.children);
  if (T.isMap(type)) return nested('map', type.children);
  throw new Error(`no JSON Arrow name for ${type}`);
}

function jsonField(field) {
  const out = { name: field.name, nullable: field.nullable, type: jsonType(field.type) };
  if (field.metadata.size > 0) out.metadata = Object.fromEntries(field.metadata);
  return out;
}

/** `JsonArrowSchema` of an apache-arrow schema. */
function jsonSchema(s) {
  const out = { fields: s.fields.map(jsonField) };
  if (s.metadata.size > 0) out.metadata = Object.fromEntries(s.metadata);
  return out;
}

function describe(levels, body = {}, query = 'load_detailed_metadata=true') {
  return api.op('table', levels, 'describe', { body: { id: levels, ...body }, query, spec: 'latest' });
}

async function describeOk(levels, body, query) {
  const res = await describe(levels, body, query);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
}

function tableStats(levels) {
  return api.must('table', levels, 'stats', { body: { id: levels }, spec: 'latest' });
}

/** GetTableStats's answer against LanceDB's own table.stats() and countRows(). */
async function assertStatsAgree(levels, table) {
  const mine = await tableStats(levels);
  const theirs = await table.stats();
  assert.equal(mine.num_rows, await table.countRows());
  assert.equal(mine.num_rows, theirs.numRows);
  assert.equal(mine.num_indices, theirs.numIndices);
  assert.equal(mine.total_bytes, theirs.totalBytes);
  const f = theirs.fragmentStats;
  assert.deepEqual(mine.fragment_stats, {
    num_fragments: f.numFragments,
    num_small_fragments: f.numSmallFragments,
    lengths: { ...f.lengths },
  });
  return mine;
}

/** Writes a table in `ns` as LanceDB does: 10 rows, two appends, a delete (4 versions). */
async function writeTable(ns) {
  const table = await db.createTable('t', rows(0, 10), ns, { schema });
  await table.add(rows(10, 5));
  await table.add(rows(15, 7));
  await table.delete('id < 3 OR id = 12');
  return table;
}

for (const kind of ['mv', 'plain']) {
  test(`${kind}: DescribeTable's detailed metadata and GetTableStats agree with LanceDB`, withServerLog(() => server, async () => {
    const ns = [kind, 'details'];
    await db.createNamespace(ns);
    const levels = [...ns, 't'];
    const table = await writeTable(ns);
    assert.equal(await table.version(), 4);

    const latest = await describeOk(levels);
    assert.equal(latest.managed_versioning, kind === 'mv');
    assert.equal(latest.version, 4);
    assert.equal(latest.is_only_declared, false);
    assert.deepEqual(latest.schema, jsonSchema(await table.schema()));
    assert.deepEqual(latest.stats, { num_deleted_rows: 4, num_fragments: 3 });
    assert.deepEqual(latest.metadata, {});
    assert.deepEqual(latest.table, 't');
    assert.deepEqual(latest.namespace, ns);

    // Each version as LanceDB reads it.
    for (const [version, fragments] of [[1, 1], [2, 2], [3, 3]]) {
      const at = await describeOk(levels, { version }, '');
      assert.equal(at.version, version);
      assert.equal(at.stats.num_fragments, fragments);
      assert.equal(at.stats.num_deleted_rows, 0);
      assert.deepEqual(at.schema, latest.schema);
    }

    const missing = await describe(levels, { version: 99 });
    assert.equal(missing.status, 404, JSON.stringify(missing.json));
    assert.equal(missing.json.code, 11);

    // Without the flag, the basic answer (no schema).
    const basic = await describeOk(levels, {}, '');
    assert.equal(basic.schema, undefined);

    await assertStatsAgree(levels, table);
    await table.createIndex('id');
    const indexed = await assertStatsAgree(levels, table);
    assert.equal(indexed.num_indices, 1);
    assert.equal((await describeOk(levels)).version, 5);
  }));
}

test('a declared table has no detailed metadata and zero stats', withServerLog(() => server, async () => {
  await db.createNamespace(['mv', 'empty']);
  const levels = ['mv', 'empty', 'declared'];
  await api.must('table', levels, 'declare', { body: { id: levels }, spec: 'latest' });
  const described = await describeOk(levels);
  assert.equal(described.is_only_declared, true);
  assert.equal(described.version, undefined);
  assert.equal(described.schema, undefined);
  const stats = await tableStats(levels);
  assert.deepEqual(stats, {
    total_bytes: 0,
    num_rows: 0,
    num_indices: 0,
    fragment_stats: {
      num_fragments: 0,
      num_small_fragments: 0,
      lengths: { min: 0, max: 0, mean: 0, p25: 0, p50: 0, p75: 0, p99: 0 },
    },
  });
}));
