/** market.volume_spike on hand-computed tapes: the window against the hourly baseline, the floor, quiet after a spike, seeding. */
import { volumeSpike } from '../../services/signals/payloads.js';
import { VolumeWindows } from '../../services/signals/volume-windows.js';
import { T0, tradeExecuted } from '../support/events.js';

const HOUR = 3_600_000;
const SETTINGS = { windowMs: HOUR, baselineMs: 24 * HOUR, spikeRatio: 3, minUsdc: 10_000 };
const trade = (n: number, at: number, usdc: number) => tradeExecuted({ event_id: `t${n}`, timestamp_ms: at, size_usdc: usdc });

test('a window of at least 3x the baseline hour and at least 10,000 USDC is one spike; then quiet for a window', () => {
  const windows = new VolumeWindows(SETTINGS);
  // Baseline: 2,400 USDC an hour for 24 hours before the window (one trade an hour).
  for (let h = 0; h < 24; h++) expect(windows.observe(trade(h, T0 + h * HOUR, 2_400))).toBeNull();
  const start = T0 + 24 * HOUR + 1;
  // In the window: 2,400 x 3 = 7,200 needed, and 10,000 minimum; 9,000 is not enough.
  expect(windows.observe(trade(100, start + 60_000, 9_000))).toBeNull();
  // +1,500 = 10,500 in the window [T0+23h+2m, T0+24h+2m); all 24 baseline trades (T0 .. T0+23h) fall in the
  // 24 hours before it: 57,600 / 24 = 2,400 an hour; 10,500 / 2,400 = 4.375 -> 4.38.
  const spike = windows.observe(trade(101, start + 120_000, 1_500))!;
  expect(spike).toMatchObject({ window_volume_usdc: 10_500, baseline_hourly_usdc: 2_400, ratio: 4.38, trigger_id: 't101' });
  expect(windows.observe(trade(102, start + 180_000, 50_000))).toBeNull();
  expect(volumeSpike(spike, HOUR)).toMatchObject({
    event: 'market.volume_spike',
    volume_usdc: 10_500,
    window_minutes: 60,
    baseline_hourly_usdc: 2_400,
  });
});

test('no baseline, no spike; a seeded baseline counts; late trades are ignored', async () => {
  const fresh = new VolumeWindows(SETTINGS);
  expect(fresh.observe(trade(1, T0, 1_000_000))).toBeNull();
  const seeded = new VolumeWindows(
    SETTINGS,
    async (markets, from, to) => {
      expect(to - from).toBe(24 * HOUR);
      return [
        [markets[0]!, from + 60_000, 24_000],
        // Inside the first trade's window: never seeded (the sink may not have written it yet).
        [markets[0]!, to + 60_000, 1_000_000],
      ];
    },
    () => T0,
  );
  const first = trade(2, T0, 20_000);
  await seeded.prepare([first]);
  // Seeded baseline 24,000 over 24 h = 1,000 an hour; 20,000 in the window = 20x.
  expect(seeded.observe(first)).toMatchObject({ ratio: 20, baseline_hourly_usdc: 1_000 });
  expect(seeded.observe(trade(3, T0 - 1, 99_999))).toBeNull();
  // A replay of old trades is not seeded (its own trades build the baseline).
  const replay = new VolumeWindows(SETTINGS, async () => {
    throw new Error('not asked');
  });
  await replay.prepare([trade(4, T0 - 30 * HOUR, 5)]);
});

test('a backfilled trade feeds the windows but reports no spike and starts no quiet window', () => {
  const windows = new VolumeWindows(SETTINGS);
  for (let h = 0; h < 24; h++) expect(windows.observe(trade(h, T0 + h * HOUR, 2_400))).toBeNull();
  const start = T0 + 24 * HOUR + 1;
  // 12,000 backfilled in the window: a spike, were it live; not reported.
  expect(windows.observe(trade(100, start + 60_000, 12_000), false)).toBeNull();
  // A live trade minutes later, the window now 13,000: reported (a quiet window started by the
  // backfilled trade would have hidden it).
  expect(windows.observe(trade(101, start + 120_000, 1_000))).toMatchObject({ window_volume_usdc: 13_000, trigger_id: 't101' });
});
