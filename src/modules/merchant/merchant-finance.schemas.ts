import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

const EbankType = Type.Integer({
  minimum: 1,
  maximum: 2,
  description: '1 merchant settlement (the account getInvoiceSettlementCard shows), 2 sales settlement',
});

/** MerchantFinance (spec B 2.3): a merchant's (or one of its shops') bank account. */
export const MerchantFinance = Type.Object(
  {
    id: Type.Integer(),
    shopId: Nullable(Type.Integer({ description: "null: the merchant's own account" })),
    merchantId: Type.Integer(),
    ebankType: Type.Integer({ description: '1 merchant settlement, 2 sales settlement' }),
    name: Type.String({ description: 'account name' }),
    bank: Type.String(),
    bankAccount: Type.String({ description: 'account number, digits only' }),
    isDeleted: Type.Boolean(),
    createdBy: Nullable(Type.String()),
    createdTime: Nullable(Type.String()),
    updatedBy: Nullable(Type.String()),
    updatedTime: Nullable(Type.String()),
  },
  { title: 'MerchantFinance' },
);
export type MerchantFinance = Static<typeof MerchantFinance>;

/** The manage operations' answer: MerchantFinance with its owners' names. */
export const MerchantFinanceResponse = Type.Object(
  {
    ...MerchantFinance.properties,
    merchantName: Nullable(Type.String()),
    shopName: Nullable(Type.String()),
  },
  { title: 'MerchantFinanceResponse' },
);
export type MerchantFinanceView = Static<typeof MerchantFinanceResponse>;

/** Digits, optionally grouped by spaces ("6222 0000 1111 2222"); stored without the spaces. */
const BankAccount = Type.String({
  maxLength: 64,
  pattern: '^ *(?:[0-9] *){6,32}$',
  description: '6 to 32 digits, spaces between them allowed',
  examples: ['6222 0000 1111 2222'],
});

const writable = {
  ebankType: Opt(EbankType),
  name: Type.String({ minLength: 1, maxLength: 128, description: 'account name' }),
  bank: Type.String({ minLength: 1, maxLength: 128, description: 'bank (and branch) of the account' }),
  bankAccount: BankAccount,
};

export const MerchantFinanceAddRequest = Type.Object(
  {
    merchantId: Opt(Id),
    shopId: Opt(Id),
    ...writable,
  },
  { title: 'MerchantFinanceAddRequest' },
);
export type MerchantFinanceAdd = Static<typeof MerchantFinanceAddRequest>;

export const MerchantFinanceUpdateRequest = Type.Object(
  {
    id: Id,
    // The owner is fixed: sent back as read, it must name the record's own merchant and shop.
    merchantId: Opt(Id),
    shopId: Opt(Id),
    ebankType: Opt(EbankType),
    name: Opt(writable.name),
    bank: Opt(writable.bank),
    bankAccount: Opt(BankAccount),
  },
  { title: 'MerchantFinanceUpdateRequest' },
);
export type MerchantFinanceUpdate = Static<typeof MerchantFinanceUpdateRequest>;

const filters = {
  merchantId: Opt(Id),
  shopId: Opt(Id),
  ebankType: Opt(EbankType),
  name: Opt(Type.String({ maxLength: 128, description: 'found within the account name' })),
  bank: Opt(Type.String({ maxLength: 128, description: 'found within the bank' })),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const MerchantFinanceListRequest = Type.Object(filters, { title: 'MerchantFinanceListRequest' });
export type MerchantFinanceFilter = Static<typeof MerchantFinanceListRequest>;

export const MerchantFinancePageRequest = Type.Object(
  { ...PageFields, ...filters },
  { title: 'MerchantFinancePageRequest' },
);
export type MerchantFinancePageQuery = Static<typeof MerchantFinancePageRequest>;
