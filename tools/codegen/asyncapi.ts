/**
 * api/asyncapi.yaml: the live streams as an AsyncAPI 3.0 document, generated from api/openapi.yaml so
 * that the two cannot disagree. The message schemas are copied verbatim from the OpenAPI components
 * (StreamServerMessage, StreamClientMessage and every schema they reference, under the same
 * `#/components/schemas/` names, so their `$ref`s hold unchanged); the channels' texts, the SSE query
 * parameters (with their `x-channels`), the security schemes and the version come from the two stream
 * operations. Nothing about a message is written here.
 *
 * The document describes the service: it `receive`s the WebSocket client frames and `send`s the
 * server messages on both transports. One AsyncAPI channel per transport (a WebSocket is one
 * connection carrying every subscription; an SSE connection is one subscription chosen by its query),
 * so the stream channels (trades, fills, ...) are the `channel` values of the messages and the query.
 */
import { stringify } from 'yaml';
import { settingList } from '../../services/config.js';
import { defaultOf } from './config-docs.js';

// biome-ignore lint/suspicious/noExplicitAny: a parsed document is untyped; every read below narrows it
type Yaml = any;
type Schema = Record<string, Yaml>;

const WEBSOCKET_OPERATION = 'streamSocket';
const SSE_OPERATION = 'streamEvents';
const ROOTS = ['StreamServerMessage', 'StreamClientMessage'];
const SCHEMA_REF = '#/components/schemas/';

/**
 * The keywords a copied schema may use: those AsyncAPI's default schema format (JSON Schema draft-07
 * plus extensions) reads as OpenAPI 3.1 (draft 2020-12) means them. A keyword outside it (prefixItems,
 * $defs, unevaluatedProperties, ...) would change meaning silently, so generation stops instead; so
 * does a stray key such as a description cut short by an unquoted comma in a YAML flow mapping.
 */
const DRAFT_07_KEYWORDS = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'description',
  'title',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/** The keywords whose value is a schema or a list of schemas (others hold values: enum, const, default). */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'allOf', 'oneOf', 'anyOf', 'not']);

