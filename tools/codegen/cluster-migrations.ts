/**
 * The cluster variant of every ClickHouse migration (clickhouse/migrations/, clickhouse/README.md):
 * each statement the migrator runs, rewritten for a sharded, replicated deployment. The SQL parsers on
 * npm do not read this DDL (engines with SETTINGS, projections, TTL, `IF NOT EXISTS` on columns;
 * clickhouse/README.md says which was tried), so this is a statement-level rewrite over a small tokenizer
 * (strings, quoted names, brackets); the engine itself checks every output statement in
 * test/clickhouse/cluster-migrations.int.test.ts.
 */
import { optionalSetting } from '../../services/analytics/migrate.js';
import { PLACEMENT, type Placement } from './cluster-placement.js';

const CLUSTER = `'{cluster}'`;
const BROADCAST_CLUSTER = `'{broadcast_cluster}'`;
const ON_CLUSTER = `ON CLUSTER ${CLUSTER}`;

interface Token {
  text: string;
  /** Upper-cased text of a bare word ('' for anything else). */
  word: string;
  start: number;
  end: number;
  depth: number;
}

/** Words, quoted strings and names, numbers and single punctuation, with their bracket depth. */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === "'" || c === '`' || c === '"') {
      i++;
      while (i < sql.length && sql[i] !== c) i += sql[i] === '\\' ? 2 : 1;
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < sql.length && /[A-Za-z0-9_]/.test(sql[i]!)) i++;
    } else if (/[0-9]/.test(c)) {
      while (i < sql.length && /[0-9.]/.test(sql[i]!)) i++;
    } else {
      i++;
    }
    const text = sql.slice(start, i);
    if (text === ')' || text === ']') depth--;
    tokens.push({ text, word: /^[A-Za-z_]/.test(text) ? text.toUpperCase() : '', start, end: i, depth });
    if (text === '(' || text === '[') depth++;
  }
  return tokens;
}

const localName = (table: string) => `${table}_local`;

/** Index of the first token at `depth` whose word is `word`, from `from`. */
function findWord(tokens: Token[], word: string, from = 0, depth = 0): number {
  return tokens.findIndex((token, index) => index >= from && token.depth === depth && token.word === word);
}

/** The token after `CREATE TABLE [IF NOT EXISTS]`, `DROP VIEW [IF EXISTS]` and the like. */
function nameAfter(tokens: Token[], index: number): number {
  let at = index;
  if (tokens[at]?.word === 'IF') at += tokens[at + 1]?.word === 'NOT' ? 3 : 2;
  return at;
}

