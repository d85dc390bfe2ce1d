import { Type, type Static } from 'typebox';
import { Id, IdList, Keywords, Nullable, Opt, PageFields } from '../../platform/http/schemas.js';

/** Display types a generated form knows (spec B 2.5 `htmlType`). */
export const HTML_TYPES = [
  'input',
  'textarea',
  'select',
  'radio',
  'checkbox',
  'datetime',
  'imageUpload',
  'fileUpload',
  'editor',
] as const;
/** Conditions a generated list query applies to the column (spec B 2.5 `listOperationCondition`). */
export const LIST_CONDITIONS = ['=', '!=', '>', '>=', '<', '<=', 'LIKE', 'BETWEEN'] as const;

const HtmlType = Type.Enum([...HTML_TYPES], { description: HTML_TYPES.join(', ') });
const ListCondition = Type.Enum([...LIST_CONDITIONS], { description: LIST_CONDITIONS.join(' ') });

const ColumnName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  description: 'an SQL identifier: letters, digits and _, not starting with a digit',
});
const JavaField = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z_$][A-Za-z0-9_$]*$',
  description: 'a Java identifier',
});
const JavaType = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z_$][A-Za-z0-9_$.<>, \\[\\]]*$',
  description: 'a Java type name such as Long or java.util.List<String>',
});

/** The writable fields of spec B 2.5; every one is required except dictType and example. */
const writable = {
  tableId: Id,
  columnName: ColumnName,
  dataType: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "the column's SQL type, e.g. bigint, varchar(64)",
  }),
  columnComment: Type.String({ maxLength: 255 }),
  nullable: Type.Boolean(),
  primaryKey: Type.Boolean(),
  autoIncrement: Type.String({ maxLength: 16, description: 'as read from the database catalog, e.g. "true"/"false"' }),
  ordinalPosition: Type.Integer({ minimum: 1, maximum: 10_000 }),
  javaType: JavaType,
  javaField: JavaField,
  dictType: Opt(Type.String({ maxLength: 100 })),
  example: Opt(Type.String({ maxLength: 255 })),
  createOperation: Type.Boolean({ description: 'a field of the create operation' }),
  updateOperation: Type.Boolean({ description: 'a field of the update operation' }),
  listOperation: Type.Boolean({ description: 'a condition of the list query' }),
  listOperationCondition: ListCondition,
  listOperationResult: Type.Boolean({ description: 'returned by the list query' }),
  htmlType: HtmlType,
};

export const CodegenColumnAddRequest = Type.Object(writable, { title: 'CodegenColumnAddRequest' });
export type CodegenColumnAdd = Static<typeof CodegenColumnAddRequest>;

export const CodegenColumnUpdateRequest = Type.Object({ id: Id, ...writable }, { title: 'CodegenColumnUpdateRequest' });
export type CodegenColumnUpdate = Static<typeof CodegenColumnUpdateRequest>;

export const CodegenColumnResponse = Type.Object(
  {
    id: Type.Integer(),
    tableId: Type.Integer(),
    columnName: Type.String(),
    dataType: Type.String(),
    columnComment: Type.String(),
    nullable: Type.Boolean(),
    primaryKey: Type.Boolean(),
    autoIncrement: Type.String(),
    ordinalPosition: Type.Integer(),
    javaType: Type.String(),
    javaField: Type.String(),
    dictType: Nullable(Type.String()),
    example: Nullable(Type.String()),
    createOperation: Type.Boolean(),
    updateOperation: Type.Boolean(),
    listOperation: Type.Boolean(),
    listOperationCondition: Type.String(),
    listOperationResult: Type.Boolean(),
    htmlType: Type.String(),
  },
  { title: 'CodegenColumnResponse' },
);
export type CodegenColumn = Static<typeof CodegenColumnResponse>;

/** List and page filters: every field optional (exact match; columnName and columnComment found within), idList, keywords. */
const filters = {
  tableId: Opt(Id),
  columnName: Opt(Type.String({ maxLength: 64 })),
  dataType: Opt(Type.String({ maxLength: 64 })),
  columnComment: Opt(Type.String({ maxLength: 255 })),
  nullable: Opt(Type.Boolean()),
  primaryKey: Opt(Type.Boolean()),
  autoIncrement: Opt(Type.String({ maxLength: 16 })),
  ordinalPosition: Opt(Type.Integer({ minimum: 1, maximum: 10_000 })),
  javaType: Opt(Type.String({ maxLength: 128 })),
  javaField: Opt(Type.String({ maxLength: 64 })),
  dictType: Opt(Type.String({ maxLength: 100 })),
  example: Opt(Type.String({ maxLength: 255 })),
  createOperation: Opt(Type.Boolean()),
  updateOperation: Opt(Type.Boolean()),
  listOperation: Opt(Type.Boolean()),
  listOperationCondition: Opt(ListCondition),
  listOperationResult: Opt(Type.Boolean()),
  htmlType: Opt(HtmlType),
  idList: Opt(IdList),
  keywords: Opt(Keywords),
};

export const CodegenColumnListRequest = Type.Object(filters, { title: 'CodegenColumnListRequest' });
export type CodegenColumnFilter = Static<typeof CodegenColumnListRequest>;

export const CodegenColumnPageRequest = Type.Object(
  { ...PageFields, ...filters },
  { title: 'CodegenColumnPageRequest' },
);
export type CodegenColumnPageQuery = Static<typeof CodegenColumnPageRequest>;
