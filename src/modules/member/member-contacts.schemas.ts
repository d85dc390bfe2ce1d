import { Type, type Static } from 'typebox';
import { Id, Keywords, MobilePhone, Nullable, Opt } from '../../platform/http/schemas.js';

/** Spec A 2.4 MemberContacts: a person a member travels with (and checks in by face). */
export const MemberContactsResponse = Type.Object(
  {
    id: Type.Integer(),
    memberId: Type.String({ description: 'the owning member id (a string, as the spec has it)' }),
    name: Type.String(),
    idType: Nullable(Type.String({ description: 'IdType code "1"-"9"' })),
    identityNo: Type.String(),
    phone: Type.String(),
    facePhoto: Nullable(Type.String()),
    isDeleted: Type.Boolean(),
    createdBy: Nullable(Type.Integer()),
    createdTime: Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' })),
  },
  { title: 'MemberContactsResponse' },
);
export type MemberContacts = Static<typeof MemberContactsResponse>;

const Name = Type.String({ minLength: 1, maxLength: 60, description: "the contact's name as on the document" });
const IdTypeCode = Type.Integer({
  minimum: 1,
  maximum: 9,
  description: 'IdType 1-9 (the code as a number or a string); 1 resident ID card when absent',
});
const IdentityNo = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'checked against idType: an ID card number needs a real birth date and the right check digit',
});
const FacePhoto = Type.String({
  minLength: 0,
  maxLength: 1024,
  pattern: '^$|^https?://\\S+$',
  description: 'an http(s) URL of a JPEG or PNG showing the face (uploaded through /oss); "" for none',
  examples: ['https://api.example.com/open-api/oss/file?fileKey=face.jpg'],
});

export const MemberContactsAddRequest = Type.Object(
  {
    name: Name,
    phone: MobilePhone,
    idType: Opt(IdTypeCode),
    identityNo: IdentityNo,
    facePhoto: Opt(FacePhoto),
  },
  { title: 'MemberContactsAddRequest' },
);
export type MemberContactsAdd = Static<typeof MemberContactsAddRequest>;

/** facePhoto is required by the spec; null keeps the stored photo and "" removes it. */
export const MemberContactsUpdateRequest = Type.Object(
  {
    id: Id,
    name: Name,
    phone: MobilePhone,
    idType: Opt(IdTypeCode),
    identityNo: IdentityNo,
    facePhoto: Type.Unsafe<string | null>({ ...FacePhoto, type: ['string', 'null'] }),
  },
  { title: 'MemberContactsUpdateRequest' },
);
export type MemberContactsUpdate = Static<typeof MemberContactsUpdateRequest>;

export const MemberContactsListRequest = Type.Object(
  {
    keywords: Opt(Keywords),
  },
  { title: 'MemberContactsListRequest' },
);
export type MemberContactsListRequest = Static<typeof MemberContactsListRequest>;