export function asyncapiDocument(openapi: Yaml, header: string): string {
  const schemas: Record<string, Schema> = openapi.components?.schemas ?? {};
  const socket = operationNamed(openapi, WEBSOCKET_OPERATION);
  const sse = operationNamed(openapi, SSE_OPERATION);
  const copied = referencedSchemas(schemas, [...ROOTS.map((name) => ({ $ref: `${SCHEMA_REF}${name}` })), sse.operation.parameters]);

  const serverMessages = (schemas.StreamServerMessage?.oneOf ?? []).map((branch: Yaml) => {
    const name = schemaName(branch.$ref);
    return messageOf(schemas[name]!, `${SCHEMA_REF}${name}`, name);
  });
  const clientMessages = (schemas.StreamClientMessage?.oneOf ?? []).map((branch: Schema, index: number) =>
    messageOf(branch, `${SCHEMA_REF}StreamClientMessage/oneOf/${index}`, 'StreamClientMessage'),
  );
  const messages: Record<string, Schema> = {};
  for (const { key, message } of [...clientMessages, ...serverMessages]) {
    if (messages[key]) throw new Error(`asyncapi: two stream messages have the type ${key}`);
    messages[key] = message;
  }
  const refs = (list: Array<{ key: string }>) => Object.fromEntries(list.map(({ key }) => [key, { $ref: `#/components/messages/${key}` }]));
  const channelMessageRefs = (channel: string, list: Array<{ key: string }>) =>
    list.map(({ key }) => ({ $ref: `#/channels/${channel}/messages/${key}` }));

  const usedSchemes = new Set([...socket.security, ...sse.security]);
  const port = settingList().find(({ setting }) => setting.env === 'PORT');
  const host = `localhost:${String(port ? defaultOf(port.setting.schema) : '')}`;
  const serverPath = openapi.servers?.[0]?.url ?? '/';
  const server = (protocol: string, transport: string, security: string[]) => ({
    host: '{host}',
    protocol,
    pathname: serverPath,
    description: `The service's ${transport} (${protocol}s behind TLS), at the public API's address.`,
    variables: { host: { default: host, description: "The service's host and port (the default is the service's own PORT)." } },
    security: security.map((name) => ({ $ref: `#/components/securitySchemes/${name}` })),
  });

  const document = {
    asyncapi: '3.0.0',
    info: {
      title: `${openapi.info.title} live streams`,
      version: openapi.info.version,
      description: [
        `The live streams of the ${openapi.info.title} API (docs/STREAMING.md): the WebSocket (\`GET ${serverPath}${socket.path}\`)`,
        `and Server-Sent Events (\`GET ${serverPath}${sse.path}\`). Generated by \`npm run gen\` from api/openapi.yaml, whose`,
        'components hold the message schemas (copied here under the same names) and whose conventions (numbers,',
        'errors, access, metering) apply to the streams too.',
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      websocket: server('ws', 'WebSocket', socket.security),
      sse: server('http', 'Server-Sent Events', sse.security),
    },
    channels: {
      websocket: {
        address: socket.path,
        title: 'WebSocket',
        summary: socket.operation.summary,
        description: socket.operation.description,
        servers: [{ $ref: '#/servers/websocket' }],
        messages: refs([...clientMessages, ...serverMessages]),
        bindings: {
          ws: {
            method: 'GET',
            // The operation declares no query parameter: the upgrade refuses every one.
            query: { type: 'object', properties: queryProperties(socket.operation.parameters ?? []), additionalProperties: false },
            bindingVersion: '0.1.0',
          },
        },
      },
      sse: {
        address: sse.path,
        title: 'Server-Sent Events',
        summary: sse.operation.summary,
        description: sse.operation.description,
        servers: [{ $ref: '#/servers/sse' }],
        messages: refs(serverMessages),
      },
    },
    operations: {
      receiveClientMessages: {
        action: 'receive',
        channel: { $ref: '#/channels/websocket' },
        summary: 'The frames a WebSocket client sends (StreamClientMessage), handled in the order sent.',
        messages: channelMessageRefs('websocket', clientMessages),
      },
      sendSocketMessages: {
        action: 'send',
        channel: { $ref: '#/channels/websocket' },
        summary: 'The frames the service sends on a WebSocket (StreamServerMessage), each naming its subscription.',
        messages: channelMessageRefs('websocket', serverMessages),
      },
      sendEvents: {
        action: 'send',
        channel: { $ref: '#/channels/sse' },
        summary: "The events of an SSE stream: each event's `data` is one StreamServerMessage, its `event` the message's type.",
        messages: channelMessageRefs('sse', serverMessages),
        bindings: {
          http: {
            method: 'GET',
            query: {
              type: 'object',
              required: (sse.operation.parameters as Yaml[]).filter((p) => p.in === 'query' && p.required).map((p) => p.name),
              properties: queryProperties(sse.operation.parameters),
              additionalProperties: false,
            },
            bindingVersion: '0.3.0',
          },
        },
      },
    },
    components: {
      schemas: copied,
      messages,
      securitySchemes: Object.fromEntries(
        [...usedSchemes].map((name) => [name, securityScheme(name, openapi.components?.securitySchemes?.[name])]),
      ),
    },
  };
  return `${header}\n${stringify(document, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

function operationNamed(openapi: Yaml, id: string): { path: string; operation: Yaml; security: string[] } {
  for (const [path, item] of Object.entries<Yaml>(openapi.paths ?? {})) {
    const operation = item?.get;
    if (operation?.operationId !== id) continue;
    const requirements: Array<Record<string, unknown>> = operation.security ?? openapi.security ?? [];
    return { path, operation, security: [...new Set(requirements.flatMap((requirement) => Object.keys(requirement)))] };
  }
  throw new Error(`asyncapi: api/openapi.yaml has no GET operation ${id}`);
}

const schemaName = (ref: string): string => {
  if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF)) throw new Error(`asyncapi: not a component schema reference: ${ref}`);
  return ref.slice(SCHEMA_REF.length).split('/')[0]!;
};

/** Every component schema the roots reference, transitively, in the document's order; each keyword checked. */
export function referencedSchemas(schemas: Record<string, Schema>, roots: Yaml[]): Record<string, Schema> {
  const names = new Set<string>();
  const visit = (node: Yaml, where: string, isSchema: boolean): void => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${where}/${index}`, isSchema);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries<Yaml>(node)) {
      if (isSchema && !DRAFT_07_KEYWORDS.has(key) && !key.startsWith('x-'))
        throw new Error(`asyncapi: ${where} uses ${JSON.stringify(key)}, not a JSON Schema draft-07 keyword`);
      if (key === '$ref') {
        const name = schemaName(value);
        if (!schemas[name]) throw new Error(`asyncapi: ${where} references ${value}, which api/openapi.yaml does not define`);
        if (!names.has(name)) {
          names.add(name);
          visit(schemas[name], `${SCHEMA_REF}${name}`, true);
        }
      } else if (key === 'properties' && isSchema) {
        for (const [property, schema] of Object.entries<Yaml>(value ?? {})) visit(schema, `${where}/properties/${property}`, true);
      } else if (key === 'schema' && !isSchema) visit(value, `${where}/schema`, true);
      else if (isSchema && SUBSCHEMA_KEYWORDS.has(key)) visit(value, `${where}/${key}`, true);
      else if (!isSchema && !key.startsWith('x-')) visit(value, `${where}/${key}`, false);
    }
  };
  for (const root of roots) visit(root, 'api/openapi.yaml', root?.$ref !== undefined);
  return Object.fromEntries(
    Object.keys(schemas)
      .filter((name) => names.has(name))
      .map((name) => [name, schemas[name]!]),
  );
}

/** A stream message: its key and name the `type` constant, its payload a reference to the copied schema. */
function messageOf(schema: Schema, payload: string, title: string): { key: string; message: Schema } {
  const type = schema.properties?.type?.const;
  if (typeof type !== 'string') throw new Error(`asyncapi: ${payload} has no constant \`type\``);
  const description = schema.description ?? schema.properties.type.description;
  return {
    key: type,
    message: {
      name: type,
      title: `${title} (${type})`,
      ...(description ? { description } : {}),
      contentType: 'application/json',
      payload: { $ref: payload },
    },
  };
}

/** The operation's query parameters as one object schema's properties (description and `x-channels` kept). */
function queryProperties(parameters: Yaml[]): Record<string, Schema> {
  return Object.fromEntries(
    parameters
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => [
        parameter.name,
        {
          ...parameter.schema,
          ...(parameter.description ? { description: parameter.description } : {}),
          ...(parameter['x-channels'] ? { 'x-channels': parameter['x-channels'] } : {}),
        },
      ]),
  );
}

/** An OpenAPI security scheme as AsyncAPI writes it (`apiKey` in a header or cookie is `httpApiKey`). */
function securityScheme(name: string, scheme: Yaml): Schema {
  if (!scheme) throw new Error(`asyncapi: the security scheme ${name} is not in api/openapi.yaml`);
  if (scheme.type === 'http') return scheme;
  if (scheme.type === 'apiKey') return { ...scheme, type: 'httpApiKey' };
  throw new Error(`asyncapi: the security scheme ${name} (${scheme.type}) has no AsyncAPI form here`);
}
