// Crash safety of table commits: 4 committers append snapshots to one table, the server is
// killed with SIGKILL while commits are in flight, and restarted on the same data dir. Every
// commit that was answered 200 must be there, nothing that was never sent may appear, the
// history must be one linear chain, the current metadata file must exist and parse to the
// loaded metadata, and appending must continue to work. Two kill/restart rounds.

import assert from 'node:assert/strict';
import { test, after } from 'node:test';
import http from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startServer, makeTempDir, removeDir } from './lib/server.mjs';
import { describeResponse } from './lib/http.mjs';
import { validateResponse } from './lib/spec.mjs';
import { catalog, tableApi, agentCall, appendCommit, sampleSchema, localPath, readMetadataFile, T_TABLE } from './lib/catalog.mjs';
import { waitFor } from './lib/wait.mjs';

const COMMITTERS = 4;
// The kill comes once this many commits of the round were acknowledged and some are in flight.
const ACKED_BEFORE_KILL = 10 * COMMITTERS;
const KILL_WAIT_MS = 30_000;
const ROUNDS = 2;
const NS = ['crash'];
const tablePath = '/iceberg/v1/default/namespaces/crash/tables/t';

const dataDir = makeTempDir('cairn-node-crash-');
let server;
after(async () => {
  await server?.stop('SIGKILL');
  removeDir(dataDir);
});

/**
 * Appends until the connection fails (the kill). Records acknowledged snapshot ids in `acked`
 * and ids whose commit was sent but never answered in `inFlight`.
 */
async function committer(index, round, base, acked, inFlight, sent, stopAt) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let seq = 0;
  try {
    let metadata;
    const load = async () => {
      const res = await agentCall(agent, base, 'GET', tablePath, { timeoutMs: 10_000 });
      validateResponse('GET', T_TABLE, res.status, res.json ?? res.text);
      assert.equal(res.status, 200, describeResponse(res));
      return res.json.metadata;
    };
    metadata = await load();
    while (Date.now() < stopAt) {
      const id = (round * 10 + index + 1) * 1_000_000 + ++seq;
      sent.add(id);
      inFlight.add(id);
      const res = await agentCall(agent, base, 'POST', tablePath, { body: appendCommit(metadata, id), timeoutMs: 10_000 });
      inFlight.delete(id);
      validateResponse('POST', T_TABLE, res.status, res.json ?? res.text);
      if (res.status === 200) {
        acked.add(id);
        metadata = res.json.metadata;
      } else if (res.status === 409) {
        metadata = await load();
      } else {
        throw new Error(`committer ${index}: unexpected ${describeResponse(res)}`);
      }
    }
    return 'stopped';
  } catch (e) {
    // Connection refused / reset / socket hang up: the server is gone.
    if (['ECONNRESET', 'ECONNREFUSED', 'EPIPE'].includes(e.code) || /socket hang up|timeout/.test(e.message)) return 'killed';
    throw e;
  } finally {
    agent.destroy();
  }
}

