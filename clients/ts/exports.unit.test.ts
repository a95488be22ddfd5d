/**
 * File downloads in the TypeScript SDK against a scripted server (a fetch that answers by URL): the
 * download operation returns the file's Response (not an envelope), and `downloadExport` writes every
 * file of the manifest into a folder, keeping a file only when its size and SHA-256 are the
 * manifest's. The same against the running demo: sdk.e2e.test.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, downloadExport, ExportDownloadError, TapelineApiError, TapelineError } from './src/index.js';

const ID = 'exp_0123456789abcdef01234567';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const FILES: Record<string, Buffer> = {
  'date=2026-11-01/part-0.parquet': Buffer.from('PAR1 first day PAR1'),
  'date=2026-11-02/part-0.parquet': Buffer.from('PAR1 second day, a little longer PAR1'),
};
const link = (name: string, expires: number) =>
  `/v1/exports/${ID}/download?${new URLSearchParams({ file: name, expires: String(expires), signature: `sig-${name}` })}`;

function job(overrides: Record<string, unknown> = {}, expires = Math.floor(Date.now() / 1000) + 3600) {
  return {
    id: ID,
    status: 'succeeded',
    error: null,
    manifest: { url: link('manifest.json', expires), expires_at: new Date(expires * 1000).toISOString() },
    files: Object.entries(FILES).map(([name, bytes]) => ({
      name,
      rows: 1,
      bytes: bytes.length,
      sha256: sha256(bytes),
      url: link(name, expires),
      expires_at: new Date(expires * 1000).toISOString(),
    })),
    ...overrides,
  };
}

function manifest(files = FILES) {
  return {
    id: ID,
    dataset: 'trades',
    schema_version: 1,
    format: 'parquet',
    files: Object.entries(files).map(([name, bytes]) => ({ name, rows: 1, bytes: bytes.length, sha256: sha256(bytes) })),
    rows: 2,
    bytes: Object.values(files).reduce((sum, b) => sum + b.length, 0),
  };
}

/** A server: GET /exports/{id} serves `jobs` in turn; a download serves `served[file]` (default FILES), after `busy[file]` 429s. */
function server(options: { jobs: unknown[]; manifest?: unknown; served?: Record<string, Buffer>; busy?: Record<string, number> }) {
  const requests: Array<{ url: URL; headers: Record<string, string> }> = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    requests.push({ url, headers: init?.headers as Record<string, string> });
    if (url.pathname === `/v1/exports/${ID}`) return Response.json({ success: true, data: options.jobs.shift() });
    const file = url.searchParams.get('file')!;
    if (url.searchParams.get('signature') !== `sig-${file}`)
      return Response.json({ success: false, code: 'FORBIDDEN', error: 'signature' }, { status: 403 });
    if (file === 'manifest.json')
      return new Response(JSON.stringify(options.manifest ?? manifest()), { headers: { 'content-type': 'application/json' } });
    if ((options.busy?.[file] ?? 0) > 0) {
      options.busy![file]! -= 1;
      return Response.json({ success: false, code: 'RATE_LIMITED', error: 'downloads' }, { status: 429, headers: { 'retry-after': '1' } });
    }
    const served = options.served?.[file] ?? FILES[file];
    return served
      ? new Response(new Uint8Array(served), { headers: { 'content-type': 'application/vnd.apache.parquet' } })
      : new Response('', { status: 404 });
  };
  const sleeps: number[] = [];
  const tapeline = createClient({
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'aif_test',
    fetch: fetch as typeof globalThis.fetch,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { tapeline, requests, sleeps };
}

const folders: string[] = [];
const scratch = () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-sdk-export-'));
  folders.push(folder);
  return folder;
};
afterAll(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});
const filesUnder = (folder: string) =>
  fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();

test('the download operation returns the file as a Response (its bytes, not an envelope), after waiting out a 429', async () => {
  const name = 'date=2026-11-01/part-0.parquet';
  const { tapeline, requests, sleeps } = server({ jobs: [], busy: { [name]: 1 } });
  const response = await tapeline.downloadExportFile({ id: ID, file: name, expires: 2_000_000_000, signature: `sig-${name}` });
  expect(Buffer.from(await response.arrayBuffer())).toEqual(FILES[name]);
  expect(sleeps).toEqual([1000]);
  expect(requests).toHaveLength(2);
  expect(requests[1]!.headers.accept).toBe('*/*');
  expect(requests[1]!.url.searchParams.get('file')).toBe(name);
  // A refusal is still the typed error of its envelope.
  const refused = await tapeline
    .downloadExportFile({ id: ID, file: name, expires: 2_000_000_000, signature: 'forged' })
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(TapelineApiError);
  expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
});

test('downloadExport writes every file of the manifest under its own name, each with the manifest SHA-256', async () => {
  const { tapeline, requests } = server({ jobs: [job()] });
  const folder = scratch();
  const result = await downloadExport(tapeline, ID, folder);
  expect(filesUnder(folder)).toEqual(Object.keys(FILES));
  for (const [name, bytes] of Object.entries(FILES)) expect(fs.readFileSync(path.join(folder, name))).toEqual(bytes);
  expect(result.manifest).toEqual(manifest());
  expect(result.files).toEqual(
    Object.entries(FILES).map(([name, bytes]) => ({ path: path.resolve(folder, name), bytes: bytes.length, sha256: sha256(bytes) })),
  );
  // One job read, the manifest, then each file once.
  expect(requests.map((r) => r.url.searchParams.get('file') ?? r.url.pathname)).toEqual([
    `/v1/exports/${ID}`,
    'manifest.json',
    ...Object.keys(FILES),
  ]);
});

