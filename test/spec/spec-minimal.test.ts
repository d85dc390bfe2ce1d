import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createCard as allocationCard, createCheck, createPark } from '../allocation/fixtures.js';
import {
  activate,
  bankToken,
  BANK_PASSWORD,
  createBankChannel,
  createBankUser,
  newIdNumber,
  newPhone,
  recordingSms,
  requestCode,
  type Recorder,
} from '../bank/bank-fixtures.js';
import { checkIn, createSpot, heldCard, verifierAt } from '../checker/checkin-fixtures.js';
import {
  createCardModel,
  createChecker,
  createCheckerConfig,
  createDept,
  createMerchant,
  createShop,
  createSpu,
  uniq,
} from '../helpers/factories.js';
import { staffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_ADMIN } from '../helpers/test-env.js';
import { createHotelOrder } from '../hotel/hotel-fixtures.js';
import { memberSession } from '../member/member-fixtures.js';
import { FACE_JPEG } from '../platform/face-images.js';
import { buildWorld, ISSUE, PERIOD, PROFIT } from '../settlement/world.js';
import { SPEC_REQUESTS, type FormPart, type Session, type SpecCall, type SpecData } from './spec-requests.js';

/**
 * Every operation of the spec's list (test/spec/endpoints.tsv) called with the smallest request the
 * spec allows (spec-requests.ts), by a session of the right kind holding every permission. Whatever
 * the service then answers — success, a business refusal, a file — it must not be a validation
 * refusal: no errcode 400, no 401/403, no HTTP error status. A failure names the operation, the
 * request sent and the answer.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
// The specification is kept in the repository (docs/spec); the team's shared copy, when it is beside
// the repository, must be the same text.
const LOCAL_SPEC = path.join(REPO, 'docs/spec');
const SHARED_SPEC = path.resolve(REPO, '../shared/spec');
const LOCAL_TSV = path.join(LOCAL_SPEC, 'endpoints.tsv');

interface Row {
  method: string;
  prefix: string;
  path: string;
  key: string;
}

function readRows(file: string): Row[] {
  const [header, ...lines] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (header.split('\t').slice(0, 3).join(' ') !== 'method prefix path')
    throw new Error(`${file}: unexpected header ${header}`);
  return lines.map((line) => {
    const [method, prefix, p] = line.split('\t');
    return { method, prefix, path: p, key: `${method} ${prefix}${p}` };
  });
}

const ROWS = readRows(LOCAL_TSV);

describe('the operation list', () => {
  it.for(['endpoints.tsv', 'part-a.md', 'part-b.md'])(
    "docs/spec/%s is the shared specification's text, when that is beside the repository",
    (file, ctx) => {
      const shared = path.join(SHARED_SPEC, file);
      if (!existsSync(shared)) ctx.skip(`no ${shared}: the copy in docs/spec cannot be compared here`);
      expect(readFileSync(path.join(LOCAL_SPEC, file), 'utf8')).toBe(readFileSync(shared, 'utf8'));
    },
  );

  it('has a request for every row and a row for every request', () => {
    expect(ROWS).toHaveLength(103);
    const keys = ROWS.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(
      keys.filter((k) => !(k in SPEC_REQUESTS)),
      'rows without a request',
    ).toEqual([]);
    expect(
      Object.keys(SPEC_REQUESTS).filter((k) => !keys.includes(k)),
      'requests without a row',
    ).toEqual([]);
  });
});

// A small valid PDF, as a client's file picker reads one.
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');

let t: TestApp;
let rec: Recorder;
let photos: http.Server;
let data: SpecData;
const tokens: Partial<Record<Session, string>> = {};
/** Every call's outcome, printed at the end with SPEC_MINIMAL_REPORT=1. */
const outcomes: string[] = [];

