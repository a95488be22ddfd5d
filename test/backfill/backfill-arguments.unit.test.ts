import { parseBackfillArguments, requestKey, resolveRange, UsageError } from '../../services/backfill/arguments.js';
import type { BackfillCheckpoint } from '../../services/backfill/backfill-run.js';
import { emptyTotals } from '../../services/backfill/backfill-run.js';
import { BackfillProgress, fractionDone } from '../../services/backfill/progress.js';

describe('backfill arguments', () => {
  test('defaults: every active market, the last 7 days, 5-minute price points, indexed', () => {
    const args = parseBackfillArguments([]);
    expect(args).toEqual({
      source: 'data-api',
      fromBlock: null,
      toBlock: null,
      fromArg: null,
      toArg: null,
      markets: [],
      fidelityMinutes: 5,
      restart: false,
      index: true,
    });
    const now = Date.UTC(2026, 0, 31);
    expect(resolveRange(args, now)).toEqual({ fromMs: now - 7 * 86_400_000, toMs: now });
  });

  test('markets repeat or follow one flag; dates are ISO', () => {
    const args = parseBackfillArguments([
      '--market',
      'a-slug',
      '--market',
      `0x${'ab'.repeat(32)}`,
      'other-slug',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-02T12:00:00Z',
      '--no-index',
    ]);
    expect(args.markets).toEqual(['a-slug', `0x${'ab'.repeat(32)}`, 'other-slug']);
    expect(resolveRange(args, 0)).toEqual({ fromMs: Date.UTC(2026, 0, 1), toMs: Date.UTC(2026, 0, 2, 12) });
    expect(args.index).toBe(false);
  });

  test.each([
    [['--from', 'yesterday']],
    [['--from', '2026-02-01', '--to', '2026-01-01']],
    [['--market']],
    [['--fidelity', '0']],
    [['--bogus']],
    [['--from-block', '5']],
    [['--source', 'chain', '--market', 'x']],
    [['--source', 'chain', '--from-block', '9', '--to-block', '3']],
    [['--source', 'chain', '--from-block', '9', '--from', '2026-01-01']],
    [['--source', 'chain', '--from-block', '-1']],
    [['--source', 'ethereum']],
  ])('rejects %j with a usage message', (argv) => {
    expect(() => parseBackfillArguments(argv)).toThrow(UsageError);
  });

  test('the resume key is the arguments as given, independent of market order and of the clock', () => {
    expect(requestKey(parseBackfillArguments(['--market', 'b', '--market', 'a']))).toBe(
      requestKey(parseBackfillArguments(['--market', 'a', 'b'])),
    );
    expect(requestKey(parseBackfillArguments([]))).not.toBe(requestKey(parseBackfillArguments(['--from', '2026-01-01'])));
  });
});

describe('backfill progress', () => {
  const checkpoint = (over: Partial<BackfillCheckpoint>): BackfillCheckpoint => ({
    version: 1,
    key: 'k',
    from_ms: 0,
    to_ms: 1,
    fidelity_minutes: 5,
    markets: [1, 2, 3, 4].map((i) => ({ market_id: `m${i}`, slug: `s${i}`, tokens: ['1', '2'] })),
    next_market: 0,
    trades_offset: 0,
    trades_done: false,
    history_tokens_done: 0,
    totals: emptyTotals(),
    ...over,
  });

  test("fraction counts finished markets and the current market's steps", () => {
    expect(fractionDone(checkpoint({}))).toBe(0);
    expect(fractionDone(checkpoint({ next_market: 1, trades_done: true, history_tokens_done: 1 }))).toBeCloseTo((1 + 0.75) / 4);
    expect(fractionDone(checkpoint({ next_market: 4 }))).toBe(1);
  });

  test('a terminal gets a redrawn bar, a pipe gets one line per market', () => {
    let clock = 0;
    const tty: string[] = [];
    const bar = new BackfillProgress({ isTTY: true, columns: 200, write: (t) => tty.push(t) }, checkpoint({}), () => clock);
    clock = 1000;
    bar.progress(checkpoint({ next_market: 2 }));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal escape is what is tested.
    expect(tty.at(-1)).toMatch(/^\r\x1b\[2K\[█{12}░{12}\] 50\.0% 2\/4 markets .* ~0:01 left/);
    const lines: string[] = [];
    const plain = new BackfillProgress({ isTTY: false, write: (t) => lines.push(t) }, checkpoint({}), () => clock);
    plain.progress(checkpoint({ next_market: 1 }));
    expect(lines).toEqual([]);
    plain.marketDone(checkpoint({ next_market: 1 }), { market_id: 'm1', slug: 's1', tokens: [] });
    expect(lines).toEqual(['backfill: 1/4 markets · 0 trades · 0 price points · 0 dead-lettered · done s1\n']);
  });
});
