/** The mini-program login exchange (WeChat `jscode2session`): a login code for the user's open id. */
export interface MiniProgramIdentity {
  openId: string;
  unionId: string | null;
}

export interface MiniProgramLogin {
  readonly name: string;
  exchangeCode(code: string): Promise<MiniProgramIdentity>;
}
