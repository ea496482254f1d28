// Writes the branch fixtures here (see README.md): LanceDB 0.39 opens a dataset whose only
// file is lancedb039_v5.manifest (a branch's creation reads nothing else), creates branch
// `feat/x` from main and `feat/y` from `feat/x`, and the first manifest of each is copied
// next to this script. `node make_branch_manifests.mjs` where @lancedb/lancedb 0.39.0 is
// installed (e.g. next to tests/lancedb039/node_modules); the dataset lies in /tmp/fx, the
// path the unit test expects in the manifests' base paths.
import * as lancedb from '@lancedb/lancedb';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = '/tmp/fx';
const v5 = `${(2n ** 64n - 1n - 5n).toString().padStart(20, '0')}.manifest`;
rmSync(root, { recursive: true, force: true });
mkdirSync(`${root}/t.lance/_versions`, { recursive: true });
copyFileSync(path.join(here, 'lancedb039_v5.manifest'), `${root}/t.lance/_versions/${v5}`);
const table = await (await lancedb.connect(root)).openTable('t');
const branches = await table.branches();
await branches.create('feat/x');
await branches.create('feat/y', 'feat/x');
for (const name of ['x', 'y']) {
  copyFileSync(`${root}/t.lance/tree/feat/${name}/_versions/${v5}`,
    path.join(here, `lancedb039_v5_branch_feat_${name}.manifest`));
}
console.log(await branches.list());
