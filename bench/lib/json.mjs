// Small JSON helpers for bench/run, so the bash script never parses JSON by hand.
//
//   node json.mjs wrap FILE key=value...   cairn-bench's output in FILE wrapped with what
//                                          bench/run measured around it (see server.sh measure)
//   node json.mjs object key=value...      a flat object (numbers stay numbers)
//   node json.mjs get FILE a.b.c           one field: strings printed raw, the rest as JSON
import { readFileSync } from 'node:fs';

function die(message) {
  process.stderr.write(`json.mjs: ${message}\n`);
  process.exit(1);
}

// key=value arguments; values that look like numbers become numbers.
function pairs(args) {
  const out = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq < 0) die(`expected key=value, got '${arg}'`);
    const value = arg.slice(eq + 1);
    out[arg.slice(0, eq)] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

function readJson(file) {
  const text = readFileSync(file, 'utf8').trim();
  try {
    return JSON.parse(text);
  } catch (e) {
    die(`${file} is not one JSON document (${e.message}): ${text.slice(0, 200)}`);
  }
}

const [command, ...args] = process.argv.slice(2);
switch (command) {
  case 'wrap': {
    const result = readJson(args[0]);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      die(`${args[0]} does not hold a JSON object`);
    }
    const p = pairs(args.slice(1));
    // CPU seconds between two samples and the cores they kept busy during the window.
    const usage = (cpu0, cpu1, peak) => {
      const cpu = Math.max(0, cpu1 - cpu0);
      return {
        cpu_s: Number(cpu.toFixed(3)),
        cores: p.wall_s > 0 ? Number((cpu / p.wall_s).toFixed(3)) : null,
        peak_rss_kib: peak,
      };
    };
    const doc = {
      name: p.name,
      workload: p.workload,
      argv: p.argv,
      wall_s: p.wall_s,
      server: usage(p.cpu0, p.cpu1, p.peak_rss_kib),
      // The server set aside (server.sh server_set_aside), when there is one.
      ...('other_cpu0' in p ? { other_server: usage(p.other_cpu0, p.other_cpu1, p.other_peak_rss_kib) } : {}),
      result,
    };
    process.stdout.write(JSON.stringify(doc, null, 1) + '\n');
    break;
  }
  case 'object':
    process.stdout.write(JSON.stringify(pairs(args), null, 1) + '\n');
    break;
  case 'get': {
    let value = readJson(args[0]);
    for (const key of args[1].split('.')) {
      if (value === null || typeof value !== 'object' || !(key in value)) die(`${args[0]}: no field ${args[1]}`);
      value = value[key];
    }
    process.stdout.write((typeof value === 'string' ? value : JSON.stringify(value)) + '\n');
    break;
  }
  default:
    die(`unknown command '${command}'`);
}
