// Iceberg table routes over raw HTTP: create (fresh ids, staged), load (ETag / 304,
// snapshots=refs), commit (requirements, updates, no-op), register, rename, drop (purge), list
// (pagination), bad input. Every response is validated against the OpenAPI spec, and metadata
// files are checked on disk against what the API returned.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import { existsSync, readdirSync, readFileSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, withServerLog } from './lib/server.mjs';
import { call, describeResponse } from './lib/http.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import {
  catalog,
  icall,
  tableApi,
  localPath,
  readMetadataFile,
  sampleSchema,
  makeSnapshot,
  appendCommit,
  T_TABLES,
  T_TABLE,
  T_REGISTER,
  T_RENAME,
} from './lib/catalog.mjs';
import { lance } from './lib/lance.mjs';

let server;
let base;
let ns; // namespace helper
let tb; // table helper
before(async () => {
  server = await startServer();
  base = server.url;
  ns = catalog(base, '/iceberg/v1/default');
  tb = tableApi(base, '/iceberg/v1/default');
});
after(async () => {
  await server?.cleanup();
});
const it = (name, fn) => test(name, withServerLog(() => server, fn));

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const META_NAME_RE = (version) => new RegExp(`/metadata/${version}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.metadata\\.json$`);

/** Partitioned (day(ts), bucket[16](id)) and sorted (id asc) create request, ids 3,4 in the request. */
function partitionedRequest(name, { fieldIds = false, properties = { owner: 'tests', 'commit.retry.num-retries': '4' } } = {}) {
  const pf = (f, id) => (fieldIds ? { ...f, 'field-id': id } : f);
  return {
    name,
    schema: { ...sampleSchema(), 'identifier-field-ids': [3] },
    'partition-spec': {
      'spec-id': 5,
      fields: [
        pf({ 'source-id': 4, name: 'ts_day', transform: 'day' }, 1050),
        pf({ 'source-id': 3, name: 'id_bucket', transform: 'bucket[16]' }, 1070),
      ],
    },
    'write-order': {
      'order-id': 9,
      fields: [{ 'source-id': 3, transform: 'identity', direction: 'asc', 'null-order': 'nulls-first' }],
    },
    properties,
  };
}

/** Plain unpartitioned create request. */
const plainRequest = (name, properties) => ({ name, schema: sampleSchema(), ...(properties ? { properties } : {}) });

/** Asserts the file named by `location` exists and parses to exactly `metadata`. */
function assertFileHolds(location, metadata, ctx = '') {
  const p = localPath(location);
  assert.ok(existsSync(p), `${ctx} metadata file missing on disk: ${p}`);
  assert.deepEqual(readMetadataFile(location), metadata, `${ctx} file ${p} differs from the metadata the API returned`);
}

