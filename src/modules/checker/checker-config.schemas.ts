import { Type, type Static } from 'typebox';
import { Id, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Verifier configuration (CheckerConfig of spec A 2.3, operations of spec B 4.2) on the manage channel. */

const Text = Nullable(Type.String());
const DateTime = Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }));

export const CheckerConfigResponse = Type.Object({
  id: Type.Integer(),
  checkerId: Type.Integer({ description: 'the verifier the setting applies to' }),
  checkerName: Text,
  name: Text,
  configType: Nullable(Type.Integer()),
  item: Type.String({ description: 'config item, unique per verifier' }),
  value: Text,
  remark: Text,
  isDeleted: Type.Boolean(),
  createdTime: DateTime,
  updatedTime: DateTime,
});
export type CheckerConfigView = Static<typeof CheckerConfigResponse>;

const Item = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'config item (e.g. voiceBroadcast); one value per item and verifier' });
const Name = Type.String({ maxLength: 64, description: 'display name of the setting' });
const Value = Type.String({ maxLength: 512 });
const Remark = Type.String({ maxLength: 255 });
const ConfigType = Type.Integer({ minimum: 0, maximum: 9999 });

export const CheckerConfigAddRequest = Type.Object({
  checkerId: Id,
  configType: ConfigType,
  item: Item,
  name: Opt(Name),
  value: Opt(Value),
  remark: Opt(Remark),
});
export type CheckerConfigAdd = Static<typeof CheckerConfigAddRequest>;

// Absent or null keeps what is stored; "" clears the optional texts.
export const CheckerConfigUpdateRequest = Type.Object({
  id: Id,
  checkerId: Opt(Id),
  configType: Opt(ConfigType),
  item: Opt(Item),
  name: Opt(Name),
  value: Opt(Value),
  remark: Opt(Remark),
});
export type CheckerConfigUpdate = Static<typeof CheckerConfigUpdateRequest>;

const filters = {
  keywords: Opt(Keywords),
  checkerId: Opt(Id),
  configType: Opt(ConfigType),
};

export const CheckerConfigListRequest = Type.Object(filters);
export type CheckerConfigFilter = Static<typeof CheckerConfigListRequest>;

export const CheckerConfigPageRequest = Type.Object({ ...PageFields, ...filters });
export type CheckerConfigPageQuery = Static<typeof CheckerConfigPageRequest>;
