// Regression tests for issue 12, "Files are the catalog's to guard": one describe block per
// numbered case of the issue, each with its own server and data directory. Every request is
// what an attacker with plain HTTP could send; the assertions are that the victim's files
// are still there, the server's memory stays bounded, /health/ready stays fast, and every
// refusal is a 4xx in the protocol's error shape whose message names the problem without
// errno texts or the server's own paths.
//
// Where today's server accepts an attack, the tests go on to do what the attacker would do
// next (commit, drop, purge), so that a failure shows the damage, not only the status.

import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';
import { randomUUID } from 'node:crypto';
import { closeSync, constants as fsc, existsSync, mkdirSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { call, describeResponse } from './lib/http.mjs';
import { makeTempDir, removeDir, stderrTail, withServerLog } from './lib/server.mjs';
import { assertIcebergError } from './lib/spec.mjs';
import { assertLanceError } from './lib/lance_spec.mjs';
import { waitFor } from './lib/wait.mjs';
import {
  CALL_TIMEOUT_MS,
  ERRNO_TEXTS,
  OUTSIDE,
  OVERLAP,
  assertCleanMessage,
  assertIcebergRefusal,
  assertLanceRefusal,
  entriesUnder,
  filesUnder,
  localPathOf,
  mkfifo,
  mustCommit,
  mustCreateTable,
  mustLoad,
  rssBytes,
  setProperties,
  sleep,
  spellingsOf,
  startCatalog,
  threadsOpeningFifo,
  openFiles,
  tableRequest,
  viewRequest,
} from './lib/files.mjs';

const NS = ['ns'];
const MiB = 1024 * 1024;
/** cairn's default --worker-threads. */
const DEFAULT_WORKERS = 4;

/** One server per describe block; `it` shows its log when a test fails. */
function withCatalog(options) {
  const holder = {};
  before(async () => {
    holder.cat = await startCatalog(options);
  });
  after(async () => {
    await holder.cat?.cleanup();
  });
  const test = (name, fn) => it(name, withServerLog(() => holder.cat?.server, () => fn(holder.cat)));
  return test;
}

/** Runs `fn` against a server of its own (for settings, or one that may be killed); its log is shown on failure. */
async function withOwnCatalog(options, fn) {
  const own = await startCatalog(options);
  try {
    await fn(own);
  } catch (e) {
    e.message += `\n--- cairn stderr (own server, tail) ---\n${stderrTail(own.server)}`;
    throw e;
  } finally {
    await own.cleanup();
  }
}

/** A fresh directory outside the data dir (so outside every allowed location); removed at exit. */
const outsideDirs = [];
function outsideDir() {
  const dir = makeTempDir('cairn-outside-');
  outsideDirs.push(dir);
  return dir;
}
after(() => outsideDirs.forEach(removeDir));

/** Asserts that nothing was created in `dir` (files or directories). */
function assertEmpty(dir, ctx) {
  assert.deepEqual(entriesUnder(dir), [], `${ctx}: the server created entries outside its allowed locations, in ${dir}`);
}

/**
 * Runs `check()` and returns its failure message (or null), so that one test can try every
 * spelling of an attack and report all that got through, not just the first.
 */
async function failureOf(check) {
  try {
    await check();
    return null;
  } catch (e) {
    const message = String(e.message).split('\n')[0];
    return message.length > 600 ? `${message.slice(0, 600)}...` : message;
  }
}

/** Waits for a Lance drop that continues in the background (if it does) to end. */
async function settleLanceDrop(cat, dropRes) {
  const txid = dropRes.json?.transaction_id ?? dropRes.json?.transactionId;
  if (typeof txid !== 'string') return;
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const res = await cat.lance.describeTransaction(txid);
    if (res.status !== 200 || ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(res.json?.status)) return;
    await sleep(25);
  }
}

/** A copy of `metadata` (a table's v2 metadata) that claims to be another table at `location`. */
function craftedMetadata(metadata, location, extra = {}) {
  return {
    ...structuredClone(metadata),
    location,
    'table-uuid': randomUUID(),
    'metadata-log': [],
    ...extra,
  };
}

