/**
 * The Avro codec against a registry that stalls, refuses or answers with an error (a small registry
 * on loopback speaking the Confluent REST calls the client makes). A call without an answer fails
 * after the codec's timeout instead of hanging; a registration is tried again when the registry could
 * not answer and fails at once when it answered no; a value of another writer schema whose schema
 * cannot be fetched is "registry unavailable" (redelivered), not poison (dead-lettered).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfluentAvroCodec, REGISTER_ATTEMPTS, RegistryUnavailableError } from '../../services/eventlog/kafka/confluent-avro.js';
import { freePort } from '../support/processes.js';

const schema = { type: 'record', name: 'Probe', namespace: 'test', fields: [{ name: 'n', type: 'long' }] };

interface FakeRegistry {
  url: string;
  calls: string[];
  close(): Promise<void>;
}

/** `answer` decides each call: a status and body, or 'stall' (never answer). */
async function fakeRegistry(answer: (call: string, nth: number) => [number, unknown] | 'stall'): Promise<FakeRegistry> {
  const calls: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const call = `${request.method} ${request.url}`;
      calls.push(call);
      const result = answer(call, calls.filter((c) => c === call).length);
      if (result === 'stall') {
        held.push(response);
        return;
      }
      response.writeHead(result[0], { 'content-type': 'application/vnd.schemaregistry.v1+json' });
      response.end(JSON.stringify(result[1]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A registry that knows no subject yet and gives `id` to the registered schema. */
const registering =
  (id: number, post: (nth: number) => [number, unknown] | 'stall' | 'ok') =>
  (call: string, nth: number): [number, unknown] | 'stall' => {
    if (call.startsWith('GET /config/')) return [404, { error_code: 40401, message: 'Subject not found' }];
    if (call.startsWith('POST /subjects/')) {
      const answer = post(nth);
      return answer === 'ok' ? [200, { id }] : answer;
    }
    if (call.startsWith('PUT /config/')) return [200, { compatibility: 'BACKWARD' }];
    return [404, { error_code: 40403, message: 'Schema not found' }];
  };

const fast = { timeoutMs: 300, registerBackoff: { baseMs: 10, maxMs: 10, jitter: 'none' as const } };
const registries: FakeRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

test('a registration that got no answer is tried again after the timeout, and the schema gets its id', async () => {
  const registry = await fakeRegistry(registering(7, (nth) => (nth === 1 ? 'stall' : 'ok')));
  registries.push(registry);
  const retries: Array<[string, number, Error]> = [];
  const codec = new ConfluentAvroCodec({ registryUrl: registry.url, ...fast, onRetry: (...args) => retries.push(args) });
  await codec.register([{ topic: 'probe', schema }]);
  expect(codec.schemaId('probe')).toBe(7);
  expect(registry.calls.filter((c) => c === 'POST /subjects/probe-value/versions')).toHaveLength(2);
  expect(retries).toHaveLength(1);
  expect(retries[0]![0]).toBe('probe-value');
  expect(retries[0]![2]).toBeInstanceOf(RegistryUnavailableError);
  expect(retries[0]![2].message).toMatch(/timeout/i);
}, 10_000);

test('an answer such as 409 (incompatible) fails the registration at once', async () => {
  const registry = await fakeRegistry(registering(7, () => [409, { error_code: 409, message: 'Schema being registered is incompatible' }]));
  registries.push(registry);
  const retries: unknown[] = [];
  const codec = new ConfluentAvroCodec({ registryUrl: registry.url, ...fast, onRetry: (...args) => retries.push(args) });
  const error = await codec.register([{ topic: 'probe', schema }]).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(RegistryUnavailableError);
  expect((error as Error).message).toContain('incompatible');
  expect(registry.calls.filter((c) => c.startsWith('POST '))).toHaveLength(1);
  expect(retries).toHaveLength(0);
});

// About 17 s: the client itself retries each GET on a refused connection for about 3 s.
test('a registry that refuses connections fails the registration after REGISTER_ATTEMPTS tries, saying so', async () => {
  const retries: unknown[] = [];
  const codec = new ConfluentAvroCodec({
    registryUrl: `http://127.0.0.1:${await freePort()}`,
    ...fast,
    onRetry: (...args) => retries.push(args),
  });
  const error = await codec.register([{ topic: 'probe', schema }]).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RegistryUnavailableError);
  expect((error as Error).message).toMatch(/ECONNREFUSED/);
  expect(retries).toHaveLength(REGISTER_ATTEMPTS - 1);
}, 60_000);

test('a value of another writer schema: registry unavailable when the schema cannot be fetched, poison when the registry does not know it', async () => {
  let schemaLookup: 'stall' | 'unknown' = 'stall';
  const registry = await fakeRegistry((call, nth) => {
    if (call.startsWith('GET /schemas/ids/'))
      return schemaLookup === 'stall' ? 'stall' : [404, { error_code: 40403, message: 'Schema not found' }];
    return registering(7, () => 'ok')(call, nth);
  });
  registries.push(registry);
  const codec = new ConfluentAvroCodec({ registryUrl: registry.url, ...fast });
  await codec.register([{ topic: 'probe', schema }]);
  // Written with schema id 99: the codec must ask the registry for it.
  const wire = Buffer.concat([Buffer.from([0, 0, 0, 0, 99]), Buffer.from([2])]);
  const stalled = await codec.decode('probe', wire).catch((e: unknown) => e);
  expect(stalled).toBeInstanceOf(RegistryUnavailableError);
  schemaLookup = 'unknown';
  const unknown = await codec.decode('probe', wire).catch((e: unknown) => e);
  expect(unknown).toBeInstanceOf(Error);
  expect(unknown).not.toBeInstanceOf(RegistryUnavailableError);
  // Our own schema id needs no call.
  const own = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from([2])]);
  expect(await codec.decode('probe', own)).toEqual(Buffer.from([2]));
}, 10_000);
