/**
 * The file event log the stream tests read: every topic of the registry created, fast polling, no
 * fsync and no time-based retention (tests that exercise retention pass their own bounds).
 */
import { type FileEventLog, type FileEventLogOptions, openFileEventLog } from '../../services/eventlog/file-log.js';
import { allTopicSpecs, topicSchemas } from '../../services/read-models/registry.js';

export async function openStreamTestLog(directory: string, overrides: Partial<FileEventLogOptions> = {}): Promise<FileEventLog> {
  const log = await openFileEventLog({
    directory,
    fsync: false,
    pollIntervalMs: 20,
    schemas: topicSchemas(),
    retention: { retentionMs: null, hardCapBytes: null },
    retentionCheckMs: 0,
    ...overrides,
  });
  await log.createTopics(allTopicSpecs());
  return log;
}
