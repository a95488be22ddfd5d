/**
 * `npm run backfill -- [--from <ISO date>] [--to <ISO date>] [--market <condition id or slug> ...]
 *                      [--fidelity <minutes>] [--restart] [--no-index]`
 * `npm run backfill -- --source chain [--from-block <n> | --from <ISO date>] [--to-block <n> | --to <ISO date>]
 *                      [--restart] [--no-index]`
 * Parsed into a request whose `key` identifies it across runs: a rerun with the same arguments
 * resumes the interrupted run (even though "the last 7 days" has moved on since, the resumed run
 * keeps the range it planned), different arguments refuse to clobber it unless --restart.
 */
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

export const USAGE = [
  'usage: npm run backfill -- [--from <ISO date>] [--to <ISO date>] [--market <condition id or slug> ...] [--fidelity <minutes>] [--restart] [--no-index]',
  '       npm run backfill -- --source chain [--from-block <n> | --from <ISO date>] [--to-block <n> | --to <ISO date>] [--restart] [--no-index]',
].join('\n');
export const DEFAULT_RANGE_DAYS = 7;
// 5 minutes: the finest candle interval; finer points multiply rows without serving a query.
export const DEFAULT_FIDELITY_MINUTES = 5;

export class UsageError extends Error {}

export function parseBackfillArguments(argv: readonly string[]): BackfillArguments {
  const parsed: BackfillArguments = {
    source: 'data-api',
    fromBlock: null,
    toBlock: null,
    fromArg: null,
    toArg: null,
    markets: [],
    fidelityMinutes: DEFAULT_FIDELITY_MINUTES,
    restart: false,
    index: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value\n${USAGE}`);
      i++;
      return next;
    };
    switch (flag) {
      case '--from':
        parsed.fromArg = checkedDate(value(), '--from');
        break;
      case '--to':
        parsed.toArg = checkedDate(value(), '--to');
        break;
      case '--market':
        // Repeatable, and also accepts several ids after one flag.
        parsed.markets.push(value().trim());
        while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) parsed.markets.push(argv[++i]!.trim());
        break;
      case '--fidelity': {
        const minutes = Number(value());
        if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440)
          throw new UsageError(`--fidelity must be whole minutes in 1..1440\n${USAGE}`);
        parsed.fidelityMinutes = minutes;
        break;
      }
      case '--source': {
        const source = value();
        if (source !== 'chain' && source !== 'data-api') throw new UsageError(`--source must be chain or data-api\n${USAGE}`);
        parsed.source = source;
        break;
      }
      case '--from-block':
        parsed.fromBlock = checkedBlock(value(), '--from-block');
        break;
      case '--to-block':
        parsed.toBlock = checkedBlock(value(), '--to-block');
        break;
      case '--restart':
        parsed.restart = true;
        break;
      case '--no-index':
        parsed.index = false;
        break;
      case '--help':
      case '-h':
        throw new UsageError(USAGE);
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(flag)}\n${USAGE}`);
    }
  }
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
