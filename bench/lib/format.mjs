// Number formatting and result access shared by report.mjs and charts.mjs.

export const DASH = '—';

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

// About three significant digits: 85.34 -> "85.3", 1.2 -> "1.20", 12345.6 -> "12,346".
export function sig3(v) {
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  if (a === 0) return '0';
  return v.toPrecision(2);
}

// A count or a measured value: whole numbers as they are (with separators), others to
// about three significant digits.
export function num(v) {
  if (!isNum(v)) return DASH;
  return Number.isInteger(v) ? v.toLocaleString('en-US') : sig3(v);
}

// Microseconds as a readable latency: "850 µs", "1.25 ms", "2.31 s".
export function latency(us) {
  if (!isNum(us)) return DASH;
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 1e6) return `${sig3(us / 1000)} ms`;
  return `${sig3(us / 1e6)} s`;
}

export function bytes(b) {
  if (!isNum(b)) return DASH;
  if (b < 1024) return `${b} B`;
  if (b < 1024 ** 2) return `${sig3(b / 1024)} KiB`;
  if (b < 1024 ** 3) return `${sig3(b / 1024 ** 2)} MiB`;
  return `${sig3(b / 1024 ** 3)} GiB`;
}

export const kib = (k) => (isNum(k) ? bytes(k * 1024) : DASH);

export function percent(ratio) {
  return isNum(ratio) ? `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%` : DASH;
}

// Throughput of any cairn-bench result, with its unit.
export function throughput(result) {
  if (!result) return { value: undefined, unit: '' };
  switch (result.subcommand) {
    case 'get': return { value: result.throughput_rps, unit: 'req/s' };
    case 'commits':
    case 's3-commits':
    case 'lance-commits': return { value: result.throughput_cps, unit: 'commits/s' };
    case 'lance-setup': return { value: result.throughput_vps, unit: 'versions/s' };
    case 'durable-ceiling':
    case 's3-ceiling': return { value: result.throughput_ops, unit: 'ops/s' };
    case 'create-tables': return { value: result.throughput_tps, unit: 'tables/s' };
    case 'plan': return { value: result.throughput_pps, unit: 'plans/s' };
    default: return { value: undefined, unit: '' };
  }
}

// A Markdown table; `|` inside a cell is escaped.
export function table(header, rows) {
  const line = (cells) => `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export const ratio = (a, b) => (isNum(a) && isNum(b) && b > 0 ? a / b : undefined);

export { isNum };
