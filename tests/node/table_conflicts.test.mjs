// Optimistic concurrency on one table: 8 clients each append 50 snapshots the way the Java
// client does (add-snapshot with parent = current main and sequence-number = last + 1, plus
// set-snapshot-ref main, guarded by assert-ref-snapshot-id main <current>); a 409 means
// "reload and retry". Afterwards the table must hold exactly one linear history of 400
// snapshots, and every metadata file must hold exactly the version the API returned for it.

import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import http from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startServer, withServerLog } from './lib/server.mjs';
import { describeResponse } from './lib/http.mjs';
import { validateResponse, assertIcebergError } from './lib/spec.mjs';
import { catalog, tableApi, agentCall, appendCommit, sampleSchema, localPath, readMetadataFile, T_TABLE } from './lib/catalog.mjs';

const CLIENTS = 8;
const PER_CLIENT = 50;
const TOTAL = CLIENTS * PER_CLIENT;
const MAX_ATTEMPTS_PER_CLIENT = 20_000; // livelock guard

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.cleanup();
});

const NS = ['conc'];
const tablePath = `/iceberg/v1/default/namespaces/conc/tables/hot`;

/** One client: appends PER_CLIENT snapshots, reloading and retrying on 409. */
async function runClient(index, base, committed, stats) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const load = async () => {
      const res = await agentCall(agent, base, 'GET', tablePath);
      validateResponse('GET', T_TABLE, res.status, res.json ?? res.text);
      assert.equal(res.status, 200, `client ${index} load: ${describeResponse(res)}`);
      return res.json.metadata;
    };
    let metadata = await load();
    let done = 0;
    let attempts = 0;
    while (done < PER_CLIENT) {
      assert.ok(++attempts <= MAX_ATTEMPTS_PER_CLIENT, `client ${index}: no progress after ${attempts} attempts (livelock?)`);
      const snapshotId = (index + 1) * 1_000_000 + done + 1;
      const body = appendCommit(metadata, snapshotId);
      const res = await agentCall(agent, base, 'POST', tablePath, { body });
      validateResponse('POST', T_TABLE, res.status, res.json ?? res.text);
      if (res.status === 200) {
        const loc = res.json['metadata-location'];
        assert.ok(!committed.has(loc), `metadata-location ${loc} returned for two commits`);
        committed.set(loc, { metadata: res.json.metadata, snapshotId, client: index });
        metadata = res.json.metadata;
        assert.equal(metadata.refs.main['snapshot-id'], snapshotId, `client ${index}: the committed snapshot is not main`);
        done++;
        stats.ok++;
      } else if (res.status === 409) {
        assertIcebergError(res, 409, 'CommitFailedException');
        stats.conflicts++;
        metadata = await load();
      } else {
        assert.fail(`client ${index}: unexpected commit response ${describeResponse(res)}`);
      }
    }
  } finally {
    agent.destroy();
  }
}

