/** /copy/*: the calling account's copy subscriptions and the trade intents the copy engine made for them (docs/COPY.md). */
import { queryOf } from '../http/query.js';
import { type Request, Router } from 'express';
import { type CopySubscriptionInput, type CopySubscriptionPatch, CopySubscriptions, subscriptionView } from './copy-subscriptions.js';
import { intentView, listIntents } from './intents.js';
import type { ControlStore } from '../ports/control-store.js';
import { success } from '../http/envelope.js';
import { ApiError } from '../http/errors.js';
import { keysetPage } from '../http/keyset.js';

const ownerOf = (request: Request) => request.owner!.account_id;

export function copyRoutes(control: ControlStore, clock: () => number = Date.now, perAccount?: number): Router {
  const router = Router();
  const subscriptions = new CopySubscriptions(control, clock, perAccount);

  router.post('/copy/subscriptions', async (request, response) => {
    const created = await subscriptions.create(ownerOf(request), request.body as CopySubscriptionInput);
    response.status(201).json(success(subscriptionView(created)));
  });

  router.get('/copy/subscriptions', async (request, response) => {
    const accountId = ownerOf(request);
    response.json(
      await keysetPage(request, {
        filters: {},
        shape: ['id'],
        fetch: (after, take) => subscriptions.list(accountId, after ? String(after[0]) : null, take),
        keyOf: (s) => [s.id],
        present: subscriptionView,
      }),
    );
  });

  const found = async (request: Request) => {
    const subscription = await subscriptions.get(ownerOf(request), String(request.params.id));
    if (!subscription) throw ApiError.notFound('copy subscription not found');
    return subscription;
  };

  router.get('/copy/subscriptions/:id', async (request, response) => {
    response.json(success(subscriptionView(await found(request))));
  });

  router.patch('/copy/subscriptions/:id', async (request, response) => {
    await found(request);
    const updated = await subscriptions.update(ownerOf(request), String(request.params.id), request.body as CopySubscriptionPatch);
    if (!updated) throw ApiError.notFound('copy subscription not found');
    response.json(success(subscriptionView(updated)));
  });

  router.delete('/copy/subscriptions/:id', async (request, response) => {
    if (!(await subscriptions.delete(ownerOf(request), String(request.params.id)))) throw ApiError.notFound('copy subscription not found');
    response.json(success({ id: Number(request.params.id), deleted: true }));
  });

  router.get('/copy/intents', async (request, response) => {
    const accountId = ownerOf(request);
    const query = queryOf(request, 'listCopyIntents');
    const subscriptionId = query.subscription_id === undefined ? undefined : String(query.subscription_id);
    const status = query.status;
    response.json(
      await keysetPage(request, {
        filters: { subscriptionId, status },
        shape: ['id'],
        fetch: (after, take) => listIntents(control, accountId, { subscriptionId, status }, after ? String(after[0]) : null, take),
        keyOf: (intent) => [intent.id],
        present: intentView,
      }),
    );
  });

  return router;
}
