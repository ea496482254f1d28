// Helpers for the managed-versioning tests: LanceDB 0.39 connections to a Cairn, and checks of
// what Cairn recorded (ListTableVersions / DescribeTableVersion, validated against the latest
// Lance spec) against what is on storage.
//
// Manifest paths are object-store paths, as LanceDB sends and expects them: for a local table
// the absolute path without its leading `/`, on S3 the key inside the bucket. A version's final
// manifest is `<table>/_versions/<u64::MAX - version as 20 digits>.manifest` (naming scheme
// V2); a staging manifest is that name plus `-<uuid>`.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { lance, localPath } from '../../node/lib/lance.mjs';
import { startServer } from '../../node/lib/server.mjs';

const U64_MAX = 18446744073709551615n;

/**
 * A fresh Cairn with the catalogs most tests use — `mv` (managed_versioning = "true") and
 * `plain` — created through LanceDB: `{ server, db, api }`.
 */
export async function startWithCatalogs() {
  const server = await startServer();
  const db = await connect(server);
  await db.createNamespace(['mv'], { properties: { managed_versioning: 'true' } });
  await db.createNamespace(['plain']);
  return { server, db, api: lance(server.url) };
}

/** A LanceDB 0.39 connection to Cairn's Lance routes. */
export function connect(server) {
  return lancedb.connectNamespace('rest', { uri: `${server.url}/lance` });
}

/** The V2 file name of `version`'s final manifest. */
export function manifestName(version) {
  return `${(U64_MAX - BigInt(version)).toString().padStart(20, '0')}.manifest`;
}

/** True for a staging manifest name (`<final name>-<uuid>`). */
export function isStaging(name) {
  return /\.manifest-[0-9a-f-]+$/i.test(name);
}

/** The object-store path of a local directory: the absolute path without its leading `/`. */
export function objectStorePath(dir) {
  assert.ok(path.isAbsolute(dir), dir);
  return dir.replace(/^\/+/, '');
}

/** DescribeTable's answer (spec-checked). */
export async function describeTable(api, levels) {
  return api.must('table', levels, 'describe', { body: { id: levels }, spec: 'latest' });
}

/** The local dataset directory of a table, from DescribeTable. */
export async function tableDir(api, levels) {
  return localPath((await describeTable(api, levels)).location);
}

/** The latest version Cairn recorded (ListTableVersions as LanceDB sends it), or undefined. */
export async function latestRecorded(api, levels) {
  const body = await api.must('table', levels, 'version/list', {
    body: null,
    query: 'limit=1&descending=true',
    spec: 'latest',
  });
  assert.ok(Array.isArray(body.versions), JSON.stringify(body));
  assert.ok(body.versions.length <= 1, JSON.stringify(body));
  return body.versions[0];
}

/** DescribeTableVersion's `version` object for `version` (asserts 200). */
export async function describeVersion(api, levels, version) {
  const body = await api.must('table', levels, 'version/describe', {
    body: { id: levels, version },
    spec: 'latest',
  });
  assert.equal(body.version?.version, version, JSON.stringify(body));
  return body.version;
}

/**
 * Asserts that `version` is Cairn's latest for the table and that its recorded manifest_path is
 * `<tableKey>/_versions/<final name>`, where `tableKey` is the table's object-store path.
 * `exists(key)` says whether that object is on storage. Returns the recorded TableVersion.
 */
export async function assertLatestRecorded(api, levels, version, { tableKey, exists }) {
  const latest = await latestRecorded(api, levels);
  assert.equal(latest?.version, version, `latest recorded: ${JSON.stringify(latest)}`);
  const described = await describeVersion(api, levels, version);
  const expected = `${tableKey}/_versions/${manifestName(version)}`;
  assert.equal(latest.manifest_path, expected);
  assert.equal(described.manifest_path, expected);
  assert.ok(await exists(expected), `${expected} should exist on storage`);
  return described;
}

/** The file names in a local table's `_versions/`. */
export function versionFiles(dir) {
  const d = path.join(dir, '_versions');
  return existsSync(d) ? readdirSync(d).sort() : [];
}

/** Asserts that no staging manifest is left in a local table's `_versions/`. */
export function assertNoStaging(dir) {
  const staging = versionFiles(dir).filter(isStaging);
  assert.deepEqual(staging, [], `staging manifests left in ${dir}/_versions`);
}

/** `exists` for local tables: object-store path -> file on disk. */
export async function localExists(key) {
  const file = `/${key}`;
  return existsSync(file) && statSync(file).isFile();
}

/**
 * Checks every version 1..latest that Cairn recorded: DescribeTableVersion answers it and its
 * manifest is on storage. Returns the latest version.
 */
export async function assertEveryVersionOnStorage(api, levels, exists) {
  const latest = await latestRecorded(api, levels);
  assert.ok(latest, 'no version recorded');
  for (let v = 1; v <= latest.version; v++) {
    const described = await describeVersion(api, levels, v);
    assert.ok(await exists(described.manifest_path), `version ${v}: ${described.manifest_path} missing`);
  }
  return latest.version;
}

/** Rows `[{id, s}]` with ids from `first`. */
export function rows(first, count, tag = 'r') {
  return Array.from({ length: count }, (_, i) => ({ id: first + i, s: `${tag}${first + i}` }));
}

/** Every file below `dir`, relative to it, sorted ([] when `dir` does not exist). */
export function filesBelow(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .sort();
}

/**
 * A table `name` in `ns` of three versions holding 2, 3 and 2 + 1 + `lastAdds` rows (ids 1–2,
 * 10, 20…), created through `db`; returns it with its levels and local directory.
 */
export async function threeVersions(db, api, ns, name, { lastAdds = 2 } = {}) {
  const table = await db.createTable(name, rows(1, 2), ns);
  await table.add(rows(10, 1));
  await table.add(rows(20, lastAdds));
  const levels = [...ns, name];
  return { table, levels, dir: await tableDir(api, levels) };
}
