/** The Avro value schema of every topic in services/shared/topics.ts, for registration at startup. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOPICS } from '../../shared/topics.js';
import type { TopicSchema } from './confluent-avro.js';

const SCHEMA_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../schemas');

export function topicSchemas(): TopicSchema[] {
  return Object.values(TOPICS).map((topic) => ({
    topic: topic.name,
    schema: JSON.parse(fs.readFileSync(path.join(SCHEMA_DIRECTORY, `${topic.schema}.avsc`), 'utf8')),
  }));
}
