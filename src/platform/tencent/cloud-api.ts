import type { ClientProfile } from 'tencentcloud-sdk-nodejs-common';

export interface TencentAccount {
  secretId: string;
  secretKey: string;
  region: string;
}

export const TENCENT_TIMEOUT_MS = 5000;

/**
 * The SDK's profile for an endpoint given as a host (`iai.tencentcloudapi.com`, https) or an http(s)
 * origin (a proxy, a test server). The SDK names the signed service after the host's first label.
 */
export function tencentProfile(endpoint: string, timeoutMs: number): { host: string; profile: ClientProfile } {
  const origin = /^(https?):\/\/([^/]+)\/?$/.exec(endpoint);
  const host = origin ? origin[2] : endpoint;
  return {
    host,
    profile: {
      signMethod: 'TC3-HMAC-SHA256',
      httpProfile: {
        endpoint: host,
        protocol: origin ? `${origin[1]}://` : 'https://',
        reqMethod: 'POST',
        reqTimeout: timeoutMs / 1000,
      },
    },
  };
}

/** Tencent's error code (`InvalidParameterValue.NoFaceInPhoto` …) when the API answered one; null otherwise. */
export function tencentErrorCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : null;
}

/** A failure to log: Tencent's code, message and request id, never the credentials. */
export class TencentApiError extends Error {
  constructor(
    action: string,
    readonly tencentCode: string | null,
    message: string,
    readonly requestId: string | null = null,
  ) {
    super(`${action}: ${tencentCode ?? 'transport'}: ${message}${requestId ? ` (request ${requestId})` : ''}`);
    this.name = 'TencentApiError';
  }

  static from(action: string, err: unknown): TencentApiError {
    const e = (err ?? {}) as { message?: unknown; requestId?: unknown; httpCode?: unknown };
    const message = typeof e.message === 'string' && e.message ? e.message : String(err);
    const status = typeof e.httpCode === 'number' ? ` (HTTP ${e.httpCode})` : '';
    return new TencentApiError(
      action,
      tencentErrorCode(err),
      message + status,
      typeof e.requestId === 'string' && e.requestId ? e.requestId : null,
    );
  }
}
