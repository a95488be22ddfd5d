/**
 * `npm run admin -- <command>`:
 *   keys create --tier <1|2|3> [--name <name>]          prints a new developer key of that tier
 *   keys list <api_key | key id>                         every key of that key's account (prefix, status, last use)
 *   keys revoke <api_key | key id>                       ends that key now (operators may end an account's last key)
 *   keys rotate <api_key | key id> [--grace <seconds>]   a new key for the account; the old one works for the grace (default 0)
 *   credits add <api_key> <amount>                       adds pay-as-you-go credits
 *   tokens set <api_key> <balance>                       sets the platform-token balance (decides the tier)
 * Talks to the service running on DATA_DIR when there is one (its operator port, from
 * DATA_DIR/admin.json: PGlite belongs to one process); otherwise opens the control store itself,
 * holding the DATA_DIR lock while it does.
 */
import { loadConfig } from '../config.js';
import { Accounts } from '../control/accounts.js';
import { KeyLifecycle } from '../control/key-lifecycle.js';
import { openControlStore } from '../control/open-control.js';
import { acquireDataDirLock, type DataDirLock } from '../shared/data-dir-lock.js';
import { claimDataDirPrivately } from '../shared/data-dir-privacy.js';
import { readLiveAdminEndpoint } from './admin-endpoint.js';
import { AdminOperations, type IssuableTier, type KeyReference } from './operations.js';

type Request = { path: string; body: Record<string, unknown> };

/** The account name of a key created without --name: what the web UI's header and GET /v1/session show. */
const DEFAULT_KEY_NAME = 'operator key';

const USAGE =
  'usage: admin keys create --tier <1|2|3> [--name <name>] | admin keys list|revoke <api_key|key id> | ' +
  'admin keys rotate <api_key|key id> [--grace <seconds>] | admin credits add <api_key> <amount> | admin tokens set <api_key> <balance>';

/** An operator names a key by the key itself or by its id (as listings show it). */
function keyReference(value: string | undefined): Record<string, string> {
  if (!value) throw new Error(USAGE);
  return /^\d{1,18}$/.test(value) ? { key_id: value } : { api_key: value };
}

function parse(argv: string[]): Request {
  const [noun, verb, ...rest] = argv;
  const flag = (name: string) => {
    const index = rest.indexOf(`--${name}`);
    return index >= 0 ? rest[index + 1] : undefined;
  };
  if (noun === 'keys' && verb === 'create') {
    return { path: '/admin/keys', body: { tier: flag('tier') ?? '1', name: flag('name') ?? DEFAULT_KEY_NAME } };
  }
  if (noun === 'keys' && verb === 'list') return { path: '/admin/keys/list', body: keyReference(rest[0]) };
  if (noun === 'keys' && verb === 'revoke') return { path: '/admin/keys/revoke', body: keyReference(rest[0]) };
  if (noun === 'keys' && verb === 'rotate')
    return { path: '/admin/keys/rotate', body: { ...keyReference(rest[0]), expire_previous_in_seconds: Number(flag('grace') ?? 0) } };
  if (noun === 'credits' && verb === 'add' && rest.length === 2)
    return { path: '/admin/credits', body: { api_key: rest[0], amount: Number(rest[1]) } };
  if (noun === 'tokens' && verb === 'set' && rest.length === 2)
    return { path: '/admin/tokens', body: { api_key: rest[0], balance: Number(rest[1]) } };
  throw new Error(USAGE);
}

function reference(body: Record<string, unknown>): KeyReference {
  return typeof body.api_key === 'string' ? { apiKey: body.api_key } : { keyId: String(body.key_id) };
}

async function runDirect(request: Request): Promise<unknown> {
  const config = loadConfig();
  claimDataDirPrivately(config.dataDir, { warn: (details, message) => console.error(`${message} (${JSON.stringify(details)})`) });
  // The embedded control store lives in DATA_DIR: no service or backfill may have it open meanwhile.
  const lock: DataDirLock | null = config.engines.databaseUrl
    ? null
    : acquireDataDirLock(config.dataDir, 'admin', (holder) =>
        holder.role === 'service'
          ? `${config.dataDir} is in use by a tapeline service (pid ${holder.pid}) that has not opened its operator port yet (it writes admin.json there once started): try again in a few seconds`
          : `${config.dataDir} is in use by a tapeline ${holder.role} (pid ${holder.pid})`,
      );
  try {
    const store = await openControlStore(config);
    try {
      const accounts = new Accounts(store);
      const operations = new AdminOperations(accounts, config.access.thresholds, new KeyLifecycle(store, config.access));
      const b = request.body as Record<string, never>;
      switch (request.path) {
        case '/admin/keys':
          return await operations.createKey(String(b.name), String(b.tier) as IssuableTier);
        case '/admin/keys/list':
          return await operations.listKeys(reference(b));
        case '/admin/keys/revoke':
          return await operations.revokeKey(reference(b));
        case '/admin/keys/rotate':
          return await operations.rotateKey(reference(b), Number(b.expire_previous_in_seconds));
        case '/admin/credits':
          return await operations.addCredits(String(b.api_key), Number(b.amount));
        default:
          return await operations.setTokens(String(b.api_key), Number(b.balance));
      }
    } finally {
      await store.close();
    }
  } finally {
    lock?.release();
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
