import type { MiniProgramIdentity, MiniProgramLogin } from './mini-program.js';

export const WECHAT_API_BASE = 'https://api.weixin.qq.com';
const DEFAULT_TIMEOUT_MS = 5000;
const MAX_ID_LENGTH = 64;

/**
 * Why a code exchange failed. `rejected`: WeChat answered and refused the code (the message is
 * WeChat's errmsg, safe to show); `unavailable`: WeChat could not be asked or answered nonsense
 * (the message is for the log only, it may name hosts).
 */
export class MiniProgramLoginError extends Error {
  constructor(
    readonly reason: 'rejected' | 'unavailable',
    message: string,
    readonly wechatErrcode: number | null = null,
  ) {
    super(message);
    this.name = 'MiniProgramLoginError';
  }
}

export interface WechatLoginOptions {
  /** WECHAT_API_BASE; null → the public WeChat API */
  baseUrl: string | null;
  appId: string;
  appSecret: string;
  timeoutMs?: number;
}

interface Code2SessionAnswer {
  openid?: unknown;
  session_key?: unknown;
  unionid?: unknown;
  errcode?: unknown;
  errmsg?: unknown;
}

/** WeChat `jscode2session`: the login code of `wx.login()` for the user's open id. */
export function createWechatMiniProgramLogin(opts: WechatLoginOptions): MiniProgramLogin {
  const base = (opts.baseUrl ?? WECHAT_API_BASE).replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return {
    name: 'wechat',
    async exchangeCode(code: string): Promise<MiniProgramIdentity> {
      const query = new URLSearchParams({
        appid: opts.appId,
        secret: opts.appSecret,
        js_code: code,
        grant_type: 'authorization_code',
      });
      let answer: Code2SessionAnswer;
      try {
        // The timeout covers reading the body as well: the same signal aborts it.
        const res = await fetch(`${base}/sns/jscode2session?${query}`, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        // WeChat answers JSON labelled text/plain, so parse whatever the content type says.
        answer = JSON.parse(await res.text()) as Code2SessionAnswer;
        if (answer === null || typeof answer !== 'object') throw new Error('the answer is not a JSON object');
      } catch (err) {
        throw new MiniProgramLoginError('unavailable', `jscode2session failed: ${(err as Error).message}`);
      }
      const errcode = typeof answer.errcode === 'number' ? answer.errcode : 0;
      const errmsg = typeof answer.errmsg === 'string' && answer.errmsg ? answer.errmsg : 'no open id in the answer';
      if (errcode !== 0) throw new MiniProgramLoginError('rejected', errmsg, errcode);
      if (typeof answer.openid !== 'string' || answer.openid === '')
        throw new MiniProgramLoginError('rejected', errmsg);
      // WeChat ids are 28 characters; anything far longer is not WeChat and would not fit the member row.
      if (answer.openid.length > MAX_ID_LENGTH)
        throw new MiniProgramLoginError('unavailable', 'jscode2session answered an open id of unexpected length');
      const unionId =
        typeof answer.unionid === 'string' && answer.unionid && answer.unionid.length <= MAX_ID_LENGTH
          ? answer.unionid
          : null;
      return { openId: answer.openid, unionId };
    },
  };
}
