import type { Channel } from '../http/context.js';
import type { RouteSpec } from '../http/routes.js';

const token = (who: string, login: string) => ({
  type: 'http',
  scheme: 'bearer',
  description: `The accessToken of ${who} (${login}); sent as Authorization: Bearer <token>, the Bearer prefix optional. A token works only on its own channel.`,
});

const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });

/**
 * One scheme per channel's token, and the open channel's four signature headers, which a signed call
 * sends together (one security requirement holding all four).
 */
export const SECURITY_SCHEMES = {
  appToken: token('a verifier', 'POST /app-api/auth/checkerLogin'),
  manageToken: token('a staff user', 'POST /manage-api/auth/login'),
  bankToken: token('bank-channel staff or a card holder', 'POST /manage-api/bank/bankLogin or bankUserLogin'),
  mpToken: token('a member', 'POST /mp-api/auth/oauth2'),
  openAppKey: header('X-App-Key', "the open app's key"),
  openTimestamp: header(
    'X-Timestamp',
    'the time of the call in milliseconds since the epoch; within 5 minutes of the server clock',
  ),
  openNonce: header('X-Nonce', 'a random string, never sent twice within 10 minutes'),
  openSign: header(
    'X-Sign',
    "hex HMAC-SHA256 with the app's secret of METHOD\\nPATH\\nX-Timestamp\\nX-Nonce\\nsha256hex(body); PATH with the channel prefix, without the query string",
  ),
} as const;

const SIGNED = { openAppKey: [], openTimestamp: [], openNonce: [], openSign: [] };

export function securityOf(route: RouteSpec, channel: Channel): Array<Record<string, string[]>> {
  if (route.auth === 'public') return [];
  if (route.auth === 'open') return [SIGNED, { manageToken: [] }];
  const out: Array<Record<string, string[]>> = [];
  for (const kind of route.auth.kinds) {
    const scheme =
      kind === 'admin'
        ? channel === 'open'
          ? null
          : 'manageToken'
        : kind === 'checker'
          ? 'appToken'
          : kind === 'member'
            ? 'mpToken'
            : kind === 'bank'
              ? 'bankToken'
              : null;
    if (scheme && !out.some((r) => scheme in r)) out.push({ [scheme]: [] });
  }
  return out;
}
