/** The operations declared in api/openapi.yaml, with their access rule: the single source for /pricing/access. */
import fs from 'node:fs';
import { parse } from 'yaml';
import type { Access } from '../services/access/tiers.js';

export interface Operation {
  method: string;
  path: string;
  access: Access | 'public';
  metered: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function readOperations(openapiPath: string): Operation[] {
  const document = parse(fs.readFileSync(openapiPath, 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      operations.push({
        method: method.toUpperCase(),
        path: `/v1${path}`,
        access: isPublic ? 'public' : ((operation['x-access'] as Access | undefined) ?? 'tier1'),
        metered: !isPublic && operation['x-metered'] !== false,
      });
    }
  }
  return operations;
}
