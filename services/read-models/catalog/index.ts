/** The Gamma catalog around markets: events (groups of markets), series (recurring events) and tags. */
import { defineStream } from '../../events/stream.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { catalogRoutes } from './routes.js';
import { gammaEventRow, seriesRow, tagRow } from './rows.js';

const gammaEvents = defineStream({
  name: 'gammaEvents',
  topic: 'tapeline.gamma-events.v1',
  partitions: 2,
  schema: 'gamma.event.upserted.v1',
  key: (event) => event.gamma_event_id,
  time: (event) => event.ingested_at_ms,
});

const series = defineStream({
  name: 'series',
  topic: 'tapeline.series.v1',
  partitions: 1,
  schema: 'series.upserted.v1',
  key: (item) => item.series_id,
  time: (item) => item.ingested_at_ms,
});

const tags = defineStream({
  name: 'tags',
  topic: 'tapeline.tags.v1',
  partitions: 1,
  schema: 'tag.upserted.v1',
  key: (tag) => tag.tag_id,
  time: (tag) => tag.ingested_at_ms,
});

export const catalogReadModel = defineReadModel({
  name: 'catalog',
  streams: { gammaEvents, series, tags },
  projections: [
    project(gammaEvents, { table: 'gamma_events', row: gammaEventRow }),
    project(series, { table: 'gamma_series', row: seriesRow }),
    project(tags, { table: 'gamma_tags', row: tagRow }),
  ],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => catalogRoutes(store),
});
