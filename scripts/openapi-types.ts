import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../test/client/generate-types.js';
import { documentWithoutDatabase } from './openapi-document.js';

// Writes the client types openapi-typescript generates from /openapi.json (test/client/openapi-types.ts).
writeFileSync(CLIENT_TYPES_FILE, await generateClientTypes(await documentWithoutDatabase()));
console.log(`wrote ${CLIENT_TYPES_FILE}`);
