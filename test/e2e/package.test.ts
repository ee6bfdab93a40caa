import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

/** Runs an ES module snippet in a fresh Node process that imports the built package by its name. */
function runModule(code: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' })
}

describe('the built package', () => {
  it('renders a bracket template through the public entry point', () => {
    const out = runModule(`
      import { compileTemplate } from 'sysprompt'
      const t = compileTemplate('cwd: [prompt:cwd][if !file:A.md] (no A.md)[endif] - [x] done', { dialect: 'bracket' })
      process.stdout.write(JSON.stringify({ text: t.render({ 'prompt:cwd': '/p' }), vars: t.variables }))
    `)
    expect(JSON.parse(out)).toEqual({
      text: 'cwd: /p (no A.md) - [x] done',
      vars: ['prompt:cwd', 'file:A.md'],
    })
  })

  it('throws TemplateError with its position from the built code', () => {
    const out = runModule(`
      import { compileTemplate, TemplateError } from 'sysprompt'
      try { compileTemplate('line one\\n  {{ model }}', { name: 'persona' }) } catch (e) {
        process.stdout.write(JSON.stringify({ is: e instanceof TemplateError, code: e.code, line: e.line, column: e.column, template: e.template }))
      }
    `)
    expect(JSON.parse(out)).toEqual({
      is: true,
      code: 'malformed-reference',
      line: 2,
      column: 3,
      template: 'persona',
    })
  })

  it('ships declarations next to the code', () => {
    const out = runModule(`
      import { existsSync } from 'node:fs'
      process.stdout.write(String(existsSync('dist/index.d.ts') && existsSync('dist/template/compile-template.d.ts')))
    `)
    expect(out).toBe('true')
  })
})