test(
  `${CLIENTS} concurrent clients x ${PER_CLIENT} appends -> one linear history of ${TOTAL} snapshots; metadata files match the API`,
  { timeout: 120_000 },
  withServerLog(
    () => server,
    async (t) => {
      const base = server.url;
      await catalog(base).mustCreate(NS);
      const tb = tableApi(base);
      const created = await tb.mustCreate(NS, { name: 'hot', schema: sampleSchema() });

      /** metadata-location -> {metadata, snapshotId} for every 200 the clients got. */
      const committed = new Map();
      committed.set(created['metadata-location'], { metadata: created.metadata, snapshotId: null, client: -1 });
      const stats = { ok: 0, conflicts: 0 };
      const t0 = Date.now();
      await Promise.all(Array.from({ length: CLIENTS }, (_, i) => runClient(i, base, committed, stats)));
      const elapsed = Date.now() - t0;
      t.diagnostic(`${stats.ok} commits, ${stats.conflicts} conflicts (409 + reload), ${elapsed} ms`);
      assert.equal(stats.ok, TOTAL);

      const final = await tb.mustLoad(NS, 'hot');
      const md = final.metadata;
      // Exactly the acknowledged snapshots, once each.
      const acked = [...committed.values()].filter((v) => v.snapshotId !== null).map((v) => v.snapshotId);
      assert.equal(md.snapshots.length, TOTAL, `expected ${TOTAL} snapshots, got ${md.snapshots.length}`);
      assert.deepEqual(
        md.snapshots.map((s) => s['snapshot-id']).sort((a, b) => a - b),
        acked.sort((a, b) => a - b),
        'the snapshots are not exactly the acknowledged ones',
      );
      assert.equal(md['last-sequence-number'], TOTAL);

      // One parent chain from the current snapshot back to the first, no forks.
      const byId = new Map(md.snapshots.map((s) => [s['snapshot-id'], s]));
      const children = new Map();
      for (const s of md.snapshots) {
        const p = s['parent-snapshot-id'];
        if (p === undefined || p === null) continue;
        assert.ok(byId.has(p), `snapshot ${s['snapshot-id']} has unknown parent ${p}`);
        assert.ok(!children.has(p), `fork: ${p} is the parent of both ${children.get(p)} and ${s['snapshot-id']}`);
        children.set(p, s['snapshot-id']);
      }
      const roots = md.snapshots.filter((s) => s['parent-snapshot-id'] === undefined || s['parent-snapshot-id'] === null);
      assert.equal(roots.length, 1, `expected one first snapshot, got ${roots.map((s) => s['snapshot-id'])}`);
      const chain = [];
      for (let id = md['current-snapshot-id']; id !== undefined && id !== null; id = byId.get(id)['parent-snapshot-id']) {
        chain.push(id);
        assert.ok(chain.length <= TOTAL, 'cycle in the parent chain');
      }
      chain.reverse();
      assert.equal(chain.length, TOTAL, 'the parent chain from the current snapshot does not reach every snapshot');
      assert.equal(chain[0], roots[0]['snapshot-id']);
      chain.forEach((id, i) => assert.equal(byId.get(id)['sequence-number'], i + 1, `sequence number of ${id} (position ${i + 1})`));
      assert.deepEqual(md.refs.main, { 'snapshot-id': chain[TOTAL - 1], type: 'branch' });
      assert.deepEqual(md['snapshot-log'].map((e) => e['snapshot-id']), chain, 'snapshot-log must follow the chain');
      // Each client's own snapshots are in its commit order.
      for (let c = 0; c < CLIENTS; c++) {
        const mine = chain.filter((id) => Math.floor(id / 1_000_000) === c + 1);
        assert.deepEqual(mine, Array.from({ length: PER_CLIENT }, (_, k) => (c + 1) * 1_000_000 + k + 1), `client ${c} order`);
      }

      // metadata-log: the last 100 previous versions, in order, each one a version we were handed.
      const log = md['metadata-log'];
      assert.equal(log.length, 100, `metadata-log should keep write.metadata.previous-versions-max=100 entries, has ${log.length}`);
      const versionOf = (loc) => Number(/\/(\d+)-[^/]*$/.exec(loc)[1]);
      assert.equal(versionOf(final['metadata-location']), TOTAL);
      log.forEach((e, i) => assert.equal(versionOf(e['metadata-file']), TOTAL - 100 + i, `metadata-log[${i}] = ${e['metadata-file']}`));
      for (const e of log) {
        const known = committed.get(e['metadata-file']);
        assert.ok(known, `metadata-log names ${e['metadata-file']}, which no commit returned`);
        assert.equal(e['timestamp-ms'], known.metadata['last-updated-ms'], `metadata-log timestamp of ${e['metadata-file']}`);
        assert.ok(existsSync(localPath(e['metadata-file'])), `metadata-log file missing: ${e['metadata-file']}`);
        assert.deepEqual(readMetadataFile(e['metadata-file']), known.metadata, `${e['metadata-file']} differs from the API's version`);
      }
      assert.deepEqual(readMetadataFile(final['metadata-location']), md, 'current metadata file differs from the loaded metadata');
      assert.deepEqual(committed.get(final['metadata-location']).metadata, md);

      // Every acknowledged version is on disk, unchanged; no other complete versions exist.
      const versions = new Set();
      for (const [loc, { metadata }] of committed) {
        assert.ok(existsSync(localPath(loc)), `acknowledged metadata file missing: ${loc}`);
        assert.deepEqual(readMetadataFile(loc), metadata, `${loc} differs from the API's version`);
        const v = versionOf(loc);
        assert.ok(!versions.has(v), `two acknowledged metadata files with version ${v}`);
        versions.add(v);
      }
      assert.equal(versions.size, TOTAL + 1);
      const dir = path.join(localPath(md.location), 'metadata');
      const files = readdirSync(dir).filter((f) => f.endsWith('.metadata.json'));
      for (const f of files) readMetadataFile(`${md.location}/metadata/${f}`); // every file parses
      const orphans = files.filter((f) => !committed.has(`${md.location}/metadata/${f}`));
      t.diagnostic(`${files.length} metadata files on disk, ${orphans.length} not acknowledged`);
    },
  ),
);

test(
  `${CLIENTS} concurrent clients x 25 unguarded set-properties commits: all land (server-side re-apply), nothing lost`,
  { timeout: 60_000 },
  withServerLog(
    () => server,
    async (t) => {
      const base = server.url;
      const tb = tableApi(base);
      await tb.mustCreate(NS, { name: 'props', schema: sampleSchema() });
      const path = '/iceberg/v1/default/namespaces/conc/tables/props';
      const PER = 25;
      let retried = 0;
      const versions = new Map(); // metadata-location -> metadata
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
          try {
            for (let k = 0; k < PER; k++) {
              for (let attempt = 0; ; attempt++) {
                assert.ok(attempt < 50, `client ${c} key ${k}: still failing after 50 attempts`);
                const res = await agentCall(agent, base, 'POST', path, {
                  body: { requirements: [], updates: [{ action: 'set-properties', updates: { [`c${c}.k${k}`]: `${c}-${k}` } }] },
                });
                validateResponse('POST', T_TABLE, res.status, res.json ?? res.text);
                if (res.status === 200) {
                  assert.equal(res.json.metadata.properties[`c${c}.k${k}`], `${c}-${k}`);
                  versions.set(res.json['metadata-location'], res.json.metadata);
                  break;
                }
                assertIcebergError(res, 409, 'CommitFailedException');
                retried++;
              }
            }
          } finally {
            agent.destroy();
          }
        }),
      );
      t.diagnostic(`${CLIENTS * PER} commits, ${retried} answered 409 after the server's own retries`);
      const final = await tb.mustLoad(NS, 'props');
      for (let c = 0; c < CLIENTS; c++) {
        for (let k = 0; k < PER; k++) assert.equal(final.metadata.properties[`c${c}.k${k}`], `${c}-${k}`, `lost update c${c}.k${k}`);
      }
      assert.equal(versions.size, CLIENTS * PER, 'every successful commit must have its own metadata file');
      assert.equal(Number(/\/(\d+)-[^/]*$/.exec(final['metadata-location'])[1]), CLIENTS * PER);
      for (const [loc, metadata] of versions) assert.deepEqual(readMetadataFile(loc), metadata, loc);
    },
  ),
);
