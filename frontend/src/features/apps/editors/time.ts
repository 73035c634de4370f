const pad = (n: number) => String(n).padStart(2, '0');

/** Seconds since midnight as `HH:MM` or `HH:MM:SS`. */
export function secondsToTime(seconds: number, withSeconds: boolean): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return withSeconds ? `${pad(h)}:${pad(m)}:${pad(s)}` : `${pad(h)}:${pad(m)}`;
}

/** `HH:MM` or `HH:MM:SS` as seconds since midnight; `undefined` for anything else. */
export function timeToSeconds(text: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/u.exec(text);
  if (!match) return undefined;
  const [h, m, s] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  if (h > 23 || m > 59 || s > 59) return undefined;
  return h * 3600 + m * 60 + s;
}

export { omit } from '../config/settings';
