import { readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore } from '../compile/index.js'
import { SESSION_ID } from './schemas.js'
import { type Answer, appFor, client, makeProject } from './server.test-helper.js'

let root: string
let cleanup: () => Promise<void>
beforeAll(async () => {
  ;({ root, cleanup } = await makeProject('app'))
})
afterAll(() => cleanup())

// biome-ignore lint/suspicious/noExplicitAny: error details are asserted field by field
const errorOf = (answer: Answer) => answer.body?.error as { code: string; message: string; details?: any }

describe('template (seed 000 contract)', () => {
  it('serves the built-in template as isDefault, saves with compare-and-set, 409 on a stale hash', async () => {
    const { root, cleanup } = await makeProject('template')
    try {
      const call = client(appFor(root))
      const initial = await call('GET', '/api/template')
      expect(initial.status).toBe(200)
      expect(initial.body).toMatchObject({ isDefault: true, dialect: 'bracket', updatedAt: null })
      expect(initial.body.template).toContain('[if project:instructions]')

      const text = 'You work on [project:root].\n'
      const saved = await call('PUT', '/api/template', {
        template: text,
        dialect: 'bracket',
        expectedHash: initial.body.hash,
      })
      expect(saved.status).toBe(200)
      expect(saved.body).toMatchObject({
        template: text,
        isDefault: false,
        dialect: 'bracket',
        diagnostics: [],
      })
      expect(await readFile(join(root, '.sysprompt', 'template.md'), 'utf8')).toBe(text)
      expect((await call('GET', '/api/template')).body.hash).toBe(saved.body.hash)

      const stale = await call('PUT', '/api/template', {
        template: 'other',
        dialect: 'bracket',
        expectedHash: initial.body.hash,
      })
      expect(stale.status).toBe(409)
      expect(errorOf(stale)).toMatchObject({ code: 'stale-hash', details: { currentHash: saved.body.hash } })
      expect(await readFile(join(root, '.sysprompt', 'template.md'), 'utf8')).toBe(text)

      // The preview and show read the same file.
      const preview = await call('POST', '/api/preview', { context: {} })
      expect(preview.body.compiled.text).toBe(`You work on ${root}.`)
    } finally {
      await cleanup()
    }
  })

  it('writes a mustache template with front matter naming its dialect', async () => {
    const { root, cleanup } = await makeProject('mustache')
    try {
      const call = client(appFor(root))
      const saved = await call('PUT', '/api/template', {
        template: 'Root: {{project:root}}',
        dialect: 'mustache',
      })
      expect(saved.status).toBe(200)
      expect(saved.body.dialect).toBe('mustache')
      expect(await readFile(join(root, '.sysprompt', 'template.md'), 'utf8')).toBe(
        '---\ndialect: mustache\n---\nRoot: {{project:root}}',
      )
      const preview = await call('POST', '/api/preview', { context: {} })
      expect(preview.body.compiled.text).toBe(`Root: ${root}`)
      const mismatch = await call('PUT', '/api/template', {
        template: '---\ndialect: bracket\n---\nx',
        dialect: 'mustache',
      })
      expect(mismatch.status).toBe(422)
      expect(errorOf(mismatch).code).toBe('dialect-mismatch')
    } finally {
      await cleanup()
    }
  })

  it('422 with line and column for a template that cannot be used; lenient diagnostics come with a 200', async () => {
    const { root, cleanup } = await makeProject('errors')
    try {
      const call = client(appFor(root))
      const strict = await call('PUT', '/api/template', {
        template: 'a\n{{#if x}}never closed',
        dialect: 'mustache',
      })
      expect(strict.status).toBe(422)
      const error = errorOf(strict)
      expect(error.code).toBe('template-unusable')
      // Line 2 of the text sent, as /api/preview says (the file has three lines of front matter before it).
      expect(error.details[0]).toMatchObject({ line: 2, column: expect.any(Number) })
      const previewed = await call('POST', '/api/preview', {
        template: 'a\n{{#if x}}never closed',
        dialect: 'mustache',
      })
      expect(errorOf(previewed).details[0]).toMatchObject({ line: error.details[0].line })
      const frontMatter = await call('PUT', '/api/template', {
        template: '---\norder: [\n---\nx',
        dialect: 'bracket',
      })
      expect(frontMatter.status).toBe(422)
      expect(errorOf(frontMatter).details[0]).toMatchObject({
        line: expect.any(Number),
        column: expect.any(Number),
      })
      await expect(readFile(join(root, '.sysprompt', 'template.md'))).rejects.toThrow()

      for (const [template, code] of [
        ['{{bad key}}', 'malformed-reference'],
        ['{{/if}}', 'stray-tag'],
      ]) {
        const answer = await call('PUT', '/api/template', { template, dialect: 'mustache' })
        expect(answer.status).toBe(422)
        // A one-line template: line 1, as the client sent it.
        expect(errorOf(answer).details[0]).toMatchObject({ code, line: 1, column: 1 })
      }

      const lenient = await call('PUT', '/api/template', {
        template: 'one\n[endif]\n[if git:branch]unclosed',
        dialect: 'bracket',
      })
      expect(lenient.status).toBe(200)
      expect(lenient.body.diagnostics).toMatchObject([
        { code: 'stray-tag', line: 2, column: 1 },
        { code: 'unclosed-block', line: 3, column: 1 },
      ])
      expect((await call('GET', '/api/template')).body.diagnostics).toEqual(lenient.body.diagnostics)
    } finally {
      await cleanup()
    }
  })

  it('never writes through a link', async () => {
    const { root, cleanup } = await makeProject('link')
    try {
      const target = join(root, '..', 'outside.md')
      await symlink(target, join(root, '.sysprompt', 'template.md'))
      const call = client(appFor(root))
      const answer = await call('PUT', '/api/template', { template: 'x', dialect: 'bracket' })
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(await readFile(target, 'utf8')).toBe('not part of the project\n')
    } finally {
      await cleanup()
    }
  })

  it('serves a named workspace from the store', async () => {
    const store = memoryStore()
    const call = client(appFor(root, { store, workspace: 'team' }))
    expect((await call('GET', '/api/template')).body.isDefault).toBe(true)
    const saved = await call('PUT', '/api/template', { template: 'Team [project:root]', dialect: 'bracket' })
    expect(saved.status).toBe(200)
    expect((await store.getTemplate('team'))?.template).toBe('Team [project:root]')
    expect((await call('POST', '/api/preview', { context: {} })).body.compiled.text).toBe(`Team ${root}`)
    await expect(readFile(join(root, '.sysprompt', 'template.md'))).rejects.toThrow()
  })
})

