import type { FastifyInstance } from 'fastify';

/**
 * A page or asset a module serves outside the API channels (the live board at /board): fixed bytes,
 * no token to load it (what it shows comes from the API, with the token the page keeps), and headers
 * of its own, such as its Content-Security-Policy.
 */
export interface StaticPage {
  path: string;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** Mounts the pages as GET routes, left out of the OpenAPI document (they are not operations). */
export function registerPages(app: FastifyInstance, pages: StaticPage[]): void {
  for (const page of pages) {
    const body = Buffer.from(page.body, 'utf8');
    app.get(page.path, { schema: { hide: true } }, (_request, reply) => {
      reply.type(page.contentType).header('cache-control', 'no-cache');
      for (const [k, v] of Object.entries(page.headers ?? {})) reply.header(k, v);
      return reply.send(body);
    });
  }
}
