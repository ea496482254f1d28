// Prints raw/meta.json: when, where and on what a benchmark run ran, so that RESULTS.md can
// be regenerated from raw/ alone (node bench/lib/report.mjs --out DIR).
//
//   node meta.mjs --mode quick|full --started ISO --elapsed-s S --data-dir DIR
//                 --workloads W1,... [--failed W3,...] --duration-s S --warmup-s S
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string' },
    started: { type: 'string' },
    'elapsed-s': { type: 'string' },
    'data-dir': { type: 'string' },
    workloads: { type: 'string', default: '' },
    failed: { type: 'string', default: '' },
    'duration-s': { type: 'string' },
    'warmup-s': { type: 'string' },
  },
});

// Output of a command, or null when it fails (a missing tool must not lose the results).
function run(cmd, argv, options = {}) {
  try {
    return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], ...options }).trim();
  } catch {
    return null;
  }
}

function cpuModel() {
  const info = readFileSync('/proc/cpuinfo', 'utf8');
  const m = info.match(/^model name\s*:\s*(.+)$/m);
  return m ? m[1].trim() : os.cpus()[0]?.model ?? 'unknown';
}

// The file system the data dirs were on (df), and whether its block device spins, when the
// device is a real one (/sys/block/<disk>/queue/rotational; absent for overlay, tmpfs, ...).
function disk(dir) {
  const target = dir && existsSync(dir) ? dir : process.cwd();
  const df = run('df', ['-P', '-T', '-h', target]);
  if (!df) return { description: 'unknown' };
  const [source, fstype, size, used, avail] = df.split('\n').pop().trim().split(/\s+/);
  let kind = null;
  const real = run('readlink', ['-f', source]) ?? source;
  const dev = real.replace(/^\/dev\//, '');
  if (dev !== real) {
    // The disk that holds a partition: /sys/class/block/<part>/.. is the disk.
    const diskName = run('lsblk', ['-no', 'pkname', real]) || dev;
    const rotational = `/sys/block/${diskName}/queue/rotational`;
    if (existsSync(rotational)) {
      // Virtual disks (virtio vdX, Xen xvdX) often report rotational whatever backs them.
      const virtual = /^x?vd/.test(diskName) ? 'virtual disk, ' : '';
      kind = `${diskName}: ${virtual}rotational=${readFileSync(rotational, 'utf8').trim()} as the kernel reports it`;
    }
  }
  return { source, fstype, size, used, avail, kind };
}

function git() {
  const opts = { cwd: new URL('../..', import.meta.url).pathname };
  const commit = run('git', ['rev-parse', 'HEAD'], opts);
  const subject = run('git', ['log', '-1', '--format=%s'], opts);
  const status = run('git', ['status', '--porcelain', '--untracked-files=no'], opts);
  return { commit, subject, dirty: status === null ? null : status.length > 0 };
}

const list = (s) => (s ? s.split(',').filter(Boolean) : []);

const meta = {
  mode: args.mode,
  started: args.started,
  elapsed_s: Number(args['elapsed-s']),
  duration_s: Number(args['duration-s']),
  warmup_s: Number(args['warmup-s']),
  workloads: list(args.workloads),
  failed: list(args.failed),
  machine: {
    nproc: Number(run('nproc', []) ?? os.cpus().length),
    cpu: cpuModel(),
    memory_gib: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    kernel: `${os.type()} ${os.release()}`,
    disk: disk(args['data-dir']),
  },
  git: git(),
  node: process.version,
};
process.stdout.write(JSON.stringify(meta, null, 1) + '\n');
