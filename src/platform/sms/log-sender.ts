import { phoneInvalid } from './sms.errors.js';
import { MAINLAND_MOBILE, renderSms, type SmsMessage, type SmsSender } from './sms-sender.js';

export interface SmsLogger {
  info(obj: object, msg: string): void;
}

export interface LoggedSms {
  phone: string;
  template: SmsMessage['template'];
  params: Record<string, string>;
  text: string;
}

const OUTBOX_SIZE = 50;

/**
 * Development provider: the message, code included, goes to the log at info, which is how a developer
 * reads a code locally. The last messages are also kept in memory (`outbox`) for tests that build the
 * app with logging off.
 */
export function createLogSmsSender(
  logger: SmsLogger,
): SmsSender & { readonly outbox: readonly LoggedSms[]; lastTo(phone: string): LoggedSms | null } {
  const outbox: LoggedSms[] = [];
  return {
    provider: 'log',
    outbox,
    async send(message) {
      if (!MAINLAND_MOBILE.test(message.phone)) throw phoneInvalid();
      const sms: LoggedSms = {
        phone: message.phone,
        template: message.template,
        params: { ...message.params },
        text: renderSms(message),
      };
      outbox.push(sms);
      if (outbox.length > OUTBOX_SIZE) outbox.shift();
      logger.info({ sms }, 'SMS (log provider, not sent)');
    },
    lastTo(phone) {
      for (let i = outbox.length - 1; i >= 0; i--) if (outbox[i].phone === phone) return outbox[i];
      return null;
    },
  };
}
