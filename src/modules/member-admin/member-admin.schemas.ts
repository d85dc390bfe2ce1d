import { Type, type Static } from 'typebox';
import { Id, Nullable } from '../../platform/http/schemas.js';
import { MemberPageResponse } from '../member/index.js';

const Text = Nullable(Type.String());

export const MemberCard = Type.Object(
  {
    cardId: Type.Integer(),
    cardNumber: Type.String(),
    cardModelId: Type.Integer(),
    cardModelName: Type.String(),
    status: Type.Integer({ description: 'card status: 1 unbound, 2 bound, 3 disabled, 4 expired' }),
    expireTime: Text,
    boundTime: Text,
  },
  { title: 'MemberCard' },
);

/** A member as staff see it: the fields of its queryMemberPage row (spec A 2.4 MemberPageResponse) and the cards bound to it. */
export const MemberAdminResponse = Type.Object(
  {
    ...MemberPageResponse.properties,
    cards: Type.Array(MemberCard, {
      description: 'cards bound to the member (those your merchant or shop sold, for merchant and shop users)',
    }),
  },
  { title: 'MemberAdminResponse' },
);
export type MemberAdmin = Static<typeof MemberAdminResponse>;

export const MemberStatusRequest = Type.Object(
  { id: Id, status: Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' }) },
  { title: 'MemberStatusRequest' },
);
export type MemberStatusChange = Static<typeof MemberStatusRequest>;