/** Writes `metadata` as `<dir>/metadata/00000-<uuid>.metadata.json`; returns its file:// URI. */
function writeMetadataFile(dir, metadata) {
  const file = path.join(dir, 'metadata', `00000-${randomUUID()}.metadata.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(metadata));
  return `file://${file}`;
}

// =============================================================================================
describe('1. deleting through the metadata log', () => {
  const test = withCatalog();

  /** A victim table with two metadata files (the first listed in its metadata-log). */
  async function victim(cat, name) {
    await mustCreateTable(cat, name);
    await mustCommit(cat, name, setProperties({ owner: 'victim' }));
    const loaded = await mustLoad(cat, name);
    const files = [...loaded.metadata['metadata-log'].map((e) => e['metadata-file']), loaded['metadata-location']];
    assert.equal(files.length, 2, JSON.stringify(loaded.metadata['metadata-log']));
    return { name, loaded, files };
  }

  /** The victim's metadata files are all on disk, it loads unchanged and accepts a commit. */
  async function assertVictimIntact(cat, v) {
    const missing = v.files.filter((f) => !existsSync(localPathOf(f)));
    assert.deepEqual(missing, [], `metadata files of the victim table ns.${v.name} were deleted`);
    const loaded = await mustLoad(cat, v.name);
    assert.equal(loaded['metadata-location'], v.loaded['metadata-location'], 'the victim table moved');
    const committed = await mustCommit(cat, v.name, setProperties({ still: 'alive' }));
    assert.ok(existsSync(localPathOf(committed['metadata-location'])), committed['metadata-location']);
  }

  /** What an attacker commits to a table whose metadata-log lists files to be deleted. */
  async function commitCleanup(cat, name) {
    const results = [];
    const steps = [
      { 'write.metadata.delete-after-commit.enabled': 'true', 'write.metadata.previous-versions-max': '1' },
      { step: '1' },
      { step: '2' },
    ];
    for (const updates of steps) results.push(await cat.ice.commitTable(NS, name, setProperties(updates)));
    return results;
  }

  test('registering a table on another table\'s metadata file is refused; the victim keeps its files', async (cat) => {
    const v = await victim(cat, 'victim_a');
    // Its current file, and the older one in its metadata-log: both name the victim's location.
    const current = await cat.ice.register(NS, { name: 'r_current', 'metadata-location': v.loaded['metadata-location'] });
    const older = await cat.ice.register(NS, { name: 'r_older', 'metadata-location': v.files[0] });
    if (current.status === 200) await commitCleanup(cat, 'r_current'); // the attack goes on
    if (older.status === 200) await commitCleanup(cat, 'r_older');

    await assertVictimIntact(cat, v);
    assertIcebergRefusal(current, cat, 'register on the current metadata file of another table', /location|overlap/i);
    assertIcebergRefusal(older, cat, 'register on an older metadata file of another table', /location|overlap/i);
  });

  test('metadata-log cleanup of a crafted table deletes none of the files its log names', async (cat) => {
    const v = await victim(cat, 'victim_b');
    // The victim's files spelled every way a path or file: URI can name them.
    const spelled = v.files.flatMap((f) =>
      spellingsOf(localPathOf(f))
        .filter((s) => !s.how.includes('trailing slash'))
        .map((s) => s.location),
    );
    const lastUpdated = v.loaded.metadata['last-updated-ms'];
    const crafted = craftedMetadata(v.loaded.metadata, `${cat.whUri}/crafted`, {
      'metadata-log': spelled.map((file, i) => ({ 'timestamp-ms': lastUpdated - spelled.length + i, 'metadata-file': file })),
    });
    const file = writeMetadataFile(path.join(cat.wh, 'crafted'), crafted);

    const reg = await cat.ice.register(NS, { name: 'crafted', 'metadata-location': file });
    assert.equal(reg.status, 200, `register of a metadata file in the warehouse: ${describeResponse(reg)}`);
    const commits = await commitCleanup(cat, 'crafted');

    await assertVictimIntact(cat, v);
    for (const res of commits) assert.equal(res.status, 200, `commit to the crafted table: ${describeResponse(res)}`);
    // The crafted table's own current file is there too.
    const c = await mustLoad(cat, 'crafted');
    assert.ok(existsSync(localPathOf(c['metadata-location'])), c['metadata-location']);
  });
});

// =============================================================================================
describe('2. a Lance drop deletes nothing that is not its dataset', () => {
  const test = withCatalog();

  test('DeclareTable at an Iceberg table\'s directory in any spelling, above or below it, is refused; its files stay', async (cat) => {
    const t = await mustCreateTable(cat, 'iceberg_t');
    const dir = localPathOf(t.metadata.location);
    // A data file, as an engine would write one (a Lance drop deletes `data/`).
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    writeFileSync(path.join(dir, 'data', '00000-0-data.parquet'), 'parquet bytes');
    const before = filesUnder(dir);
    assert.ok(before.some((f) => f.startsWith('metadata/')), `no metadata file in ${dir}: ${before}`);

    const attempts = [
      ...spellingsOf(dir),
      { how: 'the parent directory', location: path.dirname(dir) },
      { how: 'the parent directory as a file:// URI', location: `file://${path.dirname(dir)}` },
      { how: 'a child directory', location: `file://${dir}/sub.lance` },
      { how: 'its data directory', location: `${dir}/data` },
    ];
    const problems = [];
    for (const [i, a] of attempts.entries()) {
      const id = ['default', 'ns', `lance_${i}`];
      const res = await cat.lance.declare(id, a.location);
      if (res.status === 200) await settleLanceDrop(cat, await cat.lance.drop(id)); // the attack goes on
      const problem = await failureOf(() => assertLanceRefusal(res, cat, `declare at ${a.how} (${a.location})`, OVERLAP));
      if (problem) problems.push(problem);
    }

    assert.deepEqual(filesUnder(dir), before, `files of the Iceberg table at ${dir} were deleted by a Lance drop; ${problems.length} overlapping declares were not refused`);
    assert.deepEqual(problems, [], 'declares that overlap an Iceberg table were not refused');
    const loaded = await mustLoad(cat, 'iceberg_t');
    assert.ok(existsSync(localPathOf(loaded['metadata-location'])));
  });

  test('dropping a Lance table whose location holds no Lance dataset deletes nothing', async (cat) => {
    // One at the location Cairn chooses, one at a location the client chose.
    const cases = [
      { name: 'l_default', location: undefined },
      { name: 'l_explicit', location: `${cat.whUri}/ns/handmade.lance` },
    ];
    for (const { name, location } of cases) {
      const id = ['default', 'ns', name];
      const declared = await cat.lance.declare(id, location);
      assert.equal(declared.status, 200, `declare ${name}: ${describeResponse(declared)}`);
      const dir = localPathOf(declared.json.location);
      // Files that look like a dataset's parts, but no Lance manifest: not a dataset.
      mkdirSync(path.join(dir, 'data'), { recursive: true });
      mkdirSync(path.join(dir, '_versions'), { recursive: true });
      writeFileSync(path.join(dir, 'data', 'x.bin'), 'someone else\'s bytes');
      writeFileSync(path.join(dir, '_versions', 'junk.txt'), 'not a manifest');

      const dropped = await cat.lance.drop(id);
      assert.equal(dropped.status, 200, `drop ${name}: ${describeResponse(dropped)}`);
      await settleLanceDrop(cat, dropped);
      assert.deepEqual(filesUnder(dir), ['_versions/junk.txt', 'data/x.bin'], `drop of ${name} deleted files at ${dir}, where no Lance dataset was`);
    }
  });
});

// =============================================================================================
describe('3. reads that cannot hang or exhaust the server', () => {
  const test = withCatalog();
  const RSS_LIMIT = 500 * MiB;

  test('register of /dev/zero (and of a symlink to it) is refused at once; the server\'s memory stays bounded', async () => {
    // A server of its own: if it starts eating memory it is killed before it hurts the machine.
    await withOwnCatalog({}, async (own) => {
      const pid = own.server.proc.pid;
      mkdirSync(path.join(own.wh, 'ns'), { recursive: true });
      const link = path.join(own.wh, 'ns', 'zero.metadata.json');
      symlinkSync('/dev/zero', link);
      const targets = [
        { name: 'zero', location: '/dev/zero', pattern: OUTSIDE },
        { name: 'zero_uri', location: 'file:///dev/zero', pattern: OUTSIDE },
        { name: 'zero_link', location: `file://${link}`, pattern: /regular file|allowed location|outside|symlink|symbolic link/i },
      ];
      for (const target of targets) {
        let peak = rssBytes(pid);
        let killed = false;
        const watch = setInterval(() => {
          peak = Math.max(peak, rssBytes(pid));
          if (peak > RSS_LIMIT && !killed) {
            killed = true;
            own.server.proc.kill('SIGKILL');
          }
        }, 20);
        const started = Date.now();
        const res = await own.ice.register(NS, { name: target.name, 'metadata-location': target.location }).catch((e) => e);
        const elapsed = Date.now() - started;
        // A server that reads on after answering still holds the file open (and grows meanwhile).
        await waitFor(() => !openFiles(pid).includes('/dev/zero'), {
          timeoutMs: 3000,
          what: `the server to close /dev/zero after answering register ${target.location}`,
        }).finally(() => clearInterval(watch));

        const ctx = `register ${target.location}`;
        assert.ok(!killed, `${ctx}: the server's RSS passed ${RSS_LIMIT / MiB} MiB (killed at ${Math.round(peak / MiB)} MiB)`);
        assert.ok(!(res instanceof Error), `${ctx}: no answer: ${res.message}`);
        assertIcebergRefusal(res, own, ctx, target.pattern);
        assert.ok(elapsed < 3000, `${ctx}: the refusal took ${elapsed} ms`);
        assert.ok(peak < RSS_LIMIT, `${ctx}: RSS peaked at ${Math.round(peak / MiB)} MiB`);
      }
    });
  });

  test('five registers of a FIFO are refused and block no worker: /health/ready and the store stay fast', async (cat) => {
    const fifo = path.join(cat.wh, 'fifo', 'metadata', '00000-x.metadata.json');
    mkdirSync(path.dirname(fifo), { recursive: true });
    mkfifo(fifo);
    try {
      let settled = 0;
      const registers = Array.from({ length: 5 }, (_, i) =>
        cat.ice
          .register(NS, { name: `fifo_${i}`, 'metadata-location': `file://${fifo}` })
          .catch((e) => e)
          .finally(() => (settled += 1)),
      );
      // Let them reach the workers: each is answered, or hangs opening the FIFO in the server
      // (then, once every worker hangs there, the probes below would queue behind them).
      const pid = cat.server.proc.pid;
      await waitFor(() => settled + threadsOpeningFifo(pid) >= registers.length || threadsOpeningFifo(pid) >= DEFAULT_WORKERS, {
        timeoutMs: 5000,
        what: () => `the FIFO registers to be answered or to hang in the server (${settled} answered, ${threadsOpeningFifo(pid)} threads opening the FIFO)`,
      });
      const timed = async (target) => {
        const t0 = Date.now();
        const res = await call(cat.base, 'GET', target, { timeoutMs: CALL_TIMEOUT_MS }).catch((e) => e);
        return { res, ms: Date.now() - t0 };
      };
      const [ready, list] = await Promise.all([timed('/health/ready'), timed('/iceberg/v1/default/namespaces')]);
      const results = await Promise.all(registers);

      for (const [what, { res, ms }] of Object.entries({ '/health/ready': ready, 'list namespaces': list })) {
        assert.ok(!(res instanceof Error), `${what} while FIFO registers run: ${res.message}`);
        assert.equal(res.status, 200, `${what}: ${describeResponse(res)}`);
        assert.ok(ms < 2000, `${what} took ${ms} ms while five registers of a FIFO ran`);
      }
      for (const [i, res] of results.entries()) {
        assert.ok(!(res instanceof Error), `register ${i} of a FIFO: no answer: ${res.message}`);
        assertIcebergRefusal(res, cat, `register ${i} of a FIFO`, /regular file/i);
      }
    } finally {
      unblockFifo(fifo);
    }
  });

  test('a metadata file larger than max-metadata-file-bytes is refused naming the limit', async () => {
    await withOwnCatalog({ args: ['--max-metadata-file-bytes', String(MiB)] }, async (own) => {
      const base = await mustCreateTable(own, 'template');
      // Valid metadata, padded by a property: only its size can be held against it.
      const padded = (location, bytes) => craftedMetadata(base.metadata, location, {
        properties: { ...base.metadata.properties, padding: 'x'.repeat(bytes) },
      });
      const big = writeMetadataFile(path.join(own.wh, 'big'), padded(`${own.whUri}/big`, 2 * MiB));
      const small = writeMetadataFile(path.join(own.wh, 'small'), padded(`${own.whUri}/small`, MiB / 2));

      const refused = await own.ice.register(NS, { name: 'big', 'metadata-location': big });
      assertIcebergRefusal(refused, own, 'register of a 2 MiB metadata file', /too large|exceeds|limit/i);
      const accepted = await own.ice.register(NS, { name: 'small', 'metadata-location': small });
      assert.equal(accepted.status, 200, `a 0.5 MiB file is under the limit: ${describeResponse(accepted)}`);
    });
  });
});

/** Wakes any reader blocked opening `fifo` (a writer opens and closes it), then removes it. */
function unblockFifo(fifo) {
  const deadline = Date.now() + 1000;
  while (Date.now() < deadline) {
    try {
      closeSync(openSync(fifo, fsc.O_WRONLY | fsc.O_NONBLOCK));
    } catch {
      /* ENXIO: no reader waits */
    }
    const until = Date.now() + 50;
    while (Date.now() < until) {
      /* spin: readers queued behind the first ones open it next */
    }
  }
  rmSync(fifo, { force: true });
}

// =============================================================================================
describe('4. no writing outside the allowed locations', () => {
  const test = withCatalog();

  test('createTable with a location, write.metadata.path or write.data.path outside is refused', async (cat) => {
    const out = outsideDir();
    const requests = [
      { name: 'loc_uri', location: `file://${out}/t` },
      { name: 'loc_plain', location: `${out}/t_plain` },
      { name: 'md_path', properties: { 'write.metadata.path': `file://${out}/metadata` } },
      { name: 'data_path', properties: { 'write.data.path': `file://${out}/data` } },
    ];
    const problems = [];
    for (const { name, ...extra } of requests) {
      const res = await cat.ice.createTable(NS, { ...tableRequest(name), ...extra });
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `create ${JSON.stringify(extra)}`, OUTSIDE));
      if (problem) problems.push(problem);
    }
    assertEmpty(out, 'createTable');
    assert.deepEqual(problems, []);
  });

  test('commits that move a table\'s location, metadata path or data path outside are refused', async (cat) => {
    const out = outsideDir();
    await mustCreateTable(cat, 'existing');
    const updates = [
      { action: 'set-location', location: `file://${out}/moved` },
      { action: 'set-properties', updates: { 'write.metadata.path': `file://${out}/metadata` } },
      { action: 'set-properties', updates: { 'write.data.path': `file://${out}/data` } },
    ];
    const problems = [];
    for (const update of updates) {
      const res = await cat.ice.commitTable(NS, 'existing', { requirements: [], updates: [update] });
      // One more commit, so that a moved metadata path would be written to.
      if (res.status === 200) await cat.ice.commitTable(NS, 'existing', setProperties({ after: update.action }));
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `commit ${JSON.stringify(update)}`, OUTSIDE));
      if (problem) problems.push(problem);
    }
    // The same through a multi-table transaction.
    const tx = await cat.ice.commitTransaction({
      'table-changes': [{ identifier: { namespace: NS, name: 'existing' }, requirements: [], updates: [{ action: 'set-location', location: `file://${out}/tx` }] }],
    });
    const problem = await failureOf(() => assertIcebergRefusal(tx, cat, 'transaction with set-location outside', OUTSIDE));
    if (problem) problems.push(problem);

    assertEmpty(out, 'commits');
    assert.deepEqual(problems, []);
    assert.ok((await mustLoad(cat, 'existing')).metadata.location.startsWith(cat.whUri), 'the table moved outside');
  });

  test('views and Lance tables outside are refused', async (cat) => {
    const out = outsideDir();
    const problems = [];
    const views = [
      { name: 'v_loc', location: `file://${out}/v` },
      { name: 'v_md', properties: { 'write.metadata.path': `file://${out}/vmeta` } },
    ];
    for (const { name, ...extra } of views) {
      const res = await cat.ice.createView(NS, viewRequest(name, extra));
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `create view ${JSON.stringify(extra)}`, OUTSIDE));
      if (problem) problems.push(problem);
    }
    const id = ['default', 'ns', 'lance_out'];
    const declared = await cat.lance.declare(id, `file://${out}/l.lance`);
    const problem = await failureOf(() => assertLanceRefusal(declared, cat, 'DeclareTable outside', OUTSIDE));
    if (problem) problems.push(problem);
    if (declared.status === 200) await settleLanceDrop(cat, await cat.lance.drop(id));

    assertEmpty(out, 'views and Lance');
    assert.deepEqual(problems, []);
  });

  test('a location whose `..` climbs out of the warehouse is refused', async (cat) => {
    const out = outsideDir();
    // <warehouse>/ns/../../..: as many `..` as it takes to reach `out` from inside.
    const climb = path.relative(path.join(cat.wh, 'ns'), out);
    assert.match(climb, /^\.\.\//, climb);
    const spelled = `${cat.wh}/ns/${climb}/dotdot`;
    assert.equal(path.resolve(spelled), path.join(out, 'dotdot'));
    const problems = [];
    for (const [name, location] of [['dotdot_plain', spelled], ['dotdot_uri', `file://${spelled}`]]) {
      const res = await cat.ice.createTable(NS, { ...tableRequest(name), location });
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `create at ${location}`, OUTSIDE));
      if (problem) problems.push(problem);
    }
    assertEmpty(out, '`..` location');
    assert.deepEqual(problems, []);
  });

  test('a symlink inside the warehouse does not lead outside (create, declare, register through it)', async (cat) => {
    const out = outsideDir();
    mkdirSync(path.join(cat.wh, 'ns'), { recursive: true });
    const link = path.join(cat.wh, 'ns', 'link');
    symlinkSync(out, link);

    // Writing through it: refused, or at least nothing lands outside.
    for (const [name, location] of [['via_link', `file://${link}`], ['via_link_sub', `file://${link}/sub`]]) {
      const res = await cat.ice.createTable(NS, { ...tableRequest(name), location });
      assert.ok(res.status === 200 || res.status === 400, `create at ${location}: ${describeResponse(res)}`);
      if (res.status === 400) assertIcebergRefusal(res, cat, `create at ${location}`);
      else await cat.ice.commitTable(NS, name, setProperties({ more: 'writes' }));
    }
    const id = ['default', 'ns', 'lance_link'];
    const declared = await cat.lance.declare(id, `file://${link}/l.lance`);
    assert.ok(declared.status === 200 || declared.status === 400, `declare through a symlink: ${describeResponse(declared)}`);
    if (declared.status === 400) assertLanceRefusal(declared, cat, 'declare through a symlink');
    assertEmpty(out, 'writes through a symlink');

    // Reading through it: a metadata file that really lies outside is refused.
    const readOut = outsideDir();
    const readLink = path.join(cat.wh, 'ns', 'read_link');
    symlinkSync(readOut, readLink);
    const template = await mustCreateTable(cat, 'link_template');
    const md = craftedMetadata(template.metadata, `file://${readLink}`);
    const file = writeMetadataFile(readOut, md);
    const throughLink = `file://${readLink}/metadata/${path.basename(localPathOf(file))}`;
    const res = await cat.ice.register(NS, { name: 'registered_via_link', 'metadata-location': throughLink });
    assertIcebergRefusal(res, cat, `register ${throughLink}`, /allowed location|outside|symlink|symbolic link/i);
  });
});

