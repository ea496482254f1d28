// One PNG chart per workload, drawn by gnuplot (Debian's gnuplot-nox) from the raw results.
// Each chart is one gnuplot script with its data inline (datablocks), fed on stdin.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { isNum, percent, throughput } from './format.mjs';
import { coldRuns, median, planRuns } from './report_w10.mjs';

// pngcairo draws anti-aliased text and lines; gnuplot builds without cairo still have png.
function terminal() {
  const probe = spawnSync('gnuplot', ['-e', 'set terminal pngcairo'], { encoding: 'utf8' });
  if (probe.error) return null;
  return probe.status === 0 && !probe.stderr.includes('unknown') ? 'pngcairo' : 'png';
}

// A datablock: rows of cells, missing numbers written as '?' (set datafile missing).
function block(name, rows) {
  const cell = (v) => (typeof v === 'string' ? `"${v.replace(/"/g, "'")}"` : isNum(v) ? String(v) : '?');
  return `$${name} << EOD\n${rows.map((r) => r.map(cell).join(' ')).join('\n')}\nEOD\n`;
}

export function writeCharts(outDir, raw) {
  const term = terminal();
  if (!term) {
    process.stderr.write('charts: gnuplot not found, no charts drawn\n');
    return {};
  }
  const result = (name) => raw.get(name)?.result;
  const tput = (name) => throughput(result(name)).value;
  const has = (w) => [...raw.keys()].some((k) => k.startsWith(`${w}-`));
  const charts = {};

  // Draws nothing when no measured value (a row's cells after its label or x) is there:
  // gnuplot would fail on an empty plot.
  function draw(w, title, body, rows) {
    if (!rows.some((r) => r.slice(1).some(isNum))) return;
    const file = `${w.toLowerCase()}.png`;
    const script = `set terminal ${term} size 900,520 ${term === 'pngcairo' ? "font 'sans,10'" : ''}
set output '${path.join(outDir, file).replace(/'/g, "''")}'
set datafile missing '?'
set title "${title.replace(/"/g, "'")}"
set grid ytics
set key top left
${body}`;
    const run = spawnSync('gnuplot', [], { input: script, encoding: 'utf8' });
    if (run.status !== 0) {
      process.stderr.write(`charts: gnuplot failed for ${w}:\n${run.stderr}\n`);
      return;
    }
    charts[w] = file;
  }

  const bars = `set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]`;

  // A rate against its ceiling over a doubling axis, with the target share dashed.
  const versusCeiling = (w, title, rows, { xs, xmax, xlabel, ylabel, mine, ceiling, share, targetTitle }) =>
    draw(w, title, `${block('d', rows)}
set logscale x 2
set xtics (${xs.join(', ')})
set xrange [0.8:${xmax}]
set yrange [0:*]
set xlabel '${xlabel}'
set ylabel '${ylabel}'
plot $d using 1:2 with linespoints lw 2 pt 7 title '${mine}', \\
     $d using 1:3 with linespoints lw 2 pt 5 title '${ceiling}', \\
     $d using 1:($3*${share}) with lines dt 2 lw 1.5 title '${targetTitle}'`, rows);

  if (has('W1')) {
    const rows = [1, 16, 64].map((c) => [c, tput(`W1-loadtable-c${c}`), tput(`W1-health-c${c}`)]);
    versusCeiling('W1', 'W1: loadTable (small table) vs GET /health, same server, same run', rows, {
      xs: [1, 16, 64], xmax: 80, xlabel: 'connections', ylabel: 'requests/s',
      mine: 'loadTable', ceiling: 'GET /health (ceiling)', share: 0.6, targetTitle: '60% of /health (target at 64)',
    });
  }

  if (has('W2')) {
    const ms = (name, p) => (isNum(result(name)?.latency_us?.[p]) ? result(name).latency_us[p] / 1000 : undefined);
    const variants = [['snapshots=all (≤ 10 ms)', 'W2-all-c1'], ['snapshots=refs (≤ 1 ms)', 'W2-refs-c1'], ['304 (≤ 0.5 ms)', 'W2-304-c1']];
    const rows = variants.map(([label, name]) => [label, ms(name, 'p50'), ms(name, 'p99'), ms(name, 'p999')]);
    draw('W2', `W2: loadTable of a ${result('W2-setup')?.snapshots ?? ''}-snapshot table, 1 connection (p50 targets in brackets)`, `${block('d', rows)}
${bars}
set logscale y
set yrange [*:*]
set ylabel 'latency (ms, log scale)'
plot $d using 2:xtic(1) title 'p50', '' using 3 title 'p99', '' using 4 title 'p99.9'`, rows);
  }

  if (has('W3')) {
    const rows = [1, 4, 16].map((n) => [n, tput(`W3-commits-w${n}`), tput(`W3-ceiling-w${n}`)]);
    versusCeiling('W3', 'W3: commits on distinct tables vs the durable-commit ceiling (SQLite, fsync on)', rows, {
      xs: [1, 4, 16], xmax: 20, xlabel: 'writers (one table each)', ylabel: 'per second',
      mine: 'commits/s', ceiling: 'durable ceiling ops/s', share: 0.5, targetTitle: '50% of the ceiling (target)',
    });
  }

  if (has('W9')) {
    const rows = [1, 4, 16].map((n) => [n, tput(`W9-commits-w${n}`), tput(`W9-ceiling-w${n}`)]);
    versusCeiling('W9', 'W9: Lance CreateTableVersion (staging write included) vs the durable-commit ceiling', rows, {
      xs: [1, 4, 16], xmax: 20, xlabel: 'writers (one table each)', ylabel: 'per second',
      mine: 'commits/s', ceiling: 'durable ceiling ops/s', share: 0.5, targetTitle: '50% of the ceiling (target)',
    });
  }

  if (has('W4')) {
    const r = result('W4-commits-w8');
    const secs = r?.duration_s;
    const rows = [['successful commits/s', r?.throughput_cps], ['409 responses/s', r && secs ? r.conflicts / secs : undefined]];
    draw('W4', `W4: 8 writers on one table, 409 rate ${percent(r?.conflict_rate)}`, `${block('d', rows)}
set style fill solid 0.85 border -1
set key top right
set boxwidth 0.5
set xrange [-0.6:1.6]
set yrange [0:*]
set ylabel 'per second'
plot $d using 0:2:xtic(1) with boxes lc rgb '#4477aa' notitle, \\
     $d using 0:2:(sprintf('%.0f', $2)) with labels offset 0,1 notitle, \\
     200 with lines dt 2 lw 1.5 lc rgb '#cc3311' title 'target: 200 commits/s'`, rows);
  }

  if (has('W5')) {
    const walks = [['W5-walk-namespaces', 'listNamespaces'], ['W5-walk-ns00000', 'listTables ns00000'], ['W5-walk-wide', 'listTables wide00000']]
      .filter(([name]) => Array.isArray(result(name)?.page_latency_us));
    const blocks = walks.map(([name], i) => block(`w${i}`, result(name).page_latency_us.map((us, p) => [p + 1, us / 1000]))).join('');
    const plots = walks.map(([, label], i) => `$w${i} using 1:2 with linespoints lw 1.5 pt 7 ps 0.5 title '${label}'`).join(', \\\n     ');
    if (walks.length) {
      draw('W5', 'W5: time per page while walking each listing (pageSize 100, median per page)', `${blocks}
set xrange [0.5:*]
set yrange [0:*]
set key outside right top vertical
set xlabel 'page'
set ylabel 'latency per page (ms)'
plot ${plots}`, walks.map(([name]) => [null, ...result(name).page_latency_us]));
    }
  }

  if (has('W6')) {
    const lt = [16, 64].map((c) => [`${c} connections`, tput(`W1-loadtable-c${c}`), tput(`W6-loadtable-c${c}`)]);
    const cm = [['commits/s', tput('W3-commits-w4'), tput('W6-commits-w4')], ['ceiling ops/s', tput('W3-ceiling-w4'), tput('W6-ceiling-w4')]];
    draw('W6', 'W6: SQLite vs PostgreSQL store (same run)', `${block('lt', lt)}${block('cm', cm)}
${bars}
set multiplot layout 1,2 title "W6: SQLite vs PostgreSQL store (same run)"
set title 'loadTable, small table'
set ylabel 'requests/s'
plot $lt using 2:xtic(1) title 'SQLite', '' using 3 title 'PostgreSQL'
set title 'commits, 4 writers (one table each)'
set ylabel 'per second'
plot $cm using 2:xtic(1) title 'SQLite', '' using 3 title 'PostgreSQL'
unset multiplot`, [...lt, ...cm].map((r) => [null, r[2]]));
  }
  if (has('W7')) {
    // Each load run alternates two paths: the S3 table's, then the local table's.
    const paths = (c) => result(`W7-loadtable-c${c}`)?.paths ?? [];
    const lt = [16, 64].map((c) => [`${c} connections`, paths(c)[1]?.throughput_rps, paths(c)[0]?.throughput_rps]);
    // The ceiling: its own run (older results) or the other turns of the commits' run.
    const ceiling = (n) => tput(`W7-ceiling-w${n}`) ?? throughput(result(`W7-commits-w${n}`)?.ceiling).value;
    const cm = [1, 4, 16].map((n) => [`${n} writer${n > 1 ? 's' : ''}`, tput(`W7-commits-w${n}`), ceiling(n)]);
    draw('W7', 'W7: Iceberg tables on S3 (Ceph RGW, same machine)', `${block('lt', lt)}${block('cm', cm)}
${bars}
set multiplot layout 1,2 title "W7: Iceberg tables on S3 (Ceph RGW on memstore, same machine)"
set title 'loadTable, small table (target: S3 ≥ 90% of local)'
set ylabel 'requests/s'
plot $lt using 2:xtic(1) title 'local table', '' using 3 title 'S3 table'
set title 'commits, one S3 table per writer (target: ≥ 70% of the ceiling)'
set ylabel 'per second'
plot $cm using 2:xtic(1) title 'commits/s', '' using 3 title 'S3 ceiling ops/s'
unset multiplot`, [...lt, ...cm]);
  }
  if (has('W8')) {
    // Each run alternates four paths: loadTable and /health with auth on, then without.
    const paths = (c) => result(`W8-c${c}`)?.paths ?? [];
    const rows = [16, 64].map((c) => [`${c} connections`, ...[2, 0, 3, 1].map((i) => paths(c)[i]?.throughput_rps)]);
    draw('W8', 'W8: loadTable with and without authentication (taking turns, same run)', `${block('d', rows)}
${bars}
set key below horizontal noenhanced
set ylabel 'requests/s'
plot $d using 2:xtic(1) title 'loadTable, no auth', '' using 3 title 'loadTable, auth on (TABLE_READ)', \\
     '' using 4 title 'GET /health, no auth', '' using 5 title 'GET /health, auth on'`, rows);
  }
  if (has('W10')) {
    const read = result('W10-read') ?? {};
    const coldS = median(coldRuns(raw).map((name) => result(name)?.runs?.[0]?.completed_ms / 1000));
    const cold = [['cold plan (median)', coldS], ['read raw', read.raw?.seconds], ['read + inflate', read.inflate?.seconds],
      ['+ decode (avsc, JS)', read.decode?.seconds]];
    const full = [1, 4].map((c) => {
      const p = planRuns(result(`W10-full-p${c}`));
      return [`${c} conn${c > 1 ? 's' : ''}`, p.filesPerS, p.pagesFilesPerS];
    });
    const files = result('W10-setup')?.files;
    draw('W10', 'W10: server-side scan planning', `${block('cold', cold)}${block('full', full)}
${bars}
set multiplot layout 1,2 title "W10: scan planning, ${isNum(files) ? files.toLocaleString('en-US') : '?'} data files"
set title 'cold plan vs reading the same manifests (same run)'
set logscale y
set yrange [*:*]
set ylabel 'seconds (log scale)'
set xtics rotate by -20
plot $cold using 2:xtic(1) lc rgb '#4477aa' notitle
unset logscale y
set yrange [0:*]
set title 'full plan through plan tasks (target: 1,000,000 files/s)'
set ylabel 'files/s'
plot $full using 2:xtic(1) title 'request to last page', '' using 3 title 'pages only', \\
     1000000 with lines dt 2 lw 1.5 lc rgb '#cc3311' title 'target'
unset multiplot`, [...cold, ...full]);
  }
  return charts;
}
