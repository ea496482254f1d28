// Adds to package-lock.json the platform packages of @lancedb/lancedb that `npm install` left
// out because the registry used here serves only the linux-x64 ones, so that `npm ci` accepts
// the lockfile. Run after every `npm install` in this folder:  node lock_platforms.mjs
//
// Each entry is what npm records for a platform package (version, cpu, os, libc, optional)
// without an integrity hash, which cannot be known without the package: npm never fetches
// these on a platform they do not match, and fetches them by name and version where they do.

import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('./package-lock.json', import.meta.url);
const LIBC = { gnu: 'glibc', musl: 'musl' };

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const lancedb = lock.packages['node_modules/@lancedb/lancedb'];
const added = [];
for (const [name, version] of Object.entries(lancedb.optionalDependencies ?? {})) {
  const m = /^@lancedb\/lancedb-(darwin|linux|win32)-(x64|arm64)(?:-(gnu|musl|msvc))?$/.exec(name);
  const key = `node_modules/${name}`;
  if (!m || lock.packages[key]) continue;
  const [, os, cpu, abi] = m;
  const entry = { version, cpu: [cpu] };
  if (LIBC[abi]) entry.libc = [LIBC[abi]];
  Object.assign(entry, { license: lancedb.license, optional: true, os: [os], engines: { node: '>= 18' } });
  lock.packages[key] = entry;
  added.push(name);
}
// npm keeps the entries sorted by path, the root ("") first.
const sorted = {};
for (const k of Object.keys(lock.packages).sort()) sorted[k] = lock.packages[k];
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.join(', ')}` : 'nothing to add');
