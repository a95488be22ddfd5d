/**
 * The client process of request-client.ts: GETs each batch's URLs one after another, reads each body
 * whole, and sends back when each request started and ended on the wall clock (time origin +
 * performance.now(), monotonic within this process).
 */
import type { RequestBatch, TimedResponse } from './request-client.js';

const wallNow = () => performance.timeOrigin + performance.now();

process.on('message', (batch: RequestBatch) => {
  void (async () => {
    try {
      const responses: TimedResponse[] = [];
      for (const url of batch.urls) {
        const startWallMs = wallNow();
        const response = await fetch(url, { headers: { authorization: `Bearer ${batch.key}` } });
        await response.arrayBuffer();
        responses.push({ url, status: response.status, startWallMs, endWallMs: wallNow() });
      }
      process.send!({ id: batch.id, responses });
    } catch (error) {
      process.send!({ id: batch.id, error: error instanceof Error ? error.message : String(error) });
    }
  })();
});
// The parent gone, nothing is left to do.
process.on('disconnect', () => process.exit(0));
