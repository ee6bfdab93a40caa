import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appFor, client, makeProject } from './server.test-helper.js'

// The page mounted on the API app (from source, where no bundle is built;
// the built page is served in test/browser): the API keeps its routes and
// its JSON 404s, and `/` says what to run.

let project: Awaited<ReturnType<typeof makeProject>>
beforeAll(async () => {
  project = await makeProject('page-mount')
})
afterAll(() => project.cleanup())

describe('the page on the API app', () => {
  it('leaves the API routes and their JSON errors as they are', async () => {
    const call = client(appFor(project.root))
    expect((await call('GET', '/api/template')).status).toBe(200)
    const missing = await call('GET', '/api/no-such-route')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('not-found')
    const asset = await call('GET', '/assets/no-such-file.js')
    expect(asset.status).toBe(404)
    expect(asset.body.error.code).toBe('not-found')
  })

  it('answers / with what to run when the page is not built', async () => {
    const res = await appFor(project.root).request('/', { headers: { host: '127.0.0.1' } })
    expect(res.status).toBe(503)
    expect(await res.text()).toContain('npm run build')
  })
})
