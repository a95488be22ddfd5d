/**
 * A copy-paste webhook receiver filled in with the subscription's own values: it listens on the
 * port and path of the subscription URL and verifies signatures with its secret (or reads the secret
 * from the environment when the page no longer has it). Same rules as docs/WEBHOOKS.md and
 * clients/webhooks/verify.ts: HMAC-SHA256 over `timestamp + "." + raw body`, any comma-separated
 * `sha256=` entry may match (rotation), at most 300 s of clock difference.
 */
export interface SnippetInput {
  url: string;
  /** The full secret when the page has it (just created or rotated); otherwise null. */
  secret: string | null;
}

export function receiverSnippet({ url, secret }: SnippetInput): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  const path = parsed.pathname || '/';
  const secretLine = secret
    ? `const SECRET = process.env.TAPELINE_WEBHOOK_SECRET ?? '${secret}';`
    : `const SECRET = process.env.TAPELINE_WEBHOOK_SECRET; // whsec_… (shown when the subscription was created or its secret rotated)`;
  return `// receiver.mjs - run with: node receiver.mjs (Node 20+, no dependencies)
import crypto from 'node:crypto';
import http from 'node:http';

${secretLine}
const seen = new Set(); // deliveries are at least once: deduplicate on the body's id

function verify(rawBody, headers) {
  const timestamp = headers['x-service-timestamp'];
  const signatures = headers['x-service-signature'];
  if (!timestamp || !signatures || !/^\\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = crypto.createHmac('sha256', SECRET).update(\`\${timestamp}.\`).update(rawBody).digest();
  return signatures.split(',').some((entry) => {
    const match = /^sha256=([0-9a-f]{64})$/.exec(entry.trim());
    return match !== null && crypto.timingSafeEqual(Buffer.from(match[1], 'hex'), expected);
  });
}

http
  .createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== ${JSON.stringify(path)}) return response.writeHead(404).end();
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (!verify(raw, request.headers)) return response.writeHead(400).end('bad signature');
      const event = JSON.parse(raw.toString('utf8'));
      response.writeHead(204).end(); // answer fast; work after
      if (seen.has(event.id)) return;
      seen.add(event.id);
      console.log(event.event, event.id, event);
    });
  })
  .listen(${port});
`;
}
