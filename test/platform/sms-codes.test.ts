import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { createLogSmsSender } from '../../src/platform/sms/log-sender.js';
import { createSmsCodes, type SmsCodeTarget } from '../../src/platform/sms/sms-codes.js';
import { smsUnavailable } from '../../src/platform/sms/sms.errors.js';
import type { SmsMessage, SmsSender } from '../../src/platform/sms/sms-sender.js';
import { createMemoryStore } from '../../src/platform/store/memory-store.js';
import { createRedisStore } from '../../src/platform/store/redis-store.js';
import type { Store } from '../../src/platform/store/store.js';
import { testStorePrefix } from '../helpers/store-prefix.js';

/** Two handles on one store: the same object in memory, two connections (two instances) on Redis. */
const backends: Array<{ name: string; open(): Promise<[Store, Store]> }> = [
  {
    name: 'memory',
    open: async () => {
      const s = createMemoryStore(1000);
      return [s, s];
    },
  },
];
if (process.env.REDIS_URL) {
  const url = process.env.REDIS_URL;
  const prefix = testStorePrefix('sms');
  backends.push({
    name: 'redis',
    open: async () => [await createRedisStore(url, prefix), await createRedisStore(url, prefix)],
  });
}

/** A sender that records what it sends and can be told to fail, like a provider outage. */
function recordingSender() {
  const sent: SmsMessage[] = [];
  let failing = false;
  const sender: SmsSender & { sent: SmsMessage[]; fail(on: boolean): void; lastCode(phone: string): string } = {
    provider: 'log',
    sent,
    fail: (on) => {
      failing = on;
    },
    async send(message) {
      if (failing) throw smsUnavailable(new Error('provider down'));
      sent.push(message);
    },
    lastCode(phone) {
      const m = [...sent].reverse().find((s) => s.phone === phone && s.template === 'verifyCode');
      if (!m || m.template !== 'verifyCode') throw new Error(`no code was sent to ${phone}`);
      return m.params.code;
    },
  };
  return sender;
}

let phoneSeq = 0;
/** A fresh mainland number per test, so limits never carry over between tests. */
const newPhone = () => `139${String(process.pid % 10_000).padStart(4, '0')}${String(++phoneSeq).padStart(4, '0')}`;

const START = Date.parse('2026-11-22T12:00:00+08:00');
const errorOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

