/**
 * docs/CONFIG.md from the settings in services/config.ts: every environment variable with its default,
 * the field of `Config` it sets and its description, one table per group of `Config`.
 */
import type { z } from 'zod';
import { settingList } from '../../services/config.js';

const GROUP_TITLES: Record<string, string> = {
  general: 'Service, API cache and read-model jobs',
  admin: 'Operator listener',
  upstream: 'Upstream (Polymarket)',
  engines: 'Engines',
  ingest: 'Ingestion',
  chain: 'Chain source (Polygon)',
  access: 'Access: tiers, quotas, rate limits, authentication',
  analytics: 'Analytics queries',
  sink: 'Sink',
  webhooks: 'Webhooks',
  signals: 'Signals',
  copy: 'Copy trading',
  sandbox: 'Sandbox and briefing',
  fees: 'Fees',
  platformToken: 'Platform token',
};

export function configDocs(header: string): string {
  const groups = new Map<string, string[]>();
  for (const { path, setting } of settingList()) {
    const group = path.length > 1 ? path[0]! : 'general';
    const rows = groups.get(group) ?? [];
    const description = setting.schema.description ?? '';
    rows.push(`| \`${setting.env}\` | ${defaultText(setting.schema)} | \`${path.join('.')}\` | ${cell(description)} |`);
    groups.set(group, rows);
  }
  const sections = [...groups].map(([group, rows]) =>
    [
      `## ${GROUP_TITLES[group] ?? group}`,
      '',
      '| variable | default | `Config` field | description |',
      '| --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
  return `${[
    header,
    '# Configuration',
    'Environment variables, parsed once at boot by `loadConfig` in `services/config.ts`, where each is declared once with its schema, default and description. Flags are on with `1`, `true` or `yes`; an empty value is the same as unset.',
    ...sections,
  ].join('\n\n')}\n`;
}

/** The default as it would be written in the environment (before any transform), or why there is none. */
function defaultText(schema: z.ZodType): string {
  const value = defaultOf(schema);
  if (value === undefined) return 'unset';
  if (value === null) return 'empty';
  if (value === '') return 'empty';
  return `\`${String(value)}\``;
}

/** A setting's default (undefined when it has none). */
export function defaultOf(schema: z.ZodType): unknown {
  const def = schema._zod.def as { type: string; defaultValue?: unknown; in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType };
  switch (def.type) {
    case 'default':
      return def.defaultValue;
    case 'pipe':
      return defaultOf(def.in!) ?? defaultOf(def.out!);
    case 'optional':
    case 'nullable':
      return defaultOf(def.innerType!);
    default:
      return undefined;
  }
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
