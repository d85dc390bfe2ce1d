import type { Config } from '../../config.js';
import { createLocalMiniProgramLogin } from './local-provider.js';
import type { MiniProgramLogin } from './mini-program.js';
import { createWechatMiniProgramLogin } from './wechat-provider.js';

export type { MiniProgramIdentity, MiniProgramLogin } from './mini-program.js';
export { MiniProgramLoginError } from './wechat-provider.js';

/** The mini-program login provider that MP_LOGIN_PROVIDER names (config has checked its settings). */
export function createMiniProgramLogin(config: Pick<Config, 'mpLoginProvider' | 'wechat'>): MiniProgramLogin {
  if (config.mpLoginProvider === 'local') return createLocalMiniProgramLogin();
  const { baseUrl, appId, appSecret } = config.wechat;
  if (!appId || !appSecret) throw new Error('MP_LOGIN_PROVIDER=wechat needs WECHAT_APP_ID and WECHAT_APP_SECRET');
  return createWechatMiniProgramLogin({ baseUrl, appId, appSecret });
}
