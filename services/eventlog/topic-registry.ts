/**
 * Topics on disk: `<topics>/<name>/meta.json` ({name, partitions}) next to each partition's segment
 * files (`<partition>.log`, then `<partition>.<base offset>.log`: partition-log.ts). meta.json is written last, atomically, so a topic whose meta.json exists has all
 * its partition files (a directory without one is a creation cut short, finished by the next
 * createTopics). Topics created by another process are picked up on first use.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TopicSpec } from '../ports/event-log.js';
import { fsyncDirectory, writeFileAtomically } from './atomic-file.js';
import { PartitionFile } from './partition-file.js';
import { PartitionLog, type PartitionLogOptions } from './partition-log.js';

export interface Topic {
  name: string;
  /** Index = partition number. */
  partitions: PartitionLog[];
}

interface TopicMeta {
  name: string;
  partitions: number;
}

class UnknownTopicError extends Error {
  override readonly name = 'UnknownTopicError';
  constructor(readonly topic: string) {
    super(`topic "${topic}" does not exist; create it with createTopics first (topics are not auto-created)`);
  }
}

// Kafka's rule, so every topic name that works here also works on a broker.
const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const MAX_PARTITIONS = 10_000;

function assertValidSpec(spec: TopicSpec): void {
  if (!LEGAL_TOPIC_NAME.test(spec.name) || spec.name === '.' || spec.name === '..') {
    throw new Error(`illegal topic name "${spec.name}": use 1-249 characters of [a-zA-Z0-9._-]`);
  }
  if (!Number.isInteger(spec.partitions) || spec.partitions < 1 || spec.partitions > MAX_PARTITIONS) {
    throw new Error(`topic "${spec.name}": partitions must be an integer from 1 to ${MAX_PARTITIONS}`);
  }
}

export class TopicRegistry {
  private readonly loaded = new Map<string, Topic>();
  /** Loading and creating run one at a time so a topic's files are never opened twice. */
  private adminQueue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly directory: string,
    private readonly partitionFileOptions: PartitionLogOptions,
  ) {}

  /** Opens every existing topic, so crash damage is repaired (and reported) at start-up, not on first use. */
  loadAll(): Promise<void> {
    return this.serialize(async () => {
      const entries = await readdir(this.directory, { withFileTypes: true });
      for (const entry of entries) {
        if (entry.isDirectory() && !this.loaded.has(entry.name)) await this.loadFromDisk(entry.name);
      }
    });
  }

  /** Creates the topic unless it exists; an existing topic is left as is (like Kafka's createTopics). */
  create(spec: TopicSpec): Promise<void> {
    assertValidSpec(spec);
    return this.serialize(async () => {
      if (this.loaded.has(spec.name) || (await this.loadFromDisk(spec.name))) return;
      const topicDirectory = join(this.directory, spec.name);
      await mkdir(topicDirectory, { recursive: true });
      for (let partition = 0; partition < spec.partitions; partition++) {
        const file = await PartitionFile.open(this.partitionPath(spec.name, partition), this.partitionFileOptions);
        await file.close();
      }
      const durability = { fsync: this.partitionFileOptions.fsync };
      if (durability.fsync) await fsyncDirectory(topicDirectory);
      const meta: TopicMeta = { name: spec.name, partitions: spec.partitions };
      await writeFileAtomically(join(topicDirectory, 'meta.json'), JSON.stringify(meta), durability);
      if (durability.fsync) await fsyncDirectory(this.directory);
      await this.loadFromDisk(spec.name);
    });
  }

  async find(name: string): Promise<Topic | undefined> {
    const topic = this.loaded.get(name);
    if (topic) return topic;
    if (!LEGAL_TOPIC_NAME.test(name) || name === '.' || name === '..') return undefined;
    return this.serialize(async () => this.loaded.get(name) ?? (await this.loadFromDisk(name)));
  }

  async require(name: string): Promise<Topic> {
    const topic = await this.find(name);
    if (!topic) throw new UnknownTopicError(name);
    return topic;
  }

  /** The topics opened so far (every topic on disk after loadAll). */
  list(): Topic[] {
    return [...this.loaded.values()];
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.adminQueue;
    const topics = [...this.loaded.values()];
    this.loaded.clear();
    await Promise.all(topics.flatMap((topic) => topic.partitions.map((file) => file.close())));
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.adminQueue.then(() => {
      if (this.closed) throw new Error('event log is closed');
      return task();
    });
    this.adminQueue = run.catch(() => undefined);
    return run;
  }

  private async loadFromDisk(name: string): Promise<Topic | undefined> {
    let meta: TopicMeta;
    try {
      meta = JSON.parse(await readFile(join(this.directory, name, 'meta.json'), 'utf8')) as TopicMeta;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const partitions: PartitionLog[] = [];
    try {
      for (let partition = 0; partition < meta.partitions; partition++) {
        partitions.push(await PartitionLog.open(join(this.directory, name), partition, this.partitionFileOptions));
      }
    } catch (error) {
      await Promise.all(partitions.map((file) => file.close()));
      throw error;
    }
    const topic: Topic = { name, partitions };
    this.loaded.set(name, topic);
    return topic;
  }

  private partitionPath(topic: string, partition: number): string {
    return join(this.directory, topic, `${partition}.log`);
  }
}