/** Names of the files in <table location>/metadata (sorted). */
function metadataDirFiles(tableLocation) {
  const dir = path.join(localPath(tableLocation), 'metadata');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Directory entries of the warehouse folder of a (single-level) namespace. */
function nsDirEntries(level) {
  const dir = path.join(server.dataDir, 'warehouse', 'default', level);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

async function freshNs(levels) {
  await ns.mustCreate(levels);
  return levels;
}

/** Creates a table and appends `count` snapshots (ids start..start+count-1); returns the last state. */
async function tableWithSnapshots(levels, name, count = 1, start = 1001, request = plainRequest(name)) {
  const created = await tb.mustCreate(levels, request);
  let state = { 'metadata-location': created['metadata-location'], metadata: created.metadata };
  for (let i = 0; i < count; i++) {
    state = await tb.mustCommit(levels, name, appendCommit(state.metadata, start + i));
  }
  return state;
}

// ---------------------------------------------------------------------------------------------

it('create a partitioned, sorted table: fresh ids, spec field ids 1000+, default location, file on disk; load, HEAD, list', async () => {
  const levels = await freshNs(['lc']);
  await ns.mustCreate(['lc', 'sub']);
  const nested = ['lc', 'sub'];
  const res = await tb.create(nested, partitionedRequest('events'));
  assert.equal(res.status, 200, describeResponse(res));
  assert.ok(res.headers.etag, `create must return an ETag: ${JSON.stringify(res.headers)}`);
  const { metadata: md } = res.json;
  const mloc = res.json['metadata-location'];

  // Default location: <warehouse>/<ns levels>/<name>-<32 hex>.
  const warehouse = `file://${server.dataDir}/warehouse/default`;
  assert.match(md.location, new RegExp(`^${warehouse.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/lc/sub/events-[0-9a-f]{32}$`));
  assert.ok(mloc.startsWith(`${md.location}/metadata/`), mloc);
  assert.match(mloc, META_NAME_RE('00000'));

  assert.equal(md['format-version'], 2);
  assert.match(md['table-uuid'], UUID_RE);
  assert.equal(md['last-sequence-number'], 0);
  assert.equal(md['last-column-id'], 2);
  assert.equal(md['current-schema-id'], 0);
  assert.deepEqual(md.schemas, [
    {
      type: 'struct',
      'schema-id': 0,
      'identifier-field-ids': [1],
      fields: [
        { id: 1, name: 'id', type: 'long', required: true },
        { id: 2, name: 'ts', type: 'timestamptz', required: false },
      ],
    },
  ]);
  assert.equal(md['default-spec-id'], 0);
  assert.deepEqual(md['partition-specs'], [
    {
      'spec-id': 0,
      fields: [
        { name: 'ts_day', transform: 'day', 'source-id': 2, 'field-id': 1000 },
        { name: 'id_bucket', transform: 'bucket[16]', 'source-id': 1, 'field-id': 1001 },
      ],
    },
  ]);
  assert.equal(md['last-partition-id'], 1001);
  assert.equal(md['default-sort-order-id'], 1);
  assert.deepEqual(md['sort-orders'], [
    { 'order-id': 1, fields: [{ transform: 'identity', 'source-id': 1, direction: 'asc', 'null-order': 'nulls-first' }] },
  ]);
  assert.equal(md.properties.owner, 'tests');
  assert.equal(md.properties['commit.retry.num-retries'], '4');
  assert.equal(md.properties['write.parquet.compression-codec'], 'zstd');
  assert.equal(md['current-snapshot-id'], -1);
  assert.deepEqual(md.snapshots ?? [], []);
  assert.deepEqual(md.refs ?? {}, {});
  assert.deepEqual(md['snapshot-log'] ?? [], []);
  assert.deepEqual(md['metadata-log'] ?? [], []);
  assertFileHolds(mloc, md, 'create:');

  // Explicit (odd) partition field ids in the request are reassigned too.
  const odd = await tb.mustCreate(levels, partitionedRequest('odd_ids', { fieldIds: true }));
  assert.deepEqual(
    odd.metadata['partition-specs'][0].fields.map((f) => [f.name, f['source-id'], f['field-id']]),
    [
      ['ts_day', 2, 1000],
      ['id_bucket', 1, 1001],
    ],
  );

  // Load returns the same metadata, location and ETag.
  const loaded = await tb.mustLoad(nested, 'events');
  assert.equal(loaded['metadata-location'], mloc);
  assert.deepEqual(loaded.metadata, md);
  assert.equal(loaded.etag, res.headers.etag, 'create ETag must equal the ETag of a later GET (snapshots=all)');
  const loadedAll = await tb.mustLoad(nested, 'events', { query: 'snapshots=all' });
  assert.equal(loadedAll.etag, res.headers.etag);

  let r = await tb.head(nested, 'events');
  assert.equal(r.status, 204, describeResponse(r));
  assert.equal(r.text, '');
  r = await tb.head(nested, 'nope');
  assert.equal(r.status, 404, describeResponse(r));
  assert.equal(r.text, '');
  r = await tb.head(['lc_missing'], 'events');
  assert.equal(r.status, 404, describeResponse(r));

  assert.deepEqual(await tb.mustList(nested), [{ namespace: ['lc', 'sub'], name: 'events' }]);
  assert.deepEqual(await tb.mustList(levels), [{ namespace: ['lc'], name: 'odd_ids' }]);

  // A missing table, also in a missing namespace: NoSuchTableException.
  let err = assertIcebergError(await tb.load(nested, 'nope'), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: lc.sub.nope');
  err = assertIcebergError(await tb.load(['lc_missing'], 'events'), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: lc_missing.events');
  // Create in a missing namespace: NoSuchNamespaceException.
  err = assertIcebergError(await tb.create(['lc_missing'], plainRequest('t')), 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: lc_missing');
});

it('commit add-snapshot + set-snapshot-ref main (assert-table-uuid, assert-ref-snapshot-id null then id): snapshot-log, metadata-log, files', async () => {
  const levels = await freshNs(['cm']);
  const created = await tb.mustCreate(levels, partitionedRequest('t'));
  const md0 = created.metadata;
  const loc0 = created['metadata-location'];
  const uuid = md0['table-uuid'];

  const ts1 = Date.now();
  const snap1 = makeSnapshot(md0.location, 1001, null, 1, ts1);
  let res = await tb.commit(levels, 't', {
    requirements: [
      { type: 'assert-table-uuid', uuid: uuid.toUpperCase() }, // case-insensitive
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null },
    ],
    updates: [
      { action: 'add-snapshot', snapshot: snap1 },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 1001 },
    ],
  });
  assert.equal(res.status, 200, describeResponse(res));
  assert.ok(res.headers.etag, 'commit must return an ETag');
  const c1 = res.json;
  const etag1 = res.headers.etag;
  assert.match(c1['metadata-location'], META_NAME_RE('00001'));
  assert.ok(c1['metadata-location'].startsWith(`${md0.location}/metadata/`));
  const md1 = c1.metadata;
  assert.equal(md1['table-uuid'], uuid);
  assert.equal(md1['current-snapshot-id'], 1001);
  assert.equal(md1['last-sequence-number'], 1);
  assert.deepEqual(md1.refs, { main: { 'snapshot-id': 1001, type: 'branch' } });
  assert.deepEqual(md1.snapshots, [snap1]);
  assert.deepEqual(md1['snapshot-log'], [{ 'snapshot-id': 1001, 'timestamp-ms': ts1 }]);
  assert.deepEqual(md1['metadata-log'], [{ 'metadata-file': loc0, 'timestamp-ms': md0['last-updated-ms'] }]);
  assert.ok(md1['last-updated-ms'] >= md0['last-updated-ms']);
  // Everything not touched by the commit is unchanged.
  for (const k of ['location', 'schemas', 'partition-specs', 'sort-orders', 'properties', 'last-column-id', 'last-partition-id', 'default-spec-id', 'default-sort-order-id', 'current-schema-id', 'format-version']) {
    assert.deepEqual(md1[k], md0[k], k);
  }

  // Second append, guarded by the current main id.
  const ts2 = Date.now();
  const snap2 = makeSnapshot(md0.location, 1002, 1001, 2, ts2);
  const c2 = await tb.mustCommit(levels, 't', {
    requirements: [
      { type: 'assert-table-uuid', uuid },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 1001 },
    ],
    updates: [
      { action: 'add-snapshot', snapshot: snap2 },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 1002 },
    ],
  });
  assert.match(c2['metadata-location'], META_NAME_RE('00002'));
  const md2 = c2.metadata;
  assert.equal(md2['current-snapshot-id'], 1002);
  assert.equal(md2['last-sequence-number'], 2);
  assert.deepEqual(md2.snapshots, [snap1, snap2]);
  assert.deepEqual(md2['snapshot-log'], [
    { 'snapshot-id': 1001, 'timestamp-ms': ts1 },
    { 'snapshot-id': 1002, 'timestamp-ms': ts2 },
  ]);
  assert.deepEqual(md2['metadata-log'], [
    { 'metadata-file': loc0, 'timestamp-ms': md0['last-updated-ms'] },
    { 'metadata-file': c1['metadata-location'], 'timestamp-ms': md1['last-updated-ms'] },
  ]);

  // Load sees exactly the committed state.
  const loaded = await tb.mustLoad(levels, 't');
  assert.equal(loaded['metadata-location'], c2['metadata-location']);
  assert.deepEqual(loaded.metadata, md2);
  assert.notEqual(loaded.etag, etag1, 'the ETag must change with the metadata');

  // Every version is on disk, unchanged.
  assertFileHolds(loc0, md0, 'v0:');
  assertFileHolds(c1['metadata-location'], md1, 'v1:');
  assertFileHolds(c2['metadata-location'], md2, 'v2:');
  assert.equal(metadataDirFiles(md0.location).filter((f) => f.endsWith('.metadata.json')).length, 3, metadataDirFiles(md0.location).join('\n'));
});

it('snapshots=refs hides unreferenced snapshots; ETag per representation; If-None-Match -> 304', async () => {
  const levels = await freshNs(['rf']);
  const s1 = await tableWithSnapshots(levels, 't', 1);
  const loc = s1.metadata.location;
  // 2001: referenced by nobody; 2002: tagged "v1". main stays at 1001.
  const snapA = makeSnapshot(loc, 2001, 1001, 2);
  const snapB = makeSnapshot(loc, 2002, 1001, 3);
  const c = await tb.mustCommit(levels, 't', {
    requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 1001 }],
    updates: [
      { action: 'add-snapshot', snapshot: snapA },
      { action: 'add-snapshot', snapshot: snapB },
      { action: 'set-snapshot-ref', 'ref-name': 'v1', type: 'tag', 'snapshot-id': 2002 },
    ],
  });
  assert.deepEqual(c.metadata.refs, { main: { 'snapshot-id': 1001, type: 'branch' }, v1: { 'snapshot-id': 2002, type: 'tag' } });
  assert.equal(c.metadata['current-snapshot-id'], 1001);
  assert.deepEqual(c.metadata['snapshot-log'].map((e) => e['snapshot-id']), [1001], 'a tag / add-snapshot writes no snapshot-log entry');

  const all = await tb.mustLoad(levels, 't');
  const refs = await tb.mustLoad(levels, 't', { query: 'snapshots=refs' });
  assert.deepEqual(all.metadata.snapshots.map((s) => s['snapshot-id']), [1001, 2001, 2002]);
  assert.deepEqual(refs.metadata.snapshots.map((s) => s['snapshot-id']), [1001, 2002]);
  // Only `snapshots` differs.
  assert.deepEqual({ ...refs.metadata, snapshots: null }, { ...all.metadata, snapshots: null });
  assert.equal(refs['metadata-location'], all['metadata-location']);
  assert.ok(all.etag && refs.etag);
  assert.notEqual(all.etag, refs.etag, 'ETags must differ between snapshots=all and snapshots=refs');

  // Conditional loads.
  let r = await tb.load(levels, 't', { headers: { 'If-None-Match': all.etag } });
  assert.equal(r.status, 304, describeResponse(r));
  assert.equal(r.text, '');
  r = await tb.load(levels, 't', { query: 'snapshots=all', headers: { 'If-None-Match': all.etag } });
  assert.equal(r.status, 304, describeResponse(r));
  r = await tb.load(levels, 't', { query: 'snapshots=refs', headers: { 'If-None-Match': refs.etag } });
  assert.equal(r.status, 304, describeResponse(r));
  r = await tb.load(levels, 't', { query: 'snapshots=refs', headers: { 'If-None-Match': all.etag } });
  assert.equal(r.status, 200, `all-ETag must not match the refs representation: ${describeResponse(r)}`);
  r = await tb.load(levels, 't', { headers: { 'If-None-Match': '"0000000000000000"' } });
  assert.equal(r.status, 200, describeResponse(r));
  assert.deepEqual(r.json.metadata, all.metadata);

  // After a commit the old ETag is stale.
  await tb.mustCommit(levels, 't', { requirements: [], updates: [{ action: 'set-properties', updates: { bump: '1' } }] });
  r = await tb.load(levels, 't', { headers: { 'If-None-Match': all.etag } });
  assert.equal(r.status, 200, describeResponse(r));
  assert.equal(r.json.metadata.properties.bump, '1');
  assert.notEqual(r.headers.etag, all.etag);

  // The commit ETag equals the ETag of a later load.
  const cr = await tb.commit(levels, 't', { requirements: [], updates: [{ action: 'set-properties', updates: { bump: '2' } }] });
  assert.equal(cr.status, 200, describeResponse(cr));
  const after2 = await tb.mustLoad(levels, 't');
  assert.equal(cr.headers.etag, after2.etag);

  // An unknown snapshots mode is rejected.
  r = await tb.load(levels, 't', { query: 'snapshots=bogus' });
  assertIcebergError(r, 400);
});

