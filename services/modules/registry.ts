/**
 * Every service module, read models included: the API shell mounts the routes of each, in this order
 * (no two modules serve the same path).
 */
import { usageModule } from '../access/module.js';
import { copyModule } from '../copy/module.js';
import { exportsModule } from '../exports/module.js';
import type { ReadModel } from '../read-models/read-model.js';
import { READ_MODELS } from '../read-models/registry.js';
import { sandboxModule } from '../sandbox/module.js';
import { webhooksModule } from '../webhooks/module.js';
import type { ServiceModule } from './module.js';

export const SERVICE_MODULES: readonly ServiceModule[] = [
  usageModule,
  sandboxModule,
  copyModule,
  ...READ_MODELS.map(
    (model: ReadModel): ServiceModule => ({ name: model.name, routes: (services) => (model.routes ? [model.routes(services)] : []) }),
  ),
  webhooksModule,
  exportsModule,
];
