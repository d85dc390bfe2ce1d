import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/platform/errors.js';
import { createSmsServices, createSmsSender } from '../../src/platform/sms/index.js';
import { createSmsNotifier } from '../../src/platform/sms/notify.js';
import { createTencentSmsSender, type TencentSmsOptions } from '../../src/platform/sms/tencent-sender.js';
import { createMemoryStore } from '../../src/platform/store/memory-store.js';
import {
  closedOrigin,
  FAKE_SECRET_ID,
  FAKE_SECRET_KEY,
  fakeTencentApi,
  type TencentAnswer,
  type TencentCall,
} from './fake-tencent-api.js';

/** SendSms as the real API answers it; the phone decides the outcome. */
function sendSms(call: TencentCall): TencentAnswer {
  if (call.action !== 'SendSms' || call.version !== '2021-01-11')
    return { error: { Code: 'InvalidAction', Message: 'unknown action' } };
  const phone: string = call.body.PhoneNumberSet?.[0] ?? '';
  const status = (Code: string, Message: string) => ({
    ok: {
      SendStatusSet: [
        {
          SerialNo: Code === 'Ok' ? '5000:1045710669157053657849499619' : '',
          PhoneNumber: phone,
          Fee: Code === 'Ok' ? 1 : 0,
          SessionContext: '',
          Code,
          Message,
          IsoCode: 'CN',
        },
      ],
    },
  });
  switch (phone.slice(-4)) {
    case '0001':
      return status('LimitExceeded.PhoneNumberDailyLimit', 'the number has reached the daily limit');
    case '0002':
      return status('FailedOperation.InsufficientBalanceInSmsPackage', 'insufficient balance in SMS package');
    case '0003':
      return { error: { Code: 'InvalidParameterValue.IncorrectPhoneNumber', Message: 'incorrect phone number' } };
    case '0004':
      return { error: { Code: 'FailedOperation.SignatureIncorrectOrUnapproved', Message: 'signature not approved' } };
    case '0005':
      return { raw: { status: 502, body: '<html>bad gateway</html>' } };
    case '0006':
      return { raw: { status: 200, body: 'not json' } };
    case '0007':
      return { hang: true };
    case '0008':
      return { ok: { SendStatusSet: [] } };
    default:
      return status('Ok', 'send success');
  }
}

