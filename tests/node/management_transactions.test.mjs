// The management API's Lance transactions (issue 18): listed by id a page at a time,
// filtered by state; every answer validated against docs/management-api.yaml.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';

import { call, describeResponse } from './lib/http.mjs';
import * as lancedb from '@lancedb/lancedb';
import { startServer } from './lib/server.mjs';
import { lance, waitForTransaction } from './lib/lance.mjs';
import { grant, principalWith, startSecuredServer } from './lib/auth.mjs';
import { assertManagementAnswer } from './lib/management_spec.mjs';

const LIST = '/management/v1/transactions';

async function transactions(base, query = '', headers = {}) {
  return assertManagementAnswer('GET', LIST, await call(base, 'GET', `${LIST}${query}`, { headers }));
}

let srv;
let db;
before(async () => {
  // Every drop's files go in the background, as a transaction.
  srv = await startServer({ config: { 'lance-async-drop-files': 0 } });
  db = await lancedb.connectNamespace('rest', { uri: `${srv.url}/lance` });
  await db.createNamespace(['default', 'ns']);
});
after(async () => { await srv?.cleanup(); });

/** Creates (with LanceDB) and drops Lance table `name`: its drop's transaction once ended. */
async function droppedTable(name) {
  await db.createTable(name, [{ id: 1 }], ['default', 'ns']);
  const dropped = await call(srv.url, 'POST', `/lance/v1/table/default%24ns%24${name}/drop?delimiter=%24`, { body: {} });
  assert.equal(dropped.status, 200, describeResponse(dropped));
  const txid = dropped.json.transaction_id;
  assert.equal(typeof txid, 'string', `drop of ${name} names no transaction: ${dropped.text}`);
  const { body } = await waitForTransaction(lance(srv.url), txid, { spec: 'latest' });
  return { txid, status: body.status };
}

test('transactions are listed by id, a page at a time, and filtered by state', async () => {
  const done = [];
  for (const name of ['t1', 't2', 't3']) done.push(await droppedTable(name));
  for (const { status } of done) assert.equal(status, 'SUCCEEDED');
  const ids = done.map((d) => d.txid).sort();

  const all = (await transactions(srv.url)).json;
  assert.deepEqual(all.transactions.map((t) => t.id), ids);
  assert.equal(all['next-page-token'], undefined);
  for (const t of all.transactions) {
    assert.equal(t.status, 'SUCCEEDED');
    assert.ok(t['updated-at-ms'] >= t['created-at-ms'] && t['created-at-ms'] > 0);
  }

  // Paged: 2, then the rest.
  const first = (await transactions(srv.url, '?pageSize=2')).json;
  assert.deepEqual(first.transactions.map((t) => t.id), ids.slice(0, 2));
  const rest = (await transactions(srv.url, `?pageSize=2&pageToken=${encodeURIComponent(first['next-page-token'])}`)).json;
  assert.deepEqual(rest.transactions.map((t) => t.id), ids.slice(2));
  assert.equal(rest['next-page-token'], undefined);

  // By state, in any case.
  assert.deepEqual((await transactions(srv.url, '?status=succeeded')).json.transactions.length, 3);
  assert.deepEqual((await transactions(srv.url, '?status=QUEUED,RUNNING')).json.transactions, []);

  // /metrics counts them by state, from the store (counted every 2 s in the background).
  const gauge = (text, state) => Number(text.match(new RegExp(`^cairn_lance_transactions\\{status="${state}"\\} (\\S+)$`, 'm'))?.[1]);
  let scraped;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    scraped = await call(srv.url, 'GET', '/metrics');
    assert.equal(scraped.status, 200);
    if (gauge(scraped.text, 'SUCCEEDED') === 3) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(gauge(scraped.text, 'SUCCEEDED'), 3, scraped.text);
  for (const state of ['QUEUED', 'RUNNING', 'FAILED', 'CANCELED']) assert.equal(gauge(scraped.text, state), 0, state);

  const bad = await transactions(srv.url, '?status=DONE');
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /DONE/);
  assert.equal((await transactions(srv.url, '?pageSize=1001')).status, 400);
});

test('with auth on, only the service admin lists transactions', async () => {
  const secured = await startSecuredServer();
  try {
    const manager = await principalWith(secured, 'manager', [grant('CATALOG_MANAGE', 'catalog', { catalog: 'default' })]);
    assert.equal((await transactions(secured.url, '', { Authorization: `Bearer ${manager.token}` })).status, 403);
    assert.equal((await transactions(secured.url, '', { Authorization: `Bearer ${secured.rootToken}` })).status, 200);
    assert.equal((await transactions(secured.url)).status, 401);
  } finally {
    await secured.cleanup();
  }
});
