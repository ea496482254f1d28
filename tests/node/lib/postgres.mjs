// The throw-away PostgreSQL server that scripts/test starts (scripts/lib/postgres.sh) and
// exports as CAIRN_TEST_POSTGRES_*: per-test databases, and stop/start for outage tests.
// Uses the psql / pg_ctl command-line tools (no npm client).
//
//   test('x', async (t) => {
//     if (!postgresAvailable()) return t.skip(POSTGRES_SKIP_MESSAGE);
//     const url = await createDatabase();      // postgresql://cairn@127.0.0.1:PORT/cairn_test_...
//     ...
//     await dropDatabase(url);
//   });

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

const env = process.env;

export const POSTGRES_SKIP_MESSAGE =
  'PostgreSQL tests skipped: CAIRN_TEST_POSTGRES_URL is not set (scripts/test starts a throw-away PostgreSQL and sets it)';

/** True when a test PostgreSQL server was handed to us (CAIRN_TEST_POSTGRES_URL and friends). */
export function postgresAvailable() {
  return Boolean(env.CAIRN_TEST_POSTGRES_URL);
}

/** The admin connection URL (database `postgres`, superuser `cairn`). */
export function adminUrl() {
  if (!postgresAvailable()) throw new Error(POSTGRES_SKIP_MESSAGE);
  return env.CAIRN_TEST_POSTGRES_URL;
}

function tool(name) {
  return env.CAIRN_TEST_POSTGRES_BIN ? path.join(env.CAIRN_TEST_POSTGRES_BIN, name) : name;
}

/** Runs a program to completion; rejects with its output when it fails. */
function run(file, args, { timeoutMs = 60_000, extraEnv } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, env: { ...env, PGCONNECT_TIMEOUT: '5', ...extraEnv }, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          err.message = `${file} ${args.join(' ')} failed (${err.code ?? err.signal}): ${err.message}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
          reject(err);
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
  });
}

/** Runs pg_ctl as the cluster's owner (CAIRN_TEST_POSTGRES_RUN_AS; empty: the current user). */
function pgCtl(args, opts) {
  const pgctl = tool('pg_ctl');
  const runAs = env.CAIRN_TEST_POSTGRES_RUN_AS;
  if (runAs) return run('runuser', ['-u', runAs, '--', pgctl, ...args], opts);
  return run(pgctl, args, opts);
}

function dataDir() {
  const data = env.CAIRN_TEST_POSTGRES_DATA;
  if (!data) throw new Error('CAIRN_TEST_POSTGRES_DATA is not set');
  return data;
}

/**
 * Runs SQL through psql (ON_ERROR_STOP, unaligned tuples-only output) on `url` (default: the
 * admin connection); resolves with the output rows, each an array of columns.
 */
export async function psql(sql, url = adminUrl()) {
  const { stdout } = await run(tool('psql'), [url, '-X', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-c', sql]);
  return stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.split('\t'));
}

/** The database name of a postgresql:// URL. */
export function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

let counter = 0;

/** Creates a fresh, uniquely named database; resolves with its postgresql:// URL. */
export async function createDatabase(prefix = 'cairn_test') {
  const name = `${prefix}_${process.pid}_${++counter}_${randomBytes(4).toString('hex')}`.toLowerCase();
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || name.length > 63) throw new Error(`bad database name ${name}`);
  await psql(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the database of `url`, closing its open connections (WITH (FORCE)); no error when missing. */
export async function dropDatabase(url) {
  const name = databaseName(url);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`refusing to drop database ${JSON.stringify(name)}`);
  await psql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/** True when the server accepts connections (pg_isready). */
export async function postgresReady() {
  try {
    await run(tool('pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(env.CAIRN_TEST_POSTGRES_PORT), '-t', '5']);
    return true;
  } catch {
    return false;
  }
}

/** True while the server's postmaster runs (pg_ctl status). */
export async function postgresRunning() {
  try {
    await pgCtl(['-D', dataDir(), 'status']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the server and waits until it is down. mode: 'fast' (default: disconnects clients,
 * clean shutdown) or 'immediate' (like a crash: recovery at the next start).
 */
export async function stopPostgres({ mode = 'fast' } = {}) {
  await pgCtl(['-D', dataDir(), '-m', mode, '-w', '-t', '30', 'stop']);
}

/** Starts the server again (same port, socket dir and options as scripts/lib/postgres.sh) and waits until it accepts connections. */
export async function startPostgres() {
  const opts =
    env.CAIRN_TEST_POSTGRES_OPTS ||
    `-p ${env.CAIRN_TEST_POSTGRES_PORT} -k ${env.CAIRN_TEST_POSTGRES_SOCKET_DIR} -c listen_addresses=127.0.0.1 -c fsync=on`;
  const args = ['-D', dataDir(), '-w', '-t', '30', '-o', opts];
  // Always -l: without it the postmaster would keep our stdout pipe open.
  args.push('-l', env.CAIRN_TEST_POSTGRES_LOG || '/dev/null');
  await pgCtl([...args, 'start']);
}

/** Stops and starts the server. */
export async function restartPostgres(opts) {
  await stopPostgres(opts);
  await startPostgres();
}
