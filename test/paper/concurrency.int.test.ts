/** The concurrency proofs on PGlite, the embedded control store (PostgreSQL: test/engines). */
import { describeSandboxConcurrency } from '../support/sandbox-concurrency.js';

describeSandboxConcurrency('pglite', async () => undefined);
