import type { Config } from '../../config.js';
import type { Store } from '../store/store.js';
import { createLogSmsSender, type SmsLogger } from './log-sender.js';
import { createSmsNotifier, type SmsNotifyLogger } from './notify.js';
import { createSmsCodes, type SmsCodes } from './sms-codes.js';
import type { SmsMessage, SmsSender } from './sms-sender.js';

export { SmsCodeError, SmsError, phoneInvalid, smsCodeExpired, smsCodeWrong, smsUnavailable } from './sms.errors.js';
export {
  MAINLAND_MOBILE,
  SMS_TEMPLATES,
  maskPhone,
  type SmsMessage,
  type SmsSender,
  type SmsTemplate,
} from './sms-sender.js';
export {
  SMS_CODE_LIMITS,
  SMS_CODE_PURPOSES,
  type SmsCodeCheck,
  type SmsCodePurpose,
  type SmsCodes,
  type SmsCodeTarget,
} from './sms-codes.js';

/** What modules take from `deps.sms`. */
export interface SmsServices {
  sender: SmsSender;
  codes: SmsCodes;
  /** Sends a notification after commit; failures are logged, never thrown (see notify.ts). */
  notify(message: SmsMessage): Promise<void>;
}

type SmsConfig = Pick<Config, 'smsProvider' | 'smsBypassCode' | 'tencent' | 'tencentSms'>;

/** The sender SMS_PROVIDER names (config has checked its settings). Tencent's SDK loads only when chosen. */
export async function createSmsSender(config: SmsConfig, logger: SmsLogger): Promise<SmsSender> {
  if (config.smsProvider === 'log') return createLogSmsSender(logger);
  const { secretId, secretKey, region } = config.tencent;
  const { endpoint, sdkAppId, signName, templateId, activationTemplateId } = config.tencentSms;
  if (!secretId || !secretKey || !sdkAppId || !signName || !templateId) {
    throw new Error(
      'SMS_PROVIDER=tencent needs TENCENT_SECRET_ID, TENCENT_SECRET_KEY, TENCENT_SMS_SDK_APP_ID, TENCENT_SMS_SIGN_NAME and TENCENT_SMS_TEMPLATE_ID',
    );
  }
  const { createTencentSmsSender } = await import('./tencent-sender.js');
  return createTencentSmsSender({
    secretId,
    secretKey,
    region,
    endpoint,
    sdkAppId,
    signName,
    templateIds: { verifyCode: templateId, cardActivated: activationTemplateId },
  });
}

export async function createSmsServices(
  config: SmsConfig,
  deps: { store: Store; logger: SmsLogger & SmsNotifyLogger; sender?: SmsSender },
): Promise<SmsServices> {
  const sender = deps.sender ?? (await createSmsSender(config, deps.logger));
  return {
    sender,
    codes: createSmsCodes({ store: deps.store, sender, bypassCode: config.smsBypassCode }),
    notify: createSmsNotifier(sender, deps.logger),
  };
}