describe.each(backends)('SMS verification codes on the $name store', (backend) => {
  let store: Store;
  let other: Store;
  let clock = START;
  const now = () => clock;
  const sender = recordingSender();
  const codes = () => createSmsCodes({ store, sender, bypassCode: null, now });

  beforeAll(async () => {
    [store, other] = await backend.open();
  });
  afterAll(async () => {
    await store?.close();
    if (other !== store) await other?.close();
  });

  const target = (over: Partial<SmsCodeTarget> = {}): SmsCodeTarget => ({
    purpose: 'bank-login',
    phone: newPhone(),
    ...over,
  });

  it('sends a random 6-digit code that checks ok until consumed, and is not consumed by checking', async () => {
    clock = START;
    const t = target();
    const c = codes();
    expect(await c.send(t)).toEqual({ expiresInS: 300 });
    const code = sender.lastCode(t.phone);
    expect(code).toMatch(/^\d{6}$/);
    expect(sender.sent.at(-1)).toEqual({ phone: t.phone, template: 'verifyCode', params: { code } });
    expect(await c.check({ ...t, code })).toBe('ok');
    expect(await c.check({ ...t, code: ` ${code} ` })).toBe('ok');
    await c.consume(t);
    expect(await c.check({ ...t, code })).toBe('expired');
  });

  it('answers expired when no code was requested, and after five minutes', async () => {
    clock = START;
    const t = target();
    const c = codes();
    expect(await c.check({ ...t, code: '123456' })).toBe('expired');
    await c.send(t);
    const code = sender.lastCode(t.phone);
    clock = START + 299_000;
    expect(await c.check({ ...t, code })).toBe('ok');
    clock = START + 300_000;
    expect(await c.check({ ...t, code })).toBe('expired');
  });

  it('binds the code to its purpose, phone and session', async () => {
    clock = START;
    const c = codes();
    const t = target({ purpose: 'member-bind-phone', sessionKey: 'session-a' });
    await c.send(t);
    const code = sender.lastCode(t.phone);
    expect(await c.check({ ...t, sessionKey: 'session-b', code })).toBe('expired');
    expect(await c.check({ ...t, sessionKey: undefined, code })).toBe('expired');
    expect(await c.check({ ...t, purpose: 'bank-login', code })).toBe('expired');
    expect(await c.check({ ...t, phone: newPhone(), code })).toBe('expired');
    expect(await c.check({ ...t, code })).toBe('ok');
  });

  it('answers wrong for a wrong code, and burns the code after five tries', async () => {
    clock = START;
    const c = codes();
    const t = target();
    await c.send(t);
    const code = sender.lastCode(t.phone);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect(await c.check({ ...t, code: wrong })).toBe('wrong');
    expect(await c.check({ ...t, code })).toBe('expired');

    // a new code starts with fresh tries
    clock += 60_000;
    await c.send(t);
    const fresh = sender.lastCode(t.phone);
    expect(await c.check({ ...t, code: wrong === fresh ? '222222' : wrong })).toBe('wrong');
    expect(await c.check({ ...t, code: fresh })).toBe('ok');
  });

  it('lets at most five of many concurrent guesses be compared, on two instances', async () => {
    clock = START;
    const t = target();
    await codes().send(t);
    const code = sender.lastCode(t.phone);
    const b = createSmsCodes({ store: other, sender, bypassCode: null, now });
    const guesses = Array.from({ length: 30 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(guesses.map((g, i) => (i % 2 ? b : codes()).check({ ...t, code: g })));
    expect(answers.filter((a) => a === 'wrong')).toHaveLength(5);
    expect(answers.filter((a) => a === 'expired')).toHaveLength(25);
    expect(await codes().check({ ...t, code })).toBe('expired');
  });

  it('verify throws the auth codes 1002000004 and 1002000005', async () => {
    clock = START;
    const c = codes();
    const t = target();
    expect(await errorOf(c.verify({ ...t, code: '123456' }))).toMatchObject({
      errcode: 1002000004,
      message: 'the SMS code has expired, please request a new one',
    });
    await c.send(t);
    const code = sender.lastCode(t.phone);
    expect(await errorOf(c.verify({ ...t, code: code === '999999' ? '888888' : '999999' }))).toMatchObject({
      errcode: 1002000005,
      message: 'the SMS code is wrong',
    });
    await expect(c.verify({ ...t, code })).resolves.toBeUndefined();
  });

  it('sends at most one code per purpose and phone per 60 s, and says when to retry', async () => {
    clock = START;
    const c = codes();
    const t = target();
    await c.send(t);
    const first = sender.lastCode(t.phone);
    const again = await errorOf(c.send(t));
    expect(again).toMatchObject({
      errcode: 429,
      message: 'an SMS code was sent to this phone less than a minute ago, please try again in 60 seconds',
    });
    clock += 30_500;
    // another purpose has its own slot: codes anyone may ask for cannot hold up a bank activation's
    await expect(c.send({ ...t, purpose: 'bank-activate' })).resolves.toEqual({ expiresInS: 300 });
    expect((await errorOf(c.send({ ...t, purpose: 'bank-activate' }))).message).toContain('try again in 60 seconds');
    expect((await errorOf(c.send(t))).message).toContain('try again in 30 seconds');
    clock = START + 59_999;
    expect((await errorOf(c.send(t))).message).toContain('try again in 1 second');
    clock = START + 60_000;
    await c.send(t);
    const second = sender.lastCode(t.phone);
    // the new code replaces the old one
    if (second !== first) expect(await c.check({ ...t, code: first })).toBe('wrong');
    expect(await c.check({ ...t, code: second })).toBe('ok');
  });

  it('holds the 60 s limit across instances, and only one of concurrent sends goes out', async () => {
    clock = START;
    const t = target();
    const b = createSmsCodes({ store: other, sender, bypassCode: null, now });
    const before = sender.sent.length;
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? b : codes()).send(t)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ errcode: 429 });
    expect(sender.sent.length - before).toBe(1);
    clock += 10_000;
    expect(await errorOf(b.send(t))).toMatchObject({ errcode: 429 });
    // the code sent through one instance checks through the other
    expect(await b.check({ ...t, code: sender.lastCode(t.phone) })).toBe('ok');
  });

  it('sends at most 10 codes per purpose and phone per service-time-zone day, across instances', async () => {
    // 07:00 in Shanghai is 23:00 UTC of the day before: the day that counts is Shanghai's.
    clock = Date.parse('2026-11-22T07:00:00+08:00');
    const t = target();
    const b = createSmsCodes({ store: other, sender, bypassCode: null, now });
    for (let i = 0; i < 10; i++) {
      await (i % 2 ? b : codes()).send(t);
      clock += 61_000;
    }
    expect(await errorOf(codes().send(t))).toMatchObject({
      errcode: 429,
      message: 'too many SMS codes were sent to this phone today, please try again tomorrow',
    });
    clock = Date.parse('2026-11-22T09:00:00+08:00'); // a new UTC day, still the same Shanghai day
    expect(await errorOf(b.send(t))).toMatchObject({ errcode: 429 });
    // the day's ten of one purpose leave the others theirs (a teller's activation code still goes out)
    await expect(b.send({ ...t, purpose: 'bank-activate' })).resolves.toEqual({ expiresInS: 300 });
    clock = Date.parse('2026-11-23T00:00:01+08:00');
    await expect(codes().send(t)).resolves.toEqual({ expiresInS: 300 });
    // another phone was never limited
    await expect(codes().send(target())).resolves.toEqual({ expiresInS: 300 });
  });

  it('keeps neither the code nor the 60 s slot nor a daily count when the SMS cannot be sent', async () => {
    clock = START;
    const c = codes();
    const t = target();
    await c.send(t);
    const earlier = sender.lastCode(t.phone);
    clock += 61_000;
    sender.fail(true);
    try {
      expect(await errorOf(c.send(t))).toMatchObject({
        errcode: 1024000001,
        message: 'the SMS service is unavailable, please try again later',
      });
      // failures do not count towards the day's ten
      for (let i = 0; i < 12; i++) expect(await errorOf(c.send(t))).toMatchObject({ errcode: 1024000001 });
    } finally {
      sender.fail(false);
    }
    // the earlier, still valid code was not replaced by the one that never went out
    expect(await c.check({ ...t, code: earlier })).toBe('ok');
    // the slot was released: sending again at once works, and nine more fit in the day
    for (let i = 0; i < 9; i++) {
      await c.send(t);
      clock += 61_000;
    }
    expect(await errorOf(c.send(t))).toMatchObject({ message: expect.stringContaining('today') });
  });

  it('forgets a failed first code entirely', async () => {
    clock = START;
    const c = codes();
    const t = target();
    sender.fail(true);
    await errorOf(c.send(t)).finally(() => sender.fail(false));
    const bypassing = createSmsCodes({ store, sender, bypassCode: '000000', now });
    expect(await bypassing.check({ ...t, code: '000000' })).toBe('expired');
  });

  it('accepts the bypass code only where a code was requested', async () => {
    clock = START;
    const c = createSmsCodes({ store, sender, bypassCode: '000000', now });
    const t = target();
    expect(await c.check({ ...t, code: '000000' })).toBe('expired');
    await c.send(t);
    const code = sender.lastCode(t.phone);
    expect(await c.check({ ...t, code: '000000' })).toBe('ok');
    expect(await c.check({ ...t, code })).toBe('ok');
    if (code !== '123450') expect(await c.check({ ...t, code: '123450' })).toBe('wrong');
    clock += 300_000;
    expect(await c.check({ ...t, code: '000000' })).toBe('expired');
  });

  it('refuses a phone that is not a mainland mobile with 1024000002', async () => {
    const c = codes();
    for (const phone of ['12800000000', '1380000000', '+8613800000000', '138000000001', '']) {
      expect(await errorOf(c.send({ purpose: 'bank-login', phone }))).toMatchObject({ errcode: 1024000002 });
    }
  });
});