describe('variables and preview', () => {
  it('lists the variables with their values', async () => {
    const answer = await client(appFor(root))('GET', '/api/variables')
    expect(answer.status).toBe(200)
    const byKey = new Map(answer.body.variables.map((v: { key: string }) => [v.key, v]))
    expect(byKey.get('project:root')).toMatchObject({ stability: 'session' })
    // Values come with the keys the served template references.
    expect(byKey.get('project:instructions')).toMatchObject({
      value: expect.stringContaining('Run the tests'),
    })
    expect(byKey.get('file:<path>')).toMatchObject({ pattern: true })
  })

  it('previews the prompt show builds, for a cwd inside the root', async () => {
    const call = client(appFor(root))
    const answer = await call('POST', '/api/preview', { context: { cwd: 'packages/api' } })
    expect(answer.status).toBe(200)
    expect(answer.body.compiled.text).toContain('Keep handlers small.')
    expect(answer.body.compiled.text).toContain('Run the tests before you commit.')
    expect(answer.body.compiled.hash).toMatch(/^sha256:[0-9a-f]{64}$/)
    const edited = await call('POST', '/api/preview', {
      template: 'Only [prompt:model]',
      context: { model: 'm-1' },
    })
    expect(edited.body.compiled.text).toBe('Only m-1')
  })

  it('confines the context to the served root', async () => {
    const call = client(appFor(root))
    for (const cwd of ['..', '../..', '/']) {
      const answer = await call('POST', '/api/preview', { context: { cwd } })
      expect(answer.status).toBe(400)
      expect(errorOf(answer).code).toBe('outside-root')
    }
    await symlink('..', join(root, 'escape'))
    expect((await call('POST', '/api/preview', { context: { cwd: 'escape' } })).status).toBe(400)
    const file = await call('POST', '/api/preview', { template: '[file:../outside.md]', context: {} })
    expect(file.status).toBe(200)
    expect(file.body.compiled.text).not.toContain('not part of the project')
  })

  it('refuses wrong types, unknown fields and bad values with 400 and the field', async () => {
    const call = client(appFor(root))
    const cases: unknown[] = [
      { context: { cwd: 7 } },
      { context: { paths: 'a' } },
      { template: 1, context: {} },
      { context: { provider: 'nobody' } },
      { context: { bogus: true } },
      { context: { mode: 'nope' } },
      { context: { set: { 'not a key': 'x' } } },
      [],
      'text',
      null,
    ]
    for (const body of cases) {
      const answer = await call('POST', '/api/preview', JSON.stringify(body))
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(errorOf(answer).code).toMatch(/^(invalid-request|malformed-json)$/)
    }
  })

  it('inspects the served workspace', async () => {
    const answer = await client(appFor(root))('GET', '/api/inspect?cwd=packages/api')
    expect(answer.status).toBe(200)
    expect(answer.body.sections.map((s: { name: string }) => s.name)).toContain('template')
    // The first screen's data, as `inspect --json` gives it: every harness that reads the project.
    expect(answer.body.harnesses.map((h: { label: string }) => h.label)).toContain('AGENTS.md')
    expect(answer.body.neverLoaded).toEqual([])
  })
})

