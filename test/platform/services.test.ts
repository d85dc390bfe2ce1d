import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { createPlatformServices } from '../../src/platform/services.js';
import { createSmsServices } from '../../src/platform/sms/index.js';
import { createLogSmsSender } from '../../src/platform/sms/log-sender.js';
import { createMemoryStore } from '../../src/platform/store/memory-store.js';
import { openTestDatabase, type TestDb } from '../helpers/test-app.js';
import { FACE_JPEG } from './face-images.js';

/** The app's logger (Fastify's pino) writing its JSON lines into an array. */
function capturingLogger() {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: Fastify({ logger: { level: 'info', stream } }).log, lines };
}

describe('platform services (deps.sms, deps.face)', () => {
  let tdb: TestDb;
  beforeAll(async () => {
    tdb = await openTestDatabase();
  });
  afterAll(() => tdb?.close());

  it('builds the log SMS provider and the local face registry by default; codes reach the log', async () => {
    const { logger, lines } = capturingLogger();
    const services = await createPlatformServices({
      config: loadConfig({}),
      db: tdb.db,
      store: createMemoryStore(100),
      logger,
    });
    expect(services.sms.sender.provider).toBe('log');
    expect(services.face.provider).toBe('local');
    await services.sms.codes.send({ purpose: 'bank-user-login', phone: '13700137000' });
    const line = lines.find((l) => l.msg === 'SMS (log provider, not sent)');
    expect(line).toMatchObject({ level: 30, component: 'sms', sms: { phone: '13700137000', template: 'verifyCode' } });
    expect(
      await services.sms.codes.check({ purpose: 'bank-user-login', phone: '13700137000', code: line.sms.params.code }),
    ).toBe('ok');
    await expect(services.face.checkFaceImage(FACE_JPEG)).resolves.toBeUndefined();
  });

  it('warns at start when production writes codes to the log', async () => {
    const { logger, lines } = capturingLogger();
    const config = loadConfig({ NODE_ENV: 'production', MP_LOGIN_PROVIDER: 'local' });
    await createPlatformServices({ config, db: tdb.db, store: createMemoryStore(100), logger });
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'SMS_PROVIDER=log: verification codes are written to the log and no SMS is sent (demo only)',
    ]);
  });

  it('takes replacements, so a test can read the codes it sent', async () => {
    const { logger } = capturingLogger();
    const store = createMemoryStore(100);
    const sender = createLogSmsSender({ info: () => {} });
    const sms = await createSmsServices(loadConfig({}), { store, logger, sender });
    const services = await createPlatformServices({ config: loadConfig({}), db: tdb.db, store, logger }, { sms });
    expect(services.sms).toBe(sms);
    await services.sms.codes.send({ purpose: 'member-bind-phone', phone: '13700137001', sessionKey: 's' });
    expect(sender.lastTo('13700137001')?.params.code).toMatch(/^\d{6}$/);
  });
});
