import { createHash } from 'node:crypto';
import type { MiniProgramLogin } from './mini-program.js';

/**
 * Development stand-in for WeChat: the same login code always yields the same open id, so a
 * developer (or the demo member, code `demo-member-1`) can log in without a WeChat app.
 */
export function localOpenId(code: string): string {
  return 'local_' + createHash('sha256').update(`tc-local-mp:${code}`).digest('hex').slice(0, 28);
}

export function createLocalMiniProgramLogin(): MiniProgramLogin {
  return {
    name: 'local',
    async exchangeCode(code: string) {
      return { openId: localOpenId(code), unionId: null };
    },
  };
}
