/** marketDataRows: a market_marks value read as of a day (counts and the 30 days of book tops by hand). */
import { marketDataRows } from './market-data.js';

const DAY = 86_400_000;
const TODAY = 20_000 * DAY; // UTC day 20,000

test('the inputs before the day are all inputs less those of the day and later; book tops over 30 days old are left out', () => {
  const catalog = JSON.stringify(['m1', 'Title', 'Politics', 'active', ['Yes', 'No'], ['t1', 't2'], [0.5, 0.5], 0, null]);
  const rows = marketDataRows(
    {
      market_data: [
        [
          'm1',
          catalog,
          0.61,
          5,
          [
            [19_999, 1],
            [20_000, 2],
            [20_001, 1],
          ],
          [
            ['t1', 0.6, 0.62, TODAY - 30 * DAY], // exactly 30 days before the day: kept
            ['t2', 0.38, 0.4, TODAY - 30 * DAY - 1], // a ms older: left out
          ],
        ],
        ['m2', null, null, 0, [], []], // touched, but none of the three tables holds it
      ],
    },
    TODAY,
  );
  expect(rows.catalog).toEqual([JSON.parse(catalog)]);
  // 5 inputs, 2 dated today and 1 tomorrow: 2 before today (the one of day 19,999 and one older).
  expect(rows.closes_now).toEqual([['m1', 0.61, '2']]);
  expect(rows.books).toEqual([['t1', 0.6, 0.62]]);
  // A day later, today's 2 inputs are before it: 4.
  expect(
    marketDataRows(
      {
        market_data: [
          [
            'm1',
            null,
            0.61,
            5,
            [
              [20_000, 2],
              [20_001, 1],
            ],
            [],
          ],
        ],
      },
      TODAY + DAY,
    ).closes_now,
  ).toEqual([['m1', 0.61, '4']]);
});
