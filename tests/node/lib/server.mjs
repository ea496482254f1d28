// Start / stop a Cairn server process for integration tests.
//
//   const srv = await startServer();            // fresh temp data dir
//   await call(srv.url, 'GET', '/health');
//   await srv.cleanup();                        // SIGTERM + remove its temp dir
//
// The server must print exactly one line `listening on http://127.0.0.1:PORT`
// (`https://` when TLS is configured) to stdout once it accepts connections; logs go
// to stderr and are buffered (srv.stderr()) so tests can show them on failure.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repository root: <repo>/tests/node/lib -> <repo>. */
export const REPO_ROOT = path.resolve(here, '..', '..', '..');
export const CAIRN_BIN = process.env.CAIRN_BIN || path.join(REPO_ROOT, 'build', 'dev', 'cairn');

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;
const MAX_STDERR_BYTES = 1 << 20;

// Every process we spawned that is still alive; killed when the test process exits.
const live = new Set();

function killAll() {
  for (const p of live) {
    try {
      p.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => {
    killAll();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[sig]);
  });
}

/** Creates a fresh empty temp directory. */
export function makeTempDir(tag = 'cairn-node-') {
  return mkdtempSync(path.join(tmpdir(), tag));
}

/** Removes a directory tree (no error when missing). */
export function removeDir(dir) {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

function assertBinary() {
  if (!existsSync(CAIRN_BIN)) {
    throw new Error(`cairn binary not found at ${CAIRN_BIN} (build it, or set CAIRN_BIN)`);
  }
}

/** Renders a config object as TOML top-level keys (strings, numbers, booleans). */
function toToml(config) {
  if (typeof config === 'string') return config;
  return (
    Object.entries(config)
      .map(([k, v]) => `${k} = ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
      .join('\n') + '\n'
  );
}

/**
 * Starts `cairn serve --listen 127.0.0.1:0 --data-dir <dir> [--config FILE] [...args]`.
 *
 * @param {object} [opts]
 * @param {string} [opts.dataDir]  reuse this data dir (restart tests); default: a fresh temp dir
 *                                 that cleanup() removes
 * @param {string[]} [opts.args]   extra CLI arguments
 * @param {string|object} [opts.config] TOML text (or an object of top-level keys) written to a
 *                                 temp file and passed with --config
 * @param {object} [opts.env]      extra environment variables
 * @param {string|null} [opts.listen] --listen value (default 127.0.0.1:0; null: not passed)
 * @param {string[]} [opts.command] the program and its first arguments, before `serve`
 *                                 (default: [CAIRN_BIN]; e.g. an installed binary run as
 *                                 another user through setpriv)
 */
export async function startServer({ dataDir, args = [], config, env, listen = '127.0.0.1:0', command } = {}) {
  if (!command) assertBinary();
  const [program, ...programArgs] = command ?? [CAIRN_BIN];
  const ownsDataDir = !dataDir;
  if (!dataDir) dataDir = makeTempDir();
  let configDir;
  const argv = ['serve'];
  if (listen) argv.push('--listen', listen); // listen: null -> taken from the config file
  argv.push('--data-dir', dataDir);
  if (config !== undefined) {
    configDir = makeTempDir('cairn-node-cfg-');
    const file = path.join(configDir, 'cairn.toml');
    writeFileSync(file, toToml(config));
    argv.push('--config', file);
  }
  argv.push(...args);

  const proc = spawn(program, [...programArgs, ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  live.add(proc);

  let stderrBuf = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => {
    stderrBuf += d;
    if (stderrBuf.length > MAX_STDERR_BYTES) stderrBuf = stderrBuf.slice(-MAX_STDERR_BYTES);
  });
  let stdoutBuf = '';
  proc.stdout.setEncoding('utf8');

  const exited = new Promise((resolve) => {
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    });
  });
  let exitInfo = null;
  exited.then((info) => {
    exitInfo = info;
  });

  const describe = () =>
    `command: ${[program, ...programArgs, ...argv].join(' ')}\n--- stdout ---\n${stdoutBuf}\n--- stderr ---\n${stderrBuf}`;

  const started = new Promise((resolve, reject) => {
    let done = false;
    const finish = (err, val) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(val);
    };
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      finish(new Error(`cairn did not print "listening on http(s)://..." within ${STARTUP_TIMEOUT_MS} ms\n${describe()}`));
    }, STARTUP_TIMEOUT_MS);
    proc.stdout.on('data', (d) => {
      stdoutBuf += d;
      const m = /^listening on (https?:\/\/127\.0\.0\.1:(\d+))\r?$/m.exec(stdoutBuf);
      if (m) finish(null, m[1]);
    });
    proc.once('error', (e) => finish(new Error(`failed to spawn cairn: ${e.message}\n${describe()}`)));
    exited.then(({ code, signal }) =>
      finish(new Error(`cairn exited during startup (code=${code}, signal=${signal})\n${describe()}`)),
    );
  });
  let url;
  try {
    url = await started;
  } catch (err) {
    if (ownsDataDir) removeDir(dataDir);
    removeDir(configDir);
    throw err;
  }
  const port = Number(new URL(url).port);

  /** Sends `signal` and waits for the exit; returns the exit code (null if killed by a signal). */
  async function stop(signal = 'SIGTERM') {
    if (!exitInfo) {
      proc.kill(signal);
      const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    const { code } = await exited;
    return code;
  }

  return {
    url,
    port,
    dataDir,
    proc,
    argv,
    stop,
    exited,
    /** Whole stderr captured so far. */
    stderr: () => stderrBuf,
    stdout: () => stdoutBuf,
    /** Stops the server (if running) and removes temp dirs this helper created. */
    async cleanup() {
      await stop();
      if (ownsDataDir) removeDir(dataDir);
      removeDir(configDir);
    },
  };
}

/**
 * Runs the cairn binary to completion (for CLI tests: --version, bad flags, ...).
 * Resolves with {code, signal, stdout, stderr}. Kills it after timeoutMs.
 */
export function runCairn(args, { timeoutMs = 15_000, env } = {}) {
  assertBinary();
  return new Promise((resolve, reject) => {
    const proc = spawn(CAIRN_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    live.add(proc);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    proc.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.once('error', (e) => {
      clearTimeout(timer);
      live.delete(proc);
      reject(e);
    });
    proc.once('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(proc);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Last `n` characters of the server's stderr, for failure messages. */
export function stderrTail(server, n = 8000) {
  if (!server) return '';
  const s = server.stderr();
  return s.length > n ? `...${s.slice(-n)}` : s;
}

/**
 * Wraps a test body so that, when it fails, the server's stderr is appended to the error
 * message (the test runner prints it).
 *   test('x', withServerLog(() => server, async (t) => { ... }))
 */
export function withServerLog(getServer, fn) {
  return async (t) => {
    try {
      await fn(t);
    } catch (err) {
      const srv = getServer();
      if (srv && err && typeof err === 'object') {
        const extra = `\n--- cairn stderr (tail) ---\n${stderrTail(srv)}`;
        try {
          err.message = `${err.message}${extra}`;
        } catch {
          /* non-writable message */
        }
      }
      throw err;
    }
  };
}
