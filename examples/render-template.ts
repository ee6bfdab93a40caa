/**
 * Renders examples/persona.md, a bracket-dialect template, with made-up
 * values: `npm run example`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { compileTemplate } from '../src/index.js'

const source = readFileSync(join(import.meta.dirname, 'persona.md'), 'utf8')
const template = compileTemplate(source, { dialect: 'bracket', name: 'examples/persona.md' })
console.log(`variables: ${template.variables.join(', ')}\n`)
console.log(
  template.render({
    'prompt:cwd': '/home/dev/project',
    'file:AGENTS.md': 'Run `npm test` before you commit.',
  }),
)
