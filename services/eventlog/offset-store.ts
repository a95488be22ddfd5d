/**
 * Committed consumer-group offsets: one JSON file per group, `<groups>/<groupId>.json`, holding for
 * every topic-partition the next offset the group will read (Kafka's convention: lastOffset + 1).
 * Every commit rewrites the file atomically, so a crash leaves the previous or the new commit.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically, type DurabilityOptions } from './atomic-file.js';

interface GroupOffsetsFile {
  groupId: string;
  /** topic -> partition -> next offset to read */
  offsets: Record<string, Record<string, number>>;
}

export class GroupOffsets {
  private readonly byTopic = new Map<string, Map<number, number>>();

  constructor(readonly groupId: string) {}

  /** Topics and partitions this group has committed on. */
  entries(): Array<{ topic: string; partition: number; nextOffset: number }> {
    return [...this.byTopic].flatMap(([topic, partitions]) =>
      [...partitions].map(([partition, nextOffset]) => ({ topic, partition, nextOffset })),
    );
  }

  get(topic: string, partition: number): number | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }

  set(topic: string, partition: number, nextOffset: number): void {
    let partitions = this.byTopic.get(topic);
    if (!partitions) {
      partitions = new Map();
      this.byTopic.set(topic, partitions);
    }
    partitions.set(partition, nextOffset);
  }

  toFile(): GroupOffsetsFile {
    const offsets: GroupOffsetsFile['offsets'] = {};
    for (const [topic, partitions] of this.byTopic) {
      offsets[topic] = Object.fromEntries([...partitions].map(([partition, offset]) => [String(partition), offset]));
    }
    return { groupId: this.groupId, offsets };
  }

  static fromFile(groupId: string, file: GroupOffsetsFile): GroupOffsets {
    const group = new GroupOffsets(groupId);
    for (const [topic, partitions] of Object.entries(file.offsets ?? {})) {
      for (const [partition, offset] of Object.entries(partitions)) {
        if (!Number.isSafeInteger(offset) || offset < 0) {
          throw new Error(`group ${groupId}: invalid committed offset ${String(offset)} for ${topic}/${partition}`);
        }
        group.set(topic, Number(partition), offset);
      }
    }
    return group;
  }
}

/** Expects `directory` to exist (the log creates it on open). */
export class OffsetStore {
  constructor(
    private readonly directory: string,
    private readonly durability: DurabilityOptions,
  ) {}

  /** Reads the group's file afresh (another process may have committed since). */
  async load(groupId: string): Promise<GroupOffsets> {
    let text: string;
    try {
      text = await readFile(this.pathOf(groupId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new GroupOffsets(groupId);
      throw error;
    }
    return GroupOffsets.fromFile(groupId, JSON.parse(text) as GroupOffsetsFile);
  }

  /** Every group that has committed (retention keeps what any of them has not read). */
  async loadAll(): Promise<GroupOffsets[]> {
    const groups: GroupOffsets[] = [];
    for (const name of await readdir(this.directory)) {
      if (!name.endsWith('.json')) continue;
      groups.push(await this.load(decodeURIComponent(name.slice(0, -'.json'.length))));
    }
    return groups;
  }

  async save(offsets: GroupOffsets): Promise<void> {
    await writeFileAtomically(this.pathOf(offsets.groupId), JSON.stringify(offsets.toFile()), this.durability);
  }

  private pathOf(groupId: string): string {
    // Group ids are free text in Kafka; encoding keeps '/' and friends out of the path.
    return join(this.directory, `${encodeURIComponent(groupId)}.json`);
  }
}
