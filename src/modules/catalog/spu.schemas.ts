import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** 1 tourism card, 2 scenic ticket, 3 hotel room, 4 catering, 5 local product, 6 travel route, 7 intangible-heritage goods, 8 venue ticket */
export const ResourceType = Type.Integer({
  minimum: 1,
  maximum: 8,
  description:
    '1 tourism card, 2 scenic ticket, 3 hotel room, 4 catering, 5 local product, 6 travel route, 7 intangible-heritage goods, 8 venue ticket',
});
export const SpuStatus = Type.Integer({ minimum: 1, maximum: 2, description: '1 normal, 2 off shelf' });
export const Cents = Type.Integer({ minimum: 0, maximum: 2_000_000_000, description: 'cents' });
export const Count = Type.Integer({ minimum: 0, maximum: 2_000_000_000 });

/** Spec B 2.6: a resource, sold through its SKUs. */
export const SpuResponse = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    shopId: Type.Integer(),
    resourceType: Type.Integer(),
    costPrice: Nullable(Type.Integer({ description: 'cents' })),
    stock: Nullable(Type.Integer()),
    status: Type.Integer(),
    description: Nullable(Type.String()),
    shopsName: Nullable(Type.String({ description: "the shop's name" })),
  },
  { title: 'SpuResponse' },
);
export type Spu = Static<typeof SpuResponse>;

const writable = {
  name: Type.String({ minLength: 1, maxLength: 128 }),
  shopId: Id,
  resourceType: ResourceType,
  // Absent or null keeps the stored value on update.
  costPrice: Opt(Cents),
  stock: Opt(Count),
  status: SpuStatus,
  description: Opt(Type.String({ maxLength: 5000, description: '"" clears it on update' })),
};

export const SpuAddRequest = Type.Object(writable, { title: 'SpuAddRequest' });
export type SpuAdd = Static<typeof SpuAddRequest>;

export const SpuUpdateRequest = Type.Object({ id: Id, ...writable }, { title: 'SpuUpdateRequest' });
export type SpuUpdate = Static<typeof SpuUpdateRequest>;

const filters = {
  name: Opt(Type.String({ maxLength: 128, description: 'found within the name' })),
  shopId: Opt(Id),
  resourceType: Opt(ResourceType),
  status: Opt(SpuStatus),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const SpuListRequest = Type.Object(filters, { title: 'SpuListRequest' });
export type SpuFilter = Static<typeof SpuListRequest>;

export const SpuPageRequest = Type.Object({ ...PageFields, ...filters }, { title: 'SpuPageRequest' });
export type SpuPageQuery = Static<typeof SpuPageRequest>;
