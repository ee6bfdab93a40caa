import { describe, expect, it } from 'vitest'
import { compileTemplate } from '../template/index.js'
import { DEFAULT_TEMPLATE, PROJECT_TEMPLATE } from './default-template.js'

describe('DEFAULT_TEMPLATE', () => {
  const template = compileTemplate(DEFAULT_TEMPLATE, { dialect: 'bracket', name: 'default' })

  it('is a clean bracket-dialect template referencing AGENTS.md and the working directory', () => {
    expect(template.diagnostics).toEqual([])
    expect(template.variables).toEqual(['file:AGENTS.md', 'prompt:cwd'])
    expect(() => compileTemplate(DEFAULT_TEMPLATE, { dialect: 'bracket', strict: true })).not.toThrow()
  })

  it('renders persona, then AGENTS.md when the file exists, then the working directory', () => {
    const text = template.render({ 'file:AGENTS.md': 'Run npm test.', 'prompt:cwd': '/srv/app' })
    const persona = text.indexOf('You are')
    const agents = text.indexOf('Run npm test.')
    const cwd = text.indexOf('/srv/app')
    expect(persona).toBe(0)
    expect(persona).toBeLessThan(agents)
    expect(agents).toBeLessThan(cwd)
    expect(text).toMatch(/\n\nRun npm test\.\n\nWorking directory: \/srv\/app\n$/)
  })

  it('leaves the AGENTS.md block out entirely when the file is absent', () => {
    const text = template.render({ 'file:AGENTS.md': null, 'prompt:cwd': '/srv/app' })
    expect(text).not.toContain('AGENTS.md')
    expect(text).toMatch(/[a-z.]\n\nWorking directory: \/srv\/app\n$/)
  })
})

describe('PROJECT_TEMPLATE', () => {
  it('is the default template with the discovered instruction files instead of AGENTS.md', () => {
    const template = compileTemplate(PROJECT_TEMPLATE, { dialect: 'bracket' })
    expect(template.diagnostics).toEqual([])
    expect(template.variables).toEqual(['project:instructions', 'prompt:cwd'])
    const persona = DEFAULT_TEMPLATE.slice(0, DEFAULT_TEMPLATE.indexOf('\n'))
    expect(PROJECT_TEMPLATE.startsWith(persona)).toBe(true)
    const text = template.render({ 'project:instructions': '# AGENTS.md\n\nUse tabs.', 'prompt:cwd': '/w' })
    expect(text).toContain('# AGENTS.md\n\nUse tabs.\n\nWorking directory: /w')
  })
})
