/**
 * A stream message as api/asyncapi.yaml allows it: one of the messages its transport's send operation
 * lists (sendSocketMessages for the WebSocket, sendEvents for Server-Sent Events), picked by `type`,
 * and valid against that message's payload schema. The schemas are closed (additionalProperties:
 * false), so a field the document does not declare fails as a wrong type does. Ajv reads them as
 * JSON Schema draft-07, AsyncAPI's default schema format (test/streams/asyncapi.unit.test.ts checks the
 * document itself with the AsyncAPI parser); the validators are compiled once per test file.
 */
import fs from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { parse } from 'yaml';

export type StreamTransport = 'websocket' | 'sse';

const DOCUMENT_ID = 'asyncapi.yaml';
const SEND_OPERATIONS: Record<StreamTransport, string> = { websocket: 'sendSocketMessages', sse: 'sendEvents' };

/** A node of the parsed document, read field by field. */
type Node = any;

let validators: Record<StreamTransport, Map<string, { payload: string; validate: ValidateFunction }>> | undefined;

/** The node a local reference (`#/a/b`) names. */
function resolve(document: Node, ref: string): Node {
  if (!ref.startsWith('#/')) throw new Error(`api/asyncapi.yaml: not a local reference: ${ref}`);
  const node = ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((at: Node, part) => at?.[part], document);
  if (node === undefined) throw new Error(`api/asyncapi.yaml: ${ref} resolves to nothing`);
  return node;
}

function compile(): NonNullable<typeof validators> {
  const document = parse(fs.readFileSync(new URL('../../api/asyncapi.yaml', import.meta.url), 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true });
  // A CommonJS module whose default export is also its `default` member.
  ajvFormats.default(ajv);
  // The payloads' `#/components/schemas/...` references resolve inside the document registered whole.
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: document.components.schemas } });
  const byTransport = (transport: StreamTransport) => {
    const operation = document.operations[SEND_OPERATIONS[transport]];
    const byType = new Map<string, { payload: string; validate: ValidateFunction }>();
    for (const reference of operation.messages as Array<{ $ref: string }>) {
      let message = resolve(document, reference.$ref);
      while (message.$ref) message = resolve(document, message.$ref);
      const payload: string = message.payload.$ref;
      const type = resolve(document, payload).properties?.type?.const;
      if (typeof type !== 'string') throw new Error(`api/asyncapi.yaml: ${payload} has no constant type`);
      byType.set(type, { payload, validate: ajv.compile({ $ref: `${DOCUMENT_ID}${payload}` }) });
    }
    return byType;
  };
  return { websocket: byTransport('websocket'), sse: byTransport('sse') };
}

/** Why `message` is not a message the service may send on `transport`, or null when it is. */
export function streamMessageProblem(transport: StreamTransport, message: unknown): string | null {
  validators ??= compile();
  const known = validators[transport];
  const type = (message as { type?: unknown } | null)?.type;
  const entry = typeof type === 'string' ? known.get(type) : undefined;
  const shown = JSON.stringify(message);
  if (!entry)
    return `${transport} message ${shown}: its type is none of the messages api/asyncapi.yaml sends there (${[...known.keys()].join(', ')})`;
  if (entry.validate(message)) return null;
  const errors = (entry.validate.errors ?? []).map((error) =>
    [error.instancePath || '(the message)', error.message, JSON.stringify(error.params)].join(' '),
  );
  return `${transport} message ${shown} does not match ${entry.payload} of api/asyncapi.yaml:\n  ${errors.join('\n  ')}`;
}
