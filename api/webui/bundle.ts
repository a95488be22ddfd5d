/**
 * The web UI bundle, built by esbuild from webui/ in memory: no build step to remember and nothing
 * written to disk, so `npm install && npm start` on a fresh clone serves it, and several processes on
 * one checkout never race on an output folder. ES modules with code splitting: the first page loads
 * only Preact and the app shell; the charting library arrives with the first page that draws a chart.
 * Names carry content hashes, so assets are cached forever and a new build is a new URL.
 */
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const WEBUI_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../webui');

interface Asset {
  body: Buffer;
  gzip: Buffer;
  type: string;
}

export interface Bundle {
  /** File name (under /app/assets/) -> content. */
  assets: Map<string, Asset>;
  /** The entry's script and stylesheet, and the chunks it imports statically (preloaded). */
  entry: { script: string; stylesheet: string | null; preload: string[] };
  builtInMs: number;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

// A plain mark (no text, no external font) so the tab has an icon and the browser asks for no /favicon.ico.
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d4ed8"/><path d="M6 22l6-8 5 5 9-11" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export async function buildBundle(): Promise<Bundle> {
  const started = performance.now();
  const result = await build({
    entryPoints: { app: path.join(WEBUI_SOURCE, 'main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    write: false,
    metafile: true,
    outdir: '/assets',
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
    // Licences of bundled libraries go to a file beside the bundle rather than being dropped.
    legalComments: 'linked',
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const body = Buffer.from(file.contents);
    assets.set(name, { body, gzip: zlib.gzipSync(body, { level: 9 }), type: TYPES[path.extname(name)] ?? 'application/octet-stream' });
  }
  const favicon = Buffer.from(FAVICON);
  assets.set('favicon.svg', { body: favicon, gzip: zlib.gzipSync(favicon), type: TYPES['.svg']! });

  const [outputPath, output] = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint !== undefined)!;
  return {
    assets,
    entry: {
      script: path.basename(outputPath),
      stylesheet: output.cssBundle ? path.basename(output.cssBundle) : null,
      preload: output.imports.filter((i) => i.kind === 'import-statement').map((i) => path.basename(i.path)),
    },
    builtInMs: Math.round(performance.now() - started),
  };
}

/** Bytes the first page loads (entry script, its static imports, stylesheet): raw and gzip. */
export function firstPageBytes(bundle: Bundle): { js: number; js_gzip: number; css: number; css_gzip: number } {
  const js = [bundle.entry.script, ...bundle.entry.preload].map((name) => bundle.assets.get(name)!);
  const css = bundle.entry.stylesheet ? [bundle.assets.get(bundle.entry.stylesheet)!] : [];
  const sum = (list: Asset[], key: 'body' | 'gzip') => list.reduce((n, a) => n + a[key].length, 0);
  return { js: sum(js, 'body'), js_gzip: sum(js, 'gzip'), css: sum(css, 'body'), css_gzip: sum(css, 'gzip') };
}