/** The statement with token ranges replaced; edits never overlap and are applied right to left. */
function splice(sql: string, edits: { start: number; end: number; text: string }[]): string {
  let out = sql;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

interface TableShape {
  /** The column list as first written, brackets included (for the sharding key's columns). */
  columns: string;
  /** `ENGINE = ...` to the end of the statement. */
  engine: string;
}

/** What the rewrite remembers of earlier statements: tables' shapes, for `CREATE TABLE x AS y`. */
export class ClusterRewriter {
  private readonly shapes = new Map<string, TableShape>();

  constructor(private readonly placement: Readonly<Record<string, Placement>> = PLACEMENT) {}

  private placementOf(table: string): Placement {
    const placement = this.placement[table];
    if (!placement) throw new Error(`table ${table} has no placement: add it to tools/codegen/cluster-placement.ts`);
    return placement;
  }

  /** The name a statement addresses for the table's storage (its `_local` table when it has one). */
  private storageName(table: string): string {
    return this.placementOf(table).kind === 'replicated' ? table : localName(table);
  }

  private replicaPath(table: string): string {
    return this.placementOf(table).kind === 'sharded'
      ? `'/clickhouse/tables/{shard}/{database}/${localName(table)}'`
      : `'/clickhouse/tables/all/{database}/${table}'`;
  }

  rewrite(statement: string): string[] {
    const tokens = tokenize(statement);
    const [first, second] = [tokens[0]?.word, tokens[1]?.word];
    if (first === 'CREATE' && second === 'TABLE') return this.createTable(statement, tokens);
    if (first === 'CREATE' && second === 'MATERIALIZED') return [this.createView(statement, tokens)];
    if (first === 'ALTER' && second === 'TABLE') return this.alterTable(statement, tokens);
    if (first === 'DROP' && (second === 'TABLE' || second === 'VIEW')) return this.drop(statement, tokens);
    if (first === 'TRUNCATE' && second === 'TABLE') return [this.truncate(statement, tokens)];
    if (first === 'EXCHANGE' && second === 'TABLES') return [this.exchange(tokens)];
    if (first === 'INSERT' && second === 'INTO') return [statement];
    throw new Error(`no cluster variant for: ${statement.slice(0, 80)}`);
  }

  private createTable(statement: string, tokens: Token[]): string[] {
    const nameAt = nameAfter(tokens, 2);
    const name = tokens[nameAt]!;
    const table = name.text;
    const placement = this.placementOf(table);
    const open = tokens[nameAt + 1]?.text === '(' ? nameAt + 1 : -1;
    const close = open >= 0 ? tokens.findIndex((token, index) => index > open && token.depth === 0 && token.text === ')') : -1;
    const asAt = findWord(tokens, 'AS', close >= 0 ? close + 1 : nameAt + 1);
    const engineAt = findWord(tokens, 'ENGINE');
    const source = asAt >= 0 && (engineAt < 0 || asAt < engineAt) ? tokens[asAt + 1]!.text : undefined;
    const sourceShape = source === undefined ? undefined : this.shapes.get(source);
    if (source !== undefined && !sourceShape) throw new Error(`CREATE TABLE ${table} AS ${source}: ${source} was not created before`);
    const columns = open >= 0 ? statement.slice(tokens[open]!.start, tokens[close]!.end) : sourceShape!.columns;
    const engine = engineAt >= 0 ? statement.slice(tokens[engineAt]!.start) : sourceShape!.engine;
    this.shapes.set(table, { columns, engine });

    const ifNotExists = nameAt > 2 ? 'IF NOT EXISTS ' : '';
    const head = `CREATE TABLE ${ifNotExists}${this.storageName(table)} ${ON_CLUSTER}`;
    // `AS source` copies the source's columns as they are when it runs (ALTERs included), from its
    // storage; the engine is always written out, as a copied Replicated engine would share its path.
    const shape = source === undefined ? columns : `AS ${this.storageName(source)}`;
    const body = `${head}\n${shape}\n${this.clusterEngine(table, engine)}`;
    if (placement.kind === 'replicated') return [body];
    for (const column of keyColumns(placement)) {
      if (!columnNames(columns).includes(column)) throw new Error(`${table}: its sharding key names ${column}, not a column of it`);
    }
    const key = placement.kind === 'sharded' ? `, ${placement.key}` : '';
    const cluster = placement.kind === 'sharded' ? CLUSTER : BROADCAST_CLUSTER;
    const distributed = `CREATE TABLE ${ifNotExists}${table} ${ON_CLUSTER} AS ${localName(table)}\nENGINE = Distributed(${cluster}, currentDatabase(), ${localName(table)}${key})`;
    return [body, distributed];
  }

  /** `ENGINE = XMergeTree(args) ...` -> `ENGINE = ReplicatedXMergeTree(path, '{replica}', args) ...`. */
  private clusterEngine(table: string, engine: string): string {
    const tokens = tokenize(engine);
    const nameToken = tokens[2];
    if (tokens[0]?.word !== 'ENGINE' || tokens[1]?.text !== '=' || !nameToken)
      throw new Error(`${table}: unreadable engine clause ${engine}`);
    if (nameToken.text === 'EmbeddedRocksDB') {
      if (this.placementOf(table).kind !== 'broadcast') throw new Error(`${table}: EmbeddedRocksDB is per server; place it as broadcast`);
      return engine;
    }
    if (!nameToken.text.endsWith('MergeTree')) throw new Error(`${table}: engine ${nameToken.text} has no cluster variant`);
    if (this.placementOf(table).kind === 'broadcast') throw new Error(`${table}: only EmbeddedRocksDB tables are broadcast`);
    const replicated = `Replicated${nameToken.text}`;
    const prefix = `${this.replicaPath(table)}, '{replica}'`;
    if (tokens[3]?.text === '(') {
      const close = tokens.findIndex((token, index) => index > 3 && token.depth === 0 && token.text === ')');
      const args = engine.slice(tokens[3]!.end, tokens[close]!.start).trim();
      return splice(engine, [
        { start: nameToken.start, end: tokens[close]!.end, text: `${replicated}(${prefix}${args ? `, ${args}` : ''})` },
      ]);
    }
    return splice(engine, [{ start: nameToken.start, end: nameToken.end, text: `${replicated}(${prefix})` }]);
  }

  /**
   * A view reads the `_local` table its trigger inserts into and writes to the `_local` table of the
   * same server (a broadcast target through its Distributed table, so every server gets the row).
   */
  private createView(statement: string, tokens: Token[]): string {
    const nameAt = nameAfter(tokens, 3);
    const toAt = nameAt + 1;
    if (tokens[toAt]?.word !== 'TO') throw new Error(`materialized view ${tokens[nameAt]?.text} without TO: no cluster variant`);
    const target = tokens[toAt + 1]!;
    const targetPlacement = this.placementOf(target.text);
    const edits = [{ start: tokens[nameAt]!.end, end: tokens[nameAt]!.end, text: ` ${ON_CLUSTER}` }];
    if (targetPlacement.kind === 'sharded') edits.push({ start: target.start, end: target.end, text: localName(target.text) });
    tokens.forEach((token, index) => {
      const before = tokens[index - 1]?.word;
      if (index <= toAt + 2 || (before !== 'FROM' && before !== 'JOIN') || token.word === '') return;
      const placement = this.placement[token.text];
      if (!placement) return;
      if (placement.kind === 'sharded' && targetPlacement.kind === 'replicated') {
        throw new Error(`view ${tokens[nameAt]!.text}: a sharded source (${token.text}) cannot feed a replicated table (${target.text})`);
      }
      if (placement.kind !== 'replicated') edits.push({ start: token.start, end: token.end, text: localName(token.text) });
    });
    return splice(statement, edits);
  }

  /**
   * Column changes go to the storage and to the Distributed table over it (its columns are its own);
   * settings, projections and mutations only to the storage.
   */
  private alterTable(statement: string, tokens: Token[]): string[] {
    const name = tokens[2]!;
    const onStorage = splice(statement, [{ start: name.start, end: name.end, text: `${this.storageName(name.text)} ${ON_CLUSTER}` }]);
    if (this.placementOf(name.text).kind === 'replicated') return [onStorage];
    const changesColumns = tokens.some((token, index) => token.depth === 0 && token.word === 'COLUMN' && index > 2);
    const changesOther = tokens.some((token) => token.depth === 0 && ['SETTING', 'PROJECTION', 'INDEX', 'TTL'].includes(token.word));
    if (!changesColumns || changesOther) return [onStorage];
    return [onStorage, splice(statement, [{ start: name.end, end: name.end, text: ` ${ON_CLUSTER}` }])];
  }

  private drop(statement: string, tokens: Token[]): string[] {
    const nameAt = nameAfter(tokens, 2);
    const name = tokens[nameAt]!;
    const on = (table: string) => `${splice(statement, [{ start: name.start, end: name.end, text: `${table} ${ON_CLUSTER}` }])} SYNC`;
    if (tokens[1]!.word === 'VIEW' || this.placementOf(name.text).kind === 'replicated') return [on(name.text)];
    return [on(name.text), on(localName(name.text))];
  }

  private truncate(statement: string, tokens: Token[]): string {
    const name = tokens[2]!;
    return splice(statement, [{ start: name.start, end: name.end, text: `${this.storageName(name.text)} ${ON_CLUSTER}` }]);
  }

  private exchange(tokens: Token[]): string {
    const [a, b] = [tokens[2]!, tokens[4]!];
    if (tokens[3]?.word !== 'AND' || this.placementOf(a.text).kind !== this.placementOf(b.text).kind) {
      throw new Error(`EXCHANGE TABLES ${a.text} AND ${b.text}: both must be placed alike`);
    }
    return `EXCHANGE TABLES ${this.storageName(a.text)} AND ${this.storageName(b.text)} ${ON_CLUSTER}`;
  }
}

function keyColumns(placement: Placement): string[] {
  if (placement.kind !== 'sharded') return [];
  return tokenize(placement.key)
    .filter((token, index, all) => token.word !== '' && all[index + 1]?.text !== '(')
    .map((token) => token.text);
}

/** The names of a column list's columns (first word of each top-level item; INDEX/PROJECTION items skipped). */
function columnNames(columns: string): string[] {
  const tokens = tokenize(columns);
  const names: string[] = [];
  let expectName = true;
  for (const token of tokens) {
    if (token.depth === 1 && expectName && token.word !== '') {
      if (!['INDEX', 'PROJECTION', 'CONSTRAINT'].includes(token.word)) names.push(token.text.replace(/^`|`$/g, ''));
      expectName = false;
    } else if (token.depth === 1 && token.text === ',') {
      expectName = true;
    }
  }
  return names;
}

interface ClusterMigration {
  name: string;
  statements: string[];
}

/** Every migration's statements, each followed by its cluster variant(s), in the order they apply. */
export function clusterMigrations(migrations: readonly ClusterMigration[]): ClusterMigration[] {
  const rewriter = new ClusterRewriter();
  return migrations.map((migration) => ({ name: migration.name, statements: migration.statements.flatMap((s) => rewriter.rewrite(s)) }));
}

/** Why a statement needs a word beside it in the file, if it does. */
function noteOf(statement: string): string | undefined {
  if (/^INSERT\b/i.test(statement))
    return '-- Runs once, on the server the file is applied on (an INSERT has no ON CLUSTER): it writes through the Distributed tables.';
  const optional = optionalSetting(statement);
  if (optional !== undefined) return `-- Optional: skip it on a server without the MergeTree setting ${optional} (as the migrator does).`;
  return undefined;
}

/** One migration's cluster file: statements end with `;` at a line end, as `splitStatements` reads them. */
export function clusterMigrationFile(migration: ClusterMigration, header: string): string {
  const body = migration.statements
    .map((statement) => {
      const note = noteOf(statement);
      return note ? `${note}\n${statement};` : `${statement};`;
    })
    .join('\n\n');
  return `${header}\n\n${body}\n`;
}
