import { utf8Length } from '../../shared/hash.js'
import { groupDigits } from './budget.js'

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/
const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/

/**
 * A synopsis of one instruction file (seed 003's preload class
 * `synopsis`): its headings and its first paragraph, in document order,
 * then a line saying where to read the rest. Meant for harnesses whose model
 * has file tools: the outline costs little and the model can fetch the
 * section it needs. Front matter and fenced code are left out.
 */
export function synopsis(text: string, shown: string): string {
  const body = text.replace(/^\uFEFF/, '').replace(FRONT_MATTER, '')
  const kept: string[] = []
  let fence: string | undefined
  let paragraph: 'before' | 'inside' | 'done' = 'before'
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\r$/, '')
    const marker = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      continue
    }
    if (marker !== undefined) {
      fence = marker
      if (paragraph === 'inside') paragraph = 'done'
      continue
    }
    if (HEADING.test(line)) {
      if (paragraph === 'inside') paragraph = 'done'
      kept.push(line.trim())
    } else if (line.trim().length === 0) {
      if (paragraph === 'inside') paragraph = 'done'
    } else if (paragraph !== 'done') {
      paragraph = 'inside'
      kept.push(line)
    }
  }
  kept.push(
    `[Synopsis: headings and first paragraph only. Read ${shown} (${groupDigits(utf8Length(text))} bytes) for the rest.]`,
  )
  return `${kept.join('\n')}\n`
}
