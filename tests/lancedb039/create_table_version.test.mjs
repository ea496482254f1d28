// CreateTableVersion through raw REST on a managed table: where a staging manifest may come
// from, what an existing version answers, and a retry of a request that succeeded.
//
// The staging manifests here are copies of the table's version-1 manifest at the names
// LanceDB would give them (`_versions/<final name>-<uuid>`); the table is not read again
// through LanceDB afterwards.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { startServer, withServerLog } from '../node/lib/server.mjs';
import { lance } from '../node/lib/lance.mjs';
import { assertLanceError } from '../node/lib/lance_spec.mjs';
import {
  connect,
  tableDir,
  objectStorePath,
  manifestName,
  latestRecorded,
  describeVersion,
  localExists,
  rows,
} from './lib/managed.mjs';

let server;
let api;
let levels;
let dir;
let other;
before(async () => {
  server = await startServer();
  api = lance(server.url);
  const db = await connect(server);
  await db.createNamespace(['mv'], { properties: { managed_versioning: 'true' } });
  await db.createNamespace(['mv', 'raw']);
  await db.createTable('t', rows(1, 2), ['mv', 'raw']);
  await db.createTable('other', rows(1, 1), ['mv', 'raw']);
  levels = ['mv', 'raw', 't'];
  dir = await tableDir(api, levels);
  other = await tableDir(api, ['mv', 'raw', 'other']);
});
after(async () => {
  await server?.cleanup();
});

/** Copies version 1's manifest of `fromDir` to `file`; returns its object-store path and size. */
function stage(fromDir, file) {
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(path.join(fromDir, '_versions', manifestName(1)), file);
  return { manifest_path: objectStorePath(file), manifest_size: statSync(file).size };
}

/** A staging file name for `version` in `base` (a table's directory). */
function stagingFile(base, version) {
  return path.join(base, '_versions', `${manifestName(version)}-${randomUUID()}`);
}

function createVersion(body) {
  return api.op('table', levels, 'version/create', { body: { id: levels, naming_scheme: 'V2', ...body } });
}

test('a staging manifest outside the table\'s _versions/ is refused (400, code 13) and nothing is recorded', withServerLog(() => server, async () => {
  const latest = (await latestRecorded(api, levels)).version;
  const next = latest + 1;
  const outside = [
    ['another table', stagingFile(other, next)],
    ['the table\'s data/', path.join(dir, 'data', `${manifestName(next)}-${randomUUID()}`)],
    ['the table root', path.join(dir, `${manifestName(next)}-${randomUUID()}`)],
  ];
  for (const [what, file] of outside) {
    const staged = stage(dir, file);
    const res = await createVersion({ version: next, ...staged });
    assertLanceError(res, 400, 13);
    assert.equal((await latestRecorded(api, levels)).version, latest, what);
  }
  // `..` that climbs out of _versions/ (and back into another table's).
  const real = stagingFile(other, next);
  const staged = stage(dir, real);
  const rel = path.relative(path.join(dir, '_versions'), real);
  const climbing = `${objectStorePath(dir)}/_versions/${rel}`;
  assert.match(climbing, /\.\./);
  assertLanceError(await createVersion({ version: next, manifest_path: climbing, manifest_size: staged.manifest_size }), 400, 13);
  const dotted = `${objectStorePath(dir)}/_versions/../_versions/${path.basename(stagingFile(dir, next))}`;
  assertLanceError(await createVersion({ version: next, manifest_path: dotted, manifest_size: staged.manifest_size }), 400, 13);
  assert.equal((await latestRecorded(api, levels)).version, latest);
  assert.ok(!(await localExists(`${objectStorePath(dir)}/_versions/${manifestName(next)}`)));
}));

test('a version that exists answers 409 (code 14) and stays as it was; a retry of a success is answered the same', withServerLog(() => server, async () => {
  const latest = (await latestRecorded(api, levels)).version;
  const next = latest + 1;
  const finalFile = path.join(dir, '_versions', manifestName(next));

  const staged = stage(dir, stagingFile(dir, next));
  const first = await createVersion({ version: next, ...staged });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.version.version, next);
  assert.equal(first.json.version.manifest_path, objectStorePath(finalFile));
  assert.ok(await localExists(objectStorePath(finalFile)));
  const finalBytes = readFileSync(finalFile);
  const recorded = await describeVersion(api, levels, next);

  // The same request again (a client retrying after a lost answer): the same answer.
  const retry = await createVersion({ version: next, ...staged });
  assert.equal(retry.status, 200, retry.text);
  assert.deepEqual(retry.json.version, first.json.version);

  // Another staging manifest for the same version, and one for an older version: 409.
  for (const version of [next, 1]) {
    const contender = stage(dir, stagingFile(dir, version));
    const res = await createVersion({ version, ...contender });
    assertLanceError(res, 409, 14);
  }
  assert.deepEqual(await describeVersion(api, levels, next), recorded);
  assert.deepEqual(readFileSync(finalFile), finalBytes);
  assert.equal((await latestRecorded(api, levels)).version, next);
}));

test('a final manifest on storage that Cairn has not recorded is found when asked for and blocks its version', withServerLog(() => server, async () => {
  // As after a commit interrupted between placing the final file and recording it.
  const latest = (await latestRecorded(api, levels)).version;
  const next = latest + 1;
  const finalFile = path.join(dir, '_versions', manifestName(next));
  stage(dir, finalFile);
  const found = await describeVersion(api, levels, next);
  assert.equal(found.manifest_path, objectStorePath(finalFile));
  assert.equal((await latestRecorded(api, levels)).version, next, 'recorded once asked for');

  assertLanceError(await createVersion({ version: next, ...stage(dir, stagingFile(dir, next)) }), 409, 14);
  // A placed file without a record also blocks a version nobody asked about yet, for a
  // staging manifest with other bytes (the other table's).
  stage(dir, path.join(dir, '_versions', manifestName(next + 1)));
  assertLanceError(await createVersion({ version: next + 1, ...stage(other, stagingFile(dir, next + 1)) }), 409, 14);
  assert.equal((await describeVersion(api, levels, next + 1)).manifest_path, objectStorePath(path.join(dir, '_versions', manifestName(next + 1))));
}));
