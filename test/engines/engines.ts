/** Addresses of the engines test/engines/global-setup.mjs started for this run, and per-test helpers. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export function engineAddresses() {
  const kafkaBrokers = process.env.TEST_KAFKA_BROKERS;
  const schemaRegistryUrl = process.env.TEST_SCHEMA_REGISTRY_URL;
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!kafkaBrokers || !schemaRegistryUrl || !databaseUrl) {
    throw new Error('engine addresses missing: run through the jest `engines` project (its globalSetup starts them)');
  }
  return { kafkaBrokers, schemaRegistryUrl, databaseUrl, infraDir: process.env.TAPELINE_TEST_INFRA_DIR! };
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** Creates an empty database on the test server and returns its URL. */
export async function createDatabase(prefix = 'test'): Promise<string> {
  const { databaseUrl } = engineAddresses();
  const name = uniqueName(prefix);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
