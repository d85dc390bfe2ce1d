import { storageBackendSuite } from './storage-suite.js';

storageBackendSuite('s3');