describe('the log SMS provider', () => {
  it('writes the message with its code to the log at info and keeps the last ones', async () => {
    const lines: Array<{ obj: any; msg: string }> = [];
    const sender = createLogSmsSender({ info: (obj, msg) => lines.push({ obj, msg }) });
    const codes = createSmsCodes({ store: createMemoryStore(100), sender, bypassCode: null, now: () => START });
    const phone = newPhone();
    await codes.send({ purpose: 'member-bind-phone', phone, sessionKey: 'tok' });
    expect(lines).toHaveLength(1);
    const { sms } = lines[0].obj;
    expect(lines[0].msg).toBe('SMS (log provider, not sent)');
    expect(sms).toMatchObject({ phone, template: 'verifyCode', params: { code: expect.stringMatching(/^\d{6}$/) } });
    expect(sms.text).toBe(`您的验证码是 ${sms.params.code}，5 分钟内有效，请勿告诉他人。`);
    expect(await codes.check({ purpose: 'member-bind-phone', phone, sessionKey: 'tok', code: sms.params.code })).toBe(
      'ok',
    );
    expect(sender.lastTo(phone)).toEqual(sms);
    expect(sender.lastTo(newPhone())).toBeNull();

    await sender.send({ phone, template: 'cardActivated', params: { cardName: '畅游年卡', cardNumber: 'TC0001' } });
    expect(lines[1].obj.sms.text).toBe('您的畅游年卡已开通，卡号 TC0001，可在小程序中查看和使用。');
    expect(sender.outbox).toHaveLength(2);
  });

  it('keeps only the last 50 messages', async () => {
    const sender = createLogSmsSender({ info: () => {} });
    const phones = Array.from({ length: 55 }, newPhone);
    for (const phone of phones) await sender.send({ phone, template: 'verifyCode', params: { code: '123456' } });
    expect(sender.outbox).toHaveLength(50);
    expect(sender.lastTo(phones[4])).toBeNull();
    expect(sender.lastTo(phones[5])).not.toBeNull();
  });

  it('refuses a number that is not a mainland mobile', async () => {
    const sender = createLogSmsSender({ info: () => {} });
    const err = await errorOf(sender.send({ phone: '10086', template: 'verifyCode', params: { code: '1' } }));
    expect(err).toMatchObject({
      errcode: 1024000002,
      message: 'the phone number is invalid: it must be an 11-digit mainland mobile number',
    });
  });
});
