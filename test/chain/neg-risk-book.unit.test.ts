/**
 * The chain's neg-risk markets as the chain source keeps them: a market as of a point on the chain,
 * kept across restarts in its file, shared with a second writer (a backfill), and forgotten where a
 * reorg orphaned it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NegRiskBook, negRiskConditionId, negRiskQuestionId } from '../../services/chain/neg-risk-book.js';

const ADAPTER = '0xd91e80cf2e7be2e162c6513ced06f1dd0da35296';
const MARKET = `0x${'ab'.repeat(31)}00`;
const at = (block: number, logIndex = 0) => ({ block, logIndex, blockHash: `0x${block.toString(16).padStart(64, '0')}` });
const place = (blockNumber: number, logIndex = 0) => ({ blockNumber, logIndex });

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'neg-risk-book-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a market as of a point: the questions prepared before it, none when the market was not prepared or a question is missing', () => {
  const book = new NegRiskBook(ADAPTER);
  book.questionPrepared(MARKET, 0, at(11));
  // The market's own preparation not read (before the first block read): unknown.
  expect(book.at(MARKET, place(20))).toBeNull();
  book.marketPrepared(MARKET, '0x0000000000000000000000000000000000000001', 25, at(10));
  book.questionPrepared(MARKET, 1, at(12, 3));
  book.questionPrepared(MARKET, 2, at(30));
  const q = (i: number) => ({
    index: i,
    questionId: negRiskQuestionId(MARKET, i),
    conditionId: negRiskConditionId(ADAPTER, negRiskQuestionId(MARKET, i)),
  });
  expect(book.at(MARKET, place(12, 3))?.questions.map((x) => x.index)).toEqual([0]);
  expect(book.at(MARKET, place(12, 4))).toEqual({ feeBips: 25, questions: [0, 1].map((i) => expect.objectContaining(q(i))) });
  expect(book.at(MARKET, place(31))?.questions.map((x) => x.index)).toEqual([0, 1, 2]);
  // Before the market itself: not a market yet.
  expect(book.at(MARKET, place(9))).toBeNull();
  // A question index missing below a later one: a range not read.
  const gap = new NegRiskBook(ADAPTER);
  gap.marketPrepared(MARKET, '0x0000000000000000000000000000000000000001', 0, at(10));
  gap.questionPrepared(MARKET, 1, at(11));
  expect(gap.at(MARKET, place(20))).toBeNull();
});

test('kept in its file: a restart knows what was saved; a reorg forgets its blocks, also in the file; another writer is merged', () => {
  const file = path.join(dir, 'chain-neg-risk.json');
  const book = new NegRiskBook(ADAPTER, file);
  book.marketPrepared(MARKET, '0x0000000000000000000000000000000000000001', 0, at(10));
  for (const i of [0, 1, 2]) book.questionPrepared(MARKET, i, at(11 + i));
  book.save();
  const restarted = new NegRiskBook(ADAPTER, file);
  expect(restarted.at(MARKET, place(100))?.questions.map((x) => x.index)).toEqual([0, 1, 2]);

  // A backfill (another writer) learns an older market meanwhile.
  const other = `0x${'cd'.repeat(31)}00`;
  const backfill = new NegRiskBook(ADAPTER, file);
  backfill.marketPrepared(other, '0x0000000000000000000000000000000000000002', 50, at(5));
  backfill.questionPrepared(other, 0, at(6));
  backfill.questionPrepared(other, 1, at(7));
  backfill.save();

  // The follower's reorg orphans block 13 (question 2), then it saves.
  restarted.dropBlocks(new Set([at(13).blockHash]));
  restarted.save();
  const again = new NegRiskBook(ADAPTER, file);
  expect(again.at(MARKET, place(100))?.questions.map((x) => x.index)).toEqual([0, 1]);
  expect(again.at(other, place(100))).toMatchObject({ feeBips: 50, questions: [{ index: 0 }, { index: 1 }] });
  expect(again.size).toEqual({ markets: 2, questions: 4 });
  again.dropAfter(10);
  expect(again.at(MARKET, place(100))?.questions).toEqual([]);
});
