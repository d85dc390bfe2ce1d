import { Type, type Static } from 'typebox';
import { DateRange, DateTimeText, Id, IdList, Keywords, Nullable, Opt, orEmpty, PageFields } from '../../platform/http/schemas.js';

const ContractType = Type.Integer({ minimum: 1, maximum: 3, description: '1 platform agreement, 2 distributor agreement, 3 tourism-card agreement' });
/** The spec types the parties as String: a merchant or shop id written in decimal digits. */
const PartyId = Type.String({ maxLength: 16, pattern: '^[1-9][0-9]{0,15}$', description: 'a merchant or shop id in decimal digits' });

/** Spec B 2.6 MerchantContractAddRequest; contractType, merchantA and merchantB are required here (a contract needs them). */
const writable = {
  merchantId: Opt(Id),
  shopId: Opt(Id),
  contractType: ContractType,
  merchantA: PartyId,
  // Absent or null keeps the stored value on update; "" clears it.
  shopA: Opt(orEmpty(PartyId)),
  merchantB: PartyId,
  shopB: Opt(orEmpty(PartyId)),
  signTime: Opt(orEmpty(DateTimeText)),
  beginDate: Opt(orEmpty(DateTimeText)),
  endDate: Opt(orEmpty(DateTimeText)),
};

export const ContractAddRequest = Type.Object(writable);
export type ContractAdd = Static<typeof ContractAddRequest>;

export const ContractUpdateRequest = Type.Object({ id: Id, ...writable });
export type ContractUpdate = Static<typeof ContractUpdateRequest>;

const text = Nullable(Type.String());
export const ContractResponse = Type.Object({
  id: Type.Integer(),
  merchantId: Nullable(Type.Integer({ description: 'the merchant that keeps the record' })),
  shopId: Nullable(Type.Integer()),
  contractType: Type.Integer(),
  merchantA: Type.String(),
  shopA: text,
  merchantB: Type.String(),
  shopB: text,
  signTime: text,
  beginDate: text,
  endDate: text,
  merchantAName: text,
  shopAName: text,
  merchantBName: text,
  shopBName: text,
  party: Type.Integer({ description: 'the caller\'s side: 1 party A, 2 party B, 0 neither (platform staff)' }),
});
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

export const ContractListRequest = Type.Object(filters);
export type ContractFilter = Static<typeof ContractListRequest>;

export const ContractPageRequest = Type.Object({ ...PageFields, ...filters });
export type ContractPageQuery = Static<typeof ContractPageRequest>;
