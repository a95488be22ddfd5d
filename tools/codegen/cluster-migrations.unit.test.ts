/**
 * The cluster rewrite's decisions on small statements (the engine checks every real one in
 * test/clickhouse/cluster-migrations.int.test.ts): what each kind of statement becomes, and the
 * placements it refuses rather than guess.
 */
import { ClusterRewriter } from './cluster-migrations.js';
import type { Placement } from './cluster-placement.js';

const placement: Record<string, Placement> = {
  fills: { kind: 'sharded', key: 'cityHash64(wallet)' },
  fills_copy: { kind: 'sharded', key: 'cityHash64(wallet)' },
  per_wallet: { kind: 'sharded', key: 'cityHash64(wallet)' },
  catalog: { kind: 'replicated' },
  heads: { kind: 'broadcast' },
};
const rewriter = () => new ClusterRewriter(placement);
const FILLS =
  "CREATE TABLE IF NOT EXISTS fills (wallet String, `x y` String DEFAULT 'a)', v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY (wallet, v)";

test('a sharded table: Replicated storage keeping its engine arguments, and a Distributed table routing by its key', () => {
  expect(rewriter().rewrite(FILLS)).toEqual([
    "CREATE TABLE IF NOT EXISTS fills_local ON CLUSTER '{cluster}'\n(wallet String, `x y` String DEFAULT 'a)', v UInt64)\nENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/fills_local', '{replica}', v) ORDER BY (wallet, v)",
    "CREATE TABLE IF NOT EXISTS fills ON CLUSTER '{cluster}' AS fills_local\nENGINE = Distributed('{cluster}', currentDatabase(), fills_local, cityHash64(wallet))",
  ]);
});

test('a replicated table keeps its name, at a path without the shard; a broadcast one keeps EmbeddedRocksDB', () => {
  expect(rewriter().rewrite('CREATE TABLE catalog (id String) ENGINE = MergeTree ORDER BY id')).toEqual([
    "CREATE TABLE catalog ON CLUSTER '{cluster}'\n(id String)\nENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{database}/catalog', '{replica}') ORDER BY id",
  ]);
  expect(rewriter().rewrite('CREATE TABLE heads (k String, v UInt8) ENGINE = EmbeddedRocksDB PRIMARY KEY k')[1]).toBe(
    "CREATE TABLE heads ON CLUSTER '{cluster}' AS heads_local\nENGINE = Distributed('{broadcast_cluster}', currentDatabase(), heads_local)",
  );
});

test('views read and write the local tables; a broadcast target is written through its Distributed table', () => {
  const view = rewriter().rewrite(
    'CREATE MATERIALIZED VIEW v TO per_wallet AS SELECT wallet FROM (SELECT wallet FROM fills) JOIN catalog USING wallet',
  );
  expect(view).toEqual([
    "CREATE MATERIALIZED VIEW v ON CLUSTER '{cluster}' TO per_wallet_local AS SELECT wallet FROM (SELECT wallet FROM fills_local) JOIN catalog USING wallet",
  ]);
  expect(rewriter().rewrite('CREATE MATERIALIZED VIEW h TO heads AS SELECT wallet AS k FROM fills')).toEqual([
    "CREATE MATERIALIZED VIEW h ON CLUSTER '{cluster}' TO heads AS SELECT wallet AS k FROM fills_local",
  ]);
});

test('column changes reach the storage and the Distributed table; settings, mutations and truncation the storage only', () => {
  const r = rewriter();
  expect(r.rewrite('ALTER TABLE fills ADD COLUMN IF NOT EXISTS fee Int64')).toEqual([
    "ALTER TABLE fills_local ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS fee Int64",
    "ALTER TABLE fills ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS fee Int64",
  ]);
  expect(r.rewrite('ALTER TABLE fills MODIFY SETTING index_granularity = 256')).toEqual([
    "ALTER TABLE fills_local ON CLUSTER '{cluster}' MODIFY SETTING index_granularity = 256",
  ]);
  expect(r.rewrite('TRUNCATE TABLE fills')).toEqual(["TRUNCATE TABLE fills_local ON CLUSTER '{cluster}'"]);
  expect(r.rewrite('DROP TABLE IF EXISTS fills')).toEqual([
    "DROP TABLE IF EXISTS fills ON CLUSTER '{cluster}' SYNC",
    "DROP TABLE IF EXISTS fills_local ON CLUSTER '{cluster}' SYNC",
  ]);
  expect(r.rewrite('EXCHANGE TABLES fills AND fills_copy')).toEqual([
    "EXCHANGE TABLES fills_local AND fills_copy_local ON CLUSTER '{cluster}'",
  ]);
  expect(r.rewrite('INSERT INTO fills SELECT * FROM fills_copy')).toEqual(['INSERT INTO fills SELECT * FROM fills_copy']);
});

test('CREATE TABLE x AS y copies the local storage and writes the engine out (a copied path would be shared)', () => {
  const r = rewriter();
  r.rewrite(FILLS);
  expect(r.rewrite('CREATE TABLE fills_copy AS fills')[0]).toBe(
    "CREATE TABLE fills_copy_local ON CLUSTER '{cluster}'\nAS fills_local\nENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/fills_copy_local', '{replica}', v) ORDER BY (wallet, v)",
  );
});

test('refused rather than guessed: an unplaced table, a missing key column, a sharded view into a replicated table, a misplaced engine', () => {
  expect(() => rewriter().rewrite('CREATE TABLE other (a UInt8) ENGINE = MergeTree ORDER BY a')).toThrow('table other has no placement');
  expect(() => rewriter().rewrite('CREATE TABLE fills (market String) ENGINE = MergeTree ORDER BY market')).toThrow(
    'its sharding key names wallet',
  );
  expect(() => rewriter().rewrite('CREATE MATERIALIZED VIEW v TO catalog AS SELECT wallet AS id FROM fills')).toThrow(
    'a sharded source (fills) cannot feed a replicated table (catalog)',
  );
  expect(() => rewriter().rewrite('CREATE TABLE catalog (id String) ENGINE = EmbeddedRocksDB PRIMARY KEY id')).toThrow(
    'place it as broadcast',
  );
  expect(() => rewriter().rewrite('CREATE TABLE heads (k String) ENGINE = MergeTree ORDER BY k')).toThrow(
    'only EmbeddedRocksDB tables are broadcast',
  );
  expect(() => rewriter().rewrite('CREATE TABLE fills_copy AS fills')).toThrow('fills was not created before');
  expect(() => rewriter().rewrite('OPTIMIZE TABLE fills FINAL')).toThrow('no cluster variant for: OPTIMIZE');
});
