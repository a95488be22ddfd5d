/** Catalog: Gamma event, series and tag events -> gamma_events / gamma_series / gamma_tags rows -> /events, /series. */
import { conditionId, gammaEventUpserted, seriesUpserted, T0, tagUpserted } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('catalog');
  await h.given({
    gammaEvents: [
      gammaEventUpserted({
        gamma_event_id: '77',
        volume_24h_usdc: 500,
        market_ids: [conditionId(1)],
        series_ids: ['5'],
        tag_ids: ['2'],
        start_ms: T0,
      }),
      gammaEventUpserted({ event_id: 'e2', gamma_event_id: '78', slug: 'event-78', title: 'Done', closed: true, volume_24h_usdc: 900 }),
    ],
    series: [seriesUpserted({ series_id: '5', volume_24h_usdc: 42, event_ids: ['77'] })],
    tags: [tagUpserted({ tag_id: '2', label: 'Politics', force_show: true })],
  });
}, 60_000);
afterAll(() => h.close());

test('rows in each catalog table', async () => {
  expect(
    await h.rows(
      'SELECT event_id, closed, market_ids, series_ids, tag_ids, toUnixTimestamp64Milli(start_date) AS start_date_ms FROM gamma_events FINAL ORDER BY event_id',
    ),
  ).toEqual([
    { event_id: '77', closed: false, market_ids: [conditionId(1)], series_ids: ['5'], tag_ids: ['2'], start_date_ms: T0 },
    { event_id: '78', closed: true, market_ids: [], series_ids: [], tag_ids: [], start_date_ms: null },
  ]);
  expect(await h.rows('SELECT series_id, ticker, event_ids FROM gamma_series FINAL')).toEqual([
    { series_id: '5', ticker: 'S5', event_ids: ['77'] },
  ]);
  expect(await h.rows('SELECT tag_id, label, force_show FROM gamma_tags FINAL')).toEqual([
    { tag_id: '2', label: 'Politics', force_show: true },
  ]);
});

test('/events lists active events by default; status=all includes closed, busiest first; /series', async () => {
  expect((await h.get('/events')).body.data).toEqual([
    {
      id: '77',
      slug: 'event-77',
      title: 'Event 77',
      category: 'Politics',
      status: 'active',
      neg_risk: false,
      start_date: new Date(T0).toISOString(),
      end_date: null,
      volume_usdc: 0,
      volume_24h_usdc: 500,
      liquidity_usdc: 0,
      open_interest_usdc: 0,
      market_ids: [conditionId(1)],
      series_ids: ['5'],
      source: 'simulator',
    },
  ]);
  expect((await h.get('/events?status=all')).body.data.map((e: { id: string }) => e.id)).toEqual(['78', '77']);
  expect((await h.get('/series')).body.data).toEqual([
    {
      id: '5',
      slug: 'series-5',
      ticker: 'S5',
      title: 'Series 5',
      series_type: 'single',
      recurrence: 'daily',
      status: 'active',
      volume_usdc: 0,
      volume_24h_usdc: 42,
      liquidity_usdc: 0,
      event_ids: ['77'],
      source: 'simulator',
    },
  ]);
});
