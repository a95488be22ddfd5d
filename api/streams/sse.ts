/**
 * GET /v1/stream/sse: one subscription as Server-Sent Events. Authentication, validation of the query
 * against the API document and the rate limit ran before this route (api/app.ts); here the filters,
 * the channel's tier (metering the connection as one call) and the cursor are checked (a 4xx envelope
 * before the stream starts), then every message is an event whose id is its cursor, so EventSource's
 * Last-Event-ID resumes where it stopped.
 */
import { Router } from 'express';
import { openMetered } from '../access.js';
import type { StreamServerMessage } from '../../services/http/types.generated.js';
import { ApiError } from '../../services/http/errors.js';
import type { Meter } from '../../services/access/meter.js';
import type { TierThresholds } from '../../services/access/tiers.js';
import { channelNamed, channelNames, type ChannelName } from '../../services/streams/channels.js';
import { messageText } from '../../services/streams/message-text.js';
import type { StreamService } from '../../services/streams/stream-service.js';
import { corked, type Subscription } from '../../services/streams/subscription.js';

const SUBSCRIPTION_ID = 'sse';

export function sseRoutes(service: StreamService, access: { meter: Meter; thresholds: TierThresholds }): Router {
  const router = Router();
  router.get('/stream/sse', async (request, response) => {
    const owner = request.owner!;
    const { channel: name, cursor: cursorParam, ...filterInput } = request.query as Record<string, unknown>;
    const channel = channelNamed(name);
    if (!channel) throw ApiError.badRequest(`channel: unknown channel (channels: ${channelNames().join(', ')})`);
    const filters = await channel.parseFilters(filterInput, '', service.store);
    const lastEventId = request.header('last-event-id');
    const cursor = lastEventId ?? (typeof cursorParam === 'string' ? cursorParam : undefined);
    let releaseConnection = () => {};
    let untrack = () => {};
    let subscription: Subscription | undefined;
    let ended = false;
    const write = (message: StreamServerMessage) => {
      if (ended) return;
      const id = 'cursor' in message && message.cursor ? `id: ${message.cursor}\n` : '';
      response.write(`${id}event: ${message.type}\ndata: ${messageText(message)}\n\n`);
    };
    const finish = () => {
      if (ended) return;
      ended = true;
      subscription?.stop();
      releaseConnection();
      untrack();
      response.end();
    };
    // The route's own x-access is the lowest channel's: each channel needs its REST equivalent's tier.
    subscription = await openMetered(access.meter, access.thresholds, owner.account_id, channel.access, async () => {
      releaseConnection = service.limits.openConnection(owner.key_id);
      untrack = service.track(finish);
      try {
        return await service.open({
          keyId: owner.key_id,
          accountId: owner.account_id,
          id: SUBSCRIPTION_ID,
          channel,
          filters,
          cursor,
          cursorParameter: lastEventId !== undefined ? 'Last-Event-ID' : 'cursor',
          sink: { send: write, bufferedBytes: () => response.writableLength, batch: (sends) => corked(response, sends) },
          onEnd: (error) => {
            write(error);
            finish();
            // A client that does not read the end either is cut after the same grace, so its buffer goes.
            setTimeout(() => response.destroy(), service.settings.slowConsumerMs).unref();
          },
        });
      } catch (error) {
        ended = true;
        releaseConnection();
        untrack();
        throw error;
      }
    });
    request.socket.setTimeout(0);
    request.socket.setNoDelay(true);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // Proxies that buffer responses (nginx) would hold events back.
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    write({ type: 'subscribed', subscription: SUBSCRIPTION_ID, channel: channel.name as ChannelName, cursor: subscription.cursor });
    response.on('close', finish);
    subscription.start();
  });
  return router;
}
