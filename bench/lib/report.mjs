// Turns <out>/raw/*.json (written by bench/run) into <out>/RESULTS.md and the charts
// <out>/*.png. It reads only raw/, so it can be re-run on its own, e.g. after editing
// ANALYSIS.md:
//
//   node bench/lib/report.mjs --out bench/results [--analysis bench/results/ANALYSIS.md]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeCharts } from './charts.mjs';
import { analysisSection, header, targetSection } from './document.mjs';
import { w9 } from './report_w9.mjs';
import { w10 } from './report_w10.mjs';
import { DASH, bytes, isNum, kib, latency, num, percent, ratio, sig3, table, throughput } from './format.mjs';

const { values: args } = parseArgs({
  options: { out: { type: 'string', default: 'bench/results' }, analysis: { type: 'string' } },
});
const outDir = path.resolve(args.out);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const rawDir = path.join(outDir, 'raw');

// Every raw file by its name (file name without .json).
const raw = new Map();
for (const file of readdirSync(rawDir).filter((f) => f.endsWith('.json')).sort()) {
  raw.set(file.slice(0, -5), JSON.parse(readFileSync(path.join(rawDir, file), 'utf8')));
}
const meta = raw.get('meta') ?? {};
const get = (name) => raw.get(name);
const result = (name) => raw.get(name)?.result;
const tput = (name) => throughput(result(name)).value;

// ---------------------------------------------------------------------------- tables

// One row per measured run: what the load generator saw and what the server spent.
const RUN_HEADER = ['run', 'conns', 'throughput', 'p50', 'p99', 'p99.9', 'errors', 'server CPU s (cores)', 'peak RSS', 'vs ceiling'];

// `run` and `ceiling` name raw files, or are documents of that shape (see pathRun; an
// undefined one was not run).
function runRow(label, run, { ceiling, conns, yardstick = 'ceiling' } = {}) {
  const doc = typeof run === 'string' ? get(run) : run;
  if (!doc) return [label, conns ?? DASH, 'not run', ...Array(RUN_HEADER.length - 3).fill(DASH)];
  const r = doc.result;
  const t = throughput(r);
  const l = r.latency_us ?? {};
  const c = conns ?? r.connections ?? r.writers ?? DASH;
  let vs = '';
  if (ceiling === true) vs = yardstick;
  else if (ceiling) vs = percent(ratio(t.value, throughput((typeof ceiling === 'string' ? get(ceiling) : ceiling)?.result).value));
  // The ceilings do not involve the server: its CPU and RSS say nothing there.
  const server = r.subcommand.endsWith('-ceiling') ? {} : doc.server ?? {};
  const cpu = server.cpu_s;
  return [
    label, c, isNum(t.value) ? `${sig3(t.value)} ${t.unit}` : DASH,
    latency(l.p50), latency(l.p99), latency(l.p999), errors(r),
    isNum(cpu) ? `${sig3(cpu)} (${isNum(server.cores) ? sig3(server.cores) : DASH})` : DASH, kib(server.peak_rss_kib), vs,
  ];
}

function errors(r) {
  const e = r.errors ?? 0;
  return e === 0 ? '0' : `**${e}**`;
}

