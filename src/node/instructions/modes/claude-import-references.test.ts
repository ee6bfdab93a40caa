import { describe, expect, it } from 'vitest'
import { findClaudeImports } from './claude-imports.js'

// Claude Code reads `@path` only in Markdown text: not in fenced blocks, not in code spans.
describe('claude mode: which @ references are imports', () => {
  it('keeps a fence open until a fence of the same character at least as long closes it', () => {
    expect(findClaudeImports('```\n~~~\n@a.md\n```\n@after.md')).toEqual(['after.md'])
    expect(findClaudeImports('~~~~\n~~~\n@a.md\n~~~~\n@after.md')).toEqual(['after.md'])
    expect(findClaudeImports('````\n```\n@a.md\n`````\n@after.md')).toEqual(['after.md'])
  })

  it('reads no reference inside a code span, whatever it holds, and one right after it', () => {
    expect(findClaudeImports('run `cat @notes.md` first')).toEqual([])
    expect(findClaudeImports('``a ` b`` @real.md `')).toEqual(['real.md'])
    expect(findClaudeImports('see:`code`@after.md')).toEqual(['after.md'])
  })

  it('reads only paths that start like a path: not @@handles, not punctuation', () => {
    expect(findClaudeImports('ping @@team or @!urgent or @(x) but @_shared.md')).toEqual(['_shared.md'])
  })
})
