import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffSession, type StaffSession } from '../helpers/staff.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkIn, createSpot, heldCard, type Spot } from './checkin-fixtures.js';

/**
 * The live board (/board, issue 39) in headless Chromium: Debian's `chromium` driven by
 * playwright-core. The page logs in through the staff login and its captcha (the code read from the
 * store, as a person reads the picture), then a check-in made through the API shows on the page.
 * Without chromium the test is skipped and says so; BOARD_BROWSER_TEST=1 (.ci/run) makes a missing
 * chromium a failure.
 */

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const REQUIRED = process.env.BOARD_BROWSER_TEST === '1';
const PRESENT = existsSync(CHROMIUM);

describe('the board page without a browser', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('is served without a token, under a strict Content-Security-Policy, with its script and style sheet', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/board' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).toContain('<script src="/board/board.js" defer></script>');
    expect(page.body).not.toMatch(/<script>|<style>| style="|https?:\/\//);
    for (const [url, type] of [
      ['/board/board.js', 'text/javascript; charset=utf-8'],
      ['/board/board.css', 'text/css; charset=utf-8'],
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe(type);
    }
  });
});

if (!PRESENT && !REQUIRED) {
  describe('the board in headless Chromium', () => {
    it.skip(`skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium; BOARD_BROWSER_TEST=1 requires it)`, () => {});
  });
} else {
  describe('the board in headless Chromium', () => {
    let t: TestApp;
    let baseUrl: string;
    let spot: Spot;
    let staff: StaffSession;
    let userDataDir: string;

    beforeAll(async () => {
      if (!PRESENT) throw new Error(`BOARD_BROWSER_TEST=1 but there is no chromium at ${CHROMIUM}`);
      t = await createTestApp();
      baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
      spot = await createSpot(t, { dailyLimit: 10 });
      await t.db
        .insertInto('spot_capacity')
        .values({
          sku_id: spot.skuId,
          merchant_id: spot.merchantId,
          shop_id: spot.shopId,
          daily_capacity: 2,
          created_by: null,
          updated_by: null,
        })
        .execute();
      staff = await staffSession(t, { kind: 'merchant', merchantId: spot.merchantId, permissions: ['checker:read'] });
      userDataDir = mkdtempSync(path.join(os.tmpdir(), 'tc-board-chromium-'));
    });
    afterAll(async () => {
      await t?.close();
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    });

    it('logs in through the page and shows a check-in made through the API', { timeout: 60_000 }, async () => {
      const { chromium } = await import('playwright-core');
      const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      const problems: string[] = [];
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        page.on('pageerror', (err) => problems.push(String(err)));
        const captcha = page.waitForResponse((r) => r.url().includes('/manage-api/auth/getRandomCodeImg'));
        await page.goto(`${baseUrl}/board`);
        expect((await captcha).status()).toBe(200);
        const key = (await context.cookies(baseUrl)).find((c) => c.name === 'SESSION')?.value;
        expect(key).toBeTruthy();
        const code = await t.store.get(`captcha:${key}`);
        await page.getByLabel('User name').fill(staff.username);
        await page.getByLabel('Password').fill(staff.password);
        await page.getByLabel('Code in the picture').fill(String(code));
        await page.getByRole('button', { name: 'Log in' }).click();

        const figure = page.locator(`li[data-sku-id="${spot.skuId}"] .figure`);
        await figure.filter({ hasText: /^0 \/ 2$/ }).waitFor({ timeout: 15_000 });
        expect(await page.evaluate(() => sessionStorage.getItem('board.accessToken'))).toBeTruthy();

        const card = await heldCard(t.db, spot.modelId);
        const res = await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: card.cardNumber });
        expect(res.body.errcode, res.body.errmsg).toBe(0);
        await figure.filter({ hasText: /^1 \/ 2$/ }).waitFor({ timeout: 15_000 });
        const item = page.locator(`li[data-sku-id="${spot.skuId}"]`);
        expect(await item.getAttribute('class')).toBe('spot');

        const second = await heldCard(t.db, spot.modelId);
        await checkIn(t, spot.checker.token, { skuId: spot.skuId, cardNumber: second.cardNumber });
        await figure.filter({ hasText: /^2 \/ 2/ }).waitFor({ timeout: 15_000 });
        await page.locator(`li[data-sku-id="${spot.skuId}"].over`).waitFor({ timeout: 5_000 });
        expect(await item.locator('[role=meter]').getAttribute('aria-valuetext')).toBe('2 of 2 admitted');
        expect(await page.locator('#status').textContent()).toMatch(/^Live/);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
