/** Mainland China mobile numbers, the only ones this service texts. */
export const MAINLAND_MOBILE = /^1[3-9]\d{9}$/;

/**
 * Every message the service sends. `params` name the template's variables in the order the provider's
 * template numbers them ({1}, {2} …); `text` is how the log provider renders the message.
 */
export const SMS_TEMPLATES = {
  verifyCode: { params: ['code'], text: '您的验证码是 {code}，5 分钟内有效，请勿告诉他人。' },
  cardActivated: {
    params: ['cardName', 'cardNumber'],
    text: '您的{cardName}已开通，卡号 {cardNumber}，可在小程序中查看和使用。',
  },
} as const satisfies Record<string, { params: readonly string[]; text: string }>;

export type SmsTemplate = keyof typeof SMS_TEMPLATES;
export type SmsParams<T extends SmsTemplate> = { [K in (typeof SMS_TEMPLATES)[T]['params'][number]]: string };

/** One message: a template and its parameters, to one mainland mobile number. */
export type SmsMessage = { [T in SmsTemplate]: { phone: string; template: T; params: SmsParams<T> } }[SmsTemplate];

export interface SmsSender {
  readonly provider: 'log' | 'tencent';
  /**
   * Resolves once the provider accepted the message. Throws an AppError: 1_024_000_002 for a number
   * that is not a mainland mobile, 1_024_000_003 when the provider refuses this number (blacklist, its
   * own frequency limits), 1_024_000_001 when the provider cannot be used (the cause is logged).
   */
  send(message: SmsMessage): Promise<void>;
}

/** The template's parameters in the provider's order. */
export function orderedParams(message: SmsMessage): string[] {
  const params = message.params as Record<string, string>;
  return SMS_TEMPLATES[message.template].params.map((name) => params[name] ?? '');
}

export function renderSms(message: SmsMessage): string {
  const params = message.params as Record<string, string>;
  return SMS_TEMPLATES[message.template].text.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');
}

/** 138****0000: enough to tell numbers apart in a log line without recording whose they are. */
export function maskPhone(phone: string): string {
  return phone.length === 11 ? `${phone.slice(0, 3)}****${phone.slice(7)}` : '***';
}
