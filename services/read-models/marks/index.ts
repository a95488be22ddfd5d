/**
 * Marks: what positions are valued at. The marks refresher (market-marks.ts) keeps each market's
 * catalog record, closes and book tops as one value read by key (market_marks), and mark-price.ts is
 * the one rule that prices an outcome from them. The positions read model reads the values
 * (positions/market-data.ts) and the trader-stats valuation pass refreshes them before it values.
 * docs/POSITIONS.md "Marks by key".
 */
import { defineReadModel, migrationsBeside } from '../read-model.js';
import { startMarketMarks } from './market-marks.js';

export const marksReadModel = defineReadModel({
  name: 'marks',
  streams: {},
  projections: [],
  migrations: migrationsBeside(import.meta.url),
  jobs: ({ store, config, logger }) => [startMarketMarks(store, config.marketMarksIntervalMs, logger.child({ part: 'market-marks' }))],
});
