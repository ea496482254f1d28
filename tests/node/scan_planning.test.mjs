// Server-side scan planning (issue 17) on a real table: Parquet data files written with
// hyparquet-writer, manifests and manifest lists with avsc in Java's schemas, committed
// through the REST API. Every plan is checked file by file against the files whose
// partitions and statistics can match, and the rows of the planned files (read with
// hyparquet, an independent reader) against all rows filtered. Answers are validated
// against the spec's schemas (lib/files.mjs).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { parquetWriteBuffer } from 'hyparquet-writer';
import { parquetReadObjects } from 'hyparquet';

import { call, describeResponse } from './lib/http.mjs';
import { mustCommit, mustLoad, startCatalog } from './lib/files.mjs';
import { validateResponse } from './lib/spec.mjs';
import { single, statsMap } from './lib/iceberg_avro.mjs';
import { appendSnapshot, writeManifest, writeManifestList } from './lib/iceberg_snapshots.mjs';

const T_PLAN = '/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan';
const T_PLAN_ID = '/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}';
const T_TASKS = '/v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks';

let cat;
const snapshots = {};
const dataFiles = {};  // name -> {path, rows}
let deleteFiles = {};

const tableUrl = (name) => `/iceberg/v1/default/namespaces/ns/tables/${name}`;

async function planCall(method, target, template, body, headers = {}) {
  const res = await call(cat.base, method, target, { body, headers, timeoutMs: 30_000 });
  validateResponse(method, template, res.status, res.json ?? res.text);
  return res;
}
const plan = (table, body, headers) => planCall('POST', `${tableUrl(table)}/plan`, T_PLAN, body, headers);
const fetchResult = (table, id) => planCall('GET', `${tableUrl(table)}/plan/${encodeURIComponent(id)}`, T_PLAN_ID);
const cancel = (table, id) => planCall('DELETE', `${tableUrl(table)}/plan/${encodeURIComponent(id)}`, T_PLAN_ID);
const tasks = (table, planTask) => planCall('POST', `${tableUrl(table)}/tasks`, T_TASKS, { 'plan-task': planTask });

async function mustPlan(table, body) {
  const res = await plan(table, body);
  assert.equal(res.status, 200, `plan ${JSON.stringify(body)}: ${describeResponse(res)}`);
  assert.equal(res.json.status, 'completed', JSON.stringify(res.json).slice(0, 500));
  return res.json;
}

// Every file-scan task of a completed plan, following its plan tasks.
async function allTasks(table, answer) {
  const out = [];
  const collect = (page) => {
    for (const task of page['file-scan-tasks'] ?? []) {
      const deletes = (task['delete-file-references'] ?? []).map((i) => page['delete-files'][i]);
      out.push({ ...task, deletes });
    }
  };
  collect(answer);
  const queue = [...(answer['plan-tasks'] ?? [])];
  while (queue.length > 0) {
    const res = await tasks(table, queue.shift());
    assert.equal(res.status, 200, describeResponse(res));
    collect(res.json);
    queue.push(...(res.json['plan-tasks'] ?? []));
  }
  return out;
}

const namesOf = (taskList) => taskList.map((t) => {
  const found = Object.entries(dataFiles).find(([, f]) => f.path === t['data-file']['file-path']);
  return found ? found[0] : t['data-file']['file-path'];
}).sort();

async function planNames(body) {
  return namesOf(await allTasks('events', await mustPlan('events', body)));
}

function parquetFile(ids, category) {
  const values = ids.map((id) => id * 1.5);
  return Buffer.from(parquetWriteBuffer({
    columnData: [
      { name: 'id', data: ids.map(BigInt), type: 'INT64' },
      { name: 'category', data: ids.map(() => category), type: 'STRING' },
      { name: 'value', data: values, type: 'DOUBLE' },
    ],
  }));
}

function fileEntry(location, name, first, category) {
  const ids = Array.from({ length: 10 }, (_, i) => first + i);
  const bytes = parquetFile(ids, category);
  const path = `${location}/data/${name}.parquet`;
  dataFiles[name] = { path, ids };
  return {
    path, bytes, records: 10, size: bytes.length, partition: { category },
    extra: {
      value_counts: statsMap({ 1: 10n, 2: 10n, 3: 10n }),
      null_value_counts: statsMap({ 1: 0n, 2: 0n, 3: 0n }),
      lower_bounds: statsMap({ 1: single.long(ids[0]), 2: single.string(category), 3: single.double(ids[0] * 1.5) }),
      upper_bounds: statsMap({ 1: single.long(ids[9]), 2: single.string(category), 3: single.double(ids[9] * 1.5) }),
    },
  };
}

