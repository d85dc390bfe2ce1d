import { Type, type Static } from 'typebox';
import { Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Verifier configuration (CheckerConfig of spec A 2.3, operations of spec B 4.2) on the manage channel. */

const Text = Nullable(Type.String());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));

export const CheckerConfigResponse = Type.Object(
  {
    id: Type.Integer(),
    checkerId: Nullable(
      Type.Integer({ description: 'the verifier the setting applies to; null for a default of merchantId/shopId' }),
    ),
    checkerName: Text,
    merchantId: Nullable(
      Type.Integer({
        description:
          "the owner: the verifier's merchant, or the merchant of a default (null: a platform default, for every verifier)",
      }),
    ),
    shopId: Nullable(Type.Integer({ description: "the verifier's shop, or the shop of a shop's default" })),
    name: Text,
    configType: Nullable(Type.Integer()),
    item: Type.String({
      description: 'config item, unique per verifier (per owner among defaults); "" when it has none',
    }),
    value: Text,
    remark: Text,
    isDeleted: Type.Boolean(),
    createdTime: DateTime,
    updatedTime: DateTime,
  },
  { title: 'CheckerConfigResponse' },
);
export type CheckerConfigView = Static<typeof CheckerConfigResponse>;

const ITEM_TEXT = 'config item (e.g. voiceBroadcast); one value per item and verifier';
const Item = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: ITEM_TEXT });
const Name = Type.String({ maxLength: 64, description: 'display name of the setting' });
const Value = Type.String({ maxLength: 512 });
const Remark = Type.String({ maxLength: 255 });
const ConfigType = Type.Integer({ minimum: 0, maximum: 9999 });

/** Defaults for what the spec leaves out (`{name}`, or nothing): docs/adr/0022-the-spec-smallest-requests-get-documented-defaults.md. */
export const DEFAULT_CONFIG_TYPE = 0;

export const CheckerConfigAddRequest = Type.Object(
  {
    checkerId: Opt(
      Type.Integer({
        ...Id,
        description: 'the verifier; absent: a default for every verifier of your merchant or shop (platform: of all)',
      }),
    ),
    configType: Opt(Type.Integer({ ...ConfigType, description: `default ${DEFAULT_CONFIG_TYPE} (general)` })),
    item: Opt(Type.String({ ...Item, description: `${ITEM_TEXT}; absent: the name` })),
    name: Opt(Name),
    value: Opt(Value),
    remark: Opt(Remark),
  },
  { title: 'CheckerConfigAddRequest' },
);
export type CheckerConfigAdd = Static<typeof CheckerConfigAddRequest>;

// Absent or null keeps what is stored; "" clears the optional texts.
export const CheckerConfigUpdateRequest = Type.Object(
  {
    id: Id,
    checkerId: Opt(Id),
    configType: Opt(ConfigType),
    item: Opt(Item),
    name: Opt(Name),
    value: Opt(Value),
    remark: Opt(Remark),
  },
  { title: 'CheckerConfigUpdateRequest' },
);
export type CheckerConfigUpdate = Static<typeof CheckerConfigUpdateRequest>;

const filters = {
  keywords: Opt(Keywords),
  checkerId: Opt(Id),
  configType: Opt(ConfigType),
};

export const CheckerConfigListRequest = Type.Object(filters, { title: 'CheckerConfigListRequest' });
export type CheckerConfigFilter = Static<typeof CheckerConfigListRequest>;

export const CheckerConfigPageRequest = Type.Object(
  { ...PageFields, ...filters },
  { title: 'CheckerConfigPageRequest' },
);
export type CheckerConfigPageQuery = Static<typeof CheckerConfigPageRequest>;
