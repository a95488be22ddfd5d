/**
 * Every fenced block of the documentation is either an example the e2e tier runs against the demo
 * (test/e2e/demo.e2e.test.ts) or marked as not run (```sh no-run, ```text): a block nothing checks
 * fails here, so an example cannot silently escape the run.
 */
import { allExamples, documentationFiles, extractExamples, isRunnable, substitute } from '../support/doc-examples.js';

test('every block of the documentation is runnable or explicitly marked', () => {
  const unmarked = allExamples()
    .filter((example) => example.kind === 'unknown')
    .map((example) => `${example.file}:${example.line} (\`\`\`${example.info})`);
  expect(unmarked).toEqual([]);
});

test('the documentation includes every client README and has examples in each', () => {
  const files = documentationFiles();
  for (const client of ['ts', 'python', 'mcp', 'executor', 'webhooks']) expect(files).toContain(`clients/${client}/README.md`);
  const runnable = allExamples().filter(isRunnable);
  for (const file of files.filter((f) => f.startsWith('clients/'))) expect(runnable.some((example) => example.file === file)).toBe(true);
});

test('blocks are extracted with their kind, line and indentation', () => {
  const markdown = [
    '# t',
    '```sh',
    'curl -s localhost:8080/v1/markets',
    '```',
    '- item',
    '  ```python',
    '  print(1)',
    '  ```',
    '```sh no-run',
    'npm run demo',
    '```',
    '```js',
    'x()',
    '```',
    '````text',
    '```',
    '````',
  ].join('\n');
  const blocks = extractExamples('x.md', markdown);
  expect(blocks.map((b) => [b.line, b.kind, b.code])).toEqual([
    [2, 'shell', 'curl -s localhost:8080/v1/markets\n'],
    [6, 'python', 'print(1)\n'],
    [9, 'no-run', 'npm run demo\n'],
    [12, 'unknown', 'x()\n'],
    [15, 'text', '```\n'],
  ]);
});

test('placeholders point an example at the test demo', () => {
  const context = {
    origin: 'http://127.0.0.1:4321',
    dataDir: '/tmp/d',
    key: 'aif_k',
    marketSlug: 'some-market',
    wallet: '0xabc',
    venv: '/venv',
  };
  expect(
    substitute(
      'curl localhost:8080/v1/markets/<condition id or slug> http://127.0.0.1:8080/v1 DATA_DIR=./data-demo {"w":"0x..."} localhost:80801',
      context,
    ),
  ).toBe('curl 127.0.0.1:4321/v1/markets/some-market http://127.0.0.1:4321/v1 DATA_DIR=/tmp/d {"w":"0xabc"} localhost:80801');
});