const partitionFields = [{ id: 1000, name: 'category', type: 'string' }];

before(async () => {
  cat = await startCatalog();
  const created = await cat.ice.createTable(['ns'], {
    name: 'events',
    schema: { type: 'struct', 'schema-id': 0, fields: [
      { id: 1, name: 'id', type: 'long', required: true },
      { id: 2, name: 'category', type: 'string', required: false },
      { id: 3, name: 'value', type: 'double', required: false },
    ] },
    'partition-spec': { 'spec-id': 0, fields: [{ name: 'category', transform: 'identity', 'source-id': 2, 'field-id': 1000 }] },
  });
  assert.equal(created.status, 200, describeResponse(created));
  const location = created.json.metadata.location;
  let metadata = created.json.metadata;
  const s1 = await appendSnapshot(metadata, [
    fileEntry(location, 'a1', 1, 'a'), fileEntry(location, 'a2', 11, 'a'),
    fileEntry(location, 'b1', 21, 'b'), fileEntry(location, 'b2', 31, 'b'),
  ], { partitionFields });
  await mustCommit(cat, 'events', s1.commit);
  snapshots.s1 = s1.id;
  metadata = (await mustLoad(cat, 'events')).metadata;
  const s2 = await appendSnapshot(metadata, [
    fileEntry(location, 'c1', 41, 'c'), fileEntry(location, 'c2', 51, 'c'),
  ], { partitionFields, previous: s1.manifests });
  await mustCommit(cat, 'events', s2.commit);
  snapshots.s2 = s2.id;
  snapshots.afterAppends = s2.manifests;
});

after(async () => { await cat?.cleanup(); });

// Rows of the named data files (read with hyparquet), minus nothing: the filters below
// are checked on rows.
async function rowsOf(names) {
  const rows = [];
  for (const name of names) {
    const bytes = readFileSync(fileURLToPath(dataFiles[name].path));
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    rows.push(...await parquetReadObjects({ file }));
  }
  return rows.map((r) => ({ id: Number(r.id), category: r.category, value: r.value }))
    .sort((x, y) => x.id - y.id);
}

const FILTERS = [
  { what: 'category = b (old form)', filter: { type: 'eq', term: 'category', value: 'b' },
    files: ['b1', 'b2'], row: (r) => r.category === 'b' },
  { what: 'id >= 55 (bounds prune the rest)', filter: { type: 'gt-eq', term: 'id', value: 55 },
    files: ['c2'], row: (r) => r.id >= 55 },
  { what: 'id < 5 (new left/right form)',
    filter: { type: 'lt', left: { type: 'reference', name: 'id' }, right: { type: 'literal', value: 5 } },
    files: ['a1'], row: (r) => r.id < 5 },
  { what: 'not(category = a) and id < 25',
    filter: { type: 'and', left: { type: 'not', child: { type: 'eq', term: 'category', value: 'a' } },
              right: { type: 'lt', term: 'id', value: 25 } },
    files: ['b1'], row: (r) => r.category !== 'a' && r.id < 25 },
  { what: 'category in (a, c)', filter: { type: 'in', term: 'category', values: ['a', 'c'] },
    files: ['a1', 'a2', 'c1', 'c2'], row: (r) => ['a', 'c'].includes(r.category) },
  { what: 'starts-with(category, b) or value > 80.0',
    filter: { type: 'or', left: { type: 'starts-with', term: 'category', value: 'b' },
              right: { type: 'gt', term: 'value', value: 80.0 } },
    files: ['b1', 'b2', 'c2'], row: (r) => r.category.startsWith('b') || r.value > 80 },
  { what: 'category is null', filter: { type: 'is-null', term: 'category' }, files: [], row: () => false },
  { what: 'true', filter: true, files: ['a1', 'a2', 'b1', 'b2', 'c1', 'c2'], row: () => true },
];

for (const c of FILTERS) {
  test(`plan with ${c.what}: exactly the files that can match, and the same rows as filtering all`, async () => {
    const names = await planNames({ filter: c.filter });
    assert.deepEqual(names, [...c.files].sort(), `planned files for ${c.what}`);
    const everything = await rowsOf(Object.keys(dataFiles));
    const planned = await rowsOf(names);
    assert.deepEqual(planned.filter(c.row), everything.filter(c.row), `rows of ${c.what}`);
  });
}