test('a file unlike its manifest entry is not kept: ExportDownloadError naming it, no file and no .partial left', async () => {
  const bad = 'date=2026-11-02/part-0.parquet';
  const { tapeline } = server({ jobs: [job()], served: { [bad]: Buffer.from('PAR1 second day, a little lenger PAR1') } });
  const folder = scratch();
  const error = await downloadExport(tapeline, ID, folder).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ExportDownloadError);
  expect((error as Error).message).toContain(`${bad}: `);
  expect((error as Error).message).toContain('not kept');
  expect(filesUnder(folder)).toEqual(['date=2026-11-01/part-0.parquet']);
});

test('a manifest naming a file outside the folder is refused before anything is written', async () => {
  const escaping = { '../outside.parquet': Buffer.from('x') };
  const { tapeline } = server({ jobs: [job()], manifest: manifest(escaping) });
  const parent = scratch();
  const folder = path.join(parent, 'export');
  await expect(downloadExport(tapeline, ID, folder)).rejects.toThrow(/outside/);
  expect(filesUnder(parent)).toEqual([]);
});

test('an export that has not succeeded is an ExportDownloadError with its status and error', async () => {
  const { tapeline } = server({ jobs: [job({ status: 'failed', error: 'EXPORT_MAX_BYTES passed', manifest: null })] });
  await expect(downloadExport(tapeline, ID, scratch())).rejects.toThrow('is failed (EXPORT_MAX_BYTES passed)');
});

test('links about to expire are refreshed from GET /exports/{id} before use', async () => {
  const soon = Math.floor(Date.now() / 1000) + 10;
  const { tapeline, requests } = server({ jobs: [job({}, soon), job()] });
  await downloadExport(tapeline, ID, scratch());
  expect(requests.filter((r) => r.url.pathname === `/v1/exports/${ID}`)).toHaveLength(2);
});

test('a download that stalls is given up after timeoutMs without bytes, leaving no .partial', async () => {
  const name = 'date=2026-11-01/part-0.parquet';
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.pathname === `/v1/exports/${ID}`) return Response.json({ success: true, data: job() });
    if (url.searchParams.get('file') === 'manifest.json') return Response.json(manifest());
    // A few bytes, then silence until the request is aborted (as a real fetch ends its body).
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(FILES[name]!.subarray(0, 4));
        init?.signal?.addEventListener('abort', () => controller.error(init.signal!.reason));
      },
    });
    return new Response(body);
  };
  const tapeline = createClient({ baseUrl: 'http://127.0.0.1:9/v1', fetch: fetch as typeof globalThis.fetch, timeoutMs: 50 });
  const folder = scratch();
  const error = await downloadExport(tapeline, ID, folder).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TapelineError);
  expect((error as Error).message).toMatch(/broke off after 4 bytes: the download stalled: no bytes for 50 ms/);
  expect(filesUnder(folder)).toEqual([]);
});

/** A download server whose first answer of `name` breaks off after `cut` bytes; later ones honour Range when `ranges`. */
function breakingServer(name: string, cut: number, ranges: boolean) {
  const asked: Array<string | null> = [];
  let first = true;
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.pathname === `/v1/exports/${ID}`) return Response.json({ success: true, data: job() });
    const file = url.searchParams.get('file')!;
    if (file === 'manifest.json') return Response.json(manifest());
    const bytes = FILES[file]!;
    if (file !== name) return new Response(new Uint8Array(bytes));
    const range = (init?.headers as Record<string, string> | undefined)?.range ?? null;
    asked.push(range);
    if (first) {
      first = false;
      // The first bytes, then the connection resets (an error() at once would drop the queued bytes).
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulls++ === 0) controller.enqueue(new Uint8Array(bytes.subarray(0, cut)));
          else controller.error(new Error('connection reset'));
        },
      });
      return new Response(body);
    }
    const from = ranges && range ? Number(/^bytes=(\d+)-$/.exec(range)![1]) : 0;
    return from > 0
      ? new Response(new Uint8Array(bytes.subarray(from)), {
          status: 206,
          headers: { 'content-range': `bytes ${from}-${bytes.length - 1}/${bytes.length}` },
        })
      : new Response(new Uint8Array(bytes));
  };
  return { asked, tapeline: createClient({ baseUrl: 'http://127.0.0.1:9/v1', fetch: fetch as typeof globalThis.fetch }) };
}

test('a download cut short resumes from the bytes received (Range), and the file is whole and checked', async () => {
  const name = 'date=2026-11-02/part-0.parquet';
  const { asked, tapeline } = breakingServer(name, 10, true);
  const folder = scratch();
  const done = await downloadExport(tapeline, ID, folder);
  expect(asked).toEqual([null, 'bytes=10-']);
  expect(fs.readFileSync(path.join(folder, name))).toEqual(FILES[name]);
  expect(done.files.find((f) => f.path.endsWith(name))!.sha256).toBe(sha256(FILES[name]!));
  expect(filesUnder(folder)).toEqual(Object.keys(FILES).sort());
});

test('a server that ignores the range sends the whole file again, and the download starts over from byte 0', async () => {
  const name = 'date=2026-11-02/part-0.parquet';
  const { asked, tapeline } = breakingServer(name, 10, false);
  const folder = scratch();
  await downloadExport(tapeline, ID, folder);
  expect(asked).toEqual([null, 'bytes=10-']);
  expect(fs.readFileSync(path.join(folder, name))).toEqual(FILES[name]);
});
