import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { discoverAll, discoveryLimits } from './harness-loads.js'

const made: string[] = []
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('discoverAll (matrix, check --same and lint read several modes through it)', () => {
  it('honours --allow-file and the expansion budget in every mode, as one mode does', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sysprompt-loads-'))
    made.push(root)
    await writeFile(join(root, '.env.notes'), 'Notes kept beside the env files.\n')
    await symlink('.env.notes', join(root, 'AGENTS.md'))
    await writeFile(join(root, 'CLAUDE.md'), `${'x'.repeat(600)}\n`)
    const base = {
      cwd: root,
      root,
      modes: ['codex', 'claude'] as const,
      paths: [],
      tokenizer: 'estimate' as const,
    }
    const denied = await discoverAll(base)
    expect(denied.map((l) => l.discovery.text.includes('Notes kept'))).toEqual([false, false])
    const allowed = await discoverAll({ ...base, ...discoveryLimits({ allowFiles: ['.env.notes'] }) })
    expect(allowed[0]!.discovery.text).toContain('Notes kept beside the env files.')
    const tight = await discoverAll({ ...base, ...discoveryLimits({ maxExpandedBytes: 100 }) })
    expect(tight[1]!.discovery.diagnostics.map((d) => d.code)).toContain('expansion-budget')
    expect(discoveryLimits({ allowFiles: undefined, maxExpandedFiles: 3 })).toEqual({ maxExpandedFiles: 3 })
  })
})
