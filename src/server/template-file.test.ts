import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from './errors.js'
import { appFor, client, makeProject } from './server.test-helper.js'
import { contentHash, swapTemplateFile, type TemplateFile, templateLockPath } from './template-file.js'

let root: string
let cleanup: () => Promise<void>
beforeEach(async () => {
  ;({ root, cleanup } = await makeProject('template-file'))
})
afterEach(() => cleanup())

const templatePath = () => join(root, '.sysprompt', 'template.md')
const sysprompt = async () => (await readdir(join(root, '.sysprompt'))).sort()

describe('PUT /api/template on the project file', () => {
  it('lets exactly one of eight writers with the same expectedHash win, across two apps on one project', async () => {
    await writeFile(templatePath(), 'Version zero.\n')
    // Two apps on one root: what two servers on one project share is the file and its lock.
    const [a, b] = [client(appFor(root)), client(appFor(root))]
    const read = await a('GET', '/api/template')
    const texts = Array.from({ length: 8 }, (_, i) => `Edit ${i}.\n`)
    const answers = await Promise.all(
      texts.map((text, i) =>
        (i % 2 === 0 ? a : b)('PUT', '/api/template', {
          template: text,
          dialect: 'bracket',
          expectedHash: read.body.hash,
        }),
      ),
    )
    const won = answers.filter((x) => x.status === 200)
    expect(won).toHaveLength(1)
    const winner = won[0]?.body
    expect(winner.hash).toBe(contentHash(winner.template))
    for (const lost of answers.filter((x) => x.status !== 200)) {
      expect(lost.status).toBe(409)
      expect(lost.body.error).toMatchObject({ code: 'stale-hash', details: { currentHash: winner.hash } })
    }
    expect(await readFile(templatePath(), 'utf8')).toBe(winner.template)
    expect(await sysprompt()).toEqual(['rules', 'template.md'])
  })

  it('takes over the lock a killed writer left behind', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((resolve) => child.once('exit', resolve))
    const left = { pid: child.pid, host: hostname(), at: new Date().toISOString(), nonce: 'killed' }
    await writeFile(templateLockPath(root), `${JSON.stringify(left)}\n`)
    const call = client(appFor(root))
    const read = await call('GET', '/api/template')
    const saved = await call('PUT', '/api/template', {
      template: 'After the crash.\n',
      dialect: 'bracket',
      expectedHash: read.body.hash,
    })
    expect(saved.status).toBe(200)
    expect(await sysprompt()).toEqual(['rules', 'template.md'])
  })

  it('answers 500 with what to do when the lock path is a directory', async () => {
    await mkdir(templateLockPath(root))
    const saved = await client(appFor(root))('PUT', '/api/template', { template: 'x\n', dialect: 'bracket' })
    expect(saved.status).toBe(500)
    expect(saved.body.error).toMatchObject({ code: 'template-unwritable' })
    expect(saved.body.error.message).toContain('remove it')
  })
})

describe('swapTemplateFile', () => {
  it('judges again, before the rename, a file changed after the check by a writer that took no lock', async () => {
    await writeFile(templatePath(), 'Version zero.\n')
    const expected = contentHash('Version zero.\n')
    const judged: (string | null)[] = []
    const check = async (file: TemplateFile) => {
      judged.push(file.exists ? file.text : null)
      const hash = file.exists ? file.hash : null
      if (hash !== expected) throw new ApiError(409, 'stale-hash', 'changed', { currentHash: hash })
      // An editor saves the file just after the check passed.
      if (judged.length === 1) await writeFile(templatePath(), 'The editor was here.\n')
    }
    const error = await swapTemplateFile(root, 'Mine.\n', check).catch((e: unknown) => e)
    expect(error).toMatchObject({
      status: 409,
      details: { currentHash: contentHash('The editor was here.\n') },
    })
    expect(judged).toEqual(['Version zero.\n', 'The editor was here.\n'])
    expect(await readFile(templatePath(), 'utf8')).toBe('The editor was here.\n')
    expect(await sysprompt()).toEqual(['rules', 'template.md'])
  })

  it('creates .sysprompt/ when missing and answers the file as written', async () => {
    await rm(join(root, '.sysprompt'), { recursive: true })
    const saved = await swapTemplateFile(root, 'First.\n', () => undefined)
    expect(saved).toMatchObject({ exists: true, text: 'First.\n', hash: contentHash('First.\n') })
    expect(await readFile(templatePath(), 'utf8')).toBe('First.\n')
  })
})
