/**
 * "Open now / opens at" from a storefront's `schedule`, in its time zone (docs/api.md, "Opening hours"). Pure and
 * free of server-only imports: the public page shows the state with the same function that lets `placeOrder`
 * refuse an order while the store is closed.
 *
 * - No schedule at all: always open.
 * - A day that is null, has `closed: true`, or lacks `open` or `close` is closed all day.
 * - `close` after `open`: open that day between them; `close` at or before `open` runs past midnight
 *   (`20:00`-`02:00` closes at 02:00 the next day); `24:00` is midnight at the end of the day; `open` equal to
 *   `close` means the whole 24 hours from `open`.
 * - Times are wall-clock times in the storefront's time zone; across a daylight-saving change a time that does
 *   not exist that day is taken as the same offset as before the change.
 */

export const WEEK_DAYS = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

export type ScheduleDay = { open: string | null; close: string | null; closed: boolean | null } | null;
export type Schedule = Record<WeekDay, ScheduleDay> | null;

export type OpeningState = {
  isOpen: boolean;
  /** No schedule: the store never closes. */
  isAlwaysOpen: boolean;
  /** While closed: when it opens next (null: no opening day in the schedule). */
  opensAt: Date | null;
  /** While open: when the current opening ends (null: always open). */
  closesAt: Date | null;
};

type LocalDate = { year: number; month: number; day: number; weekday: number };

const DAY_MINUTES = 24 * 60;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      weekday: "short",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const WEEKDAY_INDEX: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

/** The wall clock of `instant` in `timeZone`. */
function wallClock(instant: Date, timeZone: string): LocalDate & { minutes: number; seconds: number } {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAY_INDEX[parts.weekday ?? "Mon"] ?? 0,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    seconds: Number(parts.second),
  };
}

/** Milliseconds `timeZone` is ahead of UTC at `instant`. */
function offsetAt(instant: number, timeZone: string): number {
  const local = wallClock(new Date(instant), timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, 0, local.minutes, local.seconds);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant at which the wall clock in `timeZone` shows `minutes` after midnight of `date`. */
function instantOf(date: LocalDate, minutes: number, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, 0, minutes);
  const first = wall - offsetAt(wall, timeZone);
  const second = wall - offsetAt(first, timeZone);
  return second;
}

function addDays(date: LocalDate, days: number): LocalDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    weekday: (((date.weekday + days) % 7) + 7) % 7,
  };
}

function parseTime(value: string | null): number | null {
  if (!value) return null;
  const match = /^(\d{2}):(\d{2})$/.exec(value);
  if (!match) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return minutes <= DAY_MINUTES ? minutes : null;
}

/** The opening of one day as minutes from that day's midnight: [start, end), end may pass midnight. */
export function dayOpening(day: ScheduleDay): { start: number; end: number } | null {
  if (!day || day.closed === true) return null;
  const start = parseTime(day.open);
  const close = parseTime(day.close);
  if (start === null || close === null || start >= DAY_MINUTES) return null;
  const end = close > start ? close : close + DAY_MINUTES;
  return { start, end };
}

/** Whether a time zone name is one this runtime knows (IANA names such as `America/Mexico_City`). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Open or closed at `now`, and when that changes. Openings of consecutive days that touch (Monday until 24:00,
 * Tuesday from 00:00) count as one.
 */
export function openingState(schedule: Schedule, timeZone: string, now: Date): OpeningState {
  if (!schedule) return { isOpen: true, isAlwaysOpen: true, opensAt: null, closesAt: null };
  const zone = isKnownTimeZone(timeZone) ? timeZone : "UTC";
  const today = wallClock(now, zone);
  const intervals: Array<{ start: number; end: number }> = [];
  // Yesterday (an opening past midnight may still run) through a week ahead.
  for (let offset = -1; offset <= 7; offset++) {
    const date = addDays(today, offset);
    const opening = dayOpening(schedule[WEEK_DAYS[date.weekday] as WeekDay] ?? null);
    if (!opening) continue;
    const start = instantOf(date, opening.start, zone);
    const end = instantOf(date, opening.end, zone);
    const previous = intervals.at(-1);
    if (previous && start <= previous.end) previous.end = Math.max(previous.end, end);
    else intervals.push({ start, end });
  }
  const at = now.getTime();
  const current = intervals.find((interval) => interval.start <= at && at < interval.end);
  if (current) return { isOpen: true, isAlwaysOpen: false, opensAt: null, closesAt: new Date(current.end) };
  const next = intervals.find((interval) => interval.start > at);
  return { isOpen: false, isAlwaysOpen: false, opensAt: next ? new Date(next.start) : null, closesAt: null };
}

/** Seconds until the state changes (open -> closed or closed -> open), or null when it never changes. */
export function secondsUntilChange(state: OpeningState, now: Date): number | null {
  const change = state.isOpen ? state.closesAt : state.opensAt;
  if (!change) return null;
  return Math.max(1, Math.ceil((change.getTime() - now.getTime()) / 1000));
}
