// W10's section of RESULTS.md and its targets (issue 17: server-side scan planning). Kept
// apart from report.mjs, which hands over its helpers in `ctx`.
import { DASH, bytes, isNum, kib, latency, num, percent, ratio, sig3, table } from './format.mjs';

export const median = (values) => {
  const v = values.filter(isNum).sort((a, b) => a - b);
  if (!v.length) return undefined;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
};

const seconds = (s) => (isNum(s) ? (s < 1 ? `${sig3(s * 1000)} ms` : `${sig3(s)} s`) : DASH);
const rate = (v, unit) => (isNum(v) ? `${sig3(v)} ${unit}` : DASH);

// The runs of a `plan --repeat` result and their medians.
export function planRuns(result) {
  const runs = result?.runs ?? [];
  const pick = (key) => median(runs.map((r) => r[key]));
  return {
    runs,
    completedS: isNum(pick('completed_ms')) ? pick('completed_ms') / 1000 : undefined,
    pagesS: isNum(pick('pages_ms')) ? pick('pages_ms') / 1000 : undefined,
    totalS: isNum(pick('total_ms')) ? pick('total_ms') / 1000 : undefined,
    filesPerS: pick('files_per_s'),
    pagesFilesPerS: pick('pages_files_per_s'),
    pagesPerS: median(runs.map((r) => (r.total_ms > 0 ? r.pages / (r.total_ms / 1000) : undefined))),
  };
}

// The cold plans (each on a fresh server), in run order.
export function coldRuns(raw) {
  return [...raw.keys()].filter((k) => /^W10-cold-r\d+$/.test(k)).sort((a, b) => Number(a.slice(9)) - Number(b.slice(9)));
}

