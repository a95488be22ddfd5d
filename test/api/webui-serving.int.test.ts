/**
 * The web UI as served: one shell for every /app page under a strict CSP, hashed assets cached
 * forever (gzip when accepted), the session meta telling the page whether its cookie is live, and a
 * stale cookie cleared. The bundle is the real esbuild build of webui/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startApiHarness, type ApiHarness } from '../support/api-harness.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiHarness({ chdbPath: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-webui-')), database: 'webui' });
});
afterAll(async () => {
  await api.close();
});

const page = (route: string, headers: Record<string, string> = {}) => fetch(`${api.base}${route}`, { headers });

test('every /app page gets the shell with a strict CSP and no caching; its script and stylesheet are served', async () => {
  for (const route of ['/app', '/app/', '/app/markets/some-slug', '/app/webhooks/12']) {
    const response = await page(route);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toContain('<meta name="tapeline-session" content="none">');
  }
  const html = await (await page('/app')).text();
  const script = /<script type="module" src="\/app\/assets\/(app-[A-Z0-9]+\.js)"><\/script>/.exec(html)?.[1];
  const stylesheet = /href="\/app\/assets\/(app-[A-Z0-9]+\.css)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  expect(stylesheet).toBeDefined();
  // No asset from another host: everything the page loads comes from /app/assets.
  expect(html).not.toMatch(/(src|href)="https?:/);

  const plain = await page(`/app/assets/${script}`);
  expect(plain.status).toBe(200);
  expect(plain.headers.get('content-type')).toMatch(/javascript/);
  expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  const body = Buffer.from(await plain.arrayBuffer());
  expect(body.toString()).toContain('tapeline:interactive');

  const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
    import('node:http').then(({ get }) =>
      get(`${api.base}/app/assets/${script}`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ encoding: response.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      }).on('error', reject),
    );
  });
  expect(raw.encoding).toBe('gzip');
  expect(zlib.gunzipSync(raw.bytes).equals(body)).toBe(true);

  expect((await page(`/app/assets/${stylesheet}`)).headers.get('content-type')).toMatch(/text\/css/);
  expect((await page('/app/assets/favicon.svg')).status).toBe(200);
  expect((await page('/app/assets/nope.js')).status).toBe(404);
});

test('the shell says whether the session cookie is live, and clears one whose key no longer works', async () => {
  const key = (await api.accounts.registerDeveloper('shell', 's@example.com')).api_key;
  const live = await page('/app/usage', { cookie: `tapeline_session=${key}` });
  expect(await live.text()).toContain('<meta name="tapeline-session" content="active">');
  expect(live.headers.get('set-cookie')).toBeNull();
  const stale = await page('/app/usage', { cookie: `tapeline_session=aif_${'C'.repeat(38)}` });
  expect(await stale.text()).toContain('<meta name="tapeline-session" content="none">');
  expect(stale.headers.get('set-cookie')).toMatch(/^tapeline_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
});
