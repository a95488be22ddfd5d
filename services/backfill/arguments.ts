/**
 * `npm run backfill -- [--from <ISO date>] [--to <ISO date>] [--market <condition id or slug> ...]
 *                      [--fidelity <minutes>] [--restart] [--no-index]`
 * `npm run backfill -- --source chain [--from-block <n> | --from <ISO date>] [--to-block <n> | --to <ISO date>]
 *                      [--restart] [--no-index]`
 * Parsed into a request whose `key` identifies it across runs: a rerun with the same arguments
 * resumes the interrupted run (even though "the last 7 days" has moved on since, the resumed run
 * keeps the range it planned), different arguments refuse to clobber it unless --restart.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export interface BackfillArguments {
  /** data-api: trades and price history from Polymarket's APIs; chain: settlement events from Polygon. */
  source: 'data-api' | 'chain';
  /** Chain only: block bounds (inclusive), as given. */
  fromBlock: number | null;
  toBlock: number | null;
  /** As given (null: default), for the resume key. */
  fromArg: string | null;
  toArg: string | null;
  markets: string[];
  /** Minutes between /prices-history points. */
  fidelityMinutes: number;
  restart: boolean;
  /** Run the sink afterwards so the data is queryable when the command ends. */
  index: boolean;
}

const USAGE = [
  'usage: npm run backfill -- [--from <ISO date>] [--to <ISO date>] [--market <condition id or slug> ...] [--fidelity <minutes>] [--restart] [--no-index]',
  '       npm run backfill -- --source chain [--from-block <n> | --from <ISO date>] [--to-block <n> | --to <ISO date>] [--restart] [--no-index]',
].join('\n');
export const DEFAULT_RANGE_DAYS = 7;
// 5 minutes: the finest candle interval; finer points multiply rows without serving a query.
const DEFAULT_FIDELITY_MINUTES = 5;

export class UsageError extends Error {}

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  market: { type: 'string', multiple: true },
  fidelity: { type: 'string' },
  source: { type: 'string' },
  'from-block': { type: 'string' },
  'to-block': { type: 'string' },
  restart: { type: 'boolean' },
  'no-index': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export function parseBackfillArguments(argv: readonly string[]): BackfillArguments {
  // Not strict: parseArgs' own errors would not name the usage; the tokens are checked below instead.
  const { values, tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const markets: string[] = [];
  let previous: string | undefined;
  for (const token of tokens) {
    if (token.kind === 'option') {
      const option = OPTIONS[token.name as keyof typeof OPTIONS] as { type: 'string' | 'boolean' } | undefined;
      if (!option) throw new UsageError(`unknown argument ${JSON.stringify(token.rawName)}\n${USAGE}`);
      if (option.type === 'string' && (token.value === undefined || token.value.startsWith('--')))
        throw new UsageError(`${token.rawName} needs a value\n${USAGE}`);
      if (option.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value\n${USAGE}`);
      if (token.name === 'market') markets.push(token.value!.trim());
    } else if (token.kind === 'positional' && previous === 'market') {
      // --market also accepts several ids after one flag.
      markets.push(token.value.trim());
      continue;
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(token.kind === 'positional' ? token.value : '--')}\n${USAGE}`);
    }
    previous = token.name;
  }
  if (values.help) throw new UsageError(USAGE);
  const text = (name: keyof typeof OPTIONS) => values[name] as string | undefined;

  const source = text('source') ?? 'data-api';
  if (source !== 'chain' && source !== 'data-api') throw new UsageError(`--source must be chain or data-api\n${USAGE}`);
  const fidelityMinutes = Number(text('fidelity') ?? DEFAULT_FIDELITY_MINUTES);
  if (!Number.isInteger(fidelityMinutes) || fidelityMinutes < 1 || fidelityMinutes > 1440)
    throw new UsageError(`--fidelity must be whole minutes in 1..1440\n${USAGE}`);
  const parsed: BackfillArguments = {
    source,
    fromBlock: optional(text('from-block'), (v) => checkedBlock(v, '--from-block')),
    toBlock: optional(text('to-block'), (v) => checkedBlock(v, '--to-block')),
    fromArg: optional(text('from'), (v) => checkedDate(v, '--from')),
    toArg: optional(text('to'), (v) => checkedDate(v, '--to')),
    markets,
    fidelityMinutes,
    restart: values.restart === true,
    index: values['no-index'] !== true,
  };
  if (parsed.markets.some((m) => m === '')) throw new UsageError(`--market needs a condition id or slug\n${USAGE}`);
  if (parsed.source === 'chain') {
    // The chain is read block by block for every market at once.
    if (parsed.markets.length > 0) throw new UsageError(`--market does not apply to --source chain\n${USAGE}`);
    if (parsed.fromBlock !== null && parsed.fromArg !== null) throw new UsageError('give --from-block or --from, not both');
    if (parsed.toBlock !== null && parsed.toArg !== null) throw new UsageError('give --to-block or --to, not both');
    if (parsed.fromBlock !== null && parsed.toBlock !== null && parsed.fromBlock > parsed.toBlock)
      throw new UsageError('--from-block must not be after --to-block');
  } else if (parsed.fromBlock !== null || parsed.toBlock !== null) {
    throw new UsageError(`--from-block and --to-block need --source chain\n${USAGE}`);
  }
  if (parsed.fromArg && parsed.toArg && Date.parse(parsed.fromArg) > Date.parse(parsed.toArg))
    throw new UsageError('--from must not be after --to');
  return parsed;
}

const optional = <T>(text: string | undefined, check: (text: string) => T): T | null => (text === undefined ? null : check(text));

function checkedBlock(text: string, flag: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`${flag} must be a block number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function checkedDate(text: string, flag: string): string {
  // ISO dates only (2026-01-31 or 2026-01-31T12:00:00Z): Date.parse accepts too much else.
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) || Number.isNaN(Date.parse(text))) {
    throw new UsageError(`${flag} must be an ISO date such as 2026-01-31 or 2026-01-31T12:00:00Z, got ${JSON.stringify(text)}`);
  }
  return text;
}

/** Identity of a request across runs: the arguments as given, never the resolved times. */
export function requestKey(args: BackfillArguments): string {
  if (args.source === 'chain')
    return JSON.stringify({ source: 'chain', from: args.fromArg, to: args.toArg, fromBlock: args.fromBlock, toBlock: args.toBlock });
  return JSON.stringify({ from: args.fromArg, to: args.toArg, markets: [...args.markets].sort(), fidelity: args.fidelityMinutes });
}

export function resolveRange(args: BackfillArguments, nowMs: number): { fromMs: number; toMs: number } {
  const toMs = args.toArg ? Date.parse(args.toArg) : nowMs;
  const fromMs = args.fromArg ? Date.parse(args.fromArg) : toMs - DEFAULT_RANGE_DAYS * 86_400_000;
  return { fromMs, toMs };
}