/** A setup call through the API that must succeed; answers its data. */
async function ok(url: string, body: unknown, token: string): Promise<any> {
  const res = await t.post(url, body, token);
  if (res.body.errcode !== 0) throw new Error(`setup ${url} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
  return res.body.data;
}

function startPhotoServer(): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': FACE_JPEG.length });
    res.end(FACE_JPEG);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  photos = await startPhotoServer();
  rec = await recordingSms();
  // The photo server is on loopback, which the face service reaches only when the deployment names it.
  t = await createTestApp({ FACE_PHOTO_ALLOWED_HOSTS: '127.0.0.1' }, { store: rec.store, services: { sms: rec.sms } });
  const db = t.db;
  const admin = (await t.loginStaff()).accessToken;
  tokens.staff = admin;
  tokens.staffToEnd = (await t.loginStaff()).accessToken;
  const year = new Date().getFullYear();

  // Auth, check-in: a scenic spot with a verifier posted at it and bound cards of its card model.
  const spot = await createSpot(t);
  tokens.checker = spot.checker.token;
  tokens.checkerToEnd = (await verifierAt(t, { merchantId: spot.merchantId, skuId: spot.skuId })).token;
  const loginChecker = await createChecker(db, { merchant_id: spot.merchantId, shop_id: spot.shopId });
  const [toCheck, checked, checkedToRevoke] = [
    await heldCard(db, spot.modelId),
    await heldCard(db, spot.modelId),
    await heldCard(db, spot.modelId),
  ];
  const record = (await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: checked.cardNumber })).body
    .data;
  const recordToRevoke = (
    await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: checkedToRevoke.cardNumber })
  ).body.data;
  const configId = await createCheckerConfig(db, { checker_id: spot.checker.id });
  const configToDelete = await createCheckerConfig(db, { checker_id: spot.checker.id, item: 'faceThreshold' });

  // Member: a session and three contacts.
  const member = await memberSession(t);
  tokens.member = member.token;
  const contact = async () => {
    const c = { name: '王芳', phone: newPhone(), identityNo: newIdNumber() };
    await ok('/mp-api/memberContacts/addMemberContacts', c, member.token);
    const list: Array<{ id: number; identityNo: string }> = await ok(
      '/mp-api/memberContacts/queryMemberContactsList',
      {},
      member.token,
    );
    return { ...c, id: list.find((x) => x.identityNo === c.identityNo)!.id };
  };
  const [kept, deleted, updated] = [await contact(), await contact(), await contact()];

  // Allocation: a card model taking part, with a park and a card checked in there; last year's batches.
  const allocMerchant = await createMerchant(db);
  const allocShop = await createShop(db, { merchant_id: allocMerchant });
  const allocModel = await createCardModel(db, { allocation_enabled: true });
  const park = await createPark(db, { cardModelId: allocModel, shopId: allocShop, merchantId: allocMerchant });
  const allocCard = await allocationCard(db, {
    card_model_id: allocModel,
    active_time: `${year - 1}-01-01 10:00:00`,
    expire_time: `${year}-01-01 10:00:00`,
  });
  for (const m of ['01', '02', '03'])
    await createCheck(db, { cardId: allocCard, cardModelId: allocModel, park, at: `${year - 1}-${m}-15 10:00:00` });
  const batches: Array<{ id: number; month: number }> = await ok(
    '/manage-api/distributeAmount/executeCalc',
    { year: year - 1, months: [1, 2, 3], cardModelIds: [allocModel] },
    admin,
  );
  const batchOf = (month: number) => batches.find((b) => b.month === month)!.id;

  // Estimation and settlement: the hand-computed world of the settlement tests, calculated over several periods.
  const w = await buildWorld(t);
  const calc = async (period: [string, string]): Promise<number> =>
    (
      await ok(
        '/manage-api/estimation/calcEstimationCard',
        { cardModelId: w.model, profit: PROFIT, issueNum: ISSUE, estimationPeriod: period },
        admin,
      )
    ).id;
  const heldPeriod: [string, string] = [PERIOD[0], PERIOD[1]];
  const heldId = await calc(heldPeriod);
  const heldDetails = await ok(
    '/manage-api/estimation/queryEstimationCardCalcDetailPage',
    { cardModelId: w.model, estimationPeriod: heldPeriod },
    admin,
  );
  const toSubmit = await calc(['2026-03-11 00:00:00', '2026-03-20 23:59:59']);
  /** A submitted estimation: its sheet and merchant A's settlement order (status 1). */
  const submitted = async (start: string) => {
    const id = await calc([start, '2026-03-20 23:59:59']);
    await ok('/manage-api/estimation/submitEstimationCard', { id }, admin);
    const order = await db
      .selectFrom('settlement')
      .select('id')
      .where('estimation_id', '=', id)
      .where('settlement_merchant_id', '=', w.merchantA)
      .executeTakeFirstOrThrow();
    return { sheet: id, order: order.id };
  };
  const main = await submitted('2026-03-12 00:00:00');
  const r1Detail = await db
    .selectFrom('settlement_detail')
    .select('id')
    .where('settlement_id', '=', main.order)
    .where('resource_id', '=', w.r.r1.spu)
    .executeTakeFirstOrThrow();
  const r1Sheet = await db
    .selectFrom('estimation_detail')
    .select('id')
    .where('sheet_id', '=', main.sheet)
    .where('resource_id', '=', w.r.r1.spu)
    .executeTakeFirstOrThrow();
  const toCalc = (await submitted('2026-03-13 00:00:00')).order;
  const merchantA = await staffSession(t, {
    kind: 'merchant',
    merchantId: w.merchantA,
    permissions: ['settlement:read', 'settlement:confirm'],
  });
  await ok('/manage-api/settlement/confirmSettlementCard', { id: toCalc }, merchantA.token);
  const toDeleteOrder = (await submitted('2026-03-14 00:00:00')).order;

  // Region: a seeded one to read, two of our own to change.
  const seeded = await db.selectFrom('region').select('id').orderBy('id').executeTakeFirstOrThrow();
  const region = async () => {
    const name = uniq('测试省');
    return {
      id: (await ok('/manage-api/region/addRegion', { name, levelType: 1, parentId: 0 }, admin)).id as number,
      name,
      levelType: 1,
    };
  };
  const [regionToDelete, regionToUpdate] = [await region(), await region()];

  // Custom distributors and their users.
  const dis = await ok(
    '/manage-api/custom/addCustomDis',
    { name: uniq('西湖旅行社'), contact: '陈经理', phone: '0571-87654321' },
    admin,
  );
  const disUser = await ok(
    '/manage-api/custom/addCustomDisUser',
    { customDisId: dis.id, name: '导游小张', mobile: newPhone() },
    admin,
  );

  // Sales institutions under a department.
  const deptId = await createDept(db);
  const sales = async () => {
    const name = uniq('城西销售点');
    return { id: (await ok('/manage-api/sales/addSales', { name, deptId }, admin)).id as number, name, deptId };
  };
  const [salesKept, salesToDelete, salesToUpdate] = [await sales(), await sales(), await sales()];

  // Object storage: a stored file and a started chunked upload.
  const stored = await ok(
    '/open-api/oss/uploadBase64',
    { fileName: 'guide.pdf', content: PDF.toString('base64') },
    admin,
  );
  const init = await ok('/manage-api/oss/multipartFileInit', { fileName: '景区导览.pdf' }, admin);

  // Bank channel: an operator holding every permission, a manager who logs in, a phone that has activated.
  const bank = await createBankChannel(db, { operators: [{ total: 100, day: 100 }], pool: 10 });
  const operator = await createBankUser(db, {
    businessId: bank.businessId,
    operatorRowId: bank.operators[0].id,
    permissions: ['*'],
  });
  tokens.bank = await bankToken(t, operator);
  const manager = await createBankUser(db, { businessId: bank.businessId, permissions: ['*'] });
  const activated = await activate(t, rec, tokens.bank);
  if (activated.res.body.data?.code !== 200) throw new Error(`setup activation: ${JSON.stringify(activated.res.body)}`);

  // Code generation: two columns of another table than the one the add request names.
  const codegenTable = 700_000 + Math.floor(Math.random() * 100_000);
  const column = async (columnName: string, javaField: string) =>
    (
      await ok(
        '/manage-api/infra/codegen/addCodegenColumn',
        {
          tableId: codegenTable + 1,
          columnName,
          dataType: 'bigint',
          columnComment: columnName,
          nullable: false,
          primaryKey: false,
          autoIncrement: 'false',
          ordinalPosition: 1,
          javaType: 'Long',
          javaField,
          createOperation: true,
          updateOperation: true,
          listOperation: true,
          listOperationCondition: '=',
          listOperationResult: true,
          htmlType: 'input',
        },
        admin,
      )
    ).id as number;
  const [columnKept, columnToDelete] = [
    await column('card_model_id', 'cardModelId'),
    await column('shop_id', 'shopId'),
  ];

  // Catalog.
  const catalogMerchant = await createMerchant(db);
  const catalogShop = await createShop(db, { merchant_id: catalogMerchant });
  const spuId = await createSpu(db, { shop_id: catalogShop });
  const parentDeptId = await createDept(db, { merchant_id: catalogMerchant });

  const hotel = await createHotelOrder(db);

  data = {
    year,
    uniq,
    newMobile: newPhone,
    newIdNumber,
    files: { pdf: PDF, jpeg: FACE_JPEG },
    auth: {
      checker: { mobile: loginChecker.mobile, password: loginChecker.password },
      staff: { username: TEST_ADMIN.username, password: TEST_ADMIN.password },
      async captcha() {
        const img = await t.app.inject({ method: 'GET', url: '/manage-api/auth/getRandomCodeImg' });
        const key = String(img.headers['x-captcha-key']);
        const code = await t.store.get(`captcha:${key}`);
        if (!code) throw new Error('no captcha was issued');
        return { code, cookie: `SESSION=${key}` };
      },
      mpCode: () => uniq('wx-login-'),
    },
    member: {
      contactId: kept.id,
      contactToDelete: deleted.id,
      contactToUpdate: updated,
      facePhotoUrl: `http://127.0.0.1:${(photos.address() as AddressInfo).port}/faces/${uniq('contact')}.jpg`,
      phoneToBind: newPhone(),
      async smsCode(phone) {
        rec.advance(61);
        await ok('/mp-api/member/sendSmsCode', { phone }, member.token);
        const sms = rec.sender.lastTo(phone);
        if (!sms) throw new Error(`no SMS was sent to ${phone}`);
        return sms.params.code;
      },
    },
    allocation: { batchId: batchOf(1), exportBatchId: batchOf(2), batchToDelete: batchOf(3) },
    estimation: {
      cardModelId: w.model,
      heldPeriod,
      heldId,
      heldDetailId: heldDetails.list[0].id,
      freshPeriod: ['2026-03-01 00:00:00', '2026-03-31 23:59:59'],
      toSubmit,
      submittedDetailId: r1Sheet.id,
    },
    region: { id: seeded.id, toDelete: regionToDelete.id, toUpdate: regionToUpdate },
    custom: { disId: dis.id, userId: disUser.id },
    sales: { deptId, id: salesKept.id, toDelete: salesToDelete.id, toUpdate: salesToUpdate },
    oss: { fileKey: stored.fileKey, uploadId: init.uploadId },
    checker: {
      configId,
      configToDelete,
      skuId: spot.skuId,
      cardNumber: toCheck.cardNumber,
      recordId: record.id,
      recordToDelete: recordToRevoke.id,
    },
    settlement: { id: main.order, detailId: r1Detail.id, toCalc, toDelete: toDeleteOrder },
    bank: {
      loginMobile: manager.mobile,
      password: BANK_PASSWORD,
      activatedPhone: activated.person.phone,
      async smsCode(phone, purpose) {
        rec.advance(61);
        return requestCode(t, rec, phone, purpose, purpose === 'activate' ? tokens.bank : undefined);
      },
    },
    codegen: { tableId: codegenTable, id: columnKept, toDelete: columnToDelete },
    catalog: { spuId, merchantId: catalogMerchant, shopId: catalogShop, parentDeptId },
    hotel: { orderId: hotel.orderId },
  };
}, 300_000);

