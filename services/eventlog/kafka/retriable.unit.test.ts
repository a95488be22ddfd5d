import { createRequire } from 'node:module';
import { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { whileRetriable } from './retriable.js';

// The broker's own error, built by kafkajs from the wire code as its listOffsets response does.
const { createErrorFromCode } = createRequire(import.meta.url)('kafkajs/src/protocol/error.js') as {
  createErrorFromCode: (code: number) => KafkaJSProtocolError;
};
const NOT_LEADER_FOR_PARTITION = 6;
const LEADER_NOT_AVAILABLE = 5;
const POLICY = { baseMs: 10, maxMs: 40, jitter: 'none' } as const;

function failingThen<T>(errors: Error[], value: T): { call: () => Promise<T>; calls: () => number } {
  let calls = 0;
  return {
    call: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return value;
    },
    calls: () => calls,
  };
}

describe('whileRetriable', () => {
  test('a partition whose leader is still settling is asked again until it answers', async () => {
    const notLeader = createErrorFromCode(NOT_LEADER_FOR_PARTITION);
    expect(notLeader.type).toBe('NOT_LEADER_FOR_PARTITION');
    const waits: number[] = [];
    const offsets = failingThen([notLeader, notLeader, createErrorFromCode(LEADER_NOT_AVAILABLE)], ['p0']);
    const answer = await whileRetriable(offsets.call, POLICY, 12, undefined, async (ms) => {
      waits.push(ms);
    });
    expect(answer).toEqual(['p0']);
    expect(offsets.calls()).toBe(4);
    expect(waits).toEqual([10, 20, 40]);
  });

  test('any other error, the last attempt and a closed log reject with the error itself', async () => {
    const invalid = new KafkaJSNonRetriableError('Invalid topic');
    const once = failingThen([invalid], 'never');
    await expect(whileRetriable(once.call, POLICY, 12, undefined, async () => {})).rejects.toBe(invalid);
    expect(once.calls()).toBe(1);
    // A broker that cannot be reached: kafkajs calls it retriable and has retried the connection already.
    const down = new KafkaJSConnectionError('Connection error: ECONNREFUSED');
    const unreachable = failingThen([down], 'never');
    await expect(whileRetriable(unreachable.call, POLICY, 12, undefined, async () => {})).rejects.toBe(down);
    expect(unreachable.calls()).toBe(1);

    const notLeader = createErrorFromCode(NOT_LEADER_FOR_PARTITION);
    const always = failingThen(
      Array.from({ length: 5 }, () => notLeader),
      'never',
    );
    await expect(whileRetriable(always.call, POLICY, 3, undefined, async () => {})).rejects.toBe(notLeader);
    expect(always.calls()).toBe(3);

    const closed = failingThen([notLeader], 'never');
    await expect(
      whileRetriable(
        closed.call,
        POLICY,
        12,
        () => true,
        async () => {},
      ),
    ).rejects.toBe(notLeader);
    expect(closed.calls()).toBe(1);

    const plain = failingThen([new TypeError('a bug')], 'never');
    await expect(whileRetriable(plain.call, POLICY, 12, undefined, async () => {})).rejects.toBeInstanceOf(TypeError);
    expect(plain.calls()).toBe(1);
  });
});
