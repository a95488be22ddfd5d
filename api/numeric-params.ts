/**
 * Numeric query parameters checked by spelling before the OpenAPI validator coerces them: its
 * coercion is JavaScript's `+value`, which reads `0x10` as 16, `" 5"` as 5 and `1e309` as Infinity,
 * and a non-finite number then reached a store's query and answered 500 (issue 59, low). Only plain
 * decimal spellings of finite numbers pass; the schema's own bounds are the validator's to check.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '../services/http/errors.js';
import type { OperationIndex } from './operations.js';

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function plainFiniteNumber(text: string): boolean {
  return DECIMAL.test(text) && Number.isFinite(Number(text));
}

export function numericQueryCheck(index: OperationIndex): RequestHandler {
  return (request, _response, next) => {
    const matched = index.match(request.method, request.originalUrl);
    if (!matched) return next();
    for (const [name, type] of matched.operation.queryParameters) {
      if (type !== 'integer' && type !== 'number') continue;
      const value = request.query[name];
      if (value === undefined) continue;
      for (const text of [value].flat()) {
        if (typeof text === 'string' && !plainFiniteNumber(text)) {
          return next(
            ApiError.badRequest(
              `${name}: must be a finite decimal number (no hex, blanks or exponents past the range), got "${text.slice(0, 40)}"`,
            ),
          );
        }
      }
    }
    return next();
  };
}
