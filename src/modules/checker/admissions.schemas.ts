import { Type, type Static } from 'typebox';
import { Id, Nullable, Opt } from '../../platform/http/schemas.js';

/** Today's admissions per scenic spot against its capacity, and the live stream of them (issue 39). */

/** At most this many spots named in one request (a merchant's whole estate fits). */
export const SKU_IDS_MAX = 500;

export const SpotAdmissionTodayRequest = Type.Object(
  {
    skuIds: Opt(
      Type.Array(Id, {
        maxItems: SKU_IDS_MAX,
        description: 'only these scenic spots (SKUs); all in your scope when absent or empty',
      }),
    ),
  },
  { title: 'SpotAdmissionTodayRequest' },
);
export type SpotAdmissionTodayRequest = Static<typeof SpotAdmissionTodayRequest>;

const MinuteOfDay = Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:mm in the service time zone' });

export const SpotSlotAdmission = Type.Object(
  {
    startTime: { ...MinuteOfDay, description: 'the slot starts at this minute (HH:mm, included)' },
    endTime: { ...MinuteOfDay, description: 'the slot ends at this minute (HH:mm, excluded; 24:00 is midnight)' },
    capacity: Type.Integer({ description: 'entries the slot admits' }),
    admitted: Type.Integer({ description: 'entries admitted in the slot today' }),
  },
  { title: 'SpotSlotAdmission' },
);
export type SpotSlotAdmission = Static<typeof SpotSlotAdmission>;

export const SpotAdmissionToday = Type.Object(
  {
    skuId: Type.Integer(),
    skuName: Type.String(),
    dailyCapacity: Nullable(Type.Integer({ description: 'entries the spot admits a day; null: no daily bound' })),
    admitted: Type.Integer({ description: 'entries admitted today (the consume_num of the living checks)' }),
    slots: Type.Array(SpotSlotAdmission, { description: "the day's time slots with a capacity, in time order" }),
  },
  { title: 'SpotAdmissionToday' },
);
export type SpotAdmissionToday = Static<typeof SpotAdmissionToday>;

export const AdmissionStreamQuery = Type.Object(
  {
    skuIds: Opt(
      Type.String({
        maxLength: 10_000,
        pattern: '^$|^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15})*$',
        description: `only these scenic spots (SKU ids, comma-separated, at most ${SKU_IDS_MAX}); all in your scope when absent`,
      }),
    ),
  },
  { title: 'AdmissionStreamQuery' },
);
export type AdmissionStreamQuery = Static<typeof AdmissionStreamQuery>;
