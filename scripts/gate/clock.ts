/** Wall-clock time in the service's time zone, as the pack's `day` and the upload's `checkTime` are written. */

const formats = new Map<string, Intl.DateTimeFormat>();

function parts(at: Date, timeZone: string): Record<string, string> {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(timeZone, f);
  }
  return Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
}

/** YYYY-MM-DD in the zone. */
export function zonedDay(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** YYYY-MM-DD HH:mm:ss in the zone (the wire format of a check time). */
export function zonedDateTime(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}