describe('sessions and usage', () => {
  it('constructs, serves byte-identical, recompiles, lists history and diffs versions', async () => {
    const { root, cleanup } = await makeProject('sessions')
    try {
      const call = client(appFor(root))
      const made = await call('PUT', '/api/sessions/agent-1', { context: {} })
      expect(made.status).toBe(200)
      expect(made.body).toMatchObject({ id: 'agent-1', version: 1 })
      const got = await call('GET', '/api/sessions/agent-1')
      expect(got.body.compiled.text).toBe(made.body.compiled.text)

      await writeFile(join(root, 'AGENTS.md'), '# Project\n\nChanged words.\n')
      // Unchanged until an explicit recompile (SPEC §5).
      expect((await call('PUT', '/api/sessions/agent-1', { context: {} })).body.compiled.text).toBe(
        made.body.compiled.text,
      )
      const again = await call('POST', '/api/sessions/agent-1/recompile', {
        context: {},
        reason: 'fragment-reload',
      })
      expect(again.status).toBe(200)
      expect(again.body).toMatchObject({ changed: true, version: 2 })
      expect(again.body.compiled.text).toContain('Changed words.')

      const history = await call('GET', '/api/sessions/agent-1/history')
      expect(history.body.versions.map((v: { reason: string }) => v.reason)).toEqual([
        'construct',
        'fragment-reload',
      ])
      const diff = await call('GET', '/api/sessions/agent-1/diff?from=1&to=2')
      expect(diff.status).toBe(200)
      expect(diff.body.diff).toMatchObject({ identical: false, section: 'template' })
      expect(diff.body.diff.firstDifference).toBeGreaterThan(0)
      expect((await call('GET', '/api/sessions/agent-1/diff?from=1&to=9')).status).toBe(404)
      expect((await call('GET', '/api/sessions/agent-1/diff?from=one&to=2')).status).toBe(400)
    } finally {
      await cleanup()
    }
  })

  it('records usage reports and returns the outcomes and the hit rate', async () => {
    const call = client(appFor(root))
    await call('PUT', '/api/sessions/usage-1', { context: {} })
    expect((await call('GET', '/api/sessions/usage-1/usage')).body).toEqual({ outcomes: [], hitRate: null })
    const report = {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 10, cache_read_input_tokens: 3000, cache_creation_input_tokens: 0 },
    }
    const posted = await call('POST', '/api/sessions/usage-1/usage', report)
    expect(posted.status).toBe(200)
    expect(posted.body.outcomes).toHaveLength(1)
    expect(posted.body.outcomes[0]).toMatchObject({
      version: 1,
      provider: 'anthropic',
      cachedTokens: 3000,
      inputTokens: 3010,
    })
    expect(posted.body.hitRate).toBeCloseTo(3000 / 3010)
    expect((await call('POST', '/api/sessions/nobody/usage', report)).status).toBe(404)
    expect((await call('POST', '/api/sessions/usage-1/usage', { ...report, provider: 'x' })).status).toBe(400)
  })

  it('answers 404 for a session that does not exist', async () => {
    const call = client(appFor(root))
    for (const path of ['/api/sessions/none', '/api/sessions/none/history', '/api/sessions/none/usage']) {
      const answer = await call('GET', path)
      expect(answer.status).toBe(404)
      expect(errorOf(answer).code).toBe('not-found')
    }
  })

  it('refuses path-like and over-long session ids', async () => {
    const call = client(appFor(root))
    for (const id of ['.hidden', '-x', 'a%2Fb', '%2e%2e%2fx', '..%2fx', 'x'.repeat(129)]) {
      const answer = await call('GET', `/api/sessions/${id}`)
      expect(answer.status, id).toBe(400)
      expect(errorOf(answer).code).toBe('invalid-request')
    }
    // Dot segments are resolved by URL parsing before routing: they never reach a session.
    for (const path of [
      '/api/sessions/%2e%2e',
      '/api/sessions/..',
      '/api/sessions/../x',
      '/api/sessions/%2e%2e/x',
    ]) {
      const answer = await call('GET', path)
      expect(answer.status, path).toBe(404)
      expect(errorOf(answer).message).not.toMatch(/no session/)
    }
  })

  it('accepts exactly the ids of the pattern (property)', async () => {
    const call = client(appFor(root))
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 140 }), async (id) => {
        const answer = await call('GET', `/api/sessions/${encodeURIComponent(id)}`)
        if (id === '' || id === '.' || id === '..') return
        expect(answer.status).toBe(SESSION_ID.test(id) ? 404 : 400)
      }),
      { numRuns: 200 },
    )
  })
})

