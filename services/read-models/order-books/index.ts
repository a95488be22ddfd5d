/** Order books: every distinct book of a token (history) and the level changes between them; the live top-20 book. */
import { defineStream } from '../../events/stream.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { orderBookRoutes } from './routes.js';
import { bookDeltaRow, bookSnapshotRow } from './rows.js';

export const bookSnapshots = defineStream({
  name: 'bookSnapshots',
  topic: 'tapeline.book-snapshots.v1',
  partitions: 8,
  schema: 'book.snapshot.v1',
  key: (book) => book.market_id,
  time: (book) => book.timestamp_ms,
});

export const bookDeltas = defineStream({
  name: 'bookDeltas',
  topic: 'tapeline.book-deltas.v1',
  partitions: 8,
  schema: 'book.delta.v1',
  key: (delta) => delta.market_id,
  time: (delta) => delta.timestamp_ms,
});

export const orderBooksReadModel = defineReadModel({
  name: 'order-books',
  streams: { bookSnapshots, bookDeltas },
  projections: [
    project(bookSnapshots, { table: 'order_books', row: bookSnapshotRow }),
    project(bookDeltas, { table: 'order_book_deltas', row: bookDeltaRow }),
  ],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => orderBookRoutes(store),
});
