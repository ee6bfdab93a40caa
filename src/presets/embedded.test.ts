import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import {
  EMBED_COMMAND,
  GENERATED_FILE,
  readPresetFiles,
  renderEmbeddedModule,
} from '../../scripts/embed-presets.js'
import { fragmentIdFromPath, parseFragment } from '../shared/fragment.js'
import { compileTemplate } from '../template/index.js'
import { EMBEDDED_PRESETS } from './embedded.generated.js'
import { builtinPresetFragments } from './words.js'

const STALE = `src/presets/embedded.generated.ts is stale: run \`${EMBED_COMMAND}\` and commit the result`

describe('embedded preset fragments', () => {
  it('match presets/**/*.md on disk (regenerate when this fails)', async () => {
    const files = await readPresetFiles()
    const added = Object.keys(files).filter((p) => !Object.hasOwn(EMBEDDED_PRESETS, p))
    const removed = Object.keys(EMBEDDED_PRESETS).filter((p) => !Object.hasOwn(files, p))
    const changed = Object.keys(files).filter(
      (p) => Object.hasOwn(EMBEDDED_PRESETS, p) && EMBEDDED_PRESETS[p] !== files[p],
    )
    const drift = [
      ...added.map((p) => `presets/${p} is new`),
      ...removed.map((p) => `presets/${p} was removed`),
      ...changed.map((p) => `presets/${p} changed`),
    ]
    if (drift.length > 0) expect.fail(`${STALE}:\n${drift.map((d) => `  - ${d}`).join('\n')}`)
    expect(await readFile(GENERATED_FILE, 'utf8'), STALE).toBe(renderEmbeddedModule(files))
  })

  it('survive the round trip through the generated module byte for byte', () => {
    const placeholder = '$' + '{not}'
    const files = { 'a/b.md': `back\\slash \`tick\` ${placeholder} \r\nCRLF\n`, 'c.md': '' }
    const module = renderEmbeddedModule(files)
    const body = module.slice(module.indexOf('({') + 1, module.lastIndexOf('})') + 1)
    expect(new Function(`return ${body}`)()).toEqual(files)
  })

  it('parse, each with an id equal to the one its path gives', () => {
    for (const [relPath, text] of Object.entries(EMBEDDED_PRESETS)) {
      const result = parseFragment(text, { file: `presets/${relPath}`, relPath })
      expect(result.errors, relPath).toEqual([])
      expect(result.fragment!.id, relPath).toBe(fragmentIdFromPath(relPath))
      for (const field of ['id', 'order', 'stability', 'description']) {
        expect(Object.keys(result.positions), `${relPath} front matter`).toContain(field)
      }
    }
    expect(builtinPresetFragments().map((f) => f.id)).toEqual(
      Object.keys(EMBEDDED_PRESETS).map(fragmentIdFromPath).sort(),
    )
  })

  it('hold no template tags outside the default templates, so they are words in either dialect', () => {
    for (const fragment of builtinPresetFragments()) {
      if (fragment.id.startsWith('default.')) continue
      expect(fragment.body, fragment.id).not.toContain('{{')
      expect(
        compileTemplate(fragment.body, { dialect: 'mustache', strict: true }).variables,
        fragment.id,
      ).toEqual([])
      expect(
        compileTemplate(fragment.body, { dialect: 'bracket', strict: true }).variables,
        fragment.id,
      ).toEqual([])
    }
  })

  it('hold no date, time or working directory', () => {
    for (const fragment of builtinPresetFragments()) {
      expect(fragment.body, fragment.id).not.toMatch(/\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b/)
      expect(fragment.body, fragment.id).not.toMatch(/system:(date|time)|git:/)
      if (!fragment.id.startsWith('default.')) expect(fragment.body, fragment.id).not.toContain('prompt:cwd')
    }
  })

  it('are frozen, so one caller cannot change the words another caller reads', () => {
    const [first] = builtinPresetFragments()
    expect(Object.isFrozen(first)).toBe(true)
  })
})
