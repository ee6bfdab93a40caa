import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { denyList } from './deny-list.js'

describe('denyList', () => {
  const deny = denyList()

  it('matches each entry of the documented list, in any directory', () => {
    const cases: [string, string | undefined][] = [
      ['.git/config', '.git/'],
      ['.git', '.git/'],
      ['sub/.hg/hgrc', '.hg/'],
      ['.svn/entries', '.svn/'],
      ['.env', '.env'],
      ['app/.env.local', '.env.*'],
      ['.env.production', '.env.*'],
      ['.env.example', undefined],
      ['.env.sample', undefined],
      ['.env.template', undefined],
      ['certs/server.pem', '*.pem'],
      ['tls.key', '*.key'],
      ['id_rsa', 'id_rsa*'],
      ['keys/id_rsa.pub', 'id_rsa*'],
      ['id_ed25519', 'id_ed25519*'],
      ['id_ecdsa', 'id_ecdsa*'],
      ['id_dsa', 'id_dsa*'],
      ['.npmrc', '.npmrc'],
      ['home/.netrc', '.netrc'],
      ['.pgpass', '.pgpass'],
      ['.gemini/oauth_creds.json', 'oauth_creds.json'],
      ['.claude/.credentials.json', '.credentials.json'],
      ['credentials.json', 'credentials.json'],
      ['.codex/auth.json', 'auth.json'],
      ['docs/auth.json.md', undefined],
      ['AGENTS.md', undefined],
      ['docs/environment.md', undefined],
      ['keys.md', undefined],
      ['src/.github/workflows/ci.yml', undefined],
    ]
    for (const [path, entry] of cases) expect([path, deny.match(path)]).toEqual([path, entry])
  })

  it('lets an --allow-file glob opt a path back in, and only that path', () => {
    const allowing = denyList(['config/*.pem', './.npmrc'])
    expect(allowing.match('config/ca.pem')).toBeUndefined()
    expect(allowing.match('.npmrc')).toBeUndefined()
    expect(allowing.match('other/ca.pem')).toBe('*.pem')
    expect(allowing.match('.git/config')).toBe('.git/')
  })

  it('never denies a path whose names hold no dot prefix, key suffix or key name', () => {
    const name = fc
      .stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,12}$/)
      .filter(
        (n) =>
          !/^id_(rsa|ed25519|ecdsa|dsa)/.test(n) &&
          !/\.(pem|key)$/.test(n) &&
          !['oauth_creds.json', 'credentials.json', 'auth.json'].includes(n),
      )
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 5 }), (parts) => {
        expect(deny.match(parts.join('/'))).toBeUndefined()
      }),
    )
  })
})
