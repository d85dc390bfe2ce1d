import { Type, type Static } from 'typebox';
import { Id, Nullable, Opt } from '../../platform/http/schemas.js';

/** A scenic spot's capacity on the manage channel (docs/domain.md §4.1, issue 39). */

const Clock = (description: string, pattern: string, example: string) =>
  Type.String({ pattern, description, examples: [example] });
const HOUR_MINUTE = '^([01][0-9]|2[0-3]):[0-5][0-9]$';
const HOUR_MINUTE_OR_MIDNIGHT = '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';
/** A slot a minute long at the least: the day holds 1440 of them. */
export const SLOTS_MAX = 1440;

export const SpotCapacitySlot = Type.Object(
  {
    startTime: Clock('start of the slot, HH:mm in the service time zone (included)', HOUR_MINUTE, '09:00'),
    endTime: Clock('end of the slot, HH:mm (excluded; 24:00: the end of the day)', HOUR_MINUTE_OR_MIDNIGHT, '12:00'),
    capacity: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'entries admitted in the slot' }),
  },
  { title: 'SpotCapacitySlot' },
);
export type SpotCapacitySlotView = Static<typeof SpotCapacitySlot>;

const DailyCapacity = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    description: 'entries (sum of consumeNum) admitted a day; null: no daily bound (the slots may bound it)',
  }),
);

export const SetSpotCapacityRequest = Type.Object(
  {
    skuId: Type.Integer({ ...Id, description: 'the scenic spot (SKU)' }),
    dailyCapacity: DailyCapacity,
    slots: Opt(
      Type.Array(SpotCapacitySlot, {
        maxItems: SLOTS_MAX,
        description:
          'time slots with their own capacity, not overlapping; absent or []: none. A scan counts in the slot holding its time',
      }),
    ),
  },
  { title: 'SetSpotCapacityRequest' },
);
export type SetSpotCapacity = Static<typeof SetSpotCapacityRequest>;

export const SpotCapacityResponse = Type.Object(
  {
    skuId: Type.Integer(),
    skuName: Type.String(),
    dailyCapacity: DailyCapacity,
    slots: Type.Array(SpotCapacitySlot),
  },
  { title: 'SpotCapacityResponse' },
);
export type SpotCapacityView = Static<typeof SpotCapacityResponse>;
