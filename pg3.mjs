import { PGlite } from '@electric-sql/pglite';
let t=Date.now();
const db = new PGlite();
await db.waitReady;
await db.exec('create table x(id int primary key, v text); insert into x select g, md5(g::text) from generate_series(1,5000) g');
const dump = await db.dumpDataDir('none');
console.log('dump ms', Date.now()-t, dump.size);
for (let i=0;i<3;i++){
t=Date.now();
const d2 = new PGlite({loadDataDir: dump});
await d2.waitReady;
console.log('load ms', Date.now()-t, (await d2.query('select count(*) from x')).rows);
}