// Error samples of every run of a workload, so that a failing run is never silent.
function errorNotes(prefix) {
  const notes = [];
  for (const [name, doc] of raw) {
    if (!name.startsWith(`${prefix}-`) || !doc.result?.errors) continue;
    const samples = (doc.result.error_samples ?? []).slice(0, 3)
      .map((s) => (typeof s === 'string' ? s : JSON.stringify(s)).replace(/[`\n\r]+/g, ' ').slice(0, 200));
    notes.push(`- \`${name}\`: ${doc.result.errors} errors${samples.length ? `, e.g. ${samples.map((s) => `\`${s}\``).join(', ')}` : ''}`);
  }
  return notes.length ? `\nErrors (never counted as successes):\n\n${notes.join('\n')}\n` : '';
}

function serverLine(prefix) {
  const s = get(`${prefix}-server`);
  if (!s) return '';
  return `Server at the end of the workload: peak RSS ${kib(s.peak_rss_kib)}, ${isNum(s.cpu_s) ? sig3(s.cpu_s) : DASH} CPU s in all, data dir ${bytes(s.data_bytes)}.`;
}

// ---------------------------------------------------------------------------- workloads

const sections = [];
const targets = [];
const chart = (w) => (charts[w] ? `\n![${w}](${charts[w]})\n` : '');
const ran = (w) => [...raw.keys()].some((k) => k.startsWith(`${w}-`));
const failed = new Set(meta.failed ?? []);
const failedNote = (w) => (failed.has(w) ? `\n**${w} failed during the run** (see bench/run's output); what it measured before failing is below.\n` : '');

// A target check: value against limit, with by how much it is met or missed.
function check(target, value, limit, { atMost = false, unit = '', fmt = num } = {}) {
  if (!isNum(value)) {
    targets.push({ target, status: 'NOT MEASURED', detail: 'no result in this run' });
    return;
  }
  const met = atMost ? value <= limit : value >= limit;
  const show = (v) => `${fmt(v)}${unit}`;
  let detail;
  if (atMost && (limit === 0 || value === 0)) {
    detail = `${show(value)} ${met ? '≤' : '>'} ${show(limit)}`;
  } else if (atMost) {
    detail = met
      ? `${show(value)} ≤ ${show(limit)} (${num(limit / value)}× headroom)`
      : `${show(value)} > ${show(limit)}: ${num(value / limit)}× the limit`;
  } else {
    detail = met
      ? `${show(value)} ≥ ${show(limit)} (${num(value / limit)}× the target)`
      : `${show(value)} < ${show(limit)}: ${percent(1 - value / limit)} short (needs ${num(limit / value)}×)`;
  }
  targets.push({ target, status: met ? 'MET' : 'NOT MET', detail });
}
const pct = percent;

function w1() {
  if (!ran('W1')) return;
  const setup = result('W1-setup');
  const rows = [];
  for (const c of [1, 16, 64]) {
    rows.push(runRow('loadTable (small)', `W1-loadtable-c${c}`, { ceiling: `W1-health-c${c}` }));
    rows.push(runRow('GET /health', `W1-health-c${c}`, { ceiling: true }));
  }
  if (result('W1-io1-loadtable-c64')) {
    rows.push(runRow('loadTable (small), `--io-threads 1`', 'W1-io1-loadtable-c64', { ceiling: 'W1-io1-health-c64' }));
    rows.push(runRow('GET /health, `--io-threads 1`', 'W1-io1-health-c64', { ceiling: true }));
  }
  const ioThreads = get('W1-server')?.io_threads;
  sections.push(`## W1 — loadTable, small table

\`GET /v1/default/namespaces/bench/tables/small\` (one schema, ${setup?.snapshots ?? 5} snapshots, metadata ${bytes(setup?.metadata_bytes)}) against the ceiling \`GET /health\` at the same concurrency, back to back on the same server${ioThreads ? ` (default settings: ${ioThreads} I/O threads, one per core)` : ''}. The last two rows repeat 64 connections on a server started with \`--io-threads 1\`: there the ceiling is higher (the load generator has a core to itself), so the ratio shows the cost of a load alone.
${failedNote('W1')}
${table(RUN_HEADER, rows)}
${errorNotes('W1')}
${serverLine('W1')}
${chart('W1')}`);
  check('W1: loadTable ≥ 60% of /health at 64 connections', ratio(tput('W1-loadtable-c64'), tput('W1-health-c64')), 0.6, { fmt: pct });
  if (result('W1-io1-loadtable-c64')) {
    check('W1 with `--io-threads 1`: loadTable ≥ 60% of /health at 64 connections', ratio(tput('W1-io1-loadtable-c64'), tput('W1-io1-health-c64')), 0.6, { fmt: pct });
  }
}

function w2() {
  if (!ran('W2')) return;
  const setup = result('W2-setup');
  const s = get('W2-server') ?? {};
  const rows = [];
  for (const c of [1, 16]) {
    rows.push(runRow('snapshots=all', `W2-all-c${c}`));
    rows.push(runRow('snapshots=refs', `W2-refs-c${c}`));
    rows.push(runRow('If-None-Match ⇒ 304', `W2-304-c${c}`));
  }
  sections.push(`## W2 — loadTable, large table

A table with ${num(setup?.snapshots)} snapshots (realistic summaries, one manifest list each), built in ${num(setup?.seconds)} s: metadata file ${bytes(setup?.metadata_bytes)}; response body ${bytes(s.all_response_bytes)} with \`snapshots=all\`, ${bytes(s.refs_response_bytes)} with \`snapshots=refs\`. The latency targets are for one connection; 16 connections show throughput.
${failedNote('W2')}
${table(RUN_HEADER, rows)}
${errorNotes('W2')}
${serverLine('W2')}
${chart('W2')}`);
  const p50 = (name) => result(name)?.latency_us?.p50;
  const ms = (us) => latency(us);
  check('W2: p50 ≤ 10 ms for snapshots=all (1 connection)', p50('W2-all-c1'), 10000, { atMost: true, fmt: ms });
  check('W2: p50 ≤ 1 ms for snapshots=refs (1 connection)', p50('W2-refs-c1'), 1000, { atMost: true, fmt: ms });
  check('W2: p50 ≤ 0.5 ms for If-None-Match ⇒ 304 (1 connection)', p50('W2-304-c1'), 500, { atMost: true, fmt: ms });
}

// Rows and notes of commits against the durable ceiling (W3 and W6).
function commitRows(prefix, writers) {
  const rows = [];
  const notes = [];
  for (const n of writers) {
    rows.push(runRow(`commits, ${n} table${n > 1 ? 's' : ''}`, `${prefix}-commits-w${n}`, { ceiling: `${prefix}-ceiling-w${n}` }));
    rows.push(runRow('durable ceiling', `${prefix}-ceiling-w${n}`, { ceiling: true, conns: n }));
    const r = result(`${prefix}-commits-w${n}`);
    const c = result(`${prefix}-ceiling-w${n}`);
    if (r) {
      notes.push(`- ${n} writer${n > 1 ? 's' : ''}: ${num(r.commits)} commits, ${num(r.conflicts)} conflicts (409), server-side POST p50 ${latency(r.post_latency_us?.p50)}; ceiling: ${num(c?.ops)} × (write + fsync ${bytes(c?.bytes)}, one-row transaction).`);
    }
  }
  return { rows, notes: notes.join('\n') };
}

function w3() {
  if (!ran('W3')) return;
  const { rows, notes } = commitRows('W3', [1, 4, 16]);
  sections.push(`## W3 — commits, distinct tables

N writers, each appending snapshots to its own table (assert-ref-snapshot-id), durability on (\`sqlite-synchronous=full\`, metadata files fsynced). Ceiling: the same number of connections doing only what a durable commit must do on this disk — write and fsync a file of the mean size of the metadata files the commits wrote, then a one-row transaction in a fresh SQLite file.
${failedNote('W3')}
${table(RUN_HEADER, rows)}

${notes}
${errorNotes('W3')}
${serverLine('W3')}
${chart('W3')}`);
  for (const n of [1, 4, 16]) {
    check(`W3: commits ≥ 50% of the durable ceiling, ${n} writer${n > 1 ? 's' : ''}`,
      ratio(tput(`W3-commits-w${n}`), tput(`W3-ceiling-w${n}`)), 0.5, { fmt: pct });
  }
}

function w4() {
  if (!ran('W4')) return;
  const r = result('W4-commits-w8');
  const attempts = r ? r.commits + r.conflicts : undefined;
  sections.push(`## W4 — commits, one hot table

8 writers appending to one table (assert-ref-snapshot-id; the client retries on 409 after reloading). Cairn re-bases a commit that lost the pointer swap itself when the requirements still hold, so 409s are only the commits whose asserted snapshot really moved.
${failedNote('W4')}
${table(RUN_HEADER, [runRow('commits, 1 table', 'W4-commits-w8')])}

${r ? `${num(r.commits)} successful commits and ${num(r.conflicts)} 409s out of ${num(attempts)} attempts: 409 rate ${percent(r.conflict_rate)}.` : ''}
${errorNotes('W4')}
${serverLine('W4')}
${chart('W4')}`);
  check('W4: ≥ 200 successful commits/s on one table', tput('W4-commits-w8'), 200, { unit: '/s' });
}

const WALKS = [
  ['W5-walk-namespaces', 'listNamespaces'],
  ['W5-walk-ns00000', 'listTables ns00000'],
  ['W5-walk-wide', 'listTables wide00000'],
];

function w5() {
  if (!ran('W5')) return;
  const s = get('W5-server') ?? {};
  const create = [runRow('create tables', 'W5-create', { conns: 16 }), runRow('create tables (wide)', 'W5-create-wide', { conns: 16 })];
  const walkRows = WALKS.map(([name, label]) => {
    const r = result(name);
    if (!r) return [label, 'not run', DASH, DASH, DASH, DASH, DASH];
    return [label, `\`${r.path}\``, num(r.pages), num(r.items), latency(r.first_page_us), latency(r.last_page_us),
      r.pages > 1 ? `${num(r.last_page_us / r.first_page_us)}×` : 'one page'];
  });
  sections.push(`## W5 — catalog scale

${num(s.tables)} tables in ${num(s.namespaces)} namespaces (${num(result('W5-create')?.namespaces)} × ${num(result('W5-create')?.tables / result('W5-create')?.namespaces)} and one namespace \`wide00000\` with ${num(result('W5-create-wide')?.tables)} tables), created over 16 connections; then each listing walked page by page (pageSize 100, median of ${num(s.walk_repeat)} walks per page).
${failedNote('W5')}
${table(RUN_HEADER, create)}

${table(['walk', 'path', 'pages', 'items', 'first page', 'last page', 'last / first'], walkRows)}

Peak RSS of the server with all of it loaded (after the walks): **${kib(s.peak_rss_kib)}**; data dir ${bytes(s.data_bytes)}.
${errorNotes('W5')}
${chart('W5')}`);
  for (const [name, label] of WALKS) {
    const r = result(name);
    if (r && r.pages > 1) {
      check(`W5: last page ≤ 1.5× first page, ${label} (${r.pages} pages)`, r.last_page_us / r.first_page_us, 1.5, { atMost: true, unit: '×' });
    }
  }
  check('W5: server peak RSS < 1 GiB with everything loaded', s.peak_rss_kib, 1024 * 1024, { atMost: true, fmt: kib });
}

function w6() {
  if (!ran('W6')) return;
  const s = get('W6-server') ?? {};
  const rows = [];
  for (const c of [16, 64]) {
    rows.push(runRow('loadTable (small)', `W6-loadtable-c${c}`, { ceiling: `W6-health-c${c}` }));
    rows.push(runRow('GET /health', `W6-health-c${c}`, { ceiling: true }));
  }
  const commits = commitRows('W6', [4]);
  // SQLite (W1, W3 of this run) next to PostgreSQL, each also as a share of its own ceiling.
  const pairs = [
    ['loadTable, 16 connections', 'W1-loadtable-c16', 'W1-health-c16', 'W6-loadtable-c16', 'W6-health-c16'],
    ['loadTable, 64 connections', 'W1-loadtable-c64', 'W1-health-c64', 'W6-loadtable-c64', 'W6-health-c64'],
    ['commits, 4 writers', 'W3-commits-w4', 'W3-ceiling-w4', 'W6-commits-w4', 'W6-ceiling-w4'],
  ];
  const compare = pairs.map(([label, lite, liteCeil, pg, pgCeil]) => {
    const unit = throughput(result(pg) ?? result(lite)).unit;
    const rate = (v) => (isNum(v) ? `${sig3(v)} ${unit}` : DASH);
    return [label, rate(tput(lite)), percent(ratio(tput(lite), tput(liteCeil))),
      rate(tput(pg)), percent(ratio(tput(pg), tput(pgCeil)))];
  });
  sections.push(`## W6 — PostgreSQL store

W1 (16 and 64 connections) and W3 (4 writers) with \`--store postgresql://…\` on a throw-away PostgreSQL ${s.postgres_version ?? ''} on the same machine (fsync on). The ceiling's one-row transaction goes to PostgreSQL too, in a database of its own. Server CPU and RSS are Cairn's only; PostgreSQL's own processes are not counted.
${failedNote('W6')}
${table(RUN_HEADER, [...rows, ...commits.rows])}

${commits.notes}

${table(['run', 'SQLite', 'SQLite vs ceiling', 'PostgreSQL', 'PostgreSQL vs ceiling'], compare)}
${errorNotes('W6')}
${serverLine('W6')}
${chart('W6')}`);
  check('W6 (informational): PostgreSQL loadTable ≥ 60% of /health at 64 connections', ratio(tput('W6-loadtable-c64'), tput('W6-health-c64')), 0.6, { fmt: pct });
  check('W6 (informational): PostgreSQL commits ≥ 50% of the durable ceiling, 4 writers', ratio(tput('W6-commits-w4'), tput('W6-ceiling-w4')), 0.5, { fmt: pct });
}

// Path `i` of a run whose paths took turns (get --path A --path B) as a run of its own; the
// server's CPU time covers all paths, so it is left out. `server` names the server the path
// went to: 'other_server' for the one set aside (W8).
function pathRun(name, i, server = 'server') {
  const doc = get(name);
  const path = doc?.result?.paths?.[i];
  if (!path) return undefined;
  return { ...doc, server: { peak_rss_kib: doc[server]?.peak_rss_kib }, result: { subcommand: 'get', connections: doc.result.connections, ...path } };
}

// What RGW did during a run of W7 (raw/<run>-rgw.json, warm-up included).
function rgwLine(name) {
  const g = get(`${name}-rgw`);
  if (!g) return 'RGW: not recorded';
  return `RGW served ${num(g.requests)} requests (${num(g.puts)} PUT, ${num(g.gets)} GET/HEAD) and used ${isNum(g.cpu_s) ? sig3(g.cpu_s) : DASH} CPU s (${isNum(g.cpu_s) && g.wall_s > 0 ? sig3(g.cpu_s / g.wall_s) : DASH} cores)`;
}

// W7's S3 ceiling at N writers: measured in the commits' run, taking turns with them
// (s3-commits), or — in results from before that — a run of its own.
function w7Ceiling(n) {
  const own = get(`W7-ceiling-w${n}`);
  if (own) return own;
  const ceiling = result(`W7-commits-w${n}`)?.ceiling;
  return ceiling ? { result: ceiling } : undefined;
}

function w7() {
  if (!ran('W7')) return;
  const s = get('W7-server') ?? {};
  // Each load run alternates its two paths: the S3 table's first, the local table's second.
  const loads = [];
  const cpu = [];
  for (const c of [16, 64]) {
    const [s3, local] = [0, 1].map((i) => pathRun(`W7-loadtable-c${c}`, i));
    loads.push(runRow('loadTable, S3 table', s3, { ceiling: local, conns: c }));
    loads.push(runRow('loadTable, local table', local, { ceiling: true, yardstick: 'reference', conns: c }));
    const server = get(`W7-loadtable-c${c}`)?.server;
    if (server) cpu.push(`${sig3(server.cpu_s)} s (${sig3(server.cores)} cores) at ${c} connections`);
  }
  const commits = [];
  const notes = [];
  for (const n of [1, 4, 16]) {
    commits.push(runRow(`commits, ${n} S3 table${n > 1 ? 's' : ''}`, `W7-commits-w${n}`, { ceiling: w7Ceiling(n) }));
    commits.push(runRow('S3 ceiling', w7Ceiling(n), { ceiling: true, conns: n }));
    const r = result(`W7-commits-w${n}`);
    const c = w7Ceiling(n)?.result;
    const turns = r?.subcommand === 's3-commits';
    const size = result(`W7-size-w${n}`);
    if (r) {
      notes.push(`- ${n} writer${n > 1 ? 's' : ''}: ${num(r.commits)} commits, ${num(r.conflicts)} conflicts (409), server-side POST p50 ${latency(r.post_latency_us?.p50)}; ${num(size?.objects)} metadata files on S3 (creates and warm-up included), mean ${bytes(size?.mean_bytes)} over ${num(size?.read)} read back. ${rgwLine(`W7-commits-w${n}`)}.`);
      notes.push(turns
        ? `  Ceiling, in the other turns of the same run (${num(r.phase_ms)} ms each): ${num(c?.ops)} × (PUT of ${bytes(c?.bytes)} on average — each loop the mean size its writer's commits wrote in the turn before —, PUT p50 ${latency(c?.put_latency_us?.p50)}; one-row transaction). RGW's numbers above cover both sides.${drainNote(r, c)}`
        : `  Ceiling: ${num(c?.ops)} × (PUT of ${bytes(c?.bytes)}, PUT p50 ${latency(c?.put_latency_us?.p50)}; one-row transaction). ${rgwLine(`W7-ceiling-w${n}`)}.`);
    }
  }
  const loadReads = [16, 64].map((c) => get(`W7-loadtable-c${c}-rgw`)?.requests);
  const rgwDuringLoads = loadReads.every(isNum) ? loadReads.reduce((a, b) => a + b, 0) : undefined;
  sections.push(`## W7 — Iceberg tables on S3

One server with two catalogs: \`default\` on the local disk and \`s3\`, whose warehouse is in a bucket of a throw-away Ceph RGW ${s.rgw_version ?? ''} (\`scripts/lib/rgw.sh\`: one monitor, one OSD on memstore — objects in RAM — on this machine, sharing its two cores with the server and the load generator). loadTable of a small table (5 snapshots) of each catalog, taking turns; then commits by N writers on fresh S3 tables against the **S3 ceiling**: with the same number of connections, one \`PUT\` with \`If-None-Match: *\` of a metadata file's size to a fresh key, through Cairn's own S3 client, then the one-row transaction of W3's ceiling in a fresh SQLite file. The commits and the ceiling take turns in one run (\`s3-commits\`: the writers in one phase, the ceiling's loops in the next, a turn handing over only once the other side's operations have ended, each ceiling loop PUTting as many bytes as its writer's commits wrote on average in their last turn), so that both meet RGW in the same state: RGW's PUTs drift by a third over minutes on this machine, and a ceiling measured after the commits measured the drift more than Cairn.
${failedNote('W7')}
${table(RUN_HEADER, loads)}

The two tables took turns in one run per concurrency (${get(`W7-loadtable-c16`)?.result?.phase_ms ?? DASH} ms each, all connections switching together), so that both met the same machine; the server's CPU time covers both: ${cpu.join(', ') || DASH}. Response bodies: ${bytes(result('W7-setup-s3')?.metadata_bytes)} for the S3 table, ${bytes(result('W7-setup-local')?.metadata_bytes)} for the local one (the same table but for its locations). RGW requests during the loadTable runs (warm-up included): **${num(rgwDuringLoads)}** — loads are served from the store and never read S3.

${table(RUN_HEADER, commits)}

${notes.join('\n')}
${errorNotes('W7')}
${serverLine('W7')}
${chart('W7')}`);
  for (const n of [1, 4, 16]) {
    check(`W7: S3 commits ≥ 70% of the S3 ceiling, ${n} writer${n > 1 ? 's' : ''}`,
      ratio(tput(`W7-commits-w${n}`), throughput(w7Ceiling(n)?.result).value), 0.7, { fmt: pct });
  }
  for (const c of [16, 64]) {
    const [s3, local] = [0, 1].map((i) => pathRun(`W7-loadtable-c${c}`, i)?.result.throughput_rps);
    check(`W7: loadTable of an S3 table ≥ 90% of a local one, ${c} connections`, ratio(s3, local), 0.9, { fmt: pct });
  }
  check('W7: loadTable reads nothing from S3 (RGW requests during the loads)', rgwDuringLoads, 0, { atMost: true });
}

// W8's run at each concurrency alternates four paths: loadTable and /health on the server
// with auth on (the run's --url), then the same on the server without auth (set aside).
const W8_ARMS = ['loadTable, auth on', 'GET /health, auth on', 'loadTable, no auth', 'GET /health, no auth'];
const W8_SERVERS = ['server', 'server', 'other_server', 'other_server'];

function w8() {
  if (!ran('W8')) return;
  const rows = [];
  const compare = [];
  const cpu = [];
  for (const c of [16, 64]) {
    const [load, health, openLoad, openHealth] = W8_ARMS.map((_, i) => pathRun(`W8-c${c}`, i, W8_SERVERS[i]));
    rows.push(runRow(W8_ARMS[0], load, { ceiling: health, conns: c }), runRow(W8_ARMS[1], health, { ceiling: true, conns: c }),
      runRow(W8_ARMS[2], openLoad, { ceiling: openHealth, conns: c }), runRow(W8_ARMS[3], openHealth, { ceiling: true, conns: c }));
    const rps = (doc) => doc?.result.throughput_rps;
    const [auth, open] = [ratio(rps(load), rps(health)), ratio(rps(openLoad), rps(openHealth))];
    compare.push([c, percent(auth), percent(open), percent(ratio(auth, open)), percent(ratio(rps(load), rps(openLoad)))]);
    const doc = get(`W8-c${c}`);
    if (doc?.other_server) cpu.push(`${sig3(doc.server.cpu_s)} s with auth and ${sig3(doc.other_server.cpu_s)} s without at ${c} connections`);
    check(`W8: loadTable with auth on ≥ 90% of without (each against its /health), ${c} connections`, ratio(auth, open), 0.9, { fmt: pct });
  }
  const s = get('W8-server') ?? {};
  sections.push(`## W8 — loadTable with authentication and authorization

W1's loadTable (same small table, default settings${s.io_threads ? `: ${s.io_threads} I/O threads` : ''}) on two servers, each on its own data dir: one with \`--auth on\`, where the load generator sends the bearer token of \`bench-reader\` — not the root principal: its only grant is TABLE_READ on the namespace \`bench\`, so each load is authorized through a grant (a loadTable without a token got ${s.unauthenticated_status ?? DASH}) — and one without authentication, which ignores the same header. At each concurrency the four paths (loadTable and \`GET /health\` on each server) took turns in one run, ${get('W8-c16')?.result?.phase_ms ?? DASH} ms each with all connections switching together, so that all four met the same machine. Each loadTable is compared with its own server's \`/health\`; the result is the ratio of those two shares.
${failedNote('W8')}
${table(RUN_HEADER, rows)}

${table(['conns', 'auth on: loadTable / health', 'no auth: loadTable / health', '**auth on / no auth** (target ≥ 90%)', 'loadTable alone, auth on / no auth'], compare)}

Server CPU during the runs (each server's, all its paths): ${cpu.join('; ') || DASH}. Peak RSS ${kib(s.peak_rss_kib)} with auth (a token request checks a client secret with Argon2id, 19 MiB), ${kib(s.open_peak_rss_kib)} without.
${errorNotes('W8')}
${chart('W8')}`);
}

const charts = writeCharts(outDir, raw);
w1(); w2(); w3(); w4(); w5(); w6(); w7(); w8();
w9({ ran, get, result, tput, runRow, RUN_HEADER, check, table, errorNotes, serverLine, failedNote, chart, sections });
w10({ ran, get, result, tput, runRow, RUN_HEADER, check, errorNotes, serverLine, failedNote, chart, sections, raw });
// Default analysis: the ANALYSIS.md next to the results (bench/results/ANALYSIS.md).
const analysis = analysisSection(args.analysis ?? path.join(args.out, 'ANALYSIS.md'), repoRoot);
const doc = [header(meta), ...sections, targetSection(targets), analysis].join('\n\n').replace(/\n{3,}/g, '\n\n') + '\n';
writeFileSync(path.join(outDir, 'RESULTS.md'), doc);
process.stderr.write(`report: ${path.join(outDir, 'RESULTS.md')} (${targets.filter((t) => t.status === 'MET').length}/${targets.length} targets met, ${Object.keys(charts).length} charts)\n`);

/** The share of each side's time spent draining at its turns' ends (results since 2026-12-05). */
function drainNote(commits, ceiling) {
  if (!isNum(commits?.drain_seconds) || !isNum(ceiling?.drain_seconds)) return '';
  const share = (drain, total) => (isNum(total) && total > 0 ? pct(drain / total) : DASH);
  return ` Turn ends, while the last operations of a turn finish: ${share(commits.drain_seconds, commits.duration_s)} of the commits' time, ${share(ceiling.drain_seconds, ceiling.seconds)} of the ceiling's.`;
}