afterAll(async () => {
  if (process.env.SPEC_MINIMAL_REPORT) console.log(`spec-minimal outcomes:\n${outcomes.join('\n')}`);
  await t?.close();
  await rec?.store.close();
  await new Promise((resolve) => (photos ? photos.close(resolve) : resolve(undefined)));
});

/** A multipart/form-data body as a browser sends it. */
async function multipart(parts: FormPart[]): Promise<{ payload: Buffer; contentType: string }> {
  const fd = new FormData();
  for (const [field, v] of parts) {
    if (typeof v === 'string') fd.append(field, v);
    else fd.append(field, new Blob([new Uint8Array(v.bytes)], { type: v.type }), v.name);
  }
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { payload: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

/** The query string of a GET: the body's fields as text. */
function asQuery(body: Record<string, unknown> | undefined): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(body ?? {})) q[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return q;
}

async function send(method: 'GET' | 'POST', url: string, call: SpecCall, token: string | undefined) {
  const headers: Record<string, string> = { ...(call.headers ?? {}) };
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: Buffer | string | undefined;
  let query = { ...(call.query ?? {}) };
  if (call.form) {
    const f = await multipart(call.form);
    payload = f.payload;
    headers['content-type'] = f.contentType;
  } else if (method === 'GET') {
    query = { ...asQuery(call.body), ...query };
  } else if (call.body !== undefined) {
    payload = JSON.stringify(call.body);
    headers['content-type'] = 'application/json';
  }
  const qs = new URLSearchParams(query).toString();
  return t.app.inject({
    method,
    url: qs ? `${url}?${qs}` : url,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  });
}

/** Why the answer is a refusal of the request itself, or null when it is not. */
function refusal(res: LightMyRequestResponse): string | null {
  if (res.statusCode >= 400) return `HTTP ${res.statusCode}`;
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('json')) return null; // a file: an image, an export, a download
  const body = res.json();
  if (typeof body?.errcode !== 'number') return 'the answer is not the envelope';
  if ([400, 401, 403].includes(body.errcode)) return `errcode ${body.errcode}`;
  return null;
}

