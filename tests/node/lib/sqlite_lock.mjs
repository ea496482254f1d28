// Holds the SQLite write lock of a Cairn data dir from outside (the sqlite3 CLI), so that
// tests can make store writes wait or time out deterministically.

import { spawn } from 'node:child_process';
import { waitFor } from './wait.mjs';

/**
 * Takes the write lock of `dbFile`; resolves to `{release()}` once it is held. release() may be
 * called more than once (e.g. again in a `finally`): a test that fails while holding the lock
 * must still let go of it, or the sqlite3 process keeps the test run alive.
 */
export async function holdWriteLock(dbFile) {
  const proc = spawn('sqlite3', [dbFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  const closed = new Promise((resolve) => proc.on('close', resolve));
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stdin.write("PRAGMA busy_timeout=5000; BEGIN IMMEDIATE; SELECT 'locked';\n");
  let released;
  const release = () => {
    released ??= (proc.stdin.end('ROLLBACK;\n.quit\n'), closed);
    return released;
  };
  try {
    await waitFor(() => out.includes('locked'), { timeoutMs: 5000, what: `sqlite3 to take the write lock of ${dbFile}` });
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  return { release };
}
