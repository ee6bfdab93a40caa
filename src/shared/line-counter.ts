/** A line and column, both 1-based; columns count UTF-16 code units. */
export interface Position {
  line: number
  column: number
}

/**
 * Maps string offsets to line/column. `\r\n`, `\n` and `\r` each end a line.
 * Offsets must be asked for in non-decreasing order, which keeps a whole
 * diagnostic list linear in the source.
 */
export class LineCounter {
  private offset = 0
  private line = 1
  private lineStart = 0

  constructor(private readonly text: string) {}

  at(target: number): Position {
    if (target < this.offset) {
      this.offset = 0
      this.line = 1
      this.lineStart = 0
    }
    const text = this.text
    for (let i = this.offset; i < target; i++) {
      const c = text.charCodeAt(i)
      if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
        this.line++
        this.lineStart = i + 1
      }
    }
    this.offset = target
    return { line: this.line, column: target - this.lineStart + 1 }
  }
}

/** The line and column of `offset` in `text`. */
export function positionOf(text: string, offset: number): Position {
  return new LineCounter(text).at(offset)
}