it('every failed requirement -> 409 CommitFailedException with the reference text; nothing changes', async () => {
  const levels = await freshNs(['rq']);
  const created = await tb.mustCreate(levels, partitionedRequest('t'));
  const uuid = created.metadata['table-uuid'];
  const s = await tb.mustCommit(levels, 't', appendCommit(created.metadata, 1001));
  await tb.mustCommit(levels, 't', {
    requirements: [{ type: 'assert-ref-snapshot-id', ref: 'tg', 'snapshot-id': null }],
    updates: [{ action: 'set-snapshot-ref', 'ref-name': 'tg', type: 'tag', 'snapshot-id': 1001 }],
  });
  const before = await tb.mustLoad(levels, 't');
  assert.equal(before.metadata['last-column-id'], 2);
  assert.equal(before.metadata['last-partition-id'], 1001);
  assert.ok(s);

  const other = '00000000-0000-4000-8000-000000000000';
  const cases = [
    [{ type: 'assert-table-uuid', uuid: other }, `Requirement failed: UUID does not match: expected ${uuid} != ${other}`],
    [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null }, 'Requirement failed: branch main was created concurrently'],
    [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 999 }, 'Requirement failed: branch main has changed: expected id 999 != 1001'],
    [{ type: 'assert-ref-snapshot-id', ref: 'tg', 'snapshot-id': null }, 'Requirement failed: tag tg was created concurrently'],
    [{ type: 'assert-ref-snapshot-id', ref: 'tg', 'snapshot-id': 5 }, 'Requirement failed: tag tg has changed: expected id 5 != 1001'],
    [{ type: 'assert-ref-snapshot-id', ref: 'nobranch', 'snapshot-id': 1001 }, 'Requirement failed: branch or tag nobranch is missing, expected 1001'],
    [{ type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 7 }, 'Requirement failed: last assigned field id changed: expected id 7 != 2'],
    [{ type: 'assert-current-schema-id', 'current-schema-id': 3 }, 'Requirement failed: current schema changed: expected id 3 != 0'],
    [
      { type: 'assert-last-assigned-partition-id', 'last-assigned-partition-id': 999 },
      'Requirement failed: last assigned partition id changed: expected id 999 != 1001',
    ],
    [{ type: 'assert-default-spec-id', 'default-spec-id': 4 }, 'Requirement failed: default partition spec changed: expected id 4 != 0'],
    [{ type: 'assert-default-sort-order-id', 'default-sort-order-id': 0 }, 'Requirement failed: default sort order changed: expected id 0 != 1'],
    [{ type: 'assert-create' }, 'Requirement failed: table already exists'],
  ];
  for (const [requirement, message] of cases) {
    const res = await tb.commit(levels, 't', {
      requirements: [requirement],
      updates: [{ action: 'set-properties', updates: { changed: 'yes' } }],
    });
    const err = assertIcebergError(res, 409, 'CommitFailedException');
    assert.equal(err.message, message, `requirement ${JSON.stringify(requirement)}`);
  }
  // One passing and one failing requirement: still 409.
  const res = await tb.commit(levels, 't', {
    requirements: [
      { type: 'assert-table-uuid', uuid },
      { type: 'assert-current-schema-id', 'current-schema-id': 1 },
    ],
    updates: [{ action: 'set-properties', updates: { changed: 'yes' } }],
  });
  assertIcebergError(res, 409, 'CommitFailedException');

  const afterFail = await tb.mustLoad(levels, 't');
  assert.equal(afterFail['metadata-location'], before['metadata-location'], 'a failed commit must not move the pointer');
  assert.deepEqual(afterFail.metadata, before.metadata);

  // All requirements holding at once: the commit goes through.
  const ok = await tb.mustCommit(levels, 't', {
    requirements: [
      { type: 'assert-table-uuid', uuid },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 1001 },
      { type: 'assert-ref-snapshot-id', ref: 'tg', 'snapshot-id': 1001 },
      { type: 'assert-ref-snapshot-id', ref: 'never', 'snapshot-id': null },
      { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 2 },
      { type: 'assert-current-schema-id', 'current-schema-id': 0 },
      { type: 'assert-last-assigned-partition-id', 'last-assigned-partition-id': 1001 },
      { type: 'assert-default-spec-id', 'default-spec-id': 0 },
      { type: 'assert-default-sort-order-id', 'default-sort-order-id': 1 },
    ],
    updates: [{ action: 'set-properties', updates: { changed: 'yes' } }],
  });
  assert.equal(ok.metadata.properties.changed, 'yes');
});