export function w10(ctx) {
  const { ran, get, result, tput, runRow, RUN_HEADER, check, errorNotes, serverLine, failedNote, chart, sections, raw } = ctx;
  if (!ran('W10')) return;
  const setup = result('W10-setup') ?? {};
  const read = result('W10-read') ?? {};
  const io = (name) => get(`${name}-io`)?.read_bytes;

  // ------------------------------------------------------------------ cold plans
  const cold = coldRuns(raw);
  const coldRows = cold.map((name, i) => {
    const doc = get(name);
    const run = doc?.result?.runs?.[0] ?? {};
    return [`cold plan ${i + 1} (fresh server)`, seconds(run.completed_ms / 1000),
      run.async ? `submitted, ${num(run.polls)} polls` : 'completed at once',
      seconds(run.total_ms / 1000), bytes(io(name)),
      isNum(doc?.server?.cpu_s) ? sig3(doc.server.cpu_s) : DASH, kib(doc?.server?.peak_rss_kib)];
  });
  const coldS = median(cold.map((name) => result(name)?.runs?.[0]?.completed_ms / 1000));
  const ceilings = [
    ['read the manifest list and every manifest raw (readFileSync)', read.raw],
    ['… and inflate every Avro block (zlib)', read.inflate],
    ['… and decode every record (avsc, JavaScript)', read.decode],
  ];
  const ceilingRows = ceilings.map(([label, c]) => [`ceiling: ${label}`, seconds(c?.seconds), DASH, DASH,
    bytes(c?.bytes ?? read.raw?.bytes), DASH, DASH]);
  const ratios = ceilings.map(([label, c]) => [label, seconds(c?.seconds),
    isNum(coldS) && c?.seconds > 0 ? `**${sig3(coldS / c.seconds)}×**` : DASH]);

  // ------------------------------------------------------------------ selective
  const sel = result('W10-selective-c1');
  const selRows = [runRow('plan, one partition (one manifest)', 'W10-selective-c1', { ceiling: 'W10-health-c1' }),
    runRow('GET /health', 'W10-health-c1', { ceiling: true })];

  // ------------------------------------------------------------------ full plans
  const fullRow = (prefix, c) => {
    const name = `${prefix}-p${c}`;
    const doc = get(name);
    if (!doc) return [c, 'not run', ...Array(9).fill(DASH)];
    const r = doc.result;
    const p = planRuns(r);
    const health = tput(`W10-health-c${c}`);
    return [c, num(r.ok), num(r.files_per_plan), `**${rate(p.filesPerS, 'files/s')}**`, rate(p.pagesFilesPerS, 'files/s'),
      seconds(p.completedS), seconds(p.totalS), `${num(r.async_plans)} of ${num(r.plans)}`,
      bytes(isNum(io(name)) && r.plans ? io(name) / r.plans : undefined),
      kib(doc.server?.peak_rss_kib), isNum(p.pagesPerS) && isNum(health) ? `${sig3(p.pagesPerS)} / ${sig3(health)} = ${percent(p.pagesPerS / health)}` : DASH];
  };
  const fullRows = [1, 4].map((c) => fullRow('W10-full', c));
  const fullRunRows = (prefix) => {
    const rows = [];
    for (const c of [1, 4]) {
      for (const [i, run] of (result(`${prefix}-p${c}`)?.runs ?? []).entries()) {
        rows.push([c, i + 1, seconds(run.completed_ms / 1000), seconds(run.pages_ms / 1000), seconds(run.total_ms / 1000),
          rate(run.files_per_s, 'files/s'), rate(run.pages_files_per_s, 'files/s'), bytes(run.bytes), run.async ? `yes (${num(run.polls)} polls)` : 'no',
          num(run.page_retries ?? 0)]);
      }
    }
    return rows;
  };
  const FULL_HEADER = ['page conns', 'plans', 'files per plan', 'files/s', 'files/s, pages only', 'to completed', 'to last page', 'submitted', 'bytes read per plan', 'peak RSS', 'pages/s vs /health'];
  const RUN_FULL_HEADER = ['page conns', 'plan', 'to completed', 'pages', 'to last page', 'files/s', 'files/s, pages only', 'bytes received', 'submitted', 'pages sent again'];
  const cache = 512 * 1024 * 1024;

  const server = get('W10-server') ?? {};
  sections.push(`## W10 — server-side scan planning

A table of **${num(setup.manifests)} manifests × ${num(setup.files_per_manifest)} data files = ${num(setup.files)} files** in one snapshot (one commit), identity-partitioned on \`p\`: manifest *i* holds the files of partition p = *i*, and the manifest list's partition summaries say so (lower = upper = *i*), so a filter on one partition value needs one manifest. Each entry carries what Java writes by default: path, partition, record count, size, split offsets, sort order, and column sizes, value, null and NaN counts and lower/upper bounds of all 5 columns. Written by \`lib/scan_table.mjs\` in Java's Avro schemas (deflate, ~64 KiB blocks as Java's writer): manifests ${bytes(setup.manifest_bytes)} on disk (${bytes(read.inflate?.inflated_bytes)} inflated; ${bytes(setup.mean_manifest_bytes)} each), manifest list ${bytes(setup.manifest_list_bytes)}; only the manifests exist, no data file. Generating it took ${seconds(setup.seconds)} (${seconds(setup.manifests_s)} for the manifests, ${seconds(setup.commit_s)} for the commit) — set-up, not a result.

The client is \`cairn-bench plan\`: POST \`…/plan\`; while the answer is \`submitted\`, GET \`…/plan/{plan-id}\` (waiting 1 ms, then 2% of the time so far, at most 20 ms, between polls); then every page named in \`plan-tasks\` (1,000 file-scan tasks each: \`scan-plan-page-tasks\`'s default) through POST \`…/tasks\`. A page request that finds its connection closed (the server closes connections idle for \`header-timeout-ms\`, 10 s, and the page connections other than the first wait while a plan is made) is sent again once on a fresh connection, as an HTTP client does (*pages sent again*). It counts the tasks of each page by their \`{"data-file":\` and parses the completed answer and the last page in full (checking the count); a plan with any other number of files than the table's is an error and fails the workload. Full plans are deleted (DELETE \`…/plan/{id}\`, not timed) after their last page, so that one plan's ${num(setup.files)} tasks are not held while the next is made. *Bytes read* is the server's \`rchar\` (/proc/PID/io) over the run.
${failedNote('W10')}
**Cold plan**: a full plan (no filter) on a fresh server process — nothing parsed in memory; the page cache holds the files (they were just written and read), so both the plan and its ceilings measure decoding, not the disk. Timed from the POST to the \`completed\` answer; the pages were then fetched over one connection. Ceilings in the same run (Node, \`lib/scan_table.mjs read\`, fastest of ${num(read.repeat)}): the same ${num(read.files)} files read raw, then also inflated, then also decoded record by record with avsc.

${table(['run', 'to completed', 'answer', 'to last page', 'bytes read', 'server CPU s', 'peak RSS'], [...coldRows, ...ceilingRows])}

Cold plan (median of ${num(cold.length)}: ${seconds(coldS)}) against each ceiling — *the cold plan is bounded by reading the manifests* when the first ratio is small:

${table(['ceiling', 'time', 'cold plan / ceiling'], ratios)}

**Selective plan** (filter \`p = 7\`: one manifest of ${num(setup.files_per_manifest)} files), closed loop at 1 connection after the cold plans (the manifest read once in the warm-up), against \`GET /health\` at 1 connection. ${sel ? `${num(sel.async_plans)} of ${num(sel.plans)} plans were answered \`submitted\` (${num(sel.polls)} polls); the server read ${bytes(io('W10-selective-c1'))} during the run (warm-up included).` : ''}

${table(RUN_HEADER, selRows)}

**Full plans** (no filter) streamed through their ${num(result('W10-full-p1')?.runs?.[0]?.pages)} pages, ${num(result('W10-full-p1')?.repeat)} one after the other, the pages over 1 and then 4 connections. *Files/s* is the files received over the time from the POST to the last page (median of the plans); *pages only* counts from the \`completed\` answer to the last page. Last column: pages (requests) per second of a plan against \`GET /health\` at the same concurrency. These run with the default settings: \`manifest-cache-bytes\` ${bytes(cache)} of parsed manifests (${bytes(cache - cache / 16)} for manifests; a parsed entry of this table packs into about 350 bytes, so the whole table stays cached after the cold plans and a full plan should read no manifest: *bytes read per plan* ≈ 0 — \`rchar\` also counts the requests the server read from its sockets, a few hundred bytes per page). A table whose parsed entries outgrow the cache is read again by each full plan, at the cold plan's rate.

${table(FULL_HEADER, fullRows)}

${table(RUN_FULL_HEADER, fullRunRows('W10-full'))}
${errorNotes('W10')}
${serverLine('W10')}${server.load_start ? ` Load average (1, 5, 15 min) of the machine at the start of the workload: ${server.load_start}; at its end: ${server.load_end}.` : ''}
${chart('W10')}`);

  check(`W10: selective plan (one partition of ${num(setup.files)} files) p50 ≤ 20 ms, cache warm, 1 connection`,
    sel?.latency_us?.p50, 20000, { atMost: true, fmt: latency });
  for (const c of [1, 4]) {
    const p = planRuns(result(`W10-full-p${c}`));
    check(`W10: full plan of ${num(setup.files)} files streamed through plan tasks ≥ 1,000,000 files/s, pages over ${c} connection${c > 1 ? 's' : ''}`,
      p.filesPerS, 1e6, { unit: ' files/s', fmt: sig3 });
  }
  for (const c of [1, 4]) {
    const doc = get(`W10-full-p${c}`);
    const perPlan = isNum(io(`W10-full-p${c}`)) && doc?.result?.plans ? Math.round(io(`W10-full-p${c}`) / doc.result.plans) : undefined;
    check(`W10 (informational): with the default manifest cache, a warm full plan reads no manifest again (bytes read per plan ≤ 5% of the manifests' ${bytes(setup.manifest_bytes)}), pages over ${c} connection${c > 1 ? 's' : ''}`,
      perPlan, isNum(setup.manifest_bytes) ? setup.manifest_bytes / 20 : undefined, { atMost: true, fmt: bytes });
  }
  for (const c of [1, 4]) {
    const p = planRuns(result(`W10-full-p${c}`));
    check(`W10 (informational): the pages alone (completed answer → last page) ≥ 1,000,000 files/s, ${c} connection${c > 1 ? 's' : ''}`,
      p.pagesFilesPerS, 1e6, { unit: ' files/s', fmt: sig3 });
  }
  return { coldS, ratio: ratio(coldS, read.raw?.seconds) };
}
