// Iceberg metrics reports kept in the store (issue 18): reportMetrics bodies come back per
// table through the management API — by time range, type and page, validated against
// docs/management-api.yaml — survive a restart, go with their table, and are pruned after
// metrics-report-retention-s.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';

import { call, describeResponse } from './lib/http.mjs';
import { icall, T_METRICS } from './lib/catalog.mjs';
import { assertManagementAnswer } from './lib/management_spec.mjs';
import { startCatalog } from './lib/files.mjs';
import { startServer } from './lib/server.mjs';

const TEMPLATE = '/management/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/metrics-reports';

let cat;
before(async () => { cat = await startCatalog(); });
after(async () => { await cat?.cleanup(); });

const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', type: 'long', required: true }] };

async function createTable(base, name) {
  const res = await call(base, 'POST', '/iceberg/v1/default/namespaces/ns/tables', { body: { name, schema } });
  assert.equal(res.status, 200, describeResponse(res));
}

const commitReport = (table, sequence) => ({
  'report-type': 'commit-report', 'table-name': `ns.${table}`, 'snapshot-id': 1000 + sequence,
  'sequence-number': sequence, operation: 'append',
  metrics: { 'total-duration': { count: 1, 'time-unit': 'nanoseconds', 'total-duration': 1234 } },
});
const scanReport = (table) => ({
  'report-type': 'scan-report', 'table-name': `ns.${table}`, 'snapshot-id': 1001, filter: true,
  'schema-id': 0, 'projected-field-ids': [1], 'projected-field-names': ['id'], metrics: {},
});

async function report(base, table, body) {
  const res = await icall(base, 'POST', `/iceberg/v1/default/namespaces/ns/tables/${table}/metrics`, T_METRICS, { body });
  assert.equal(res.status, 204, describeResponse(res));
}

async function list(base, table, query = '') {
  const res = await call(base, 'GET', `/management/v1/catalogs/default/namespaces/ns/tables/${table}/metrics-reports${query}`);
  return assertManagementAnswer('GET', TEMPLATE, res);
}

async function mustList(base, table, query = '') {
  const res = await list(base, table, query);
  assert.equal(res.status, 200, describeResponse(res));
  return res.json;
}

test('reports come back per table, oldest first, as sent; by type, time range and page', async () => {
  await createTable(cat.base, 't');
  await createTable(cat.base, 'u');
  const before = Date.now();
  await report(cat.base, 't', commitReport('t', 1));
  await report(cat.base, 'u', scanReport('u'));
  await report(cat.base, 't', scanReport('t'));
  await report(cat.base, 't', commitReport('t', 2));

  const all = await mustList(cat.base, 't');
  assert.deepEqual(all.reports.map((r) => r.report), [commitReport('t', 1), scanReport('t'), commitReport('t', 2)]);
  assert.deepEqual(all.reports.map((r) => r['report-type']), ['commit-report', 'scan-report', 'commit-report']);
  assert.ok(all.reports.every((r) => r['reported-at-ms'] >= before - 1000 && r['reported-at-ms'] <= Date.now() + 1000));
  assert.equal(all['next-page-token'], undefined);
  assert.deepEqual((await mustList(cat.base, 'u')).reports.map((r) => r.report), [scanReport('u')]);

  const commits = await mustList(cat.base, 't', '?report-type=commit-report');
  assert.deepEqual(commits.reports.map((r) => r.report['sequence-number']), [1, 2]);

  const first = await mustList(cat.base, 't', '?pageSize=2');
  assert.equal(first.reports.length, 2);
  assert.ok(first['next-page-token']);
  const rest = await mustList(cat.base, 't', `?pageSize=2&pageToken=${first['next-page-token']}`);
  assert.deepEqual(rest.reports.map((r) => r.report), [commitReport('t', 2)]);
  assert.equal(rest['next-page-token'], undefined);

  const last = all.reports[2]['reported-at-ms'];
  const upTo = await mustList(cat.base, 't', `?from-ms=${before - 1000}&to-ms=${last}`);
  assert.ok(upTo.reports.every((r) => r['reported-at-ms'] < last));
  assert.equal((await mustList(cat.base, 't', `?from-ms=${last + 1}`)).reports.length, 0);
});

test('bad parameters are 400 naming them; a missing table or catalog is 404', async () => {
  for (const [query, word] of [['?from-ms=soon', 'from-ms'], ['?from-ms=5&to-ms=4', 'from-ms'],
    ['?pageSize=0', 'pageSize'], ['?pageToken=abc', 'pageToken']]) {
    const res = await list(cat.base, 't', query);
    assert.equal(res.status, 400, `${query}: ${describeResponse(res)}`);
    assert.match(res.json.error.message, new RegExp(word));
  }
  assert.equal((await list(cat.base, 'missing')).status, 404);
  const noCatalog = await call(cat.base, 'GET', '/management/v1/catalogs/nope/namespaces/ns/tables/t/metrics-reports');
  assert.equal(assertManagementAnswer('GET', TEMPLATE, noCatalog).status, 404);
});

test('reports survive a restart; a dropped and re-created table starts with none', async () => {
  const server = await startServer();
  try {
    const base = server.url;
    const ns = await call(base, 'POST', '/iceberg/v1/default/namespaces', { body: { namespace: ['ns'] } });
    assert.equal(ns.status, 200, describeResponse(ns));
    await createTable(base, 'kept');
    await report(base, 'kept', commitReport('kept', 1));
    await server.stop();
    const again = await startServer({ dataDir: server.dataDir });
    try {
      const listed = await mustList(again.url, 'kept');
      assert.deepEqual(listed.reports.map((r) => r.report), [commitReport('kept', 1)]);
      const dropped = await call(again.url, 'DELETE', '/iceberg/v1/default/namespaces/ns/tables/kept');
      assert.equal(dropped.status, 204, describeResponse(dropped));
      assert.equal((await list(again.url, 'kept')).status, 404);
      await createTable(again.url, 'kept');
      assert.deepEqual((await mustList(again.url, 'kept')).reports, []);
    } finally {
      await again.stop();
    }
  } finally {
    await server.cleanup();
  }
});

test('reports older than metrics-report-retention-s are pruned; 0 keeps none', async () => {
  for (const [retention, expectKept] of [['1', true], ['0', false]]) {
    const server = await startServer({ args: ['--metrics-report-retention-s', retention] });
    try {
      const base = server.url;
      await call(base, 'POST', '/iceberg/v1/default/namespaces', { body: { namespace: ['ns'] } });
      await createTable(base, 't');
      await report(base, 't', scanReport('t'));
      const kept = (await mustList(base, 't')).reports.length;
      assert.equal(kept, expectKept ? 1 : 0, `retention ${retention}`);
      if (!expectKept) continue;
      // The pruner runs every second with a one-second retention: gone within a few.
      const deadline = Date.now() + 15_000;
      let left = kept;
      while (left > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        left = (await mustList(base, 't')).reports.length;
      }
      assert.equal(left, 0, 'the report outlived its retention');
    } finally {
      await server.cleanup();
    }
  }
});
