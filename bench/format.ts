/** Plain-text table and number formatting for benchmark reports. */

export type Align = 'l' | 'r'

/** An aligned table: columns padded to their widest cell, a rule under the header. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[],
): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)))
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (align[c] === 'r' ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd()
  const rule = widths.map((w) => '-'.repeat(w)).join('  ')
  return [line(headers), rule, ...rows.map(line)].join('\n')
}

/** A duration in µs with three significant digits. */
export function us(value: number): string {
  if (value >= 1000) return value.toFixed(0)
  if (value >= 100) return value.toFixed(1)
  if (value >= 10) return value.toFixed(2)
  return value.toFixed(3)
}

export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)
}

export function ratio(value: number): string {
  return value >= 100 ? `${value.toFixed(0)}×` : value >= 10 ? `${value.toFixed(1)}×` : `${value.toFixed(2)}×`
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`
}

export function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS'
}

export function heading(title: string): string {
  return `\n${title}\n${'='.repeat(title.length)}`
}

/** Wraps prose to `width` columns (for notes under tables). */
export function wrap(text: string, width = 100): string {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/)) {
    if (word === '') continue
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  if (line !== '') lines.push(line)
  return lines.join('\n')
}
