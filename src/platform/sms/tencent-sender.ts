import { sms as tencentSms } from 'tencentcloud-sdk-nodejs-sms';
import {
  TENCENT_TIMEOUT_MS,
  TencentApiError,
  tencentErrorCode,
  tencentProfile,
  type TencentAccount,
} from '../tencent/cloud-api.js';
import { phoneInvalid, smsRefusedForPhone, smsUnavailable } from './sms.errors.js';
import { MAINLAND_MOBILE, orderedParams, type SmsSender, type SmsTemplate } from './sms-sender.js';

export interface TencentSmsOptions extends TencentAccount {
  /** TENCENT_SMS_ENDPOINT: a host or an http(s) origin */
  endpoint: string;
  sdkAppId: string;
  signName: string;
  /** Tencent template id of each template; a template without one cannot be sent. */
  templateIds: Record<SmsTemplate, string | null>;
  timeoutMs?: number;
}

// Tencent refuses these for the number itself; retrying elsewhere will not help, so they are not "unavailable".
const REFUSED_FOR_PHONE =
  /^(LimitExceeded\.PhoneNumber|FailedOperation\.PhoneNumberInBlacklist|FailedOperation\.PhoneNumberParseFail|UnsupportedOperation\.(ChineseMainlandTemplateToGlobalPhone|UnsupportedRegion))/;
const PHONE_INVALID = /^InvalidParameterValue\.IncorrectPhoneNumber/;

function failure(code: string | null, cause: TencentApiError): Error {
  if (code && PHONE_INVALID.test(code)) return phoneInvalid();
  if (code && REFUSED_FOR_PHONE.test(code)) return smsRefusedForPhone(cause);
  return smsUnavailable(cause);
}

interface SendStatus {
  Code?: string;
  Message?: string;
  PhoneNumber?: string;
}

/** Tencent Cloud SMS, SendSms of API version 2021-01-11, through the official SDK. */
export function createTencentSmsSender(opts: TencentSmsOptions): SmsSender {
  const { profile } = tencentProfile(opts.endpoint, opts.timeoutMs ?? TENCENT_TIMEOUT_MS);
  const client = new tencentSms.v20210111.Client({
    credential: { secretId: opts.secretId, secretKey: opts.secretKey },
    region: opts.region,
    profile,
  });

  return {
    provider: 'tencent',
    async send(message) {
      if (!MAINLAND_MOBILE.test(message.phone)) throw phoneInvalid();
      const templateId = opts.templateIds[message.template];
      if (!templateId)
        throw smsUnavailable(new Error(`no Tencent SMS template id is configured for "${message.template}"`));
      let answer: { SendStatusSet?: SendStatus[]; RequestId?: string };
      try {
        answer = await client.SendSms({
          PhoneNumberSet: [`+86${message.phone}`],
          SmsSdkAppId: opts.sdkAppId,
          SignName: opts.signName,
          TemplateId: templateId,
          TemplateParamSet: orderedParams(message),
        });
      } catch (err) {
        throw failure(tencentErrorCode(err), TencentApiError.from('SendSms', err));
      }
      const status = answer?.SendStatusSet?.[0];
      if (status?.Code === 'Ok') return;
      const code = typeof status?.Code === 'string' ? status.Code : null;
      const cause = new TencentApiError(
        'SendSms',
        code,
        status?.Message ?? 'no send status in the answer',
        answer?.RequestId ?? null,
      );
      throw failure(code, cause);
    },
  };
}
