// Holds the SQLite write lock of a Cairn data dir from outside (the sqlite3 CLI), so that
// tests can make store writes wait or time out deterministically.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

/** Takes the write lock of `dbFile`; resolves to `{release()}` once it is held. */
export async function holdWriteLock(dbFile) {
  const proc = spawn('sqlite3', [dbFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stdin.write("PRAGMA busy_timeout=5000; BEGIN IMMEDIATE; SELECT 'locked';\n");
  const t0 = Date.now();
  while (!out.includes('locked')) {
    assert.ok(Date.now() - t0 < 5000, 'sqlite3 did not take the write lock');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    release: () =>
      new Promise((resolve) => {
        proc.on('close', resolve);
        proc.stdin.end('ROLLBACK;\n.quit\n');
      }),
  };
}
