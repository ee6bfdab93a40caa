import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sandbox, useSandbox } from './cli.test-helper.js'
import { type Answer, type Served, send, serve } from './serve.test-helper.js'

useSandbox()

/**
 * A project whose every preview is heavy work however the pipeline's
 * scanners perform: a template of some 900 KB in which every paragraph
 * carries the variable `seed`, so that a preview setting its own `seed`
 * compiles and counts a prompt no cache has seen.
 */
async function heavyProject(name: string): Promise<string> {
  const dir = join(sandbox.base, name)
  await mkdir(join(dir, '.sysprompt'), { recursive: true })
  await writeFile(join(dir, 'AGENTS.md'), '# Served\n\nServed words.\n')
  let template = '---\ndialect: mustache\n---\n'
  for (let i = 0; template.length < 900_000; i++) {
    template += `## Part ${i} of {{seed}}\n\nRun the tests before you commit ({{seed}}); keep each change small and say why (${i}).\n\n`
  }
  await writeFile(join(dir, '.sysprompt', 'template.md'), template)
  return dir
}

describe('sysprompt serve under heavy previews (built CLI)', () => {
  it('answers /healthz while ten heavy previews run', { timeout: 240_000 }, async () => {
    const served = await serve(['--cwd', await heavyProject('heavy'), '--store', 'memory', '--no-log'])
    try {
      let previewsAnswered = 0
      const previews = Array.from({ length: 10 }, (_, i) =>
        send(served, 'POST', '/api/preview', { context: { set: { seed: `seed-${i}` } } }).then((answer) => {
          previewsAnswered++
          return answer
        }),
      )
      // Once one preview has answered, the others are deep in their work (on the old code, a
      // compile holding the event loop). From then on, /healthz must be answered several times
      // in a row while no preview answers: the previews do not hold the loop.
      await Promise.race(previews)
      let streak = 0
      while (streak < 5 && previewsAnswered < previews.length) {
        const before = previewsAnswered
        const health = await send(served, 'GET', '/healthz')
        expect(health).toEqual({ status: 200, body: { ok: true } })
        streak = previewsAnswered === before ? streak + 1 : 0
      }
      expect(streak, `/healthz waited for the previews (${previewsAnswered} of 10 answered)`).toBe(5)
      const answers = await Promise.all(previews)
      for (const [i, answer] of answers.entries()) {
        expect(answer.status).toBe(200)
        expect(answer.body.compiled.text).toContain(`## Part 0 of seed-${i}\n`)
      }
    } finally {
      expect(await served.stop()).toBe(0)
    }
  })
})

/** `PUT /api/template` with `text` and the hash the writer read. */
const put = (served: Served, text: string, expectedHash: string) =>
  send(served, 'PUT', '/api/template', { template: text, dialect: 'bracket', expectedHash })

/** Exactly one writer won; every other got the 409 with the winner's hash, and the file is the winner's text. */
async function oneWinner(dir: string, texts: string[], answers: Answer[]): Promise<void> {
  const won = answers.filter((a) => a.status === 200)
  expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body?.error))).toEqual([
    200,
    ...Array(answers.length - 1).fill(409),
  ])
  const winner = won[0]?.body
  expect(texts).toContain(winner.template)
  for (const lost of answers.filter((a) => a.status === 409)) {
    expect(lost.body.error.code).toBe('stale-hash')
    expect(lost.body.error.details).toEqual({ currentHash: winner.hash })
  }
  expect(await readFile(join(dir, '.sysprompt', 'template.md'), 'utf8')).toBe(winner.template)
}

describe('PUT /api/template on the project file (built CLI)', () => {
  it('lets exactly one of eight writers with the same expectedHash win, in one server', {
    timeout: 120_000,
  }, async () => {
    const dir = join(sandbox.base, 'one-server')
    await mkdir(join(dir, '.sysprompt'), { recursive: true })
    await writeFile(join(dir, '.sysprompt', 'template.md'), 'Version zero.\n')
    const served = await serve(['--cwd', dir, '--store', 'memory', '--no-log'])
    try {
      const read = await send(served, 'GET', '/api/template')
      const texts = Array.from({ length: 8 }, (_, i) => `Edit ${i}.\n`)
      const answers = await Promise.all(texts.map((text) => put(served, text, read.body.hash)))
      await oneWinner(dir, texts, answers)
    } finally {
      expect(await served.stop()).toBe(0)
    }
  })

  it('lets exactly one writer win across two server processes on one project', {
    timeout: 120_000,
  }, async () => {
    const dir = join(sandbox.base, 'two-servers')
    await mkdir(join(dir, '.sysprompt'), { recursive: true })
    const [a, b] = await Promise.all([
      serve(['--cwd', dir, '--store', 'memory', '--no-log']),
      serve(['--cwd', dir, '--store', 'memory', '--no-log']),
    ])
    try {
      // No file yet: both serve the default template, and its hash is what the writers expect.
      const read = await send(a, 'GET', '/api/template')
      expect(read.body.isDefault).toBe(true)
      expect((await send(b, 'GET', '/api/template')).body.hash).toBe(read.body.hash)
      for (let round = 0; round < 3; round++) {
        const expected = round === 0 ? read.body.hash : (await send(b, 'GET', '/api/template')).body.hash
        const texts = Array.from({ length: 8 }, (_, i) => `Round ${round}, edit ${i}.\n`)
        const answers = await Promise.all(texts.map((text, i) => put(i % 2 === 0 ? a : b, text, expected)))
        await oneWinner(dir, texts, answers)
      }
    } finally {
      expect(await a.stop()).toBe(0)
      expect(await b.stop()).toBe(0)
    }
  })
})