test('a completed plan carries the data file as Java writes it, with a residual', async () => {
  const answer = await mustPlan('events', { filter: { type: 'eq', term: 'category', value: 'b' }, 'stats-fields': ['id'] });
  assert.match(answer['plan-id'], /^sync-/);
  assert.ok(!('plan-tasks' in answer), 'one page: no plan tasks');
  const task = answer['file-scan-tasks'].find((t) => t['data-file']['file-path'] === dataFiles.b1.path);
  const file = task['data-file'];
  assert.equal(file.content, 'data');
  assert.equal(file['file-format'], 'parquet');
  assert.deepEqual(file.partition, ['b']);
  assert.equal(file['record-count'], 10);
  assert.equal(file['spec-id'], 0);
  // Only the stats fields asked for, bounds as upper-case hex of the binary form.
  assert.deepEqual(file['lower-bounds'], { keys: [1], values: ['1500000000000000'] });
  assert.deepEqual(file['upper-bounds'], { keys: [1], values: ['1E00000000000000'] });
  assert.deepEqual(task['residual-filter'], { type: 'eq', term: 'category', value: 'b' });
  const plain = await mustPlan('events', {});
  assert.ok(!('lower-bounds' in plain['file-scan-tasks'][0]['data-file']), 'no stats without stats-fields');
  assert.equal(plain['file-scan-tasks'][0]['residual-filter'], true);
});

