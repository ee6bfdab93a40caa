import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import { readPromptOptions } from '../../cli/options.js'
import { compileTemplate } from '../../template/index.js'
import { buildProject } from './project.js'
import { fileKeyUses } from './resolvers.js'

let dir: string
const env = () => ({ XDG_CONFIG_HOME: join(dir, 'config') })

async function repo(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name)
  await mkdir(root, { recursive: true })
  execFileSync('git', ['init', '-q', root])
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  return root
}

async function build(cwd: string, raw: Record<string, unknown> = {}) {
  const options = await readPromptOptions({ tokenizer: 'estimate', ...raw }, cwd, env())
  return buildProject(options, env())
}

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-expansion-')))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const template = (body: string) => `---\ndialect: bracket\n---\n${body}`

describe('the expansion budget of a project build', () => {
  it('counts each place a template puts a file: value, so 2 000 uses of one file stay within 4 MiB', async () => {
    const root = await repo('repeated', {
      'big.md': `${'z'.repeat(1023)}\n`.repeat(200),
      '.sysprompt/template.md': template('[file:big.md]\n'.repeat(2000)),
    })
    const project = await build(root)
    const text = project.compiled?.text ?? ''
    expect(text.length).toBeLessThan(4 * 1024 * 1024 + 2000 * 200)
    expect(text).toContain('[withheld: file:big.md, past the expansion budget')
    expect(project.resolverDiagnostics.map((d) => d.code)).toEqual(['expansion-budget'])
    expect(project.resolverDiagnostics[0]!.message).toContain('placed 2000 times')
  })

  it('reads a file named 200 ways once and bounds the text it brings', async () => {
    const spellings = Array.from({ length: 200 }, (_, i) => `[file:${'./'.repeat(i)}big.md]`)
    const root = await repo('spellings', {
      'big.md': `${'z'.repeat(1023)}\n`.repeat(200),
      '.sysprompt/template.md': template(spellings.join('\n')),
    })
    const project = await build(root)
    const text = project.compiled?.text ?? ''
    // 20 copies of 200 KiB fit 4 MiB; the other 180 are marks.
    expect(text.split('zzzz\n').length - 1).toBe(20 * 200)
    expect(text.split('[withheld: file:').length - 1).toBe(180)
  })

  it('takes the budget from the options', async () => {
    const root = await repo('options', {
      'a.md': 'A\n',
      'AGENTS.md': 'top\n@a.md\n',
      '.sysprompt/template.md': template('[project:instructions]\n[file:a.md]\n[file:AGENTS.md]\n'),
    })
    const tight = await build(root, { maxExpandedFiles: '1' })
    expect(tight.discovery.text).toContain('[not read: a.md, past the expansion budget]')
    expect(tight.compiled?.text).toContain(
      'A\n\n[withheld: file:AGENTS.md, past the expansion budget of 1 file and',
    )
    const roomy = await build(root)
    expect(roomy.compiled?.text).not.toContain('withheld')
  })

  it('refuses a budget that is not a positive whole number', async () => {
    await expect(readPromptOptions({ maxExpandedBytes: '0' }, dir, env())).rejects.toThrow(
      '--max-expanded-bytes 0: not a positive whole number',
    )
    await expect(readPromptOptions({ maxExpandedFiles: '1.5' }, dir, env())).rejects.toThrow(
      '--max-expanded-files 1.5',
    )
  })
})

describe('fileKeyUses', () => {
  it('never counts fewer uses than the template inserts', () => {
    const key = fc.constantFrom('file:a.md', 'file:./a.md', 'file:docs/b.md', 'file:a.md.bak')
    const part = fc.oneof(
      key.map((k) => ({ text: `[${k}]`, key: k as string | undefined })),
      fc.stringMatching(/^[a-z .:\n]{0,8}$/).map((text) => ({ text, key: undefined as string | undefined })),
      key.map((k) => ({ text: `[if ${k}]x[endif]`, key: undefined as string | undefined })),
    )
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const text = parts.map((p) => p.text).join('')
        const uses = fileKeyUses([text])
        const inserted = new Map<string, number>()
        for (const p of parts) if (p.key !== undefined) inserted.set(p.key, (inserted.get(p.key) ?? 0) + 1)
        for (const [k, n] of inserted) expect(uses.get(k) ?? 0).toBeGreaterThanOrEqual(n)
        // Every key the template references is counted.
        for (const k of compileTemplate(text, { dialect: 'bracket' }).variables)
          expect(uses.get(k) ?? 0).toBeGreaterThan(0)
      }),
      { numRuns: propertyRuns(300) },
    )
  })
})
