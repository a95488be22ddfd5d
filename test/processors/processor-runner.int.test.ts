/** The processor runner on the embedded file log (the suite: processor-runner.suite.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { topicSchemas } from '../../services/read-models/registry.js';
import { describeProcessorRunner } from './processor-runner.suite.js';

describeProcessorRunner(
  'the file log',
  async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-processor-'));
    const log = await openFileEventLog({ directory, schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
    return {
      log,
      // The file log stores values as given: bytes that are not Avro reach the consumer as they are.
      produceRaw: (topic, key, value) => log.produce(topic, [{ key, value }]),
      close: () => log.close(),
    };
  },
  10_000,
);
