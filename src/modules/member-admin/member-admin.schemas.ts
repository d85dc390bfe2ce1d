import { Type, type Static } from 'typebox';
import { Id, Nullable } from '../../platform/http/schemas.js';

/** A member as staff see it: the MemberPageResponse fields (spec A 2.4) and the cards bound to it. */
const Text = Nullable(Type.String());
const Int = Nullable(Type.Integer());

export const MemberCard = Type.Object({
  cardId: Type.Integer(),
  cardNumber: Type.String(),
  cardModelId: Type.Integer(),
  cardModelName: Type.String(),
  status: Type.Integer({ description: 'card status: 1 unbound, 2 bound, 3 disabled, 4 expired' }),
  expireTime: Text,
  boundTime: Text,
});

export const MemberAdminResponse = Type.Object({
  id: Type.Integer(),
  openId: Text,
  mobile: Text,
  status: Type.Integer({ description: '1 enabled, 0 disabled' }),
  registerIp: Text,
  registerTerminal: Int,
  loginIp: Text,
  loginDate: Text,
  nickname: Text,
  avatar: Text,
  name: Text,
  sex: Int,
  areaId: Int,
  birthday: Text,
  mark: Text,
  point: Type.Integer(),
  tagIds: Text,
  levelId: Int,
  experience: Type.Integer(),
  groupId: Int,
  channel: Int,
  thirdId: Text,
  password: Type.Null({ description: 'always null: password hashes never leave the service' }),
  isDeleted: Type.Boolean(),
  createdTime: Text,
  cards: Type.Array(MemberCard, { description: 'cards bound to the member (those your merchant or shop sold, for merchant and shop users)' }),
});
export type MemberAdmin = Static<typeof MemberAdminResponse>;

export const MemberStatusRequest = Type.Object({ id: Id, status: Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' }) });
export type MemberStatusChange = Static<typeof MemberStatusRequest>;
