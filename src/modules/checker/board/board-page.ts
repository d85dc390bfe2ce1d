import type { StaticPage } from '../../../platform/http/pages.js';
import { BOARD_CSS } from './board-css.js';
import { BOARD_JS } from './board-js.js';

/**
 * The live board (issue 39): a page the service serves at /board without a token. It logs a staff
 * member in through the manage channel's login (the captcha image, its SESSION cookie as the key),
 * keeps the token in sessionStorage, and draws each scenic spot's admissions against its capacity from
 * the admission stream, read with fetch so the token travels in the Authorization header, never in a
 * URL. Plain HTML, CSS and JavaScript kept in these modules (the bundle of `npm start` carries them,
 * docs/adr/0088-npm-start-runs-a-content-addressed-bundle.md), under a strict Content-Security-Policy:
 * nothing inline, nothing from elsewhere.
 */

const BOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Admissions board</title>
<link rel="stylesheet" href="/board/board.css">
<link rel="icon" href="/board/favicon.svg" type="image/svg+xml">
<script src="/board/board.js" defer></script>
</head>
<body>
<header>
  <h1>Admissions today</h1>
  <p id="status" role="status" aria-live="polite">Not connected</p>
  <button type="button" id="logout" hidden>Log out</button>
</header>
<main>
  <form id="login" hidden aria-labelledby="login-title">
    <h2 id="login-title">Staff login</h2>
    <p id="login-error" role="alert" class="error"></p>
    <label for="username">User name</label>
    <input id="username" name="username" autocomplete="username" required maxlength="64">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="128">
    <label for="code">Code in the picture</label>
    <div class="captcha">
      <input id="code" name="code" inputmode="numeric" autocomplete="off" required maxlength="16">
      <img id="captcha" alt="Captcha: four digits to type in" width="120" height="40">
      <button type="button" id="captcha-refresh">New picture</button>
    </div>
    <button type="submit">Log in</button>
  </form>
  <section id="board" hidden aria-labelledby="board-title">
    <h2 id="board-title" class="visually-hidden">Scenic spots</h2>
    <p id="empty">No scenic spot with a capacity or an admission today yet.</p>
    <ul id="spots"></ul>
    <p class="legend">Bars turn amber from 80% of a spot's daily capacity and red at 100%. Lines show entries per minute over the last hour.</p>
  </section>
</main>
</body>
</html>
`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const headers = { 'content-security-policy': CSP };

/** Three bars, so the browser finds an icon and asks for no /favicon.ico. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#0b5cad" d="M1 9h4v6H1zM6 5h4v10H6zM11 1h4v14h-4z"/></svg>';

export function boardPages(): StaticPage[] {
  return [
    { path: '/board', contentType: 'text/html; charset=utf-8', body: BOARD_HTML, headers },
    { path: '/board/board.js', contentType: 'text/javascript; charset=utf-8', body: BOARD_JS, headers },
    { path: '/board/board.css', contentType: 'text/css; charset=utf-8', body: BOARD_CSS, headers },
    { path: '/board/favicon.svg', contentType: 'image/svg+xml', body: FAVICON, headers },
  ];
}
