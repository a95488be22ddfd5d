/**
 * The fills channel's role filter counts records as /trades does: a legacy AMM trade (role `amm`, the
 * pool its only counterparty) is a taker record, so `role=taker` carries it and `role=maker` does not.
 */
import { chainFill } from '../support/events.js';
import { fillsChannel } from '../../services/streams/fills-channel.js';
import { chainLedger } from '../../services/read-models/chain-ledger/streams.js';

const fills = (['maker', 'taker', 'amm'] as const).map((role, i) => chainFill({ log_index: i, fill: { role } }));
const selected = (role?: 'maker' | 'taker') =>
  fills.flatMap((event) => {
    const message = fillsChannel.select(chainLedger, event, role ? { role } : {});
    return message ? [(message.data as { role: string }).role] : [];
  });

test('role=taker carries the AMM trades, role=maker does not, no role carries all', () => {
  expect(selected()).toEqual(['maker', 'taker', 'amm']);
  expect(selected('taker')).toEqual(['taker', 'amm']);
  expect(selected('maker')).toEqual(['maker']);
});
