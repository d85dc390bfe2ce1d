import type { Generated } from 'kysely';
import type { Audit, NullableTimestamp } from './common.js';
// Tables written only by the member module (docs/architecture.md §4.3).

export interface MemberTable extends Audit {
  id: Generated<number>;
  open_id: string | null;
  mobile: string | null;
  status: Generated<number>;
  register_ip: string | null;
  register_terminal: number | null;
  login_ip: string | null;
  login_date: NullableTimestamp;
  nickname: string | null;
  avatar: string | null;
  name: string | null;
  sex: number | null;
  area_id: number | null;
  birthday: string | null;
  mark: string | null;
  point: Generated<number>;
  tag_ids: string | null;
  level_id: number | null;
  experience: Generated<number>;
  group_id: number | null;
  channel: number | null;
  third_id: string | null;
  password_hash: string | null;
  is_deleted: Generated<boolean>;
}

/** Living members by status and channel (0: none), in 16 slots per pair, kept by a trigger (migration 0029). */
export interface MemberTallyTable {
  status: number;
  channel: number;
  slot: number;
  living: number;
}

export interface MemberContactsTable extends Audit {
  id: Generated<number>;
  member_id: number;
  name: string;
  id_type: number | null;
  identity_no: string;
  phone: string;
  face_photo: string | null;
  is_deleted: Generated<boolean>;
}

export interface MemberFaceTable extends Audit {
  id: Generated<number>;
  member_id: number;
  contact_id: number | null;
  person_id: string;
  provider: string;
  photo_url: string | null;
  is_deleted: Generated<boolean>;
}
