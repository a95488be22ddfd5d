/**
 * The receiver snippet the web UI offers for copy-paste, run as written (a child `node` process):
 * it accepts a correctly signed delivery on the subscription's path, refuses a wrong signature and a
 * stale timestamp, accepts the old secret's entry during a rotation, and answers 404 elsewhere.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signatureHeader } from '../../services/webhooks/signature.js';
import { receiverSnippet } from '../../webui/lib/receiver-snippet.js';
import { waitFor } from '../support/http.js';
import { freePort } from '../support/processes.js';

test('the copy-paste receiver verifies signatures with the subscription secret', async () => {
  const port = await freePort();
  const secret = `whsec_${'k'.repeat(32)}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-receiver-'));
  const file = path.join(dir, 'receiver.mjs');
  fs.writeFileSync(file, receiverSnippet({ url: `http://127.0.0.1:${port}/hooks/tapeline`, secret }));
  const child = spawn(process.execPath, [file], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  try {
    const send = (route: string, body: string, signature: string, timestamp: number) =>
      fetch(`http://127.0.0.1:${port}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-timestamp': String(timestamp), 'x-service-signature': signature },
        body,
      }).then((r) => r.status);
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ event: 'webhook.test', id: 'evt_test_1', timestamp: new Date().toISOString() });
    await waitFor(() => send('/hooks/tapeline', body, signatureHeader([secret], now, body), now).catch(() => null), 10_000, 'receiver up');
    expect(await send('/hooks/tapeline', body, signatureHeader([`whsec_${'x'.repeat(32)}`], now, body), now)).toBe(400);
    expect(await send('/hooks/tapeline', body, signatureHeader([secret], now - 301, body), now - 301)).toBe(400);
    expect(await send('/hooks/tapeline', body, signatureHeader([`whsec_${'n'.repeat(32)}`, secret], now, body), now)).toBe(204);
    expect(await send('/elsewhere', body, signatureHeader([secret], now, body), now)).toBe(404);
    await waitFor(async () => output.includes('webhook.test evt_test_1'), 5_000, 'the event logged');
    // Deduplicated on the event id: logged once although accepted twice.
    expect(output.split('\n').filter((line) => line.startsWith('webhook.test evt_test_1')).length).toBe(1);
  } finally {
    child.kill();
  }
});

test('without the secret at hand the snippet reads it from the environment', () => {
  const code = receiverSnippet({ url: 'https://example.com/hook', secret: null });
  expect(code).toContain('const SECRET = process.env.TAPELINE_WEBHOOK_SECRET;');
  expect(code).toContain('.listen(443)');
  expect(code).toContain('request.url !== "/hook"');
});
