import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createStaff } from '../helpers/platform-fixtures.js';

interface AreaNode {
  id: number;
  name: string;
  children?: AreaNode[];
}

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = (await t.loginStaff()).accessToken;
});
afterAll(() => t?.close());

const byIp = (ip: string | null, tok = token) =>
  t.post(`/manage-api/system/area/get-by-ip${ip === null ? '' : `?ip=${encodeURIComponent(ip)}`}`, {}, tok);

describe('/system/area/tree', () => {
  it('nests province → city → district as {id, name, children}; leaves carry no children', async () => {
    const res = await t.post('/manage-api/system/area/tree', {}, token);
    expect(res.body.errcode).toBe(0);
    const provinces = res.body.data as AreaNode[];
    const js = provinces.find((p) => p.id === 320000)!;
    expect(Object.keys(js).sort()).toEqual(['children', 'id', 'name']);
    expect(js.name).toBe('江苏省');
    const nj = js.children!.find((c) => c.id === 320100)!;
    expect(nj.name).toBe('南京市');
    const xw = nj.children!.find((d) => d.id === 320102)!;
    expect(xw).toEqual({ id: 320102, name: '玄武区' });
    // every node has exactly these keys, at most three levels deep
    const walk = (nodes: AreaNode[], depth: number) => {
      for (const n of nodes) {
        expect(Object.keys(n).every((k) => ['id', 'name', 'children'].includes(k))).toBe(true);
        if (n.children) {
          expect(n.children.length).toBeGreaterThan(0);
          expect(depth).toBeLessThan(3);
          walk(n.children, depth + 1);
        }
      }
    };
    walk(provinces, 1);
  });

  it('refuses a caller without a token (401) or without area:read (403)', async () => {
    expect((await t.post('/manage-api/system/area/tree', {})).body.errcode).toBe(401);
    const u = await createStaff(t.db, { permissions: ['region:read'] });
    const { accessToken } = await t.loginStaff(u.username, u.password);
    expect((await t.post('/manage-api/system/area/tree', {}, accessToken)).body.errcode).toBe(403);
  });
});

describe('/system/area/get-by-ip', () => {
  it('formats a Chinese address as "province city"', async () => {
    expect((await byIp('114.114.114.114')).body).toEqual({ errcode: 0, errmsg: 'success', data: '江苏省 南京市' });
  });

  it('answers 未知 for a private or loopback address', async () => {
    for (const ip of ['192.168.1.10', '10.0.0.1', '127.0.0.1']) expect((await byIp(ip)).body.data).toBe('未知');
  });

  it('answers 未知 for a link-local address with a zone id, and for other addresses no region holds', async () => {
    for (const ip of ['fe80::1%eth0', 'fe80::1%25eth0', 'fe80::abcd%1', 'fe80::1', '::1', '::', '2001:db8::1', '1::']) {
      const res = await byIp(ip);
      expect(res.status, ip).toBe(200);
      expect(res.body, ip).toEqual({ errcode: 0, errmsg: 'success', data: '未知' });
    }
  });

  it('places an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    expect((await byIp('::ffff:114.114.114.114')).body.data).toBe('江苏省 南京市');
  });

  it('refuses a malformed or missing address with 400', async () => {
    expect((await byIp('999.1.1.1')).body.errcode).toBe(400);
    expect((await byIp('not-an-ip')).body).toEqual({ errcode: 400, errmsg: 'ip is invalid: must be an IPv4 or IPv6 address' });
    expect((await byIp(null)).body).toEqual({ errcode: 400, errmsg: 'ip is required' });
  });

  it('refuses a caller without a token', async () => {
    expect((await byIp('114.114.114.114', '')).body.errcode).toBe(401);
  });
});