describe('bad input', () => {
  it('malformed JSON is 400, a body that is not JSON 415, over 1 MiB 413', async () => {
    const call = client(appFor(root))
    const malformed = await call('POST', '/api/preview', '{"context": ')
    expect(malformed.status).toBe(400)
    expect(errorOf(malformed).code).toBe('malformed-json')
    const text = await call('POST', '/api/preview', undefined, { 'content-type': 'text/plain' })
    expect(text.status).toBe(415)
    const huge = await call(
      'POST',
      '/api/preview',
      JSON.stringify({ template: 'x'.repeat(2 * 1024 * 1024), context: {} }),
    )
    expect(huge.status).toBe(413)
    expect(errorOf(huge).code).toBe('too-large')
  })

  it('never answers 500 for any JSON body (property)', async () => {
    const call = client(appFor(root))
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (value) => {
        const answer = await call('POST', '/api/preview', JSON.stringify(value))
        expect([200, 400, 422]).toContain(answer.status)
        if (answer.status !== 200) expect(typeof errorOf(answer).message).toBe('string')
      }),
      { numRuns: 60 },
    )
  })

  it('an unknown route is a JSON 404, a huge query string 414', async () => {
    const call = client(appFor(root))
    const unknown = await call('GET', '/api/nope')
    expect(unknown.status).toBe(404)
    expect(errorOf(unknown).code).toBe('not-found')
    const long = await call('GET', `/api/variables?x=${'a'.repeat(10_000)}`)
    expect(long.status).toBe(414)
    expect(errorOf(long).code).toBe('uri-too-long')
  })

  it('with a token, every /api route requires it; compared whole', async () => {
    const app = appFor(root, { token: 'secret-token-1' })
    const call = client(app, {})
    expect((await call('GET', '/api/template')).status).toBe(401)
    expect((await call('GET', '/api/template', undefined, { authorization: 'Bearer wrong' })).status).toBe(
      401,
    )
    expect(
      (await call('GET', '/api/template', undefined, { authorization: 'Bearer secret-token' })).status,
    ).toBe(401)
    expect(
      (await call('GET', '/api/template', undefined, { authorization: 'Bearer secret-token-12' })).status,
    ).toBe(401)
    expect((await call('GET', '/api/openapi.json')).status).toBe(401)
    expect(
      (await call('GET', '/api/template', undefined, { authorization: 'Bearer secret-token-1' })).status,
    ).toBe(200)
    expect((await call('GET', '/healthz')).status).toBe(200)
  })

  it('on loopback without a token, refuses another Host or Origin (DNS rebinding)', async () => {
    const app = appFor(root, { bound: { port: 4319 } })
    const call = client(app, {})
    expect((await call('GET', '/api/template', undefined, { host: '127.0.0.1:4319' })).status).toBe(200)
    expect((await call('GET', '/api/template', undefined, { host: 'localhost:4319' })).status).toBe(200)
    expect((await call('GET', '/api/template', undefined, { host: '[::1]:4319' })).status).toBe(200)
    expect((await call('GET', '/api/template', undefined, { host: 'evil.example:4319' })).status).toBe(403)
    expect((await call('GET', '/api/template', undefined, { host: '127.0.0.1:80' })).status).toBe(403)
    const origin = await call('GET', '/api/template', undefined, {
      host: '127.0.0.1:4319',
      origin: 'http://evil.example',
    })
    expect(origin.status).toBe(403)
    expect(errorOf(origin).code).toBe('forbidden-origin')
    const sameOrigin = await call('GET', '/api/template', undefined, {
      host: '127.0.0.1:4319',
      origin: 'http://127.0.0.1:4319',
    })
    expect(sameOrigin.status).toBe(200)
    // CORS is off: no header allows another origin.
    expect(sameOrigin.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('OpenAPI', () => {
  it('documents every route from the schemas that validate the requests', async () => {
    const doc = (await client(appFor(root))('GET', '/api/openapi.json')).body
    expect(doc.openapi).toBe('3.0.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/healthz',
        '/api/template',
        '/api/variables',
        '/api/preview',
        '/api/inspect',
        '/api/sessions',
        '/api/sessions/{id}',
        '/api/sessions/{id}/recompile',
        '/api/sessions/{id}/history',
        '/api/sessions/{id}/diff',
        '/api/sessions/{id}/usage',
      ]),
    )
    expect(Object.keys(doc.paths['/api/template'])).toEqual(['get', 'put'])
    expect(doc.components.schemas.SetSystemPromptTemplateRequest.required).toEqual(['template', 'dialect'])
    expect(doc.paths['/api/sessions/{id}'].get.parameters[0].schema.pattern).toBe(SESSION_ID.source)
  })
})
