import type { Generated } from 'kysely';
import type { Audit } from './common.js';

export interface CodegenColumnTable extends Audit {
  id: Generated<number>;
  table_id: number;
  column_name: string;
  data_type: string;
  column_comment: string;
  nullable: boolean;
  primary_key: boolean;
  auto_increment: string;
  ordinal_position: number;
  java_type: string;
  java_field: string;
  dict_type: string | null;
  example: string | null;
  create_operation: boolean;
  update_operation: boolean;
  list_operation: boolean;
  list_operation_condition: string;
  list_operation_result: boolean;
  html_type: string;
}
