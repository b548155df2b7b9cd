/**
 * A flat copy of a string to keep as a long-lived key. `new URL(u).host`, `.pathname` and their
 * slices and concatenations are views into the parsed URL's whole href: kept as a key they keep
 * a full copy of the URL alive each (measured: 2.4 URL copies per queued URL).
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string); // V8 makes no slices under 13 chars
}
