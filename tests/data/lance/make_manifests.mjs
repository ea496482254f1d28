// Writes the LanceDB 0.39 table whose manifests are the fixtures here (see README.md):
// `node make_manifests.mjs <dir>` where @lancedb/lancedb 0.39.0 and apache-arrow are
// installed (e.g. next to tests/lancedb039/node_modules), then prints what LanceDB
// itself reports of each version.
import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { rmSync, readdirSync } from 'node:fs';

const dir = process.argv[2] ?? 'lance-fixtures';
rmSync(dir, { recursive: true, force: true });
const db = await lancedb.connect(dir);
const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('score', new arrow.Float32(), true),
  new arrow.Field('value', new arrow.Float64(), true),
  new arrow.Field('name', new arrow.Utf8(), true, new Map([['comment', 'the name']])),
  new arrow.Field('vec', new arrow.FixedSizeList(4, new arrow.Field('item', new arrow.Float32(), true)), true),
  new arrow.Field('point', new arrow.Struct([
    new arrow.Field('x', new arrow.Float64(), true),
    new arrow.Field('y', new arrow.Float64(), false),
  ]), true),
  new arrow.Field('tags', new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), true),
  new arrow.Field('ts', new arrow.TimestampMicrosecond('UTC'), true),
  new arrow.Field('day', new arrow.DateDay(), true),
  new arrow.Field('flag', new arrow.Bool(), false),
], new Map([['owner', 'cairn-test']]));

function rows(first, n) {
  return Array.from({ length: n }, (_, i) => {
    const id = first + i;
    return {
      id: BigInt(id), score: id / 2, value: id * 1.5, name: `n${id}`,
      vec: [id, id + 1, id + 2, id + 3], point: { x: id, y: -id },
      tags: [`t${id}`, 'x'], ts: new Date(1700000000000 + id * 1000), day: new Date(86400000 * id),
      flag: id % 2 === 0,
    };
  });
}

const table = await db.createTable('t', rows(0, 10), { schema }); // version 1
await table.add(rows(10, 5)); // 2
await table.add(rows(15, 7)); // 3
await table.delete('id < 3 OR id = 12'); // 4
await table.createIndex('id'); // 5: a BTREE index
const latest = await table.version();
for (let v = 1; v <= latest; v++) {
  await table.checkout(v);
  console.log(`version ${v}: countRows ${await table.countRows()}, stats ${JSON.stringify(await table.stats())}`);
}
console.log(`schema: ${(await table.schema()).toString()}`);
console.log(readdirSync(`${dir}/t.lance/_versions`));