// =============================================================================================
describe('5. tables may not overlap', () => {
  const test = withCatalog();
  let a; // table A at the location Cairn chose

  test('a table at another table\'s location, or inside it, is refused', async (cat) => {
    a = await mustCreateTable(cat, 'a');
    const dir = localPathOf(a.metadata.location);
    const problems = [];
    const attempts = [
      ['b_same', a.metadata.location],
      ['b_same_plain', dir],
      ['b_same_dotted', `${path.dirname(dir)}/./${path.basename(dir)}`],
      ['b_inside', `${a.metadata.location}/sub`],
      ['b_in_metadata', `${a.metadata.location}/metadata`],
    ];
    for (const [name, location] of attempts) {
      const res = await cat.ice.createTable(NS, { ...tableRequest(name), location });
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `create at ${location}`, OVERLAP));
      if (problem) problems.push(problem);
    }
    assert.deepEqual(problems, []);
  });

  test('a table whose location contains another table is refused', async (cat) => {
    const d = `${cat.whUri}/ns/pdir/p`;
    const p = await mustCreateTable(cat, 'p', { location: d });
    assert.equal(p.metadata.location, d);
    const problems = [];
    const attempts = [
      ['q_parent', `${cat.whUri}/ns/pdir`],
      ['q_namespace_dir', `${cat.whUri}/ns`],
      ['q_warehouse', cat.whUri],
    ];
    for (const [name, location] of attempts) {
      const res = await cat.ice.createTable(NS, { ...tableRequest(name), location });
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `create at ${location}`, OVERLAP));
      if (problem) problems.push(problem);
    }
    assert.deepEqual(problems, []);
  });

  test('set-location onto another table, and a view at a table\'s location, are refused', async (cat) => {
    await mustCreateTable(cat, 'x');
    const problems = [];
    for (const location of [a.metadata.location, `${a.metadata.location}/sub`, `${cat.whUri}/ns/pdir`]) {
      const res = await cat.ice.commitTable(NS, 'x', { requirements: [], updates: [{ action: 'set-location', location }] });
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `set-location ${location}`, OVERLAP));
      if (problem) problems.push(problem);
    }
    for (const [name, location] of [['v_same', a.metadata.location], ['v_inside', `${a.metadata.location}/views`]]) {
      const res = await cat.ice.createView(NS, viewRequest(name, { location }));
      const problem = await failureOf(() => assertIcebergRefusal(res, cat, `create view at ${location}`, OVERLAP));
      if (problem) problems.push(problem);
    }
    assert.deepEqual(problems, []);
  });

  test('purging A (and any table that overlaps it) leaves every other table loadable with its current metadata file on disk', async (cat) => {
    const dropped = await cat.ice.dropTable(NS, 'a', true);
    assert.equal(dropped.status, 204, describeResponse(dropped));
    // The reverse direction: tables that should not exist (refused above) are purged too, where
    // they do exist; a fixed server answers 404 for them.
    for (const name of ['b_same', 'b_same_plain', 'b_same_dotted', 'b_inside', 'b_in_metadata', 'q_parent', 'q_namespace_dir', 'q_warehouse']) {
      const res = await cat.ice.dropTable(NS, name, true);
      assert.ok([204, 404].includes(res.status), `purge ns.${name}: ${describeResponse(res)}`);
    }
    const listed = await cat.ice.listTables(NS);
    assert.equal(listed.status, 200, describeResponse(listed));
    const lost = [];
    for (const { name } of listed.json.identifiers) {
      const t = await mustLoad(cat, name);
      if (!existsSync(localPathOf(t['metadata-location']))) lost.push(`ns.${name}: ${t['metadata-location']}`);
    }
    assert.deepEqual(lost, [], `purging ns.a (at ${a.metadata.location}) deleted other tables' current metadata files`);
  });
});

