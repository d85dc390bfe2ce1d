import { Type, type Static } from 'typebox';
import { DateTimeText, Id, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** The conflicts of offline scans on the manage channel (docs/domain.md §4.1, issue 39). */

const Text = Nullable(Type.String());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));

export const CheckConflictPageRequest = Type.Object(
  {
    ...PageFields,
    skuId: Opt(Id),
    kind: Opt(
      Type.Integer({
        minimum: 1,
        maximum: 3,
        description: "1 the card's daily limit, 2 the spot's day capacity, 3 the spot's slot capacity",
      }),
    ),
    cardNumber: Opt(Type.String({ maxLength: 32, description: 'the card number, exactly' })),
    startTime: Opt({ ...DateTimeText, description: 'checks made at or after this (YYYY-MM-DD [HH:mm:ss])' }),
    endTime: Opt({
      ...DateTimeText,
      description: 'checks made at or before this (YYYY-MM-DD [HH:mm:ss]; a bare date covers that day)',
    }),
  },
  { title: 'CheckConflictPageRequest' },
);
export type CheckConflictPageRequest = Static<typeof CheckConflictPageRequest>;

export const CheckConflictResponse = Type.Object(
  {
    id: Type.Integer({ description: 'the conflict' }),
    kind: Type.Integer({
      description: "1 the card's daily limit, 2 the spot's day capacity, 3 the spot's slot capacity",
    }),
    limit: Type.Integer({ description: 'the bound the check broke' }),
    count: Type.Integer({ description: 'the count with the check' }),
    checkId: Type.Integer({ description: 'the check, recorded and counted like any other' }),
    checkTime: DateTime,
    checkRevoked: Type.Boolean({ description: 'the check has been revoked since' }),
    cardId: Type.Integer(),
    cardNumber: Text,
    holderName: Text,
    skuId: Type.Integer(),
    skuName: Text,
    entranceId: Nullable(Type.Integer()),
    entranceName: Text,
    checkerId: Nullable(Type.Integer()),
    checkerName: Text,
    createdTime: DateTime,
  },
  { title: 'CheckConflictResponse' },
);
export type CheckConflictRow = Static<typeof CheckConflictResponse>;
