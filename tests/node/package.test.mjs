// scripts/package (issue 18): the Debian package's contents, control data and maintainer
// scripts, its systemd unit (systemd-analyze verify), and its default settings (a server
// starts on them). Installing it (apt install, systemctl start) needs a machine with
// systemd running; the README says how.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { call } from './lib/http.mjs';
import { CAIRN_BIN, REPO_ROOT, makeTempDir, removeDir, startServer } from './lib/server.mjs';

let dir;
let deb;
let root;
before(() => {
  dir = makeTempDir('cairn-node-package-');
  const built = spawnSync(path.join(REPO_ROOT, 'scripts', 'package'), ['--binary', CAIRN_BIN, '--out', dir], { encoding: 'utf8' });
  assert.equal(built.status, 0, `scripts/package: ${built.stderr}`);
  deb = built.stdout.trim();
  assert.match(path.basename(deb), /^cairn_\d+\.\d+\.\d+_[a-z0-9]+\.deb$/);
  root = path.join(dir, 'root');
  execFileSync('dpkg-deb', ['-R', deb, root]);
});
after(() => { if (dir) removeDir(dir); });

test('the package holds the binary, a hardened unit, the settings and the docs, with their modes', () => {
  const listing = execFileSync('dpkg-deb', ['-c', deb], { encoding: 'utf8' });
  const modes = Object.fromEntries(listing.trim().split('\n').map((line) => {
    const [mode, owner, , , , file] = line.split(/\s+/);
    return [file.replace(/^\.\//, '/'), { mode, owner }];
  }));
  const expect = {
    '/usr/bin/cairn': '-rwxr-xr-x',
    '/lib/systemd/system/cairn.service': '-rw-r--r--',
    '/etc/cairn/cairn.toml': '-rw-r-----',
    '/etc/default/cairn': '-rw-------',
    '/usr/share/doc/cairn/README.md': '-rw-r--r--',
    '/usr/share/doc/cairn/management-api.yaml': '-rw-r--r--',
  };
  for (const [file, mode] of Object.entries(expect)) {
    assert.ok(modes[file], `${file} is not in the package:\n${listing}`);
    assert.equal(modes[file].mode, mode, file);
    assert.equal(modes[file].owner, 'root/root', file);
  }
  const field = (name) => execFileSync('dpkg-deb', ['-f', deb, name], { encoding: 'utf8' }).trim();
  assert.equal(field('Package'), 'cairn');
  assert.match(field('Version'), /^\d+\.\d+\.\d+$/);
  for (const dependency of ['libsqlite3-0', 'libpq5', 'libssl3', 'libcurl4', 'libavro23', 'adduser']) {
    assert.match(field('Depends'), new RegExp(`\\b${dependency}\\b`), `Depends lacks ${dependency}`);
  }
  assert.deepEqual(readFileSync(path.join(root, 'DEBIAN', 'conffiles'), 'utf8').trim().split('\n'),
    ['/etc/cairn/cairn.toml', '/etc/default/cairn']);
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const file = path.join(root, 'DEBIAN', script);
    execFileSync('sh', ['-n', file]);  // parses
  }
  const postinst = readFileSync(path.join(root, 'DEBIAN', 'postinst'), 'utf8');
  assert.match(postinst, /adduser --system --group .*cairn|adduser --system --group/);
  assert.match(postinst, /install -d -o cairn -g cairn -m 0750 \/var\/lib\/cairn/);
});

test('the unit passes systemd-analyze verify and runs the server as cairn, hardened', () => {
  const unit = readFileSync(path.join(root, 'lib', 'systemd', 'system', 'cairn.service'), 'utf8');
  for (const line of ['User=cairn', 'ExecStart=/usr/bin/cairn serve --config /etc/cairn/cairn.toml',
    'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes',
    'CapabilityBoundingSet=', 'StateDirectory=cairn', 'ExecReload=/bin/kill -HUP $MAINPID']) {
    assert.ok(unit.split('\n').includes(line), `the unit lacks '${line}'`);
  }
  // verify checks that ExecStart's program exists: point it at the packaged binary.
  const copy = path.join(dir, 'cairn.service');
  writeFileSync(copy, unit.replace('ExecStart=/usr/bin/cairn', `ExecStart=${path.join(root, 'usr', 'bin', 'cairn')}`));
  const verified = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
  assert.equal(verified.status, 0, `systemd-analyze verify:\n${verified.stderr}`);
  assert.equal(verified.stderr.trim(), '', `systemd-analyze warns:\n${verified.stderr}`);
});

test('the default settings start a server (data dir and address from CAIRN_* as the unit could set them)', async () => {
  const data = path.join(dir, 'data');
  const srv = await startServer({
    listen: null, dataDir: data,
    args: ['--config', path.join(root, 'etc', 'cairn', 'cairn.toml')],
    env: { CAIRN_LISTEN: '127.0.0.1:0' },
  });
  try {
    assert.equal((await call(srv.url, 'GET', '/health/ready')).status, 200);
    assert.ok(readdirSync(data).includes('cairn.db'));
  } finally {
    await srv.cleanup();
  }
});
