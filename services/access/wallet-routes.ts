/** /account/wallet: the wallet whose on-chain platform-token balance sets the account's tier. */
import { Router, type Request } from 'express';
import { linkedWallet, linkMessage, linkWallet, unlinkWallet, type WalletApi } from './wallet-links.js';
import { iso, isoOrNull } from '../shared/time.js';
import type { WalletLink } from '../http/types.generated.js';
import { success } from '../http/envelope.js';

export function walletRoutes(api: WalletApi): Router {
  const router = Router();
  const owner = (request: Request) => request.owner!.account_id;

  const present = async (accountId: string): Promise<WalletLink> => {
    const wallet = await linkedWallet(api.control, accountId);
    const balance = wallet.address && api.balances ? await api.balances.balanceOf(wallet.address) : null;
    return {
      address: wallet.address,
      linked_at: isoOrNull(wallet.linkedAt?.getTime()),
      link_message: linkMessage(accountId),
      token_balance: balance?.tokens ?? null,
      token_balance_as_of: balance ? iso(balance.asOfMs) : null,
      chain_id: api.balances ? api.chainId : null,
      token_contract: api.balances?.token ?? null,
      cache_ttl_seconds: Math.round((api.balances?.ttlMs ?? 0) / 1000),
    };
  };

  router.get('/account/wallet', async (request, response) => {
    response.json(success(await present(owner(request))));
  });
  router.put('/account/wallet', async (request, response) => {
    const { address, signature } = request.body as { address: string; signature: string };
    await linkWallet(api.control, owner(request), address, signature, new Date((api.clock ?? Date.now)()));
    response.json(success(await present(owner(request))));
  });
  router.delete('/account/wallet', async (request, response) => {
    await unlinkWallet(api.control, owner(request));
    response.json(success(await present(owner(request))));
  });
  return router;
}
