/** The market lifecycle state machine, rule by rule (services/lifecycle/state-machine.ts). */
import { type MarketLifecycle, type Observation, step } from '../../services/lifecycle/state-machine.js';
import { conditionId, T0 } from '../support/events.js';

const MARKET = conditionId(0x42);
const EPOCH = T0;
const DAY = 86_400_000;

function observe(over: Partial<Observation> = {}): Observation {
  return {
    market_id: MARKET,
    source: 'simulator',
    authority: 'gamma',
    state: 'active',
    payouts: [],
    slug: 'will-it-rain',
    title: 'Will it rain?',
    outcomes: ['Yes', 'No'],
    yes_index: 0,
    occurred_at_ms: null,
    observed_at_ms: T0 + 1000,
    ...over,
  };
}

/** Runs the observations in order; returns every transition and the final state. */
function run(observations: Observation[], start: MarketLifecycle | null = null) {
  let state = start;
  const transitions = [];
  for (const observation of observations) {
    const result = step(state, observation, EPOCH);
    state = result.next;
    transitions.push(...result.transitions);
  }
  return { state: state!, transitions };
}

test('first sight lists the market; nothing is news', () => {
  const { transitions, state } = run([observe()]);
  expect(transitions).toEqual([
    expect.objectContaining({ kind: 'listed', from_state: null, to_state: 'active', revision: 1, event_id: `${MARKET}:1`, notify: false }),
  ]);
  expect(state).toMatchObject({ state: 'active', revision: 1, resolution_number: 0 });
});

test('active -> closed -> resolved: the resolution is news, with final prices and outcome', () => {
  const { transitions } = run([
    observe(),
    observe({ state: 'closed', occurred_at_ms: T0 + DAY }),
    observe({ state: 'resolved', payouts: [0, 1], occurred_at_ms: T0 + 2 * DAY }),
  ]);
  expect(transitions.map((t) => [t.kind, t.from_state, t.to_state, t.revision, t.notify])).toEqual([
    ['listed', null, 'active', 1, false],
    ['closed', 'active', 'closed', 2, false],
    ['resolved', 'closed', 'resolved', 3, true],
  ]);
  expect(transitions[2]).toMatchObject({
    resolution_number: 1,
    resolved_outcome: 'No',
    winning_outcome_index: 1,
    payouts: [0, 1],
    final_yes_price: 0,
    final_no_price: 1,
    occurred_at_ms: T0 + 2 * DAY,
  });
});

test('a late resolution (settled long after the end date, even before the epoch) of a market seen open is news', () => {
  const seenOpen = run([observe({ observed_at_ms: EPOCH - 40 * DAY })]).state;
  const { transitions } = run([observe({ state: 'resolved', payouts: [1, 0], occurred_at_ms: EPOCH - DAY })], seenOpen);
  expect(transitions).toEqual([expect.objectContaining({ kind: 'resolved', from_state: 'active', notify: true, resolved_outcome: 'Yes' })]);
});

test.each([
  ['settled before the lifecycle began watching: history, recorded quietly', EPOCH - 1, false],
  ['settled after it began watching, first seen settled: news', EPOCH + 1, true],
  ['settled at an unknown time: recorded quietly', null, false],
])('first sight of a settled market: %s', (_what, occurredAt, notify) => {
  const { transitions } = run([observe({ state: 'resolved', payouts: [1, 0], occurred_at_ms: occurredAt })]);
  expect(transitions).toEqual([expect.objectContaining({ kind: 'resolved', from_state: null, to_state: 'resolved', notify })]);
});

test('a 50-50 is voided: outcome "50-50", no winner, 0.5 / 0.5', () => {
  const { transitions } = run([observe(), observe({ state: 'voided', payouts: [0.5, 0.5], occurred_at_ms: T0 + DAY })]);
  expect(transitions[1]).toMatchObject({
    kind: 'voided',
    to_state: 'voided',
    resolved_outcome: '50-50',
    winning_outcome_index: -1,
    final_yes_price: 0.5,
    final_no_price: 0.5,
    notify: true,
  });
});

test('a resolution report decides resolved or voided from its payouts, whatever state it names', () => {
  expect(run([observe(), observe({ authority: 'clob-ws', state: 'resolved', payouts: [0.5, 0.5] })]).state.state).toBe('voided');
});

test('closed -> active when upstream reopens; a settled market never goes back', () => {
  const reopened = run([observe(), observe({ state: 'closed' }), observe({ state: 'active' })]);
  expect(reopened.transitions.map((t) => t.kind)).toEqual(['listed', 'closed', 'reopened']);
  const settled = run([
    observe(),
    observe({ state: 'resolved', payouts: [1, 0] }),
    observe({ state: 'closed' }),
    observe({ state: 'active' }),
  ]);
  expect(settled.transitions.map((t) => t.kind)).toEqual(['listed', 'resolved']);
  expect(settled.state.state).toBe('resolved');
});

test('the fast path settles once: the same payouts again, from Gamma or the websocket, change nothing', () => {
  const { transitions } = run([
    observe(),
    observe({ authority: 'clob-ws', state: 'resolved', payouts: [1, 0], outcomes: [], title: '' }),
    observe({ state: 'resolved', payouts: [1, 0] }),
    observe({ authority: 'clob-rest', state: 'resolved', payouts: [1, 0] }),
  ]);
  expect(transitions.map((t) => t.kind)).toEqual(['listed', 'resolved']);
  expect(transitions[1]).toMatchObject({ authority: 'clob-ws', title: 'Will it rain?', resolved_outcome: 'Yes' });
});

test('the chain is the authority: it confirms quietly, corrects loudly, and the fast path cannot undo it', () => {
  const fast = run([observe(), observe({ state: 'resolved', payouts: [1, 0] })]).state;
  const confirmed = run([observe({ authority: 'chain', state: 'resolved', payouts: [1, 0] })], fast);
  expect(confirmed.transitions).toEqual([
    expect.objectContaining({ kind: 'confirmed', authority: 'chain', resolution_number: 1, notify: false }),
  ]);
  const corrected = run([observe({ authority: 'chain', state: 'resolved', payouts: [0, 1] })], fast);
  expect(corrected.transitions).toEqual([
    expect.objectContaining({ kind: 'corrected', authority: 'chain', resolution_number: 2, resolved_outcome: 'No', notify: true }),
  ]);
  const ignored = run(
    [observe({ state: 'resolved', payouts: [1, 0] }), observe({ authority: 'clob-ws', state: 'voided', payouts: [0.5, 0.5] })],
    corrected.state,
  );
  expect(ignored.transitions).toEqual([]);
  expect(ignored.state).toMatchObject({ authority: 'chain', payouts: [0, 1], resolution_number: 2 });
});

test('the chain may settle first; Gamma agreeing later changes nothing', () => {
  const { transitions } = run([
    observe(),
    observe({ authority: 'chain', state: 'resolved', payouts: [0, 1] }),
    observe({ state: 'resolved', payouts: [0, 1] }),
  ]);
  expect(transitions.map((t) => [t.kind, t.authority])).toEqual([
    ['listed', 'gamma'],
    ['resolved', 'chain'],
  ]);
});

test('a fast-path report that changes its own payouts is a correction (an UMA dispute flipped the outcome)', () => {
  const { transitions } = run([
    observe(),
    observe({ state: 'resolved', payouts: [1, 0] }),
    observe({ state: 'resolved', payouts: [0, 1] }),
  ]);
  expect(transitions.map((t) => [t.kind, t.resolution_number, t.notify])).toEqual([
    ['listed', 0, false],
    ['resolved', 1, true],
    ['corrected', 2, true],
  ]);
});
