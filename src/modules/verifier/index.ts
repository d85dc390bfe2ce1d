// The verifier module's front door: the only file other modules import (docs/architecture.md §4).
export { verifierModule } from './verifier.module.js';
export { insertChecker, replaceRelations, setCheckerStatus } from './verifier.repository.js';
export { stampCheckerLogin } from './checker-login-stamp.repository.js';
