// W9's section of RESULTS.md and its targets (issue 16: Lance managed versioning). Kept
// apart from report.mjs, which hands over its helpers in `ctx`.
import { DASH, bytes, latency, num, percent, ratio } from './format.mjs';

const READS = [
  ['describe', 'DescribeTable'],
  ['detailed', 'DescribeTable, detailed (version, schema, stats)'],
  ['latest', 'DescribeTableVersion (latest)'],
  ['list', 'ListTableVersions (limit=1, descending)'],
];

export function w9(ctx) {
  const { ran, get, result, tput, runRow, RUN_HEADER, check, table, errorNotes, serverLine, failedNote, chart, sections } = ctx;
  if (!ran('W9')) return;
  const s = get('W9-server') ?? {};
  const setup = result('W9-setup');
  const commits = [];
  const notes = [];
  for (const n of [1, 4, 16]) {
    commits.push(runRow(`CreateTableVersion, ${n} table${n > 1 ? 's' : ''}`, `W9-commits-w${n}`, { ceiling: `W9-ceiling-w${n}` }));
    commits.push(runRow('durable ceiling', `W9-ceiling-w${n}`, { ceiling: true, conns: n }));
    const r = result(`W9-commits-w${n}`);
    const c = result(`W9-ceiling-w${n}`);
    if (r) {
      notes.push(`- ${n} writer${n > 1 ? 's' : ''}: ${num(r.commits)} versions; p50 of the client's staging write ${latency(r.write_latency_us?.p50)}, of the CreateTableVersion call ${latency(r.post_latency_us?.p50)}; ceiling: ${num(c?.ops)} × (write + fsync ${bytes(c?.bytes)}, one-row transaction).`);
    }
  }
  const reads = [];
  for (const c of [1, 16]) {
    for (const [key, label] of READS) reads.push(runRow(label, `W9-${key}-c${c}`, { ceiling: `W9-health-c${c}` }));
    reads.push(runRow('GET /health', `W9-health-c${c}`, { ceiling: true }));
  }
  sections.push(`## W9 — Lance managed versioning

A Lance catalog created with \`managed_versioning = "true"\`. **Commits**: N writers, each committing versions 1, 2, 3… of its own fresh table as LanceDB does: write the staging manifest (${bytes(s.manifest_bytes)}: a length-prefixed message and Lance's footer) as \`<table>/_versions/<final name>-<uuid>\` — a temporary file renamed into place, not fsynced, as object_store's local file system puts an object — then CreateTableVersion naming it; Cairn checks it, puts it at its final name (exclusive create, fsynced), records the version and deletes the staging file. **The timed commit is the whole of it as the client sees it, staging write included.** Ceiling: W3's, with the same number of connections — write and fsync a file of the manifest's size, then a one-row transaction in a fresh SQLite file.
${failedNote('W9')}
${table(RUN_HEADER, commits)}

${notes.join('\n')}

**Reads** of a table with ${num(setup?.versions_per_table)} recorded versions (committed in the setup through CreateTableVersion over ${num(setup?.connections)} connections in ${num(setup?.seconds)} s; each a real LanceDB 0.39 manifest of ${bytes(setup?.manifest_bytes)}, the test fixture rewritten as that version), each against \`GET /health\` at the same concurrency, back to back: DescribeTable, DescribeTable with \`load_detailed_metadata=true\` (the latest manifest's version, Arrow schema and stats; the manifest is read once and cached), DescribeTableVersion of the latest, and ListTableVersions with \`limit=1&descending=true\` — what LanceDB 0.39 calls at every open. The latency target is for one connection.

${table(RUN_HEADER, reads)}
${errorNotes('W9')}
${serverLine('W9')}
${chart('W9')}`);
  for (const n of [1, 4, 16]) {
    check(`W9: CreateTableVersion ≥ 50% of the durable ceiling, ${n} writer${n > 1 ? 's' : ''} (staging write included)`,
      ratio(tput(`W9-commits-w${n}`), tput(`W9-ceiling-w${n}`)), 0.5, { fmt: percent });
  }
  const p50 = (name) => result(name)?.latency_us?.p50;
  const versions = num(setup?.versions_per_table ?? DASH);
  check(`W9: DescribeTable p50 ≤ 1 ms with ${versions} versions (1 connection)`, p50('W9-describe-c1'), 1000, { atMost: true, fmt: latency });
  check(`W9: DescribeTable with detailed metadata (the manifest cached) p50 ≤ 1 ms with ${versions} versions (1 connection)`, p50('W9-detailed-c1'), 1000, { atMost: true, fmt: latency });
  check(`W9 (informational): DescribeTableVersion (latest) p50 ≤ 1 ms with ${versions} versions`, p50('W9-latest-c1'), 1000, { atMost: true, fmt: latency });
  check(`W9 (informational): ListTableVersions limit=1 descending p50 ≤ 1 ms with ${versions} versions`, p50('W9-list-c1'), 1000, { atMost: true, fmt: latency });
}
