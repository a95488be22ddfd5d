/**
 * A route's query parameters, typed by its operation in the API document. The request validator
 * (api/app.ts) checked them, coerced numbers and booleans and applied the document's defaults before
 * the route runs, which is what the generated `QueryParams` type states; so this is the one place the
 * untyped `request.query` is read as them, and a route never restates a default.
 */
import type { Request } from 'express';
import type { QueryParams } from './types.generated.js';

export function queryOf<Operation extends keyof QueryParams>(request: Request, _operation: Operation): QueryParams[Operation] {
  return request.query as unknown as QueryParams[Operation];
}
