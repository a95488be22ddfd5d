/**
 * `npm run admin -- <command>`:
 *   keys create --tier <1|2|3> [--name <name>]   prints a new developer key of that tier
 *   credits add <api_key> <amount>               adds pay-as-you-go credits
 *   tokens set <api_key> <balance>               sets the platform-token balance (decides the tier)
 * Talks to the service running on DATA_DIR when there is one (PGlite belongs to one process);
 * otherwise opens the control store itself.
 */
import { loadConfig } from '../config.js';
import { Accounts } from '../control/accounts.js';
import { openControlStore } from '../control/open-control.js';
import { readLiveAdminEndpoint } from './admin-endpoint.js';
import { AdminOperations, type IssuableTier } from './operations.js';

type Request = { path: string; body: Record<string, unknown> };

function parse(argv: string[]): Request {
  const [noun, verb, ...rest] = argv;
  const flag = (name: string) => {
    const index = rest.indexOf(`--${name}`);
    return index >= 0 ? rest[index + 1] : undefined;
  };
  if (noun === 'keys' && verb === 'create') {
    return { path: '/admin/keys', body: { tier: flag('tier') ?? '1', name: flag('name') ?? `developer-${new Date().toISOString()}` } };
  }
  if (noun === 'credits' && verb === 'add' && rest.length === 2)
    return { path: '/admin/credits', body: { api_key: rest[0], amount: Number(rest[1]) } };
  if (noun === 'tokens' && verb === 'set' && rest.length === 2)
    return { path: '/admin/tokens', body: { api_key: rest[0], balance: Number(rest[1]) } };
  throw new Error(
    'usage: admin keys create --tier <1|2|3> [--name <name>] | admin credits add <api_key> <amount> | admin tokens set <api_key> <balance>',
  );
}

async function runDirect(request: Request): Promise<unknown> {
  const config = loadConfig();
  const store = await openControlStore(config);
  try {
    const operations = new AdminOperations(new Accounts(store), config.access.thresholds);
    const b = request.body as Record<string, never>;
    if (request.path === '/admin/keys') return await operations.createKey(String(b.name), String(b.tier) as IssuableTier);
    if (request.path === '/admin/credits') return await operations.addCredits(String(b.api_key), Number(b.amount));
    return await operations.setTokens(String(b.api_key), Number(b.balance));
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const request = parse(process.argv.slice(2));
  const live = readLiveAdminEndpoint(loadConfig().dataDir);
  if (!live) {
    console.log(JSON.stringify(await runDirect(request), null, 2));
    return;
  }
  const response = await fetch(`${live.url}${request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${live.token}` },
    body: JSON.stringify(request.body),
  });
  const body = (await response.json()) as { success: boolean; data?: unknown; error?: string };
  if (!body.success) throw new Error(body.error ?? `HTTP ${response.status}`);
  console.log(JSON.stringify(body.data, null, 2));
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
