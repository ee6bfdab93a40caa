import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { compile } from '../compile/compile.js'
import { BUILTIN_FRAGMENT_DIR, loadFragments } from '../node/fragments.js'
import { createPromptRegistry } from '../registry/index.js'
import { parseFragment } from '../shared/fragment.js'
import { PresetError } from './errors.js'
import { layeredPreset } from './layered.js'
import { builtinPresetFragments, PresetWords } from './words.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

const fragment = (id: string, body: string) =>
  parseFragment(`---\nid: ${id}\n---\n${body}\n`, { file: `${id}.md` }).fragment!

describe('preset words', () => {
  it('take the last given fragment with an id over earlier ones and over the built-in one', () => {
    const words = new PresetWords('test', [
      fragment('layered.style', 'first'),
      fragment('layered.style', 'second'),
    ])
    expect(words.text('layered.style')).toBe('second')
    expect(new PresetWords('test', []).text('layered.style')).toMatch(/^Lead with the answer/)
  })

  it('take a given fragment with models: only when the model matches, else keep the built-in words', () => {
    const gpt = parseFragment('---\nid: layered.style\nmodels: ["gpt-5*"]\n---\nterse\n', { file: 's.md' })
      .fragment!
    expect(new PresetWords('test', [gpt], 'gpt-5.1').text('layered.style')).toBe('terse')
    expect(new PresetWords('test', [gpt], 'claude-opus-4-6').text('layered.style')).toMatch(/^Lead with/)
    expect(new PresetWords('test', [gpt]).text('layered.style')).toMatch(/^Lead with/)
    expect(new PresetWords('test', [gpt], 'claude-opus-4-6').fragment('layered.style').source).toBe(
      'presets/layered/style.md',
    )
  })

  it('name the preset and the id when a fragment is missing', () => {
    expect(() => new PresetWords('layeredPreset', []).text('layered.nothing')).toThrow(PresetError)
    expect(() => new PresetWords('layeredPreset', []).text('layered.nothing')).toThrow(
      /layeredPreset: no preset fragment with id "layered\.nothing"/,
    )
  })

  it('are what loadFragments reads from the shipped presets/ directory, ids and hashes alike', async () => {
    const loaded = await loadFragments([BUILTIN_FRAGMENT_DIR])
    expect(loaded.errors).toEqual([])
    const pick = (f: { id: string; contentHash: string; body: string }) => [f.id, f.contentHash, f.body]
    expect(loaded.list.map(pick)).toEqual(builtinPresetFragments().map(pick))
  })

  it('are overridden from a project .sysprompt/ directory loaded over the built-in layer', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sysprompt-presets-'))
    dirs.push(root)
    const project = join(root, '.sysprompt')
    await mkdir(join(project, 'layered'), { recursive: true })
    await writeFile(join(project, 'layered', 'policies.md'), 'Never deploy on Fridays.\n')
    const { list, errors } = await loadFragments([BUILTIN_FRAGMENT_DIR, project])
    expect(errors).toEqual([])
    const registry = createPromptRegistry()
    layeredPreset(registry, { fragments: list })
    const compiled = compile(await registry.assemble(), { tokenizer: 'estimate' })
    const policies = compiled.sections.find((s) => s.name === 'layered:policies')!
    expect(compiled.text.slice(policies.start, policies.end)).toBe(
      '# Rules that always apply\n\nNever deploy on Fridays.',
    )
  })
})
