/**
 * `27206` as `27 206`: the one number format of text output (bytes,
 * characters, tokens), in every command and message. JSON keeps plain
 * integers. A space, not a locale's separator, so output is the same on
 * every machine.
 */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')
}
