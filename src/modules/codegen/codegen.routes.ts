import { Type } from 'typebox';
import { authed } from '../../platform/http/context.js';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { IdRequest, PageInfo } from '../../platform/http/schemas.js';
import {
  CodegenColumnAddRequest,
  CodegenColumnListRequest,
  CodegenColumnPageRequest,
  CodegenColumnResponse,
  CodegenColumnUpdateRequest,
} from './codegen.schemas.js';
import type { CodegenService } from './codegen.service.js';

const tags = ['codegen'];
const staff = { kinds: ['admin' as const] };
const MODULE = '代码生成';
const READ = 'codegen:read';
const WRITE = 'codegen:write';
const P = '/infra/codegen';

/** Spec B 4.5, channel M; the update is ours (the spec implies it). */
export function codegenRoutes(svc: CodegenService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/addCodegenColumn`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '新增字段定义'],
      summary: 'Add a column definition of a generated table',
      tags,
      body: CodegenColumnAddRequest,
      response: CodegenColumnResponse,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/updateCodegenColumn`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '修改字段定义'],
      summary: 'Replace a column definition (every field as in add)',
      tags,
      body: CodegenColumnUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/deleteCodegenColumn`,
      channels: ['manage'],
      auth: staff,
      permission: WRITE,
      operation: [MODULE, '删除字段定义'],
      summary: 'Delete a column definition',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getCodegenColumn`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'One column definition',
      tags,
      body: IdRequest,
      response: CodegenColumnResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryCodegenColumnList`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'Column definitions matching the filters, by table and position',
      tags,
      body: CodegenColumnListRequest,
      response: Type.Array(CodegenColumnResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryCodegenColumnPage`,
      channels: ['manage'],
      auth: staff,
      permission: READ,
      summary: 'A page of column definitions matching the filters, by table and position',
      tags,
      body: CodegenColumnPageRequest,
      response: PageInfo(CodegenColumnResponse),
      handler: (ctx, { body }) => svc.page(authed(ctx), body),
    }),
  ];
}
