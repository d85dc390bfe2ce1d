import { documentWithoutDatabase } from './openapi-document.js';

// Prints the OpenAPI document (/openapi.json) without a database.
process.stdout.write(JSON.stringify(await documentWithoutDatabase(), null, 2) + '\n');
