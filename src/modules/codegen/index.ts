// The codegen module's front door: the only file other modules import (docs/architecture.md §4).
export { codegenModule } from './codegen.module.js';
