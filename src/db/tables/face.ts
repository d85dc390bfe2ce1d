import type { ColumnType, Generated } from 'kysely';

/** A person enrolled in the local face registry (FACE_PROVIDER=local). */
export interface FacePersonTable {
  id: Generated<number>;
  group_id: string;
  person_id: string;
  name: string;
  /** hex sha256 of the enrolled photo's bytes: what a search matches */
  image_sha256: string;
  image_format: 'jpeg' | 'png';
  image_width: number;
  image_height: number;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}
