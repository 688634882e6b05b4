/**
 * The registers' date spellings to ISO `YYYY-MM-DD`. Each returns null for anything that is not a
 * real calendar date in its spelling (`31/02/2024`, `2024-13-01`, blanks), so a reader can report it.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function iso(year: number, month: number, day: number): string | null {
  if (year < 1800 || year > 9999 || month < 1 || month > 12 || day < 1) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null; // 31/02 rolls over into March
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** `DD/MM/YYYY` (Ofcom, ARCEP). */
export function dayMonthYear(text: string): string | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(text);
  return m ? iso(Number(m[3]), Number(m[2]), Number(m[1])) : null;
}

/** `MM/DD/YYYY` (NANPA's `File Date`). */
export function monthDayYear(text: string): string | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(text);
  return m ? iso(Number(m[3]), Number(m[1]), Number(m[2])) : null;
}

/** `YYYY-MM-DD` (CNAC's date line). */
export function isoDate(text: string): string | null {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/.exec(text);
  return m ? iso(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}

/** `DD-Mon-YYYY` (NANPA's `ASSIGNMENT_DT`, `IN_SERVICE_DT`: `01-Jan-1947`). */
export function dayMonthNameYear(text: string): string | null {
  const m = /^\s*(\d{1,2})-([A-Za-z]{3})-(\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  return month ? iso(Number(m[3]), month, Number(m[1])) : null;
}
