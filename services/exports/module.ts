/** Bulk exports: jobs, their progress and their signed downloads (`routes.ts`). */
import { defineModule } from '../modules/module.js';
import { exportRoutes } from './routes.js';

export const exportsModule = defineModule({
  name: 'exports',
  routes: ({ exports }) => (exports ? [exportRoutes(exports.api, exports.guard)] : []),
});
