import { Type, type Static } from 'typebox';
import { Id, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

const fields = {
  parentId: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '0 for a province' }),
  shortName: Type.String({ maxLength: 64 }),
  levelType: Type.Integer({ minimum: 0, maximum: 5, description: '1 province, 2 city, 3 district' }),
  cityCode: Type.String({ maxLength: 16 }),
  zipCode: Type.String({ maxLength: 16 }),
  mergerName: Type.String({ maxLength: 255 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  pinYin: Type.String({ maxLength: 128 }),
};

export const RegionResponse = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    parentId: Type.Integer(),
    shortName: Nullable(Type.String()),
    levelType: Type.Integer(),
    cityCode: Nullable(Type.String()),
    zipCode: Nullable(Type.String()),
    mergerName: Nullable(Type.String()),
    lng: Nullable(Type.Number()),
    lat: Nullable(Type.Number()),
    pinYin: Nullable(Type.String()),
  },
  { title: 'RegionResponse' },
);
export type Region = Static<typeof RegionResponse>;

export const RegionTreeResponse = Type.Cyclic(
  {
    RegionTreeNode: Type.Object({
      ...RegionResponse.properties,
      children: Type.Array(Type.Ref('RegionTreeNode')),
    }),
  },
  'RegionTreeNode',
);

const writable = {
  name: Type.String({ minLength: 1, maxLength: 64 }),
  parentId: Opt(fields.parentId),
  shortName: Opt(fields.shortName),
  levelType: fields.levelType,
  cityCode: Opt(fields.cityCode),
  zipCode: Opt(fields.zipCode),
  mergerName: Opt(fields.mergerName),
  lng: Opt(fields.lng),
  lat: Opt(fields.lat),
  pinYin: Opt(fields.pinYin),
};

export const RegionAddRequest = Type.Object(writable, { title: 'RegionAddRequest' });
export type RegionAdd = Static<typeof RegionAddRequest>;

export const RegionUpdateRequest = Type.Object({ id: Id, ...writable }, { title: 'RegionUpdateRequest' });
export type RegionUpdate = Static<typeof RegionUpdateRequest>;

const filters = {
  name: Opt(Type.String({ maxLength: 64 })),
  parentId: Opt(fields.parentId),
  shortName: Opt(fields.shortName),
  levelType: Opt(fields.levelType),
  cityCode: Opt(fields.cityCode),
  zipCode: Opt(fields.zipCode),
  mergerName: Opt(fields.mergerName),
  lng: Opt(fields.lng),
  lat: Opt(fields.lat),
  pinYin: Opt(fields.pinYin),
  idList: Opt(Type.Array(Id, { maxItems: 10_000 })),
  keywords: Opt(Type.String({ maxLength: 64, description: 'matched against name, shortName and pinYin' })),
};

export const RegionListRequest = Type.Object(filters, { title: 'RegionListRequest' });
export type RegionFilter = Static<typeof RegionListRequest>;

export const RegionPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'RegionPageRequest' });
export type RegionPageQuery = Static<typeof RegionPageRequest>;
