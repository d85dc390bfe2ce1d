import { maskPhone, type SmsMessage, type SmsSender } from './sms-sender.js';

export interface SmsNotifyLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Notification SMS (card activated …). Call it after the transaction that made the news has
 * committed, never inside it: a rolled-back change must not be announced, and a slow provider must
 * not hold a transaction open. It never throws: the change already happened, so a failed notice is
 * logged for the operators instead of failing the request. Await it, or `void` it to answer first.
 */
export function createSmsNotifier(sender: SmsSender, logger: SmsNotifyLogger): (message: SmsMessage) => Promise<void> {
  return async (message) => {
    try {
      await sender.send(message);
    } catch (err) {
      logger.warn({ err, template: message.template, phone: maskPhone(message.phone) }, 'notification SMS not sent');
    }
  };
}
