/** tools/verify/sources.ts: a wallet's positions read page after page, and a read that does not hold together. */
import type { BoundedHttp } from './http.js';
import { ServiceApi } from './sources.js';

const W = `0x${'a'.repeat(40)}`;
const position = (asset: string) => ({ asset_id: asset });

/** A service answering GET /positions/{w} from `pages` (by cursor: '' for the first), null for 404; `open` positions and one closed. */
function service(pages: Record<string, { asOf: string; assets: string[]; next: string | null; open: number } | null>) {
  const asked: string[] = [];
  const http = {
    async getJson(url: string) {
      const query = new URL(url).searchParams;
      asked.push(`status=${query.get('status')} limit=${query.get('limit')} cursor=${query.get('cursor') ?? ''}`);
      const page = pages[query.get('cursor') ?? ''];
      if (!page) return null;
      return {
        data: {
          wallet: W,
          data_as_of: page.asOf,
          open_positions: page.open - 1,
          closed_positions: 1,
          positions: page.assets.map(position),
          pagination: { limit: 500, has_more: page.next !== null, next_cursor: page.next },
        },
      };
    },
  } as unknown as BoundedHttp;
  return { asked, api: new ServiceApi(http, 'http://127.0.0.1:9/v1', 'aif_test') };
}

const T = '2026-11-30T00:00:00.000Z';

test('every page of open and closed positions, 500 a page, joined into one read', async () => {
  const { asked, api } = service({
    '': { asOf: T, assets: ['1', '2'], next: 'c1', open: 3 },
    c1: { asOf: T, assets: ['3'], next: null, open: 3 },
  });
  const read = await api.positions(W);
  expect(read?.positions.map((p) => p.asset_id)).toEqual(['1', '2', '3']);
  expect(read?.data_as_of).toBe(T);
  expect(asked).toEqual(['status=all limit=500 cursor=', 'status=all limit=500 cursor=c1']);
});

test('pages that do not hold together are a mixed read, to be made again', async () => {
  const later = '2026-11-30T00:00:05.000Z';
  // The ledger moved between the pages.
  const moved = service({ '': { asOf: T, assets: ['1'], next: 'c1', open: 2 }, c1: { asOf: later, assets: ['2'], next: null, open: 2 } });
  expect((await moved.api.positions(W))?.data_as_of).toBe('mixed');
  // A value moved across the cursor: a position on both pages.
  const twice = service({ '': { asOf: T, assets: ['1', '2'], next: 'c1', open: 3 }, c1: { asOf: T, assets: ['2'], next: null, open: 3 } });
  expect((await twice.api.positions(W))?.data_as_of).toBe('mixed');
  // A later page missing.
  const gone = service({ '': { asOf: T, assets: ['1'], next: 'c1', open: 2 }, c1: null });
  expect((await gone.api.positions(W))?.data_as_of).toBe('mixed');
  // More pages than asked for.
  const long = service({ '': { asOf: T, assets: ['1'], next: 'c1', open: 2 }, c1: { asOf: T, assets: ['2'], next: null, open: 2 } });
  expect((await long.api.positions(W, 1))?.data_as_of).toBe('mixed');
});

test('an unknown wallet is null', async () => {
  expect(await service({ '': null }).api.positions(W)).toBeNull();
});
