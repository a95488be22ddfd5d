/**
 * The API document rendered as a page at /api/docs (Swagger UI served from the swagger-ui-dist
 * package, so the page works without reaching any other host). The YAML stays the source of truth.
 */
import express, { Router } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>tapeline API v0.5.0</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/ui.js"></script>
</body>
</html>`;

// A separate script file rather than an inline one, so the page works under a strict CSP.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.yaml', dom_id: '#docs', deepLinking: true, persistAuthorization: true });`;

export function docsRoutes(): Router {
  const router = Router();
  router.get('/api/docs', (_request, response) => {
    response.type('html').send(PAGE);
  });
  router.get('/api/docs/ui.js', (_request, response) => {
    response.type('application/javascript').send(INIT);
  });
  router.use('/api/docs/assets', express.static(assets, { index: false, maxAge: '1h' }));
  return router;
}
