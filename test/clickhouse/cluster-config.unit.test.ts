/**
 * clickhouse/compose.yaml and clickhouse/config/ agree with each other and with the service, without
 * Docker (none here): valid YAML, 4 servers and 3 keepers, every mounted file present, each server's
 * macros naming it and its shard, the cluster definitions listing exactly the servers, the Keeper
 * ensemble's ids, and the users' profiles holding the limits the service's store sends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { INTERNAL_LIMITS, limitSettings } from '../../services/analytics/query-limits.js';
import { loadConfig } from '../../services/config.js';
import { RUNTIME_STATEMENTS_WITHOUT_VARIANT } from '../../tools/codegen/cluster-placement.js';
import { ROOT } from '../../tools/codegen/main.js';

const CLICKHOUSE = path.join(ROOT, 'clickhouse');
const read = (file: string) => fs.readFileSync(path.join(CLICKHOUSE, file), 'utf8');

interface Service {
  hostname: string;
  image: string;
  environment?: Record<string, string>;
  volumes: string[];
}
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const servers = services.filter(([, service]) => service.image.startsWith('clickhouse/clickhouse-server'));
const keepers = services.filter(([, service]) => service.image.startsWith('clickhouse/clickhouse-keeper'));

/** The text of each `<tag>` element directly inside `xml` (the config files are flat where read here). */
function elements(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1]!.trim());
}
const one = (xml: string, tag: string) => elements(xml, tag)[0];

test('the compose file runs 4 ClickHouse servers and 3 keepers, and every file it mounts exists', () => {
  expect(servers.map(([name]) => name)).toEqual(['ch-s1-r1', 'ch-s1-r2', 'ch-s2-r1', 'ch-s2-r2']);
  expect(keepers.map(([name]) => name)).toEqual(['keeper-1', 'keeper-2', 'keeper-3']);
  for (const [name, service] of services) {
    expect(service.hostname).toBe(name);
    for (const volume of service.volumes.filter((v) => v.startsWith('./'))) {
      expect(fs.existsSync(path.join(CLICKHOUSE, volume.split(':')[0]!))).toBe(true);
    }
  }
});

test("each server's macros name it, its shard and both clusters; the clusters list exactly the servers", () => {
  const cluster = read('config/server/cluster.xml');
  const [main, broadcast] = [one(cluster, 'tapeline')!, one(cluster, 'tapeline_broadcast')!];
  const shards = elements(main, 'shard').map((shard) => elements(shard, 'host'));
  expect(shards).toEqual([
    ['ch-s1-r1', 'ch-s1-r2'],
    ['ch-s2-r1', 'ch-s2-r2'],
  ]);
  expect(elements(main, 'internal_replication')).toEqual(['true', 'true']);
  expect(elements(broadcast, 'host')).toEqual(servers.map(([name]) => name));
  expect(elements(broadcast, 'internal_replication')).toEqual(['false']);
  expect(elements(one(cluster, 'zookeeper')!, 'host')).toEqual(keepers.map(([name]) => name));
  for (const [name, service] of servers) {
    const macrosFile = service.volumes.find((volume) => volume.includes('/macros/'))!.split(':')[0]!;
    const macros = read(macrosFile);
    const shardIndex = shards.findIndex((hosts) => hosts.includes(name));
    expect([one(macros, 'cluster'), one(macros, 'broadcast_cluster')]).toEqual(['tapeline', 'tapeline_broadcast']);
    expect([one(macros, 'shard'), one(macros, 'replica')]).toEqual([`0${shardIndex + 1}`, name]);
  }
});

test("the keepers' ids are their places in the ensemble", () => {
  const keeper = read('config/keeper/keeper.xml');
  const ensemble = elements(keeper, 'server').map((server) => [one(server, 'id'), one(server, 'hostname')]);
  expect(ensemble).toEqual(keepers.map(([name, service]) => [service.environment!.KEEPER_SERVER_ID, name]));
});

test("the API profile holds the service's request limits, the writer's its internal ones (none)", () => {
  const users = read('config/server/users.xml');
  const profiles = one(users, 'profiles')!;
  const settingsOf = (profile: string, names: string[]) =>
    Object.fromEntries(names.map((name) => [name, one(one(profiles, profile)!, name)]));
  const asText = (settings: Record<string, number | string>) =>
    Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, String(value)]));
  const request = asText(limitSettings(loadConfig({}).analytics.requestLimits));
  expect(settingsOf('tapeline_api', Object.keys(request))).toEqual(request);
  const internal = asText(limitSettings(INTERNAL_LIMITS));
  const numeric = Object.keys(internal).filter((name) => !name.endsWith('_mode'));
  expect(settingsOf('tapeline_writer', numeric)).toEqual(Object.fromEntries(numeric.map((name) => [name, internal[name]])));
  // Read-only by grants: the API user may read the database and nothing else.
  expect(elements(one(one(users, 'users')!, 'tapeline_api')!, 'query')).toEqual(['GRANT SELECT, CREATE DATABASE ON tapeline.*']);
});

/** `file: statement head` of every ClickHouse mutation, OPTIMIZE, TRUNCATE or EXCHANGE in services/ code. */
function runtimeStorageStatements(): string[] {
  const found: string[] = [];
  const walk = (directory: string) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const file = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts') && !entry.name.includes('.test.')) {
        const pattern =
          /['`]\s*(ALTER TABLE [\w${}.]+ (?:DELETE|UPDATE)|OPTIMIZE TABLE [\w${}.]+|TRUNCATE TABLE [\w${}.]+|EXCHANGE TABLES \w+ AND \w+|DROP TABLE [\w${}.]+)/g;
        for (const match of fs.readFileSync(file, 'utf8').matchAll(pattern)) {
          found.push(`${path.relative(ROOT, file)}: ${match[1]}`);
        }
      }
    }
  };
  walk(path.join(ROOT, 'services'));
  return [...new Set(found)].sort();
}

test('every statement outside the migrations that addresses storage is listed with what it needs on the cluster', () => {
  expect(runtimeStorageStatements()).toEqual(Object.keys(RUNTIME_STATEMENTS_WITHOUT_VARIANT).sort());
});
