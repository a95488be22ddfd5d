/**
 * The sandbox end to end in one process on the embedded engines: events published to a file log,
 * the real sink into chDB, the sandbox processor (resting fills, settlement, briefing signals) into
 * the control store, and the HTTP API over both with response validation on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { freshAnalyticsStore } from './analytics-template.js';
import { loadConfig } from '../../services/config.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, type StreamName, topicSchemas } from '../../services/read-models/registry.js';
import { SANDBOX_GROUP_ID, type SandboxProcessor, startSandboxProcessor } from '../../services/sandbox/sandbox-processor.js';
import { sinkLag, startSink, type SinkService } from '../../services/sink/sink-service.js';
import { type ApiHarness, startApiHarness } from './api-harness.js';
import { type JsonResponse, waitFor } from './http.js';
import type { Given } from './projection.js';

const SANDBOX_TOPICS = [STREAMS.bookSnapshots.topic, STREAMS.trades.topic, STREAMS.marketResolutions.topic];

export interface SandboxHarness {
  api: ApiHarness;
  store: AnalyticsStore;
  control: ControlStore;
  processor: SandboxProcessor;
  /** Publishes the events and waits until both the sink and the sandbox processor applied them. */
  given(events: Given): Promise<void>;
  request<T = any>(
    method: string,
    pathAndQuery: string,
    key: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<JsonResponse<T>>;
  register(name: string, topics?: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface SandboxHarnessOptions {
  env?: Record<string, string>;
  control?: ControlStore;
  clock?: () => number;
}

export async function sandboxHarness(name: string, options: SandboxHarnessOptions = {}): Promise<SandboxHarness> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `tapeline-sandbox-${name}-`));
  const log: EventLog = await openFileEventLog({
    directory: path.join(directory, 'log'),
    schemas: topicSchemas(),
    fsync: false,
    pollIntervalMs: 10,
  });
  await log.createTopics(allTopicSpecs());
  // The store's governance (query limits, the fair queue) comes from the same environment as the API's.
  const store = await freshAnalyticsStore(path.join(directory, 'chdb'), 'sandbox', loadConfig({ ...options.env }).analytics);
  const silent = pino({ level: 'silent' });
  const sink: SinkService = await startSink(log, store, silent);
  const api = await startApiHarness({ store, env: options.env, control: options.control, clock: options.clock });
  const config = api.config;
  const processor = await startSandboxProcessor({
    log,
    control: api.control,
    store,
    logger: silent,
    largeTradeUsdc: config.signals.largeTradeUsdc,
    priceChangePct: config.signals.priceChangePct,
    priceWindowMs: config.signals.priceWindowMs,
    signalRetentionDays: config.sandbox.signalRetentionDays,
    clock: options.clock,
  });
  const publisher = new EventPublisher(log);
  const request = async (method: string, pathAndQuery: string, key: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.base}/v1${pathAndQuery}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  };
  return {
    api,
    store,
    control: api.control,
    processor,
    async given(events) {
      for (const [stream, list] of Object.entries(events) as Array<[StreamName, never[]]>) await publisher.publish(stream, list);
      await waitFor(
        async () => {
          const sunk = Object.values(await sinkLag(log)).every((lag) => lag === 0);
          const applied = Object.values(await sinkLag(log, SANDBOX_TOPICS, SANDBOX_GROUP_ID)).every((lag) => lag === 0);
          return sunk && applied;
        },
        20_000,
        'the sink and the sandbox processor to apply the given events',
        10,
      );
    },
    request,
    async register(agentName, topics) {
      const response = await fetch(`${api.base}/v1/agents/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: agentName, ...(topics ? { topics } : {}) }),
      });
      return ((await response.json()) as { data: { api_key: string } }).data.api_key;
    },
    async close() {
      await processor.stop();
      await api.close();
      await sink.stop();
      await log.close();
      await store.close();
    },
  };
}
