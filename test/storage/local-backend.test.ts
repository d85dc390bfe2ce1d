import { storageBackendSuite } from './storage-suite.js';

storageBackendSuite('local');
