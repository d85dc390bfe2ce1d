import { defineModule } from '../../platform/module.js';
import { codegenRoutes } from './codegen.routes.js';
import { createCodegenService } from './codegen.service.js';

/** Code-generation column definitions (spec B 2.5, 4.5). */
export const codegenModule = defineModule({
  name: 'codegen',
  routes: ({ db }) => codegenRoutes(createCodegenService({ db })),
});
