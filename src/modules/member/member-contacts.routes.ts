import { Type } from 'typebox';
import { defineRoute, type RouteSpec } from '../../platform/http/routes.js';
import { authed } from '../../platform/http/context.js';
import { IdRequest } from '../../platform/http/schemas.js';
import type { MemberContactsService } from './member-contacts.service.js';
import {
  MemberContactsAddRequest,
  MemberContactsListRequest,
  MemberContactsResponse,
  MemberContactsUpdateRequest,
} from './member-contacts.schemas.js';
import { FaceError } from '../../platform/face/face.errors.js';
import { MemberError } from './member.errors.js';

const tags = ['member contacts'];
const MODULE = '会员联系人';
const member = { kinds: ['member' as const] };
const P = '/memberContacts';

/** Spec A 4.2, channel P: the session member's own contacts; another member's contact id answers 404. */
export function memberContactsRoutes(svc: MemberContactsService): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      path: `${P}/addMemberContacts`,
      errcodes: [MemberError.FACE_ENROLLED_ELSEWHERE, MemberError.FACE_ENROLMENT_BUSY, FaceError],
      channels: ['mp'],
      auth: member,
      operation: [MODULE, '新增联系人'],
      summary:
        'Add a contact; a facePhoto is enrolled in the face service under the identity number first ' +
        '(a failed enrolment answers its face error, 1025000001-1025000003, and adds nothing)',
      tags,
      body: MemberContactsAddRequest,
      response: null,
      handler: (ctx, { body }) => svc.add(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/updateMemberContacts`,
      errcodes: [MemberError.FACE_ENROLLED_ELSEWHERE, MemberError.FACE_ENROLMENT_BUSY, FaceError],
      channels: ['mp'],
      auth: member,
      operation: [MODULE, '修改联系人'],
      summary:
        'Update a contact (facePhoto null keeps the stored photo, "" removes it; a given photo replaces the enrolled face)',
      tags,
      body: MemberContactsUpdateRequest,
      response: null,
      handler: (ctx, { body }) => svc.update(authed(ctx), body),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/deleteMemberContacts`,
      channels: ['mp'],
      auth: member,
      operation: [MODULE, '删除联系人'],
      summary: 'Delete a contact (logical delete)',
      tags,
      body: IdRequest,
      response: null,
      handler: (ctx, { body }) => svc.remove(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/getMemberContacts`,
      channels: ['mp'],
      auth: member,
      summary: "One of the member's contacts",
      tags,
      body: IdRequest,
      response: MemberContactsResponse,
      handler: (ctx, { body }) => svc.get(authed(ctx), body.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/queryMemberContactsList`,
      channels: ['mp'],
      auth: member,
      summary: "The member's contacts, newest first; keywords are found in name, phone and identity number",
      tags,
      body: MemberContactsListRequest,
      response: Type.Array(MemberContactsResponse),
      handler: (ctx, { body }) => svc.list(authed(ctx), body),
    }),
  ];
}