describe('Tencent Cloud SMS (SendSms 2021-01-11) against a fake endpoint', () => {
  const api = fakeTencentApi(sendSms);
  let options: TencentSmsOptions;
  let gone: string;

  beforeAll(async () => {
    const origin = await api.start();
    gone = await closedOrigin();
    options = {
      secretId: FAKE_SECRET_ID,
      secretKey: FAKE_SECRET_KEY,
      region: 'ap-guangzhou',
      endpoint: origin,
      sdkAppId: '1400006666',
      signName: '畅游卡',
      templateIds: { verifyCode: '449739', cardActivated: '449740' },
      timeoutMs: 2000,
    };
  });
  afterAll(() => api.stop());

  const errorOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  };

  it('sends a signed SendSms with the number in E.164, the app, sign, template and parameters', async () => {
    const sender = createTencentSmsSender(options);
    await sender.send({ phone: '13800138000', template: 'verifyCode', params: { code: '402931' } });
    const call = api.calls.at(-1)!;
    expect(call).toMatchObject({ action: 'SendSms', version: '2021-01-11', region: 'ap-guangzhou' });
    expect(call.authorization).toMatch(
      new RegExp(`^TC3-HMAC-SHA256 Credential=${FAKE_SECRET_ID}/\\d{4}-\\d{2}-\\d{2}/`),
    );
    expect(call.body).toEqual({
      PhoneNumberSet: ['+8613800138000'],
      SmsSdkAppId: '1400006666',
      SignName: '畅游卡',
      TemplateId: '449739',
      TemplateParamSet: ['402931'],
    });

    await sender.send({
      phone: '13800138000',
      template: 'cardActivated',
      params: { cardNumber: 'TC0001', cardName: '畅游年卡' },
    });
    expect(api.calls.at(-1)!.body).toMatchObject({ TemplateId: '449740', TemplateParamSet: ['畅游年卡', 'TC0001'] });
  });

  it('reports a number Tencent refuses as 1024000003 and an invalid one as 1024000002', async () => {
    const sender = createTencentSmsSender(options);
    const refused = await errorOf(sender.send({ phone: '13800000001', template: 'verifyCode', params: { code: '1' } }));
    expect(refused).toMatchObject({
      errcode: 1024000003,
      message: 'no SMS can be sent to this phone number at the moment, please check it or try again later',
    });
    expect(String((refused.cause as Error).message)).toContain('LimitExceeded.PhoneNumberDailyLimit');
    const invalid = await errorOf(sender.send({ phone: '13800000003', template: 'verifyCode', params: { code: '1' } }));
    expect(invalid.errcode).toBe(1024000002);
  });

  it.each([
    ['a per-number failure of the account', '13800000002', 'InsufficientBalanceInSmsPackage'],
    ['an error response', '13800000004', 'SignatureIncorrectOrUnapproved'],
    ['a gateway error page', '13800000005', 'HTTP 502'],
    ['an answer that is not JSON', '13800000006', 'transport'],
    ['an answer without a send status', '13800000008', 'no send status'],
  ])('answers 1024000001 without internals for %s, logging the cause', async (_, phone, logged) => {
    const err = await errorOf(
      createTencentSmsSender(options).send({ phone, template: 'verifyCode', params: { code: '1' } }),
    );
    expect(err).toMatchObject({
      errcode: 1024000001,
      message: 'the SMS service is unavailable, please try again later',
      httpStatus: 200,
    });
    expect(String((err.cause as Error).message)).toContain(logged);
    expect(String((err.cause as Error).message)).not.toContain(FAKE_SECRET_KEY);
  });

  it('answers 1024000001 when the credentials are refused', async () => {
    const err = await errorOf(
      createTencentSmsSender({ ...options, secretKey: 'wrong-key' }).send({
        phone: '13800138000',
        template: 'verifyCode',
        params: { code: '1' },
      }),
    );
    expect(err.errcode).toBe(1024000001);
    expect(String((err.cause as Error).message)).toContain('AuthFailure.SignatureFailure');
  });

  it('answers 1024000001 when the endpoint cannot be reached or does not answer in time', async () => {
    const down = await errorOf(
      createTencentSmsSender({ ...options, endpoint: gone }).send({
        phone: '13800138000',
        template: 'verifyCode',
        params: { code: '1' },
      }),
    );
    expect(down).toMatchObject({
      errcode: 1024000001,
      message: 'the SMS service is unavailable, please try again later',
    });
    const started = Date.now();
    const slow = await errorOf(
      createTencentSmsSender({ ...options, timeoutMs: 100 }).send({
        phone: '13800000007',
        template: 'verifyCode',
        params: { code: '1' },
      }),
    );
    expect(slow.errcode).toBe(1024000001);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a template that has no Tencent template id configured', async () => {
    const sender = createTencentSmsSender({ ...options, templateIds: { verifyCode: '449739', cardActivated: null } });
    const err = await errorOf(
      sender.send({ phone: '13800138000', template: 'cardActivated', params: { cardName: 'x', cardNumber: 'y' } }),
    );
    expect(err.errcode).toBe(1024000001);
    expect(String((err.cause as Error).message)).toContain('cardActivated');
  });

  it('is what SMS_PROVIDER=tencent builds, and a code it fails to send is not kept', async () => {
    const config = loadConfig({
      SMS_PROVIDER: 'tencent',
      TENCENT_SECRET_ID: FAKE_SECRET_ID,
      TENCENT_SECRET_KEY: FAKE_SECRET_KEY,
      TENCENT_SMS_ENDPOINT: options.endpoint,
      TENCENT_SMS_SDK_APP_ID: '1400006666',
      TENCENT_SMS_SIGN_NAME: '畅游卡',
      TENCENT_SMS_TEMPLATE_ID: '449739',
      SMS_BYPASS_CODE: '000000',
    });
    const warnings: unknown[] = [];
    const sms = await createSmsServices(config, {
      store: createMemoryStore(100),
      logger: { info: () => {}, warn: (o) => warnings.push(o) },
    });
    expect(sms.sender.provider).toBe('tencent');
    await sms.codes.send({ purpose: 'bank-activate', phone: '13900139000' });
    const code = api.calls.at(-1)!.body.TemplateParamSet[0];
    expect(await sms.codes.check({ purpose: 'bank-activate', phone: '13900139000', code })).toBe('ok');

    expect((await errorOf(sms.codes.send({ purpose: 'bank-activate', phone: '13900000002' }))).errcode).toBe(
      1024000001,
    );
    expect(await sms.codes.check({ purpose: 'bank-activate', phone: '13900000002', code: '000000' })).toBe('expired');

    // a notice that cannot go out is logged with a masked number, never thrown
    await expect(
      sms.notify({ phone: '13900139000', template: 'cardActivated', params: { cardName: 'x', cardNumber: 'y' } }),
    ).resolves.toBeUndefined();
    await expect(
      sms.notify({ phone: '13900000004', template: 'verifyCode', params: { code: '1' } }),
    ).resolves.toBeUndefined();
    expect(warnings).toEqual([
      {
        err: expect.objectContaining({
          errcode: 1024000001,
          cause: expect.objectContaining({ message: expect.stringContaining('no Tencent SMS template id') }),
        }),
        template: 'cardActivated',
        phone: '139****9000',
      },
      { err: expect.objectContaining({ errcode: 1024000001 }), template: 'verifyCode', phone: '139****0004' },
    ]);
  });
});

describe('notification SMS', () => {
  it('sends through the sender and logs a failure instead of throwing', async () => {
    const sent: unknown[] = [];
    const warnings: Array<{ obj: any; msg: string }> = [];
    let fail = false;
    const notify = createSmsNotifier(
      {
        provider: 'log',
        send: async (m) => {
          if (fail) throw new AppError(1024000001, 'down');
          sent.push(m);
        },
      },
      { warn: (obj, msg) => warnings.push({ obj, msg }) },
    );
    await notify({
      phone: '13800138000',
      template: 'cardActivated',
      params: { cardName: '畅游年卡', cardNumber: 'TC1' },
    });
    expect(sent).toHaveLength(1);
    fail = true;
    await expect(
      notify({ phone: '13800138000', template: 'cardActivated', params: { cardName: '畅游年卡', cardNumber: 'TC1' } }),
    ).resolves.toBeUndefined();
    expect(warnings).toEqual([
      {
        obj: { err: expect.any(AppError), template: 'cardActivated', phone: '138****8000' },
        msg: 'notification SMS not sent',
      },
    ]);
  });

  it('the default provider is the log', async () => {
    const sender = await createSmsSender(loadConfig({}), { info: () => {} });
    expect(sender.provider).toBe('log');
  });
});
