import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/platform/openapi/register.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * /openapi.json is the contract integrators generate clients from: a valid OpenAPI 3.1 document whose
 * every operation has a stable id, named schemas, the error envelope with its errcodes, a request
 * example that its own schema accepts, its file parts and media types, and its security.
 */
type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let t: TestApp;
let doc: Json;
const ops: Array<{ path: string; method: string; op: Json }> = [];

beforeAll(async () => {
  t = await createTestApp({ FILE_BASE_URL: 'https://api.example.com/tourism' });
  doc = openApiDocument(t.app);
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) ops.push({ path, method, op: item[method] });
  }
});
afterAll(() => t?.close());

const ref = (name: string) => `#/components/schemas/${name}`;
const isRef = (s: Json | undefined) => typeof s?.$ref === 'string' && s.$ref.startsWith('#/components/schemas/');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, served at /openapi.json, with the configured address as its server', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example.com/tourism' }]);
    const served = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(served.json()).toEqual(doc);
  });

  it('gives every operation a unique, stable operationId, a summary, a description, tags and its security', () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toMatch(/^(app|manage|mp|open)[A-Z][A-Za-z0-9]*$/);
      expect(op.summary, where).toBeTruthy();
      expect(op.description, where).toMatch(/Callers: /);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      expect(Array.isArray(op.security), where).toBe(true);
    }
    const byPath = (p: string, m = 'post') => doc.paths[p][m].operationId;
    expect(byPath('/manage-api/sales/addSales')).toBe('manageSalesAddSales');
    expect(byPath('/manage-api/system/area/get-by-ip')).toBe('manageSystemAreaGetByIp');
    expect(byPath('/app-api/checker/cardCheckStat', 'get')).toBe('appCheckerCardCheckStatGet');
  });

  it('documents every method an ANY operation answers', () => {
    for (const path of [
      '/app-api/checker/cardCheckStat',
      '/manage-api/statistics/exportStatCardIssue',
      '/manage-api/settlement/exportSettlementCardCheckDetailPage',
    ]) {
      for (const method of METHODS) expect(doc.paths[path][method], `${method} ${path}`).toBeDefined();
      expect(doc.paths[path].get.parameters.length, path).toBeGreaterThan(0);
      expect(doc.paths[path].put.requestBody, path).toBeDefined();
    }
  });

  it('names its schemas: request bodies and answers are components, none called def-N', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThan(100);
    for (const name of names) expect(name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      const json = op.requestBody?.content?.['application/json']?.schema;
      if (json && json.type !== 'object') expect(isRef(json), where).toBe(true);
      const ok = op.responses['200'].content['application/json'].schema;
      const success = ok.oneOf?.[0];
      const data = success?.properties?.data;
      if (data && (data.type === 'object' || data.properties))
        throw new Error(`${where}: its data is an inline object`);
    }
    expect(doc.components.schemas.SalesResponse).toBeDefined();
    expect(doc.paths['/manage-api/sales/addSales'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: ref('SalesAddRequest'),
    });
  });

  it('makes the error envelope part of every answer, listing the errcodes each operation can answer', () => {
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      const json = op.responses['200'].content['application/json'].schema;
      const refusal = json.oneOf ? json.oneOf[1] : json;
      expect(refusal.required, where).toEqual(['errcode', 'errmsg']);
      const errcode = refusal.properties.errcode;
      expect(errcode.enum, where).toEqual(expect.arrayContaining([500, 503]));
      expect(errcode.enum, where).not.toContain(0);
      expect(errcode['x-enum-varnames'], where).toHaveLength(errcode.enum.length);
      expect(errcode['x-enum-descriptions'], where).toHaveLength(errcode.enum.length);
      if (json.oneOf) expect(json.oneOf[0].properties.errcode, where).toEqual({ type: 'integer', const: 0 });
      for (const status of ['500', '503'])
        expect(op.responses[status].content['application/json'].schema.properties.errcode.const, where).toBe(
          Number(status),
        );
    }
    const checkin =
      doc.paths['/app-api/checker/addCheckerConsumeRecord'].post.responses['200'].content['application/json'].schema
        .oneOf[1];
    expect(checkin.properties.errcode.enum).toEqual(expect.arrayContaining([1_013_000_001, 1_013_000_007, 401]));
    expect(checkin.properties.errcode['x-enum-varnames']).toContain('DAILY_LIMIT_REACHED');
  });

  it('gives every operation with a JSON body a request example its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, 'openapi');
    let checked = 0;
    for (const { path, method, op } of ops) {
      const json = op.requestBody?.content?.['application/json'];
      if (!json) continue;
      const where = `${method.toUpperCase()} ${path}`;
      expect(json.example, where).toBeDefined();
      const pointer = `openapi#/paths/${path.replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema`;
      const validate = ajv.getSchema(pointer)!;
      expect(
        validate(json.example),
        `${where}: ${JSON.stringify(json.example)} → ${JSON.stringify(validate.errors)}`,
      ).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('declares upload file parts, file media types and the headers a client needs', () => {
    for (const path of [
      '/manage-api/oss/multipartUpload',
      '/open-api/oss/upload',
      '/open-api/oss/uploadWithFaceCheck',
    ]) {
      const form = doc.paths[path].post.requestBody.content['multipart/form-data'];
      expect(form.schema.properties.file.contentMediaType, path).toBe('application/octet-stream');
    }
    expect(
      doc.paths['/manage-api/oss/multipartUpload'].post.requestBody.content['multipart/form-data'].schema.required,
    ).toEqual(expect.arrayContaining(['file', 'uploadId', 'totalChunks', 'chunkNumber', 'fileKey']));
    const captcha = doc.paths['/manage-api/auth/getRandomCodeImg'].get.responses['200'];
    expect(Object.keys(captcha.content)).toEqual(['image/png', 'application/json']);
    expect(captcha.headers['X-Captcha-Key']['x-sent-with-file']).toBe(true);
    const xlsx = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    for (const path of [
      '/manage-api/distributeAmount/exportDistributeDetail',
      '/manage-api/bank/exportBankStatDetail',
      '/manage-api/statistics/exportStatCardIssue',
    ]) {
      const answer = doc.paths[path].post.responses['200'];
      expect(answer.content[xlsx], path).toBeDefined();
      expect(answer.headers['Content-Disposition']['x-sent-with-file'], path).toBe(true);
    }
    expect(Object.keys(doc.paths['/open-api/oss/file'].get.responses)).toEqual(
      expect.arrayContaining(['200', '206', '304', '416']),
    );
  });

  it('has a security scheme per channel token, and the open channel signature as four headers sent together', () => {
    const schemes = doc.components.securitySchemes;
    for (const name of ['appToken', 'manageToken', 'mpToken', 'bankToken'])
      expect(schemes[name]).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect([
      schemes.openAppKey.name,
      schemes.openTimestamp.name,
      schemes.openNonce.name,
      schemes.openSign.name,
    ]).toEqual(['X-App-Key', 'X-Timestamp', 'X-Nonce', 'X-Sign']);
    expect(doc.paths['/manage-api/sales/addSales'].post.security).toEqual([{ manageToken: [] }]);
    expect(doc.paths['/app-api/checker/addCheckerConsumeRecord'].post.security).toEqual([{ appToken: [] }]);
    expect(doc.paths['/mp-api/member/getMember'].post.security).toEqual([{ mpToken: [] }]);
    expect(doc.paths['/open-api/region/queryRegionList'].post.security).toEqual([
      { openAppKey: [], openTimestamp: [], openNonce: [], openSign: [] },
      { manageToken: [] },
    ]);
    expect(doc.paths['/open-api/oss/uploadWithFaceCheck'].post.security).toEqual([]);
  });
});
