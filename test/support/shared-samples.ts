/**
 * Reads Polymarket's recorded responses from ../shared/upstream-samples (public data recorded by
 * others: read in place, never copied into this repository).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SAMPLES_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/upstream-samples');

export function readSample(relativePath: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(SAMPLES_DIRECTORY, relativePath), 'utf8'));
}

export function readNdjsonSample(relativePath: string): unknown[] {
  return fs
    .readFileSync(path.join(SAMPLES_DIRECTORY, relativePath), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

const SHARED_NOTES_DIRECTORY = path.resolve(SAMPLES_DIRECTORY, '../notes');

/** One of the shared fact notes (../shared/notes/<name>), read in place. */
export function readSharedNote(name: string): string {
  return fs.readFileSync(path.join(SHARED_NOTES_DIRECTORY, name), 'utf8');
}