it('unknown requirement type / update action -> 400 naming it; invalid changes -> 400/409; missing table -> 404; nothing changes', async () => {
  const levels = await freshNs(['uk']);
  const s = await tableWithSnapshots(levels, 't', 1);
  const before = await tb.mustLoad(levels, 't');

  let res = await tb.commit(levels, 't', { requirements: [{ type: 'assert-frobnicated' }], updates: [] });
  let err = assertIcebergError(res, 400);
  assert.match(err.message, /assert-frobnicated/);
  res = await tb.commit(levels, 't', { requirements: [], updates: [{ action: 'frobnicate-table', x: 1 }] });
  err = assertIcebergError(res, 400);
  assert.match(err.message, /frobnicate-table/);
  // An unknown action after a valid one: nothing applied.
  res = await tb.commit(levels, 't', {
    requirements: [],
    updates: [{ action: 'set-properties', updates: { partial: 'x' } }, { action: 'no-such-action' }],
  });
  err = assertIcebergError(res, 400);
  assert.match(err.message, /no-such-action/);

  const loc = s.metadata.location;
  const invalid = [
    ['set-snapshot-ref to a missing snapshot', [{ action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 424242 }]],
    ['duplicate snapshot id', [{ action: 'add-snapshot', snapshot: makeSnapshot(loc, 1001, 1001, 2) }]],
    ['main as a tag', [{ action: 'set-snapshot-ref', 'ref-name': 'main', type: 'tag', 'snapshot-id': 1001 }]],
    ['set-current-schema to an unknown id', [{ action: 'set-current-schema', 'schema-id': 42 }]],
    ['set-default-spec to an unknown id', [{ action: 'set-default-spec', 'spec-id': 42 }]],
    ['set-default-sort-order to an unknown id', [{ action: 'set-default-sort-order', 'sort-order-id': 42 }]],
    ['set-current-schema -1 without add-schema', [{ action: 'set-current-schema', 'schema-id': -1 }]],
    ['downgrade format version', [{ action: 'upgrade-format-version', 'format-version': 1 }]],
  ];
  for (const [what, updates] of invalid) {
    res = await tb.commit(levels, 't', { requirements: [], updates });
    assertIcebergError(res, 400, undefined);
    assert.ok(res.json.error.message.length > 0, what);
  }
  // A stale sequence number (another writer got there first) is a retryable 409.
  res = await tb.commit(levels, 't', { requirements: [], updates: [{ action: 'add-snapshot', snapshot: makeSnapshot(loc, 1002, 1001, 1) }] });
  assertIcebergError(res, 409, 'CommitFailedException');

  const after = await tb.mustLoad(levels, 't');
  assert.equal(after['metadata-location'], before['metadata-location']);
  assert.deepEqual(after.metadata, before.metadata);

  // Commits against a missing table / namespace.
  err = assertIcebergError(await tb.commit(levels, 'nope', appendCommit(s.metadata, 5)), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: uk.nope');
  err = assertIcebergError(await tb.commit(['uk_missing'], 't', appendCommit(s.metadata, 5)), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: uk_missing.t');
});

it('a commit that changes nothing keeps the same metadata-location and writes no file', async () => {
  const levels = await freshNs(['noop']);
  const s = await tableWithSnapshots(levels, 't', 1, 1001, partitionedRequest('t'));
  const md = s.metadata;
  const filesBefore = metadataDirFiles(md.location);
  // No-ops per TableMetadata.Builder: identical ref, same location/uuid/format version, current
  // ids, re-adding an existing schema/spec/order, empty property maps. (Note: set-properties with
  // an unchanged value and remove-properties of a missing key *are* changes in the reference.)
  const bodies = [
    { requirements: [], updates: [] },
    { requirements: [{ type: 'assert-table-uuid', uuid: md['table-uuid'] }], updates: [{ action: 'set-properties', updates: {} }] },
    { requirements: [], updates: [{ action: 'remove-properties', removals: [] }] },
    { requirements: [], updates: [{ action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 1001 }] },
    { requirements: [], updates: [{ action: 'set-location', location: md.location }] },
    { requirements: [], updates: [{ action: 'assign-uuid', uuid: md['table-uuid'] }] },
    { requirements: [], updates: [{ action: 'upgrade-format-version', 'format-version': md['format-version'] }] },
    { requirements: [], updates: [{ action: 'set-current-schema', 'schema-id': 0 }] },
    { requirements: [], updates: [{ action: 'set-default-spec', 'spec-id': 0 }] },
    { requirements: [], updates: [{ action: 'set-default-sort-order', 'sort-order-id': 1 }] },
    { requirements: [], updates: [{ action: 'add-schema', schema: md.schemas[0] }] },
    { requirements: [], updates: [{ action: 'add-spec', spec: md['partition-specs'][0] }] },
    { requirements: [], updates: [{ action: 'add-sort-order', 'sort-order': md['sort-orders'][0] }] },
    { requirements: [], updates: [{ action: 'remove-snapshot-ref', 'ref-name': 'no-such-ref' }] },
  ];
  for (const body of bodies) {
    const c = await tb.mustCommit(levels, 't', body);
    assert.equal(c['metadata-location'], s['metadata-location'], `no-op commit ${JSON.stringify(body)} moved the pointer`);
    assert.deepEqual(c.metadata, md, `no-op commit ${JSON.stringify(body)} changed the metadata`);
  }
  assert.deepEqual(metadataDirFiles(md.location), filesBefore, 'a no-op commit must not write a metadata file');
  const loaded = await tb.mustLoad(levels, 't');
  assert.equal(loaded['metadata-location'], s['metadata-location']);
});

it('stage-create returns no metadata-location and creates nothing; an assert-create commit then creates the table', async () => {
  const levels = await freshNs(['stg']);
  const req = { ...partitionedRequest('staged'), 'stage-create': true };
  let res = await tb.create(levels, req);
  assert.equal(res.status, 200, describeResponse(res));
  assert.ok(res.json['metadata-location'] === undefined || res.json['metadata-location'] === null, `staged create must not have a metadata-location: ${res.text}`);
  assert.equal(res.headers.etag, undefined, 'a staged create has no ETag (nothing to tag)');
  const staged = res.json.metadata;
  assert.match(staged['table-uuid'], UUID_RE);
  assert.deepEqual(staged.schemas[0].fields.map((f) => f.id), [1, 2]);
  assert.deepEqual(staged['partition-specs'][0].fields.map((f) => f['field-id']), [1000, 1001]);
  assert.equal(staged['default-sort-order-id'], 1);
  assert.match(staged.location, /\/stg\/staged-[0-9a-f]{32}$/);

  // Nothing exists yet.
  assert.deepEqual(await tb.mustList(levels), []);
  assert.equal((await tb.head(levels, 'staged')).status, 404);
  assertIcebergError(await tb.load(levels, 'staged'), 404, 'NoSuchTableException');
  assert.ok(!existsSync(localPath(staged.location)), `staged create wrote ${staged.location}`);
  assert.deepEqual(nsDirEntries('stg'), []);
  // Staging the same name again is fine: nothing was reserved.
  res = await tb.create(levels, req);
  assert.equal(res.status, 200, describeResponse(res));

  // The client's create transaction.
  const snap = makeSnapshot(staged.location, 7001, null, 1);
  const createCommit = {
    requirements: [{ type: 'assert-create' }],
    updates: [
      { action: 'assign-uuid', uuid: staged['table-uuid'] },
      { action: 'upgrade-format-version', 'format-version': staged['format-version'] },
      { action: 'add-schema', schema: staged.schemas[0], 'last-column-id': staged['last-column-id'] },
      { action: 'set-current-schema', 'schema-id': -1 },
      { action: 'add-spec', spec: staged['partition-specs'][0] },
      { action: 'set-default-spec', 'spec-id': -1 },
      { action: 'add-sort-order', 'sort-order': staged['sort-orders'].find((o) => o['order-id'] === staged['default-sort-order-id']) },
      { action: 'set-default-sort-order', 'sort-order-id': -1 },
      { action: 'set-location', location: staged.location },
      { action: 'set-properties', updates: staged.properties },
      { action: 'add-snapshot', snapshot: snap },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 7001 },
    ],
  };
  const c = await tb.mustCommit(levels, 'staged', createCommit);
  assert.match(c['metadata-location'], META_NAME_RE('00000'));
  assert.ok(c['metadata-location'].startsWith(`${staged.location}/metadata/`));
  const md = c.metadata;
  assert.equal(md['table-uuid'], staged['table-uuid']);
  assert.equal(md.location, staged.location);
  assert.deepEqual(md.schemas, staged.schemas);
  assert.deepEqual(md['partition-specs'], staged['partition-specs']);
  assert.equal(md['last-partition-id'], 1001);
  assert.equal(md['default-sort-order-id'], 1);
  assert.deepEqual(md.properties, staged.properties);
  assert.equal(md['current-snapshot-id'], 7001);
  assert.deepEqual(md.snapshots, [snap]);
  assert.deepEqual(md['metadata-log'] ?? [], []);
  assertFileHolds(c['metadata-location'], md, 'create commit:');
  assert.deepEqual(await tb.mustList(levels), [{ namespace: ['stg'], name: 'staged' }]);
  const loaded = await tb.mustLoad(levels, 'staged');
  assert.deepEqual(loaded.metadata, md);

  // The same create again: the table exists now.
  let err = assertIcebergError(await tb.commit(levels, 'staged', createCommit), 409, 'CommitFailedException');
  assert.equal(err.message, 'Requirement failed: table already exists');
  err = assertIcebergError(await tb.create(levels, req), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Table already exists: stg.staged');
  // assert-create mixed with other requirements is malformed.
  res = await tb.commit(levels, 'other', {
    requirements: [{ type: 'assert-create' }, { type: 'assert-current-schema-id', 'current-schema-id': 0 }],
    updates: createCommit.updates.slice(0, 4),
  });
  assertIcebergError(res, 400);
  // A create commit into a missing namespace.
  err = assertIcebergError(await tb.commit(['stg_missing'], 'x', createCommit), 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: stg_missing');
  assert.deepEqual(await tb.mustList(levels), [{ namespace: ['stg'], name: 'staged' }]);
});

it('register an existing metadata file under another name (and overwrite); conflicts and missing files', async () => {
  const levels = await freshNs(['reg']);
  const created = await tb.mustCreate(levels, partitionedRequest('orig'));
  const s = await tb.mustCommit(levels, 'orig', appendCommit(created.metadata, 1001));

  // A file is one table's: registering orig's file beside orig is an overlap (issue 12).
  let res = await tb.register(levels, { name: 'copy', 'metadata-location': s['metadata-location'] });
  assert.match(assertIcebergError(res, 400).message, /overlaps/);
  // Once orig is forgotten (its files kept), its file can be registered under another name.
  res = await tb.drop(levels, 'orig', false);
  assert.equal(res.status, 204, describeResponse(res));
  res = await tb.register(levels, { name: 'copy', 'metadata-location': s['metadata-location'] });
  assert.equal(res.status, 200, describeResponse(res));
  assert.equal(res.json['metadata-location'], s['metadata-location']);
  assert.deepEqual(res.json.metadata, s.metadata);
  assert.ok(res.headers.etag, 'register must return an ETag');
  const loaded = await tb.mustLoad(levels, 'copy');
  assert.equal(loaded['metadata-location'], s['metadata-location']);
  assert.deepEqual(loaded.metadata, s.metadata);
  assert.equal(loaded.etag, res.headers.etag);
  assert.deepEqual(
    (await tb.mustList(levels)).map((i) => i.name),
    ['copy'],
  );

  // The name is taken now.
  let err = assertIcebergError(await tb.register(levels, { name: 'copy', 'metadata-location': created['metadata-location'] }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Table already exists: reg.copy');
  err = assertIcebergError(await tb.register(levels, { name: 'copy', 'metadata-location': created['metadata-location'], overwrite: false }), 409, 'AlreadyExistsException');
  // overwrite=true swaps the pointer to the older file.
  res = await tb.register(levels, { name: 'copy', 'metadata-location': created['metadata-location'], overwrite: true });
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json.metadata, created.metadata);
  assert.deepEqual((await tb.mustLoad(levels, 'copy')).metadata, created.metadata);

  // The registered table can be committed to; orig's files are unaffected.
  const c = await tb.mustCommit(levels, 'copy', appendCommit(created.metadata, 5001));
  assert.equal(c.metadata['current-snapshot-id'], 5001);
  assert.match(c['metadata-location'], META_NAME_RE('00001'));
  assert.notEqual(c['metadata-location'], s['metadata-location']);
  assertFileHolds(s['metadata-location'], s.metadata);
  assertFileHolds(c['metadata-location'], c.metadata);

  // Missing namespace, missing file, missing fields.
  err = assertIcebergError(await tb.register(['reg_missing'], { name: 'x', 'metadata-location': s['metadata-location'] }), 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: reg_missing');
  const missingFile = `${created.metadata.location}/metadata/99999-does-not-exist.metadata.json`;
  res = await tb.register(levels, { name: 'ghost', 'metadata-location': missingFile });
  err = assertIcebergError(res, 404, 'NotFoundException');
  assert.equal(err.message, `Failed to open input stream for file: ${missingFile}`);
  assertIcebergError(await tb.register(levels, { name: 'ghost' }), 400);
  assertIcebergError(await tb.register(levels, { 'metadata-location': s['metadata-location'] }), 400);
  assert.deepEqual(
    (await tb.mustList(levels)).map((i) => i.name),
    ['copy'],
  );
});

it('rename across namespaces; 404 for a missing source or target namespace; 409 when the target exists', async () => {
  const a = await freshNs(['ren_a']);
  const b = await freshNs(['ren_b']);
  const s = await tableWithSnapshots(a, 'src', 2);
  await tb.mustCreate(b, plainRequest('taken'));

  let res = await tb.rename({ namespace: a, name: 'src' }, { namespace: b, name: 'dst' });
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal(res.text, '');
  assertIcebergError(await tb.load(a, 'src'), 404, 'NoSuchTableException');
  const moved = await tb.mustLoad(b, 'dst');
  assert.equal(moved['metadata-location'], s['metadata-location']);
  assert.deepEqual(moved.metadata, s.metadata);
  assert.deepEqual(await tb.mustList(a), []);
  assert.deepEqual(await tb.mustList(b), [
    { namespace: ['ren_b'], name: 'dst' },
    { namespace: ['ren_b'], name: 'taken' },
  ]);

  // Errors.
  let err = assertIcebergError(await tb.rename({ namespace: a, name: 'src' }, { namespace: b, name: 'x' }), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: ren_a.src');
  res = await tb.rename({ namespace: b, name: 'dst' }, { namespace: ['ren_missing'], name: 'x' });
  assertIcebergError(res, 404, 'NoSuchNamespaceException');
  err = assertIcebergError(await tb.rename({ namespace: b, name: 'dst' }, { namespace: b, name: 'taken' }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Cannot rename ren_b.dst to ren_b.taken. Table already exists');
  assertIcebergError(await tb.rename({ namespace: b, name: 'dst' }), 400);
  assertIcebergError(await tb.rename({ namespace: b, name: 'dst' }, { namespace: b, name: '..' }), 400);

  // Still intact after the failed renames; commits and renames back work.
  const c = await tb.mustCommit(b, 'dst', appendCommit(moved.metadata, 3001));
  assert.equal(c.metadata['current-snapshot-id'], 3001);
  res = await tb.rename({ namespace: b, name: 'dst' }, { namespace: a, name: 'back' });
  assert.equal(res.status, 204, describeResponse(res));
  assert.deepEqual((await tb.mustLoad(a, 'back')).metadata, c.metadata);
  // A view-less, table-only identifier space: the old name is free again.
  await tb.mustCreate(b, plainRequest('dst'));
});

it('drop without purge keeps the files (re-registrable); drop with purge removes the table directory', async () => {
  const levels = await freshNs(['drp']);
  const s = await tableWithSnapshots(levels, 'keep', 2);
  const dir = localPath(s.metadata.location);
  const filesBefore = metadataDirFiles(s.metadata.location);
  assert.equal(filesBefore.length, 3);

  let res = await tb.drop(levels, 'keep');
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal(res.text, '');
  assert.equal((await tb.head(levels, 'keep')).status, 404);
  assertIcebergError(await tb.load(levels, 'keep'), 404, 'NoSuchTableException');
  assert.deepEqual(metadataDirFiles(s.metadata.location), filesBefore, 'drop without purge must keep all files');
  let err = assertIcebergError(await tb.drop(levels, 'keep'), 404, 'NoSuchTableException');
  assert.equal(err.message, 'Table does not exist: drp.keep');
  assert.deepEqual(await tb.mustList(levels), []);

  // Explicit purgeRequested=false also keeps files.
  const s2 = await tableWithSnapshots(levels, 'keep2', 1);
  res = await tb.drop(levels, 'keep2', false);
  assert.equal(res.status, 204, describeResponse(res));
  assert.ok(existsSync(localPath(s2['metadata-location'])));

  // Re-register the last metadata file (what the RCK does after a drop), then purge.
  res = await tb.register(levels, { name: 'keep', 'metadata-location': s['metadata-location'] });
  assert.equal(res.status, 200, describeResponse(res));
  assert.deepEqual(res.json.metadata, s.metadata);
  res = await tb.drop(levels, 'keep', true);
  assert.equal(res.status, 204, describeResponse(res));
  assert.ok(!existsSync(dir), `purge must remove ${dir}; left: ${existsSync(dir) ? readdirSync(dir, { recursive: true }).join(', ') : ''}`);
  assert.equal((await tb.head(levels, 'keep')).status, 404);

  // A new table with the same name gets a fresh location.
  const again = await tb.mustCreate(levels, plainRequest('keep'));
  assert.notEqual(again.metadata.location, s.metadata.location);
  assert.equal(again.metadata['current-snapshot-id'], -1);

  // Purging a table leaves other tables' files alone.
  const other = await tableWithSnapshots(levels, 'other', 1);
  res = await tb.drop(levels, 'keep', true);
  assert.equal(res.status, 204, describeResponse(res));
  assert.ok(!existsSync(localPath(again.metadata.location)));
  assertFileHolds(other['metadata-location'], other.metadata);
  assertIcebergError(await tb.drop(levels, 'keep', 'maybe'), 400);
  assertIcebergError(await tb.drop(['drp_missing'], 'x'), 404, 'NoSuchTableException');
});

it('explicit location: trailing "/" stripped; purge of a location the client chose deletes only the catalog\'s metadata files', async () => {
  const levels = await freshNs(['loc']);
  // A directory the client chose (inside the warehouse: nothing else is allowed).
  const out = path.join(server.dataDir, 'warehouse', 'default', 'client-chosen');
  mkdirSync(out, { recursive: true });
  try {
    const created = await tb.mustCreate(levels, { ...plainRequest('ext'), location: `file://${out}/tbl/` });
    assert.equal(created.metadata.location, `file://${out}/tbl`);
    assert.ok(created['metadata-location'].startsWith(`file://${out}/tbl/metadata/00000-`), created['metadata-location']);
    const c = await tb.mustCommit(levels, 'ext', appendCommit(created.metadata, 1));
    assertFileHolds(c['metadata-location'], c.metadata);
    // Someone else's file in the same directory.
    mkdirSync(path.join(out, 'tbl', 'data'), { recursive: true });
    writeFileSync(path.join(out, 'tbl', 'data', 'foreign.parquet'), 'not ours');
    const res = await tb.drop(levels, 'ext', true);
    assert.equal(res.status, 204, describeResponse(res));
    assert.ok(!existsSync(localPath(created['metadata-location'])), 'purge must delete the metadata-log files');
    assert.ok(!existsSync(localPath(c['metadata-location'])), 'purge must delete the current metadata file');
    assert.ok(existsSync(path.join(out, 'tbl', 'data', 'foreign.parquet')), 'purge of a client-chosen location deleted a foreign file');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

it('purge never deletes the files of another live table (reference: only files reachable from the dropped table)', async () => {
  // Tables whose locations overlap are refused (issue 12) unless the catalog allows it:
  // this catalog does, so that purge is tested with the overlaps the reference allows.
  const created = await lance(base).op('namespace', ['overlapping'], 'create', {
    body: { id: ['overlapping'], mode: 'create', properties: { 'allow-overlapping-locations': 'true' } },
  });
  assert.equal(created.status, 200, describeResponse(created));
  const ons = catalog(base, '/iceberg/v1/overlapping');
  const otb = tableApi(base, '/iceberg/v1/overlapping');
  const levels = ['purge_safe'];
  await ons.mustCreate(levels);
  const withSnapshots = async (lv, name, count = 1, start = 1001, request = plainRequest(name)) => {
    let st = await otb.mustCreate(lv, request);
    for (let i = 0; i < count; i++) st = await otb.mustCommit(lv, name, appendCommit(st.metadata, start + i));
    return st;
  };
  const warehouseNs = `file://${server.dataDir}/warehouse/overlapping/purge_safe`;
  // In the default catalog, a second table at one location is refused.
  const d1 = await freshNs(['purge_refused']);
  const first = await tb.mustCreate(d1, plainRequest('one'));
  assert.match(
    assertIcebergError(await tb.create(d1, { ...plainRequest('two'), location: first.metadata.location }), 400).message,
    /overlaps/,
  );
  // Two tables at the same explicit location inside the warehouse (allowed by the reference).
  const x = await otb.mustCreate(levels, { ...plainRequest('x'), location: `${warehouseNs}/shared` });
  const y = await withSnapshots(levels, 'y', 1, 1001, { ...plainRequest('y'), location: `${warehouseNs}/shared` });
  assert.equal(x.metadata.location, y.metadata.location);
  // A sibling at its default location, and a table whose location is the namespace directory.
  const w = await withSnapshots(levels, 'w', 1);
  await otb.mustCreate(levels, { ...plainRequest('z'), location: warehouseNs });

  const lost = [];
  let res = await otb.drop(levels, 'x', true);
  assert.equal(res.status, 204, describeResponse(res));
  if (!existsSync(localPath(y['metadata-location']))) lost.push(`purge of x (location ${x.metadata.location}) deleted live table y's ${y['metadata-location']}`);
  if (!existsSync(localPath(w['metadata-location']))) lost.push(`purge of x deleted live table w's ${w['metadata-location']}`);
  res = await otb.drop(levels, 'z', true);
  assert.equal(res.status, 204, describeResponse(res));
  if (!existsSync(localPath(w['metadata-location']))) lost.push(`purge of z (location ${warehouseNs}) deleted live table w's ${w['metadata-location']}`);
  // A table created at another table's Cairn-assigned location (explicit `location`, as e.g. a
  // Spark CREATE TABLE ... LOCATION would): purging the first must not take the second's files.
  const a = await withSnapshots(levels, 'a', 1);
  const b = await withSnapshots(levels, 'b', 1, 1001, { ...plainRequest('b'), location: a.metadata.location });
  assert.equal(b.metadata.location, a.metadata.location);
  res = await otb.drop(levels, 'a', true);
  assert.equal(res.status, 204, describeResponse(res));
  if (!existsSync(localPath(b['metadata-location']))) lost.push(`purge of a (location ${a.metadata.location}) deleted live table b's ${b['metadata-location']}`);
  // A registered copy of d's metadata file; d moves on; purging the copy may delete what the
  // copy's metadata reaches (d's old versions), but not d's newer current file.
  const d = await withSnapshots(levels, 'd', 1);
  res = await otb.register(levels, { name: 'd_copy', 'metadata-location': d['metadata-location'] });
  assert.equal(res.status, 200, describeResponse(res));
  const d2 = await otb.mustCommit(levels, 'd', appendCommit(d.metadata, 2002));
  res = await otb.drop(levels, 'd_copy', true);
  assert.equal(res.status, 204, describeResponse(res));
  if (!existsSync(localPath(d2['metadata-location']))) lost.push(`purge of d_copy (registered from ${d['metadata-location']}) deleted live table d's newer ${d2['metadata-location']}`);
  // The live tables still load (the store keeps the metadata), but their files must be there too.
  assert.equal((await otb.mustLoad(levels, 'y'))['metadata-location'], y['metadata-location']);
  assert.deepEqual(lost, [], 'purge deleted files of live tables');
});

it('metadata file properties: previous-versions-max + delete-after-commit, gzip codec, write.metadata.path', async () => {
  const levels = await freshNs(['mfp']);
  // previous-versions-max=2 with delete-after-commit: exactly max + 1 files stay reachable.
  let st = await tableWithSnapshots(levels, 'trim', 5, 1001, plainRequest('trim', {
    'write.metadata.previous-versions-max': '2',
    'write.metadata.delete-after-commit.enabled': 'true',
  }));
  assert.equal(st.metadata['metadata-log'].length, 2, JSON.stringify(st.metadata['metadata-log']));
  const kept = metadataDirFiles(st.metadata.location).filter((f) => f.endsWith('.metadata.json'));
  assert.deepEqual(
    kept.map((f) => f.slice(0, 5)),
    ['00003', '00004', '00005'],
    `expected previous-versions-max + 1 = 3 metadata files, got ${kept.join(', ')}`,
  );
  for (const e of st.metadata['metadata-log']) assert.ok(existsSync(localPath(e['metadata-file'])), e['metadata-file']);
  assertFileHolds(st['metadata-location'], st.metadata);

  // Without delete-after-commit the log is trimmed but files stay.
  st = await tableWithSnapshots(levels, 'keepall', 4, 1001, plainRequest('keepall', { 'write.metadata.previous-versions-max': '1' }));
  assert.equal(st.metadata['metadata-log'].length, 1);
  assert.equal(metadataDirFiles(st.metadata.location).filter((f) => f.endsWith('.metadata.json')).length, 5);

  // gzip: <n>-<uuid>.gz.metadata.json, gzip bytes, same content.
  const gz = await tb.mustCreate(levels, plainRequest('gz', { 'write.metadata.compression-codec': 'gzip' }));
  assert.match(gz['metadata-location'], /\/metadata\/00000-[0-9a-f-]{36}\.gz\.metadata\.json$/);
  const c = await tb.mustCommit(levels, 'gz', appendCommit(gz.metadata, 1));
  assert.match(c['metadata-location'], /\/00001-[0-9a-f-]{36}\.gz\.metadata\.json$/);
  const bytes = readFileSync(localPath(c['metadata-location']));
  assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b], 'gzip magic');
  assertFileHolds(c['metadata-location'], c.metadata);
  // A gzip file can be registered (once its table is forgotten: a file is one table's).
  assert.equal((await tb.drop(levels, 'gz', false)).status, 204);
  const reg = await tb.register(levels, { name: 'gz_copy', 'metadata-location': c['metadata-location'] });
  assert.equal(reg.status, 200, describeResponse(reg));
  assert.deepEqual(reg.json.metadata, c.metadata);

  // write.metadata.path moves the metadata files.
  const mdir = `file://${server.dataDir}/warehouse/default/mfp/custom-metadata-dir`;
  const wp = await tb.mustCreate(levels, plainRequest('wp', { 'write.metadata.path': `${mdir}/` }));
  assert.match(wp['metadata-location'], new RegExp(`^${mdir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/00000-[0-9a-f-]{36}\\.metadata\\.json$`));
  const wc = await tb.mustCommit(levels, 'wp', appendCommit(wp.metadata, 1));
  assert.ok(wc['metadata-location'].startsWith(`${mdir}/00001-`), wc['metadata-location']);
  assertFileHolds(wc['metadata-location'], wc.metadata);
});

it('list tables: pageToken= + pageSize=2 over 5 tables, each exactly once; next-page-token only when more remain', async () => {
  const levels = await freshNs(['pg']);
  const names = ['e', 'D', 'c', 'B', 'a'];
  for (const n of names) await tb.mustCreate(levels, plainRequest(n));
  await freshNs(['pg', 'child']); // a child namespace is not a table
  await tb.mustCreate(['pg', 'child'], plainRequest('nested'));
  const expected = ['B', 'D', 'a', 'c', 'e'].map((name) => ({ namespace: ['pg'], name }));

  const all = await tb.list(levels);
  assert.equal(all.status, 200, describeResponse(all));
  assert.deepEqual(all.json.identifiers, expected);
  assert.ok(!('next-page-token' in all.json) || all.json['next-page-token'] === null, all.text);

  const pages = [];
  let token = '';
  for (let i = 0; i < 10; i++) {
    const res = await tb.list(levels, `pageToken=${encodeURIComponent(token)}&pageSize=2`);
    assert.equal(res.status, 200, describeResponse(res));
    pages.push(res.json);
    const next = res.json['next-page-token'];
    if (next === undefined || next === null) break;
    assert.equal(typeof next, 'string');
    assert.ok(next.length > 0);
    token = next;
  }
  assert.deepEqual(pages.map((p) => p.identifiers.length), [2, 2, 1]);
  assert.deepEqual(pages.flatMap((p) => p.identifiers), expected);
  assert.ok(!('next-page-token' in pages[2]), `last page must not carry a next-page-token key: ${JSON.stringify(pages[2])}`);

  // pageSize equal to the count: one page, no token.
  let res = await tb.list(levels, 'pageToken=&pageSize=5');
  assert.deepEqual(res.json.identifiers, expected);
  assert.ok(!('next-page-token' in res.json), `no more remain, yet a token: ${res.text}`);
  res = await tb.list(levels, 'pageToken=&pageSize=4');
  assert.equal(res.json.identifiers.length, 4);
  res = await tb.list(levels, `pageToken=${encodeURIComponent(res.json['next-page-token'])}&pageSize=4`);
  assert.deepEqual(res.json.identifiers, [expected[4]]);
  assert.ok(!('next-page-token' in res.json), res.text);

  assert.deepEqual(await tb.mustList(['pg', 'child']), [{ namespace: ['pg', 'child'], name: 'nested' }]);
  const err = assertIcebergError(await tb.list(['pg_missing']), 404, 'NoSuchNamespaceException');
  assert.equal(err.message, 'Namespace does not exist: pg_missing');
  assertIcebergError(await tb.list(levels, 'pageToken=&pageSize=0'), 400);
  assertIcebergError(await tb.list(levels, 'pageToken=&pageSize=abc'), 400);
});

it('a name used by a table blocks a second create and register (409); the original is untouched', async () => {
  const levels = await freshNs(['dup']);
  const first = await tableWithSnapshots(levels, 't', 1);
  const dirsBefore = nsDirEntries('dup');
  let err = assertIcebergError(await tb.create(levels, partitionedRequest('t')), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Table already exists: dup.t');
  err = assertIcebergError(await tb.create(levels, { ...plainRequest('t'), 'stage-create': true }), 409, 'AlreadyExistsException');
  assert.equal(err.message, 'Table already exists: dup.t');
  const after = await tb.mustLoad(levels, 't');
  assert.equal(after['metadata-location'], first['metadata-location']);
  assert.deepEqual(after.metadata, first.metadata);
  assert.deepEqual(nsDirEntries('dup'), dirsBefore, 'a rejected create must not leave a directory behind');
  assert.deepEqual(await tb.mustList(levels), [{ namespace: ['dup'], name: 't' }]);
});

it('bad input -> 400/404 with Iceberg errors, and nothing changes', async () => {
  const levels = await freshNs(['bad']);
  const s = await tableWithSnapshots(levels, 't', 1);
  const snapshotState = async () => ({
    list: await tb.mustList(levels),
    table: await tb.mustLoad(levels, 't'),
    dirs: nsDirEntries('bad'),
  });
  const before = await snapshotState();
  const url = tb.tablesUrl(levels);

  const raw = async (method, path, rawBody, template) => {
    const res = await icall(base, method, path, template, rawBody === undefined ? {} : { rawBody });
    return res;
  };
  // Create: malformed JSON, missing / wrong fields, invalid names.
  assertIcebergError(await raw('POST', url, '{"name": "x", "schema": ', T_TABLES), 400, 'BadRequestException');
  assertIcebergError(await raw('POST', url, '', T_TABLES), 400);
  assertIcebergError(await raw('POST', url, '[]', T_TABLES), 400);
  assertIcebergError(await tb.create(levels, { name: 'x' }), 400);
  assertIcebergError(await tb.create(levels, { schema: sampleSchema() }), 400);
  assertIcebergError(await tb.create(levels, { name: 5, schema: sampleSchema() }), 400);
  assertIcebergError(await tb.create(levels, { name: 'x', schema: 'struct' }), 400);
  assertIcebergError(await tb.create(levels, { name: 'x', schema: sampleSchema(), properties: { a: 1 } }), 400);
  assertIcebergError(await tb.create(levels, { name: 'x', schema: sampleSchema(), properties: ['a'] }), 400);
  assertIcebergError(await tb.create(levels, { name: 'x', schema: sampleSchema(), 'stage-create': 'yes' }), 400);
  assertIcebergError(await tb.create(levels, { name: 'x', schema: { type: 'struct', fields: [{ id: 1, name: 'a', type: 'nonsense', required: true }] } }), 400);
  assertIcebergError(
    await tb.create(levels, { name: 'x', schema: sampleSchema(), 'partition-spec': { fields: [{ 'source-id': 99, name: 'p', transform: 'identity' }] } }),
    400,
  );
  assertIcebergError(
    await tb.create(levels, { name: 'x', schema: sampleSchema(), 'write-order': { 'order-id': 1, fields: [{ 'source-id': 3, transform: 'identity', direction: 'sideways', 'null-order': 'nulls-first' }] } }),
    400,
  );
  for (const name of ['..', '.', '', 'a/b', 'a\\b', 'ctl\u0001']) {
    const res = await tb.create(levels, plainRequest(name));
    assertIcebergError(res, 400);
  }

  // Path names: `..` and an encoded slash.
  for (const seg of ['..', '%2E%2E', 'a%2Fb', '.']) {
    const res = await icall(base, 'GET', `${url}/${seg}`, T_TABLE);
    assert.ok([400, 404].includes(res.status), `GET .../tables/${seg}: ${describeResponse(res)}`);
    assertIcebergError(res, res.status);
    const c = await icall(base, 'POST', `${url}/${seg}`, T_TABLE, { body: { requirements: [], updates: [] } });
    assert.ok([400, 404].includes(c.status), `POST .../tables/${seg}: ${describeResponse(c)}`);
  }
  assertIcebergError(await icall(base, 'GET', `${url}/a%2Fb`, T_TABLE), 400);

  // Commit: malformed JSON, wrong shapes.
  const turl = tb.tableUrl(levels, 't');
  assertIcebergError(await raw('POST', turl, '{"requirements": [', T_TABLE), 400, 'BadRequestException');
  assertIcebergError(await tb.commit(levels, 't', { requirements: {}, updates: [] }), 400);
  assertIcebergError(await tb.commit(levels, 't', { requirements: [], updates: 'set-properties' }), 400);
  assertIcebergError(await tb.commit(levels, 't', { requirements: [], updates: [{ action: 'set-properties', updates: { a: 1 } }] }), 400);
  assertIcebergError(await tb.commit(levels, 't', { requirements: [], updates: [{ updates: { a: 'b' } }] }), 400);
  assertIcebergError(await tb.commit(levels, 't', { requirements: [{ uuid: 'x' }], updates: [] }), 400);
  assertIcebergError(await tb.commit(levels, 't', { requirements: [{ type: 'assert-table-uuid' }], updates: [] }), 400);
  assertIcebergError(
    await tb.commit(levels, 't', { identifier: { namespace: ['bad'], name: 'other' }, requirements: [], updates: [{ action: 'set-properties', updates: { a: 'b' } }] }),
    400,
  );
  assertIcebergError(await tb.commit(levels, 't', { requirements: [], updates: [{ action: 'add-snapshot', snapshot: { 'snapshot-id': 'x' } }] }), 400);

  // Rename / register: malformed.
  assertIcebergError(await raw('POST', '/iceberg/v1/default/tables/rename', '{', T_RENAME), 400);
  assertIcebergError(await raw('POST', '/iceberg/v1/default/namespaces/bad/register', '{"name":', T_REGISTER), 400);

  // Unknown prefix.
  let res = await icall(base, 'GET', '/iceberg/v1/nope/namespaces/bad/tables', T_TABLES);
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
  res = await icall(base, 'GET', '/iceberg/v1/nope/namespaces/bad/tables/t', T_TABLE);
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
  res = await icall(base, 'POST', '/iceberg/v1/nope/namespaces/bad/tables', T_TABLES, { body: plainRequest('x') });
  assertIcebergError(res, 404, 'NoSuchWarehouseException');
  res = await icall(base, 'POST', '/v1/nope/namespaces/bad/tables/t', T_TABLE, { body: { requirements: [], updates: [{ action: 'set-properties', updates: { a: 'b' } }] } });
  assertIcebergError(res, 404, 'NoSuchWarehouseException');

  assert.deepEqual(await snapshotState(), before, 'bad input changed the catalog');
  assert.ok(s);
  const health = await call(base, 'GET', '/health');
  assert.equal(health.status, 200);
});

it('the same tables through /iceberg/v1, /v1/default and /v1 routes', async () => {
  const levels = await freshNs(['routes']);
  const short = tableApi(base, '/v1');
  const mid = tableApi(base, '/v1/default');
  const noPrefix = tableApi(base, '/iceberg/v1');
  const created = await short.mustCreate(levels, plainRequest('a'));
  for (const api of [tb, short, mid, noPrefix]) {
    const l = await api.mustLoad(levels, 'a');
    assert.equal(l['metadata-location'], created['metadata-location'], api.root);
  }
  await mid.mustCommit(levels, 'a', appendCommit(created.metadata, 11));
  assert.equal((await noPrefix.mustLoad(levels, 'a')).metadata['current-snapshot-id'], 11);
  assert.deepEqual(await short.mustList(levels), [{ namespace: ['routes'], name: 'a' }]);
  const r = await noPrefix.rename({ namespace: levels, name: 'a' }, { namespace: levels, name: 'b' });
  assert.equal(r.status, 204, describeResponse(r));
  assert.equal((await tb.head(levels, 'b')).status, 204);
  assert.equal((await short.drop(levels, 'b', true)).status, 204);
  assert.deepEqual(await tb.mustList(levels), []);
});

it('metrics report -> 204; missing table -> 404; malformed -> 400', async () => {
  const levels = await freshNs(['met']);
  const s = await tableWithSnapshots(levels, 't', 1);
  const report = {
    'report-type': 'commit-report',
    'table-name': 'met.t',
    'snapshot-id': 1001,
    'sequence-number': 1,
    operation: 'append',
    metrics: { 'total-duration': { count: 1, 'time-unit': 'nanoseconds', 'total-duration': 1000 } },
  };
  let res = await tb.metrics(levels, 't', report);
  assert.equal(res.status, 204, describeResponse(res));
  assert.equal(res.text, '');
  res = await tb.metrics(levels, 't', {
    'report-type': 'scan-report',
    'table-name': 'met.t',
    'snapshot-id': 1001,
    filter: true,
    'schema-id': 0,
    'projected-field-ids': [1],
    'projected-field-names': ['id'],
    metrics: {},
  });
  assert.equal(res.status, 204, describeResponse(res));
  assertIcebergError(await tb.metrics(levels, 'nope', report), 404, 'NoSuchTableException');
  assertIcebergError(await icall(base, 'POST', `${tb.tableUrl(levels, 't')}/metrics`, '/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics', { rawBody: '{' }), 400);
  assert.equal((await tb.mustLoad(levels, 't'))['metadata-location'], s['metadata-location']);
});
