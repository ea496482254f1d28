// `cairn admin backup` (issue 18): a consistent online copy of the SQLite store taken
// during a write load restores to a server where every table loads and every commit
// acknowledged before the backup began is present. Also the command's refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { catalog, sampleSchema, tableApi } from './lib/catalog.mjs';
import { makeTempDir, removeDir, runCairn, startServer } from './lib/server.mjs';

const NS = ['ops'];

test('a backup taken during a write load restores every table and every acknowledged commit', async () => {
  const dataDir = makeTempDir();
  const out = makeTempDir('cairn-node-backup-');
  const backupFile = path.join(out, 'cairn-backup.db');
  let srv = await startServer({ dataDir });
  try {
    await catalog(srv.url).mustCreate(NS);
    const tables = tableApi(srv.url);
    await tables.mustCreate(NS, { name: 'busy', schema: sampleSchema() });

    // A writer commits counter = 1, 2, ... one after the other, and a second one creates
    // tables, until told to stop; each remembers what was acknowledged.
    let stop = false;
    let acknowledged = 0;
    const created = [];
    const writer = (async () => {
      for (let n = 1; !stop; ++n) {
        const res = await tables.commit(NS, 'busy', { requirements: [], updates: [{ action: 'set-properties', updates: { counter: String(n) } }] });
        assert.equal(res.status, 200, `commit ${n}: ${res.text}`);
        acknowledged = n;
      }
    })();
    const creator = (async () => {
      for (let n = 1; !stop; ++n) {
        const res = await tables.create(NS, { name: `t${n}`, schema: sampleSchema() });
        assert.equal(res.status, 200, `create t${n}: ${res.text}`);
        created.push(`t${n}`);
      }
    })();
    while (acknowledged < 20) await new Promise((r) => setTimeout(r, 10));

    const before = { acknowledged, created: [...created] };
    const backup = await runCairn(['admin', 'backup', '--data-dir', dataDir, '--to', backupFile], { timeoutMs: 60_000 });
    assert.equal(backup.code, 0, `backup: ${backup.stderr}`);
    assert.match(backup.stdout, /backed up .*cairn\.db to .*cairn-backup\.db/);
    const during = acknowledged;
    stop = true;
    await Promise.all([writer, creator]);
    assert.ok(acknowledged > before.acknowledged, 'the writer kept committing during the backup');
    await srv.stop();

    // Restore: the server on the same data dir (its warehouse holds the metadata files),
    // on the backup file as its store.
    srv = await startServer({ dataDir, args: ['--store', `sqlite:${backupFile}`] });
    const restored = tableApi(srv.url);
    const busy = (await restored.mustLoad(NS, 'busy')).metadata;
    const counter = Number(busy.properties.counter);
    assert.ok(counter >= before.acknowledged, `counter ${counter} < ${before.acknowledged} acknowledged before the backup`);
    assert.ok(counter <= during, `counter ${counter} > ${during}: not a snapshot`);
    const names = (await restored.mustList(NS, 'pageSize=1000')).map((id) => id.name);
    for (const name of before.created) assert.ok(names.includes(name), `${name}, created before the backup, is missing`);
    for (const name of names) await restored.mustLoad(NS, name);  // every table loads
  } finally {
    await srv.cleanup();
    removeDir(dataDir);
    removeDir(out);
  }
});

test('a backup never overwrites a file and says how to back up what it cannot', async () => {
  const dataDir = makeTempDir();
  const out = makeTempDir('cairn-node-backup-');
  try {
    const srv = await startServer({ dataDir });
    await srv.stop();
    const taken = path.join(out, 'taken.db');
    writeFileSync(taken, 'keep me');
    const again = await runCairn(['admin', 'backup', '--data-dir', dataDir, '--to', taken]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
    assert.ok(existsSync(taken));
    const pg = await runCairn(['admin', 'backup', '--store', 'postgresql://u@127.0.0.1:1/db', '--to', path.join(out, 'x.db')]);
    assert.equal(pg.code, 2);
    assert.match(pg.stderr, /pg_dump/);
    const none = await runCairn(['admin', 'backup', '--data-dir', path.join(out, 'nothing'), '--to', path.join(out, 'y.db')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no SQLite store/);
    assert.ok(!existsSync(path.join(out, 'y.db')));
    const usage = await runCairn(['admin', 'restore']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown subcommand 'restore'; valid: backup/);
  } finally {
    removeDir(dataDir);
    removeDir(out);
  }
});