test('snapshot-id plans that snapshot; an incremental plan only the files appended after the start', async () => {
  assert.deepEqual(await planNames({ 'snapshot-id': snapshots.s1 }), ['a1', 'a2', 'b1', 'b2']);
  assert.deepEqual(await planNames({ 'start-snapshot-id': snapshots.s1, 'end-snapshot-id': snapshots.s2 }), ['c1', 'c2']);
  assert.deepEqual(await planNames({ 'end-snapshot-id': snapshots.s2 }), ['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
  assert.deepEqual(await planNames({ 'start-snapshot-id': snapshots.s1, 'end-snapshot-id': snapshots.s2,
                                     filter: { type: 'gt', term: 'id', value: 52 } }), ['c2']);
});

test('mistakes are 400 naming the construct; unsupported corners of the expression language too', async () => {
  const cases = [
    [{ filter: { type: 'eq', term: { type: 'transform', transform: 'bucket[4]', term: 'id' }, value: 1 } }, /transform/],
    [{ filter: { type: 'eq', left: { type: 'apply', function: 'f', arguments: [] }, right: 1 } }, /apply/],
    [{ filter: { type: 'eq', left: { type: 'reference', id: 1 }, right: 1 } }, /field id/],
    [{ filter: { type: 'eq', term: 'nope', value: 1 } }, /nope/],
    [{ filter: { type: 'lt', term: 'id', value: 'abc' } }, /conversion to type long/],
    [{ filter: { type: 'is-nan', term: 'id' } }, /float or double/],
    [{ filter: { type: 'frobnicate', term: 'id' } }, /frobnicate/],
    [{ filter: null }, /filter/],
    [{ 'snapshot-id': 1, 'start-snapshot-id': 2, 'end-snapshot-id': 3 }, /incremental/],
    [{ 'start-snapshot-id': snapshots.s1 }, /end-snapshot-id/],
    [{ 'snapshot-id': 12345 }, /12345/],
    [{ 'start-snapshot-id': snapshots.s2, 'end-snapshot-id': snapshots.s1 }, /ancestor/],
    [{ 'min-rows-requested': -1 }, /min-rows-requested/],
    [{ 'stats-fields': ['missing'] }, /missing/],
    [{ filter: { type: 'eq', term: 'ID', value: 1 } }, /ID/],
  ];
  for (const [body, pattern] of cases) {
    const res = await plan('events', body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${describeResponse(res)}`);
    assert.match(res.json.error.message, pattern, JSON.stringify(body));
  }
  // Case-insensitive binding when asked.
  assert.deepEqual(await planNames({ filter: { type: 'eq', term: 'ID', value: 1 }, 'case-sensitive': false }), ['a1']);
});

test('deletes are attached by partition, path and sequence number', async () => {
  const loaded = await mustLoad(cat, 'events');
  const location = loaded.metadata.location;
  const deletes = await appendSnapshot(loaded.metadata, [
    // Position deletes of partition a: both a files (sequence 1 and 2 <= 3).
    { path: `${location}/data/pos-a.parquet`, content: 1, records: 1, partition: { category: 'a' } },
    // Equality deletes of partition b: both b files (sequence < 3).
    { path: `${location}/data/eq-b.parquet`, content: 2, records: 1, partition: { category: 'b' },
      extra: { equality_ids: [1] } },
    // A deletion vector of c1 only (a v3 manifest: DVs are v3's).
    { path: `${location}/data/dv.puffin`, content: 1, records: 2, format: 'PUFFIN', partition: { category: 'c' },
      extra: { referenced_data_file: dataFiles.c1.path, content_offset: 4n, content_size_in_bytes: 40n } },
  ], { partitionFields, previous: snapshots.afterAppends, content: 1, operation: 'overwrite', formatVersion: 3 });
  await mustCommit(cat, 'events', deletes.commit);
  const taskList = await allTasks('events', await mustPlan('events', {}));
  const byName = Object.fromEntries(namesOf(taskList).map((n, i) => [n, null]));
  for (const task of taskList) {
    const name = namesOf([task])[0];
    byName[name] = task.deletes.map((d) => d['file-path'].split('/').pop()).sort();
  }
  assert.deepEqual(byName, {
    a1: ['pos-a.parquet'], a2: ['pos-a.parquet'], b1: ['eq-b.parquet'], b2: ['eq-b.parquet'],
    c1: ['dv.puffin'], c2: [],
  });
  const dv = taskList.find((t) => t['data-file']['file-path'] === dataFiles.c1.path).deletes[0];
  assert.equal(dv.content, 'position-deletes');
  assert.equal(dv['file-format'], 'puffin');
  assert.equal(dv['referenced-data-file'], dataFiles.c1.path);
  assert.equal(dv['content-offset'], 4);
  const eq = taskList.find((t) => t['data-file']['file-path'] === dataFiles.b1.path).deletes[0];
  assert.deepEqual(eq['equality-ids'], [1]);
  // An older snapshot has none of them.
  const old = await allTasks('events', await mustPlan('events', { 'snapshot-id': snapshots.s2 }));
  assert.ok(old.every((t) => t.deletes.length === 0));
});

test('LoadTable and /v1/config tell clients that server-side planning is served', async () => {
  const loaded = await mustLoad(cat, 'events');
  assert.equal(loaded.config['scan-planning-mode'], 'server');
  const config = await call(cat.base, 'GET', '/iceberg/v1/config');
  for (const endpoint of ['POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan',
                          'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}',
                          'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}',
                          'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks']) {
    assert.ok(config.json.endpoints.includes(endpoint), endpoint);
  }
  assert.equal(config.json.defaults['scan-planning-mode'], 'server');
});

test('a large plan pages through plan-tasks; cancel forgets it; a plan of another table is not found', async () => {
  const created = await cat.ice.createTable(['ns'], {
    name: 'many', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] },
  });
  assert.equal(created.status, 200, describeResponse(created));
  const location = created.json.metadata.location;
  const files = Array.from({ length: 2500 }, (_, i) => ({ path: `${location}/data/f${i}.parquet`, records: 1 }));
  const written = await appendSnapshot(created.json.metadata, files, { writeData: false });
  await mustCommit(cat, 'many', written.commit);
  const answer = await mustPlan('many', {});
  assert.equal(answer['file-scan-tasks'].length, 1000);
  assert.equal(answer['plan-tasks'].length, 2);
  const all = await allTasks('many', answer);
  assert.equal(all.length, 2500);
  assert.equal(new Set(all.map((t) => t['data-file']['file-path'])).size, 2500, 'every file once');
  // min-rows-requested stops at enough rows.
  const few = await mustPlan('many', { 'min-rows-requested': 3 });
  assert.equal(few['file-scan-tasks'].length, 3);
  assert.ok(!('plan-tasks' in few));
  // Another table's path does not find the plan or its tasks.
  const elsewhere = await fetchResult('events', answer['plan-id']);
  assert.equal(elsewhere.status, 404);
  assert.equal(elsewhere.json.error.type, 'NoSuchPlanIdException');
  assert.equal((await tasks('events', answer['plan-tasks'][0])).json.error.type, 'NoSuchPlanTaskException');
  // A completed plan can be fetched again, then cancelled once.
  const again = await fetchResult('many', answer['plan-id']);
  assert.equal(again.status, 200);
  assert.equal(again.json.status, 'completed');
  assert.ok(!('plan-id' in again.json));
  assert.equal((await cancel('many', answer['plan-id'])).status, 204);
  const gone = await cancel('many', answer['plan-id']);
  assert.equal(gone.status, 404);
  assert.equal(gone.json.error.type, 'NoSuchPlanIdException');
  const task = await tasks('many', answer['plan-tasks'][0]);
  assert.equal(task.status, 404);
  assert.equal(task.json.error.type, 'NoSuchPlanTaskException');
  assert.equal((await tasks('many', 'not-a-task')).status, 404);
});

test('a plan that must read many manifests is submitted, planned in the background, then fetched', async () => {
  const own = await startCatalog({ args: ['--scan-plan-async-manifest-bytes', '0'] });
  try {
    const created = await own.ice.createTable(['ns'], {
      name: 't', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] },
    });
    const location = created.json.metadata.location;
    const written = await appendSnapshot(created.json.metadata, [{ path: `${location}/data/x.parquet`, records: 4 }]);
    const committed = await own.ice.commitTable(['ns'], 't', written.commit);
    assert.equal(committed.status, 200, describeResponse(committed));
    const target = '/iceberg/v1/default/namespaces/ns/tables/t/plan';
    const submitted = await call(own.base, 'POST', target, { body: {} });
    validateResponse('POST', T_PLAN, submitted.status, submitted.json);
    assert.equal(submitted.json.status, 'submitted');
    assert.match(submitted.json['plan-id'], /^async-/);
    assert.ok(!('file-scan-tasks' in submitted.json) && !('plan-tasks' in submitted.json));
    let result;
    for (let i = 0; i < 100; i++) {
      result = await call(own.base, 'GET', `${target}/${submitted.json['plan-id']}`);
      validateResponse('GET', T_PLAN_ID, result.status, result.json);
      if (result.json.status !== 'submitted') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(result.json.status, 'completed');
    assert.deepEqual(result.json['file-scan-tasks'].map((t) => t['data-file']['file-path']), [`${location}/data/x.parquet`]);
    // Planned once, the manifests are cached: the next plan of the table completes at once.
    const next = await call(own.base, 'POST', target, { body: {} });
    assert.equal(next.json.status, 'completed');
  } finally {
    await own.cleanup();
  }
});

test('a selective plan whose manifests the partition summaries rule out completes at once', async () => {
  const own = await startCatalog({ args: ['--scan-plan-async-manifest-bytes', '0'] });
  try {
    const created = await own.ice.createTable(['ns'], {
      name: 'p',
      schema: { type: 'struct', 'schema-id': 0, fields: [
        { id: 1, name: 'id', type: 'long', required: true }, { id: 2, name: 'category', type: 'string', required: false },
      ] },
      'partition-spec': { 'spec-id': 0, fields: [{ name: 'category', transform: 'identity', 'source-id': 2, 'field-id': 1000 }] },
    });
    assert.equal(created.status, 200, describeResponse(created));
    const metadata = created.json.metadata;
    const location = metadata.location;
    const snapshotId = 77;
    const entry = await writeManifest(`${location}/metadata/m-a.avro`, [fileEntry(location, 'a1', 1, 'a')],
                                      { snapshotId, sequenceNumber: 1, partitionFields });
    // The manifest list says what the manifest holds: category = 'a' only.
    entry.partitions = [{ contains_null: false, contains_nan: false, lower_bound: Buffer.from('a'), upper_bound: Buffer.from('a') }];
    const list = `${location}/metadata/snap-${snapshotId}.avro`;
    await writeManifestList(list, [entry], { snapshotId, sequenceNumber: 1 });
    const snapshot = { 'snapshot-id': snapshotId, 'sequence-number': 1, 'timestamp-ms': Date.now(),
                       'manifest-list': list, summary: { operation: 'append' }, 'schema-id': 0 };
    await mustCommit(own, 'p', {
      requirements: [],
      updates: [{ action: 'add-snapshot', snapshot },
                { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId }],
    });
    const target = '/iceberg/v1/default/namespaces/ns/tables/p/plan';
    const none = await call(own.base, 'POST', target, { body: { filter: { type: 'eq', term: 'category', value: 'z' } } });
    assert.equal(none.status, 200, describeResponse(none));
    assert.equal(none.json.status, 'completed', 'a plan that reads no manifest was sent to the background');
    assert.deepEqual(none.json['file-scan-tasks'], []);
    const some = await call(own.base, 'POST', target, { body: { filter: { type: 'eq', term: 'category', value: 'a' } } });
    assert.equal(some.json.status, 'submitted', 'a plan that reads an uncached manifest completed at once');
  } finally {
    await own.cleanup();
  }
});
