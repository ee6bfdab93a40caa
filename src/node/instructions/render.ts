/**
 * The header line above each file in `text`: an HTML comment naming the
 * file relative to the project root (`<!-- docs/AGENTS.md -->`; `~/…` for a
 * global file, `../…` above the root), with a note when there is one
 * (`<!-- notes.md (imported by CLAUDE.md) -->`). A comment stays out of the
 * way of the file's own Markdown headings, and models read it as metadata.
 */
export function header(shown: string, note?: string): string {
  return `<!-- ${shown}${note === undefined ? '' : ` (${note})`} -->`
}

/** One file's block: its header and the text it contributes. */
export interface Block {
  shown: string
  note?: string
  body: string
}

/**
 * The prompt text: blocks in load order, each a header line then the body
 * (ending with a line break), separated by one blank line.
 */
export function renderBlocks(blocks: readonly Block[]): string {
  return blocks
    .map((block) => {
      const body = block.body.length === 0 || block.body.endsWith('\n') ? block.body : `${block.body}\n`
      return `${header(block.shown, block.note)}\n${body}`
    })
    .join('\n')
}
