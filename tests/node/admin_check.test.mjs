// `cairn admin check` and `cairn admin migrate` (issue 18) against a real store: check
// finds a deleted or corrupt metadata file and rows that point at missing ones, with a
// non-zero exit; migrate shows pending migrations with their SQL, applies them only
// without --dry-run, and check refuses a store that is not current.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describeResponse } from './lib/http.mjs';
import { startCatalog, tableRequest, viewRequest } from './lib/files.mjs';
import { createDatabase, dropDatabase, postgresAvailable, POSTGRES_SKIP_MESSAGE, psql } from './lib/postgres.mjs';
import { CAIRN_BIN, startServer } from './lib/server.mjs';

/** Runs `cairn ...args`; resolves to {code, stdout, stderr} whatever the exit code. */
function cairn(args, env = {}) {
  return new Promise((resolve) => {
    execFile(CAIRN_BIN, args, { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

function sqlite(dbFile, sql) {
  return new Promise((resolve, reject) => {
    execFile('sqlite3', [dbFile, sql], (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)));
  });
}

let cat;
let db;
before(async () => {
  cat = await startCatalog();
  db = path.join(cat.dataDir, 'cairn.db');
});
after(async () => { await cat?.cleanup(); });

const check = () => cairn(['admin', 'check', '--data-dir', cat.dataDir]);

test('check passes on a sound store and names a deleted table metadata file, a corrupt view file and orphaned rows', async () => {
  const t = await cat.ice.createTable(['ns'], tableRequest('t'));
  assert.equal(t.status, 200, describeResponse(t));
  assert.equal((await cat.ice.createTable(['ns'], tableRequest('kept'))).status, 200);
  const v = await cat.ice.createView(['ns'], viewRequest('v'));
  assert.equal(v.status, 200, describeResponse(v));

  let run = await check();  // beside the running server
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /checked 2 table\(s\) and 1 view\(s\): 0 problem\(s\)/);

  rmSync(fileURLToPath(t.json['metadata-location']));
  writeFileSync(fileURLToPath(v.json['metadata-location']), '{"not": "a view"');
  await sqlite(db, 'PRAGMA foreign_keys=OFF; INSERT INTO namespace_properties (namespace_id, key, value) VALUES (999999, \'k\', \'v\');');
  run = await check();
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.ok(lines.some((l) => l.startsWith('table default.ns.t: metadata file') && l.includes(t.json['metadata-location'])), run.stdout);
  assert.ok(lines.some((l) => l.startsWith('view default.ns.v: metadata file') && l.includes('does not parse')), run.stdout);
  assert.ok(lines.includes('store: 1 namespace_properties rows of a missing namespace'), run.stdout);
  assert.ok(!lines.some((l) => l.includes('default.ns.kept')), run.stdout);
  assert.match(lines.at(-1), /checked 2 table\(s\) and 1 view\(s\): 3 problem\(s\)/);
});

test('migrate shows pending migrations, applies them only without --dry-run; check refuses a store behind', async () => {
  const server = await startServer();
  await server.stop();
  const dataDir = server.dataDir;
  const file = path.join(dataDir, 'cairn.db');
  try {
    const admin = (...args) => cairn(['admin', ...args, '--data-dir', dataDir]);
    let run = await admin('migrate', '--dry-run');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^schema version (\d+): current, nothing to apply/);
    const latest = Number(run.stdout.match(/^schema version (\d+)/)[1]);

    // The store as the previous release left it: the last migration not applied.
    await sqlite(file, `ALTER TABLE split_entities DROP COLUMN first_position; DELETE FROM schema_version WHERE version = ${latest};`);
    run = await admin('check');
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`schema version is ${latest - 1}, this binary's ${latest}: run cairn admin migrate first`));

    run = await admin('migrate', '--dry-run');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`schema version ${latest - 1}; 1 migration\\(s\\) pending:\\n-- version ${latest}\\n  ALTER TABLE split_entities ADD COLUMN first_position`));
    assert.match(run.stdout, /dry run: nothing applied/);
    assert.equal((await sqlite(file, 'SELECT MAX(version) FROM schema_version')).trim(), String(latest - 1));

    run = await admin('migrate');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`applied: schema version ${latest}`));
    assert.equal((await sqlite(file, 'SELECT MAX(version) FROM schema_version')).trim(), String(latest));
    run = await admin('check');
    assert.equal(run.code, 0, run.stdout + run.stderr);

    // A store newer than the binary is refused, not touched.
    await sqlite(file, `INSERT INTO schema_version VALUES (${latest + 1}, 0)`);
    run = await admin('migrate');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /newer than this binary's/);
  } finally {
    await server.cleanup();
  }
});

test('usage errors exit 2 with CLI11\'s message', async () => {
  for (const args of [['admin', 'backup'], ['admin', 'migrate', '--dry-run=maybe'], ['serve', '--max-body-bytes']]) {
    const run = await cairn(args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /Run with --help for more information/);
  }
});

test('a store that is not there is a usage error naming it', async () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'cairn-empty-'));
  try {
    for (const command of ['check', 'migrate']) {
      let run = await cairn(['admin', command, '--data-dir', '/nonexistent/cairn-data']);
      assert.equal(run.code, 2, `${command}: ${run.stderr}`);
      assert.match(run.stderr, /no data directory at \/nonexistent\/cairn-data/);
      run = await cairn(['admin', command, '--data-dir', empty]);
      assert.equal(run.code, 2, `${command}: ${run.stderr}`);
      assert.match(run.stderr, /no SQLite store at .*cairn\.db/);
      assert.ok(!existsSync(path.join(empty, 'cairn.db')), 'a store was created');
    }
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('migrate and check work on a PostgreSQL store', async (t) => {
  if (!postgresAvailable()) return t.skip(POSTGRES_SKIP_MESSAGE);
  const url = await createDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cairn-pg-admin-'));
  try {
    const admin = (...args) => cairn(['admin', ...args, '--store', url, '--data-dir', dataDir]);
    // A new database: every migration pending.
    let run = await admin('migrate', '--dry-run');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^schema version 0; \d+ migration\(s\) pending:/);
    run = await admin('migrate');
    assert.equal(run.code, 0, run.stderr);
    run = await admin('check');
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /checked 0 table\(s\) and 0 view\(s\): 0 problem\(s\)/);
    await psql("ALTER TABLE namespace_properties DROP CONSTRAINT namespace_properties_namespace_id_fkey; INSERT INTO namespace_properties (namespace_id, key, value) VALUES (424242, 'k', 'v')", url);
    run = await admin('check');
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /store: 1 namespace_properties rows of a missing namespace/);
  } finally {
    await dropDatabase(url);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('cairn serve --help shows every numeric setting as INT with its default', async () => {
  const run = await cairn(['serve', '--help']);
  assert.equal(run.code, 0, run.stderr);
  // Options are listed one per entry; a long help text wraps onto indented lines.
  const entries = run.stdout.split(/\n(?=\s+--)/).filter((e) => /^\s+--[a-z]/.test(e));
  const numeric = entries.filter((e) => /^\s+--[a-z0-9-]+ INT\b/.test(e));
  assert.ok(numeric.length >= 20, `only ${numeric.length} INT options:\n${run.stdout}`);
  for (const entry of numeric) assert.match(entry.replace(/\s+/g, ' '), /default/, entry);
  for (const name of ['max-body-bytes', 'worker-threads', 'metrics-report-retention-s', 'token-lifetime-s']) {
    assert.ok(numeric.some((e) => e.trim().startsWith(`--${name} INT`)), `--${name} is not shown as INT`);
  }
});