// =============================================================================================
describe('6. no probing of the server\'s files', () => {
  // A marker in the server's environment: /proc/self/environ must never be read back.
  const SECRET = `cairn-probe-secret-${randomUUID()}`;
  const test = withCatalog({ env: { CAIRN_PROBE_SECRET: SECRET } });

  /** An absolute path of exactly `length` characters under `prefix`, in 200-character segments. */
  function longPath(prefix, length, suffix = '.metadata.json') {
    let p = prefix;
    while (p.length < length - suffix.length) p += `/${'d'.repeat(199)}`;
    p = p.slice(0, length - suffix.length);
    if (p.endsWith('/')) p = `${p.slice(0, -1)}d`;
    return `${p}${suffix}`;
  }

  test('register answers the same refusal whether a path outside exists, is JSON, or not', async (cat) => {
    const out = outsideDir();
    // A valid metadata file outside: registering it must fail like a missing one.
    const template = await mustCreateTable(cat, 'probe_template');
    const valid = localPathOf(writeMetadataFile(out, craftedMetadata(template.metadata, `file://${out}`)));
    const long = longPath('/nonexistent', 5000);
    assert.equal(long.length, 5000);
    const probes = ['/etc/passwd', '/nonexistent/x.metadata.json', '/proc/self/environ', valid, long];

    const errors = [];
    for (const [i, location] of probes.entries()) {
      const res = await cat.ice.register(NS, { name: `probe_${i}`, 'metadata-location': location });
      assert.ok(!res.text.includes(SECRET), `register ${location} revealed the server's environment`);
      // The over-long path may be refused for its length instead; it must still be the same type.
      const err = assertIcebergRefusal(res, cat, `register ${location.slice(0, 80)}`, location === long ? undefined : OUTSIDE);
      // The path the client sent is its own; what remains must not depend on the file.
      errors.push({ location, type: err.type, message: err.message.split(location).join('<path>').split(`file://<path>`).join('<path>') });
    }
    const types = [...new Set(errors.map((e) => e.type))];
    assert.equal(types.length, 1, `different error types for different probes: ${JSON.stringify(errors)}`);
    for (const e of errors.slice(0, 2).concat(errors[3])) {
      assert.doesNotMatch(e.message, /not valid|JSON|does not exist|not found|no such/i, `the refusal of ${e.location} tells what the file is: ${e.message}`);
    }
    assert.equal(errors[0].message, errors[1].message, 'an existing and a missing file are refused differently');
    assert.equal(errors[0].message, errors[3].message, 'a non-JSON and a valid metadata file are refused differently');
  });

  test('a bad location is a 4xx without errno texts or server paths', async (cat) => {
    const attempts = [
      ['too_long_inside', longPath(`${cat.whUri}/ns`, 5000, '')],
      ['long_segment_inside', `${cat.whUri}/ns/${'s'.repeat(300)}`],
      ['proc_self', '/proc/self/x'],
      ['proc_self_uri', 'file:///proc/self/x'],
      ['etc_passwd', '/etc/passwd'],
    ];
    const problems = [];
    for (const [name, location] of attempts) {
      const res = await cat.ice.createTable(NS, { ...tableRequest(name), location });
      const problem = await failureOf(() => assertClientError(res, cat, `create at ${location.slice(0, 80)}`, 'iceberg'));
      if (problem) problems.push(problem);
      const declared = await cat.lance.declare(['default', 'ns', `lance_${name}`], location);
      const lanceProblem = await failureOf(() => assertClientError(declared, cat, `declare at ${location.slice(0, 80)}`, 'lance'));
      if (lanceProblem) problems.push(lanceProblem);
    }
    assert.deepEqual(problems, []);
  });
});

/**
 * A 4xx (never a 5xx) in the protocol's error shape (`iceberg` or `lance`) whose body holds
 * no errno text and whose message does not name the data dir.
 */
function assertClientError(res, cat, ctx, protocol) {
  assert.ok(res.status >= 400 && res.status < 500, `${ctx}: expected a 4xx, got ${describeResponse(res)}`);
  const message = protocol === 'lance' ? assertLanceError(res, res.status, res.json?.code).error : assertIcebergError(res, res.status).message;
  assertCleanMessage(message, res, cat.dataDir, ctx);
  for (const text of ERRNO_TEXTS) assert.ok(!res.text.includes(text), `${ctx}: errno text in ${res.text}`);
}