function describeAnswer(res: LightMyRequestResponse): string {
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('json')) return `HTTP ${res.statusCode} ${type} (${res.rawPayload.length} bytes)`;
  return `HTTP ${res.statusCode} ${res.body.slice(0, 600)}`;
}

function describeCall(method: 'GET' | 'POST', call: SpecCall): string {
  const parts: string[] = [];
  const query = method === 'GET' && !call.form ? { ...asQuery(call.body), ...(call.query ?? {}) } : (call.query ?? {});
  if (Object.keys(query).length > 0) parts.push(`query ${JSON.stringify(query)}`);
  if (call.form) {
    parts.push(
      `multipart [${call.form.map(([k, v]) => (typeof v === 'string' ? `${k}=${v}` : `${k}=<${v.name}, ${v.bytes.length} bytes>`)).join(', ')}]`,
    );
  } else if (method === 'POST' && call.body !== undefined) {
    parts.push(
      JSON.stringify(call.body, (_k, v) =>
        typeof v === 'string' && v.length > 120 ? `${v.slice(0, 40)}…(${v.length} chars)` : v,
      ),
    );
  } else if (method === 'POST') {
    parts.push('no body');
  } else if (parts.length === 0) {
    parts.push('no query');
  }
  if (call.headers?.cookie) parts.push(`cookie ${call.headers.cookie}`);
  return parts.join(' ');
}

describe('the smallest spec-valid request of each operation is not refused', () => {
  for (const row of ROWS) {
    const spec = SPEC_REQUESTS[row.key];
    if (!spec) continue; // reported by 'has a request for every row'
    const methods: Array<'GET' | 'POST'> = row.method === 'ANY' ? ['POST', 'GET'] : [row.method as 'GET' | 'POST'];
    for (const method of methods) {
      it(`${method} ${row.prefix}${row.path}`, async () => {
        const call = await spec.build(data);
        const res = await send(
          method,
          `${row.prefix}${row.path}`,
          call,
          spec.session === 'none' ? undefined : tokens[spec.session],
        );
        const why = refusal(res);
        const line = `${why ? 'REFUSED' : 'ok     '} ${method} ${row.prefix}${row.path} [${spec.session}] ${describeCall(method, call)} → ${describeAnswer(res)}`;
        outcomes.push(line);
        expect(why, line).toBeNull();
      });
    }
  }
});
