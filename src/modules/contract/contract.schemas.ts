import { Type, type Static } from 'typebox';
import {
  DateRange,
  DateTimeText,
  Id,
  IdList,
  Keywords,
  Nullable,
  Opt,
  orEmpty,
  PageFields,
} from '../../platform/http/schemas.js';

/** What an add leaves out (docs/adr/0022-the-spec-smallest-requests-get-documented-defaults.md). */
export const DEFAULT_CONTRACT_TYPE = 1;
const CONTRACT_TYPES = '1 platform agreement, 2 distributor agreement, 3 tourism-card agreement';
const ContractType = Type.Integer({ minimum: 1, maximum: 3, description: CONTRACT_TYPES });
const PartyDigits = Type.String({ maxLength: 16, pattern: '^[1-9][0-9]{0,15}$' });
/** The spec types the parties as String: a merchant or shop id in decimal digits ("12"); a JSON number is taken too. */
const PartyId = Type.Union([Id, PartyDigits], {
  description: 'a merchant or shop id: its decimal digits ("12") or a number',
});
const PartyIdOrEmpty = Type.Union([Id, orEmpty(PartyDigits)], {
  description: 'a merchant or shop id: its decimal digits ("12") or a number; "" clears it on update',
});

/**
 * Spec B 2.6 MerchantContractAddRequest: nothing is required. On add the keeper (merchantId, shopId)
 * defaults to the caller's merchant and shop, contractType to 1, party A to the keeper (unless the
 * keeper is party B), party B to none yet; a shop named without its merchant names its merchant too.
 * On update absent or null keeps the stored value; "" clears a party's merchant or shop or a date.
 */
const writable = {
  merchantId: Opt(Id),
  shopId: Opt(Id),
  contractType: Opt(
    Type.Integer({ ...ContractType, description: `${CONTRACT_TYPES}; default ${DEFAULT_CONTRACT_TYPE}` }),
  ),
  merchantA: Opt(PartyIdOrEmpty),
  shopA: Opt(PartyIdOrEmpty),
  merchantB: Opt(PartyIdOrEmpty),
  shopB: Opt(PartyIdOrEmpty),
  signTime: Opt(orEmpty(DateTimeText)),
  beginDate: Opt(orEmpty(DateTimeText)),
  endDate: Opt(orEmpty(DateTimeText)),
};

export const ContractAddRequest = Type.Object(writable, { title: 'ContractAddRequest' });
export type ContractAdd = Static<typeof ContractAddRequest>;

export const ContractUpdateRequest = Type.Object({ id: Id, ...writable }, { title: 'ContractUpdateRequest' });
export type ContractUpdate = Static<typeof ContractUpdateRequest>;

const text = Nullable(Type.String());
export const ContractResponse = Type.Object(
  {
    id: Type.Integer(),
    merchantId: Nullable(Type.Integer({ description: 'the merchant that keeps the record' })),
    shopId: Nullable(Type.Integer()),
    contractType: Type.Integer(),
    merchantA: Nullable(Type.String({ description: "party A's merchant id; null while party A is open" })),
    shopA: text,
    merchantB: Nullable(Type.String({ description: "party B's merchant id; null while party B is open" })),
    shopB: text,
    signTime: text,
    beginDate: text,
    endDate: text,
    merchantAName: text,
    shopAName: text,
    merchantBName: text,
    shopBName: text,
    party: Type.Integer({ description: "the caller's side: 1 party A, 2 party B, 0 neither (platform staff)" }),
  },
  { title: 'ContractResponse' },
);
export type Contract = Static<typeof ContractResponse>;

const filters = {
  contractType: Opt(ContractType),
  merchantId: Opt(Id),
  merchantA: Opt(PartyId),
  merchantB: Opt(PartyId),
  signTimeRange: Opt(DateRange),
  idList: Opt(IdList),
  keywords: Opt(Type.String({ ...Keywords, description: 'found in the names of party A and party B' })),
};

export const ContractListRequest = Type.Object(filters, { title: 'ContractListRequest' });
export type ContractFilter = Static<typeof ContractListRequest>;

export const ContractPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'ContractPageRequest' });
export type ContractPageQuery = Static<typeof ContractPageRequest>;
