// Durability: state survives SIGTERM + restart on the same data dir.

import assert from 'node:assert/strict';
import { test, after } from 'node:test';
import { startServer, makeTempDir, removeDir } from './lib/server.mjs';
import { describeResponse } from './lib/http.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { catalog } from './lib/catalog.mjs';

const dataDir = makeTempDir('cairn-node-restart-');
let server;
after(async () => {
  await server?.stop('SIGKILL');
  removeDir(dataDir);
});

async function withServer(fn) {
  server = await startServer({ dataDir });
  try {
    await fn(catalog(server.url, '/iceberg/v1/default'));
  } catch (e) {
    e.message += `\n--- cairn stderr ---\n${server.stderr()}`;
    throw e;
  }
  const code = await server.stop('SIGTERM');
  assert.equal(code, 0, `exit code after SIGTERM; stderr:\n${server.stderr()}`);
  server = undefined;
}

async function props(c, levels) {
  const res = await c.load(levels);
  assert.equal(res.status, 200, `${JSON.stringify(levels)}: ${describeResponse(res)}`);
  return res.json.properties;
}

test('namespaces and properties survive restarts', async () => {
  await withServer(async (c) => {
    await c.mustCreate(['r1'], { owner: 'alice', tier: 'gold', temp: 'x' });
    await c.mustCreate(['r1', 'child'], { k: 'v' });
    await c.mustCreate(['r1', 'child', 'leaf']);
    await c.mustCreate(['r2']);
    await c.mustCreate(['my ns'], { 'key with space': 'välue ✓' });
    await c.mustCreate(['gone'], { a: 'b' });
    let res = await c.update(['r1'], { updates: { tier: 'platinum', added: '1' }, removals: ['temp'] });
    assert.equal(res.status, 200, describeResponse(res));
    res = await c.drop(['gone']);
    assert.equal(res.status, 204, describeResponse(res));
  });

  const expectState = async (c) => {
    assert.deepEqual(await c.mustList(), [['my ns'], ['r1'], ['r2']]);
    assert.deepEqual(await c.mustList('parent=r1'), [['r1', 'child']]);
    assert.deepEqual(await c.mustList('parent=r1%1Fchild'), [['r1', 'child', 'leaf']]);
    assert.deepEqual(await props(c, ['r1']), { owner: 'alice', tier: 'platinum', added: '1' });
    assert.deepEqual(await props(c, ['r1', 'child']), { k: 'v' });
    assert.deepEqual(await props(c, ['r1', 'child', 'leaf']), {});
    assert.deepEqual(await props(c, ['r2']), {});
    assert.deepEqual(await props(c, ['my ns']), { 'key with space': 'välue ✓' });
    assertIcebergError(await c.load(['gone']), 404, 'NoSuchNamespaceException');
    const paged = await c.listAllPages('', 1);
    assert.deepEqual(paged.all, [['my ns'], ['r1'], ['r2']]);
  };

  await withServer(async (c) => {
    await expectState(c);
    // Mutate again after the restart.
    await c.mustCreate(['r3'], { n: '3' });
    const res = await c.update(['r2'], { updates: { late: 'yes' } });
    assert.equal(res.status, 200, describeResponse(res));
    assertIcebergError(await c.create(['r1']), 409, 'AlreadyExistsException');
  });

  await withServer(async (c) => {
    assert.deepEqual(await c.mustList(), [['my ns'], ['r1'], ['r2'], ['r3']]);
    assert.deepEqual(await props(c, ['r3']), { n: '3' });
    assert.deepEqual(await props(c, ['r2']), { late: 'yes' });
    assert.deepEqual(await props(c, ['r1']), { owner: 'alice', tier: 'platinum', added: '1' });
  });
});

test('acknowledged writes survive SIGKILL', async () => {
  const dir = makeTempDir('cairn-node-kill-');
  try {
    server = await startServer({ dataDir: dir });
    const c = catalog(server.url, '/iceberg/v1/default');
    for (let i = 0; i < 20; i++) await c.mustCreate([`k${String(i).padStart(2, '0')}`], { i: String(i) });
    const res = await c.update(['k00'], { updates: { last: 'write' } });
    assert.equal(res.status, 200, describeResponse(res));
    await server.stop('SIGKILL');
    server = await startServer({ dataDir: dir });
    const c2 = catalog(server.url, '/iceberg/v1/default');
    const all = await c2.mustList();
    assert.equal(all.length, 20, JSON.stringify(all));
    assert.deepEqual(await props(c2, ['k19']), { i: '19' });
    assert.deepEqual(await props(c2, ['k00']), { i: '0', last: 'write' });
    assert.equal(await server.stop('SIGTERM'), 0);
    server = undefined;
  } catch (e) {
    if (server) e.message += `\n--- cairn stderr ---\n${server.stderr()}`;
    throw e;
  } finally {
    removeDir(dir);
  }
});