/** Checks the reloaded table against what the clients saw; returns the loaded result. */
async function verify(tb, acked, sent, ctx) {
  const loaded = await tb.mustLoad(NS, 't');
  const md = loaded.metadata;
  const ids = new Set(md.snapshots.map((s) => s['snapshot-id']));
  const missing = [...acked].filter((id) => !ids.has(id));
  assert.deepEqual(missing, [], `${ctx}: acknowledged commits lost after SIGKILL`);
  const phantom = [...ids].filter((id) => !sent.has(id));
  assert.deepEqual(phantom, [], `${ctx}: snapshots nobody sent`);
  // One linear chain through every snapshot.
  const byId = new Map(md.snapshots.map((s) => [s['snapshot-id'], s]));
  const chain = [];
  for (let id = md['current-snapshot-id']; id !== -1 && id !== null && id !== undefined; id = byId.get(id)['parent-snapshot-id']) {
    assert.ok(byId.has(id), `${ctx}: chain reaches unknown snapshot ${id}`);
    chain.push(id);
    assert.ok(chain.length <= md.snapshots.length, `${ctx}: cycle`);
  }
  assert.equal(chain.length, md.snapshots.length, `${ctx}: snapshots off the main chain`);
  assert.equal(md['last-sequence-number'], md.snapshots.length);
  // The current metadata file (and every metadata-log file) exists and parses.
  assert.ok(existsSync(localPath(loaded['metadata-location'])), `${ctx}: current metadata file missing: ${loaded['metadata-location']}`);
  assert.deepEqual(readMetadataFile(loaded['metadata-location']), md, `${ctx}: current metadata file differs from the loaded metadata`);
  for (const e of md['metadata-log']) {
    assert.ok(existsSync(localPath(e['metadata-file'])), `${ctx}: metadata-log file missing: ${e['metadata-file']}`);
    readMetadataFile(e['metadata-file']);
  }
  // No torn metadata file: everything named *.metadata.json parses.
  const dir = path.join(localPath(md.location), 'metadata');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.metadata.json'))) {
    try {
      readMetadataFile(`${md.location}/metadata/${f}`);
    } catch (e) {
      assert.fail(`${ctx}: torn metadata file ${f}: ${e.message}`);
    }
  }
  return loaded;
}

test(
  `SIGKILL during concurrent commits (${ROUNDS} rounds): acknowledged commits survive, table loads, appends continue`,
  { timeout: 90_000 },
  async (t) => {
    const acked = new Set();
    const sent = new Set();
    try {
      server = await startServer({ dataDir });
      await catalog(server.url).mustCreate(NS);
      await tableApi(server.url).mustCreate(NS, { name: 't', schema: sampleSchema() });

      for (let round = 0; round < ROUNDS; round++) {
        const base = server.url;
        const inFlight = new Set();
        const stopAt = Date.now() + KILL_WAIT_MS + 5_000; // the kill comes first
        const ackedBefore = acked.size;
        const runs = Array.from({ length: COMMITTERS }, (_, i) => committer(i, round, base, acked, inFlight, sent, stopAt));
        await waitFor(() => acked.size - ackedBefore >= ACKED_BEFORE_KILL && inFlight.size > 0, {
          timeoutMs: KILL_WAIT_MS,
          what: () => `${ACKED_BEFORE_KILL} acknowledged commits in round ${round} and one in flight (got ${acked.size - ackedBefore}, ${inFlight.size} in flight)`,
        });
        const ackedBeforeKill = acked.size;
        await server.stop('SIGKILL');
        const outcomes = await Promise.all(runs);
        t.diagnostic(`round ${round}: ${acked.size} acknowledged so far (${ackedBeforeKill} when killed), ${inFlight.size} in flight at the kill, outcomes ${outcomes.join(',')}`);
        assert.ok(outcomes.every((o) => o === 'killed'), `committers should all have been cut off: ${outcomes}`);
        assert.ok(acked.size > 0, 'no commit succeeded before the kill');

        server = await startServer({ dataDir });
        const tb = tableApi(server.url);
        const loaded = await verify(tb, acked, sent, `after kill ${round + 1}`);
        const inFlightLanded = [...inFlight].filter((id) => loaded.metadata.snapshots.some((s) => s['snapshot-id'] === id));
        t.diagnostic(`round ${round}: ${loaded.metadata.snapshots.length} snapshots after restart; ${inFlightLanded.length} of the in-flight commits landed`);

        // Appending continues on the recovered table.
        let state = loaded;
        for (let k = 1; k <= 5; k++) {
          const id = 900_000_000 + round * 100 + k;
          sent.add(id);
          state = await tb.mustCommit(NS, 't', appendCommit(state.metadata, id));
          acked.add(id);
          assert.equal(state.metadata['current-snapshot-id'], id);
        }
        await verify(tb, acked, sent, `after appending post-restart ${round + 1}`);
      }
      assert.equal(await server.stop('SIGTERM'), 0, `exit code after SIGTERM; stderr:\n${server.stderr()}`);
      server = undefined;
    } catch (e) {
      if (server) e.message += `\n--- cairn stderr (tail) ---\n${server.stderr().slice(-6000)}`;
      throw e;
    }
  },
);
