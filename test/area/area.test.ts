import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

interface AreaNode {
  id: number;
  name: string;
  children: AreaNode[];
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
  it("nests province → city → district as {id, name, children}; a leaf carries children: [] as the region tree's leaves do", async () => {
    const res = await t.post('/manage-api/system/area/tree', {}, token);
    expect(res.body.errcode).toBe(0);
    const provinces = res.body.data as AreaNode[];
    const js = provinces.find((p) => p.id === 320000)!;
    expect(Object.keys(js).sort()).toEqual(['children', 'id', 'name']);
    expect(js.name).toBe('江苏省');
    const nj = js.children.find((c) => c.id === 320100)!;
    expect(nj.name).toBe('南京市');
    const xw = nj.children.find((d) => d.id === 320102)!;
    expect(xw).toEqual({ id: 320102, name: '玄武区', children: [] });
    expect(res.raw.body).toContain('{"id":320102,"name":"玄武区","children":[]}');
    // every node has exactly these keys, children always a list, at most three levels deep
    let leaves = 0;
    const walk = (nodes: AreaNode[], depth: number) => {
      for (const n of nodes) {
        expect(depth).toBeLessThanOrEqual(3);
        expect(Object.keys(n).sort()).toEqual(['children', 'id', 'name']);
        expect(Array.isArray(n.children)).toBe(true);
        if (n.children.length === 0) leaves++;
        walk(n.children, depth + 1);
      }
    };
    walk(provinces, 1);
    expect(leaves).toBeGreaterThan(1000);

    // The region tree's leaves have the same empty list.
    const regions = await t.post('/manage-api/region/queryRegionTree', {}, token);
    expect(regions.body.errcode, regions.body.errmsg).toBe(0);
    const findNode = (
      nodes: Array<{ id: number; children: unknown[] }>,
      id: number,
    ): { id: number; children: unknown[] } | undefined => {
      for (const n of nodes) {
        if (n.id === id) return n;
        const hit = findNode(n.children as Array<{ id: number; children: unknown[] }>, id);
        if (hit) return hit;
      }
      return undefined;
    };
    expect(findNode(regions.body.data, 320102)?.children).toEqual([]);
  });

  it('says in the OpenAPI document that children is required', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const data =
      doc.paths['/manage-api/system/area/tree'].post.responses['200'].content['application/json'].schema.oneOf[0]
        .properties.data;
    const ref: string = data.items.$ref;
    const node = ref.split('/').reduce((at: Record<string, any>, key: string) => (key === '#' ? doc : at[key]), doc);
    expect(node.required).toEqual(['id', 'name', 'children']);
    expect(node.properties.children.items.$ref).toBe(ref);
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
    expect((await byIp('not-an-ip')).body).toEqual({
      errcode: 400,
      errmsg: 'ip is invalid: must be an IPv4 or IPv6 address',
    });
    expect((await byIp(null)).body).toEqual({ errcode: 400, errmsg: 'ip is required' });
  });

  it('refuses a caller without a token', async () => {
    expect((await byIp('114.114.114.114', '')).body.errcode).toBe(401);
  });
});
