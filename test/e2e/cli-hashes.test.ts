import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { VECTORS } from '../hash-vectors.test-helper.js'
import { cli, fast, json, makeGitDir, useSandbox, write } from './cli.test-helper.js'

// The hashes the built command prints and writes into sysprompt.lock, checked
// against sha256 of known UTF-8 bytes computed outside the command: a lock
// written and checked by one binary agrees with itself even when that binary
// hashes the wrong bytes (latin-1, UTF-16), so only an outside digest tells.
useSandbox()

const sha256 = (bytes: string | Uint8Array) =>
  `sha256:${createHash('sha256')
    .update(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes)
    .digest('hex')}`

const text = (name: string) => VECTORS.find((v) => v.name.startsWith(name))!.text

describe('hashes of the built CLI against node:crypto', () => {
  it('show, the manifest and the lock hash ASCII, accents, emoji and CRLF files as their UTF-8 bytes', async () => {
    const repo = await makeGitDir('hash-vectors')
    // CRLF line endings in both files; the prompt text has them as `\n`.
    const agents = `# ${text('ASCII')}\r\n${text('accents')}\r\n${text('emoji')}\r\n`
    const template = `---\ndescription: accents ${text('accents')}\r\n---\r\nRules 🙂\r\n\r\n[project:instructions]\r\n`
    await write(join(repo, 'AGENTS.md'), agents)
    await write(join(repo, '.sysprompt', 'template.md'), template)

    const [show, update] = await Promise.all([
      cli(['show', '--json', ...fast], { cwd: repo }),
      cli(['check', '--update', ...fast], { cwd: repo }),
    ])
    expect(show.code).toBe(0)
    expect(update.code).toBe(0)

    const fileText = `# abc\n${text('accents')}\n${text('emoji')}`
    const expected = `Rules 🙂\n\n<!-- AGENTS.md -->\n${fileText}`
    const shown = json(show)
    expect(shown.text).toBe(expected)
    expect(shown.hash).toBe(sha256(expected))
    expect(shown.bytes).toBe(new TextEncoder().encode(expected).length)
    expect(shown.sections[0].hash).toBe(sha256(expected))
    // A fragment's content hash covers the file's bytes as they are on disk, CRLF included.
    expect(shown.manifest).toEqual([
      expect.objectContaining({ source: '.sysprompt/template.md', contentHash: sha256(template) }),
    ])

    const lock = JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8')).entries.sysprompt
    expect(lock.hash).toBe(sha256(expected))
    expect(lock.sections[0].hash).toBe(sha256(expected))
    expect(lock.sections[0].files).toEqual([{ path: 'AGENTS.md', hash: sha256(fileText), lines: [4, 6] }])
    // The section's own text, the file taken out (one NUL where it was).
    expect(lock.sections[0].textHash).toBe(sha256('Rules 🙂\n\n<!-- AGENTS.md -->\n\u0000'))
    expect((await cli(['check'], { cwd: repo })).code).toBe(0)
  }, 120_000)
})
