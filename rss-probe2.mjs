import { PGlite } from '@electric-sql/pglite';
const rss = () => Math.round(process.memoryUsage().rss / 1048576);
const dir = process.argv[2];
const db = await PGlite.create(dir);
await db.query('select 1');
console.log('pglite', rss(), JSON.stringify(process.memoryUsage()));
await db.close();
