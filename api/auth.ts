/** Bearer-key authentication: every route except registration and the API document needs a live key. */
import type { NextFunction, Request, Response } from 'express';
import type { Accounts, KeyOwner } from '../services/control/accounts.js';
import { ApiError } from './errors.js';

declare module 'express-serve-static-core' {
  interface Request {
    owner?: KeyOwner;
  }
}

export function requireApiKey(accounts: Accounts) {
  return async (request: Request, _response: Response, next: NextFunction) => {
    const header = request.get('authorization');
    if (!header) return next(ApiError.unauthorized('missing API key: send Authorization: Bearer <key>'));
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return next(ApiError.unauthorized('malformed Authorization header: expected Bearer <key>'));
    try {
      const owner = await accounts.authenticate(match[1]!);
      if (!owner) return next(ApiError.unauthorized('invalid API key'));
      request.owner = owner;
      next();
    } catch (error) {
      next(error);
    }
  };
}
