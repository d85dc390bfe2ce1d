import { Type, type Static } from 'typebox';
import { DateTimeText, Id, Opt } from '../../platform/http/schemas.js';

/** The offline upload of a gate's scans (docs/domain.md §4.1, issue 39). */

/** Scans one request carries at most: a gate uploads its backlog in requests of this size. */
export const SYNC_MAX_SCANS = 500;

export const OfflineScan = Type.Object(
  {
    nonce: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[\\x21-\\x7E]+$',
      description: "the gate's id of this scan: a re-sent scan answers its first answer and makes no second record",
    }),
    cardNumber: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: '^[0-9A-Za-z_-]+$',
      description: 'the card number the gate read (the offline pack matched its hash)',
    }),
    skuId: Id,
    entranceId: Opt(Id),
    checkTime: Type.String({
      ...DateTimeText,
      description:
        'when the gate admitted the visitor, YYYY-MM-DD HH:mm:ss in the service time zone (at most 72 h ago)',
    }),
    consumeNum: Opt(
      Type.Integer({ minimum: 1, maximum: 100, default: 1, description: 'entries this scan took (default 1)' }),
    ),
  },
  { title: 'OfflineScan' },
);
export type OfflineScan = Static<typeof OfflineScan>;

export const SyncOfflineChecksRequest = Type.Object(
  {
    scans: Type.Array(OfflineScan, {
      minItems: 1,
      maxItems: SYNC_MAX_SCANS,
      description: `1–${SYNC_MAX_SCANS} scans, in any order: they are judged in the order of their checkTime`,
    }),
  },
  { title: 'SyncOfflineChecksRequest' },
);
export type SyncOfflineChecksRequest = Static<typeof SyncOfflineChecksRequest>;

export const CheckConflictFigure = Type.Object(
  {
    kind: Type.Integer({
      description: "1 the card's daily limit, 2 the spot's day capacity, 3 the spot's slot capacity",
    }),
    limit: Type.Integer({ description: 'the bound that was broken' }),
    count: Type.Integer({ description: 'the count with this scan' }),
  },
  { title: 'CheckConflictFigure' },
);
export type CheckConflictFigure = Static<typeof CheckConflictFigure>;

export const SyncResult = Type.Union(
  [Type.Literal('recorded'), Type.Literal('duplicate'), Type.Literal('refused'), Type.Literal('conflict')],
  {
    description:
      'recorded; conflict: recorded although it broke a bound (conflicts says which); refused (errcode, errmsg); ' +
      'duplicate: the nonce was sent before, and this is its first answer (id and conflicts, or errcode and errmsg)',
  },
);
export type SyncResult = Static<typeof SyncResult>;

export const OfflineScanResult = Type.Object(
  {
    nonce: Type.String(),
    result: SyncResult,
    id: Type.Optional(Type.Integer({ description: 'the check recorded' })),
    errcode: Type.Optional(Type.Integer({ description: 'the refusal, as addCheckerConsumeRecord gives it' })),
    errmsg: Type.Optional(Type.String()),
    conflicts: Type.Optional(Type.Array(CheckConflictFigure)),
  },
  { title: 'OfflineScanResult' },
);
export type OfflineScanResult = Static<typeof OfflineScanResult>;

export const SyncOfflineChecksResponse = Type.Object(
  { results: Type.Array(OfflineScanResult, { description: "one per scan, in the request's order" }) },
  { title: 'SyncOfflineChecksResponse' },
);
export type SyncOfflineChecksResponse = Static<typeof SyncOfflineChecksResponse>;
