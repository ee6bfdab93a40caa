import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { scanSecrets, scanSecretsWithPreset } from './secrets.js'

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Rk3Tn2W'
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

describe('scanSecrets finds secrets without a fixed prefix', () => {
  it.each([
    ['an AWS secret access key', `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}\n`, AWS_SECRET],
    ['a quoted AWS secret access key', `aws_secret_access_key: "${AWS_SECRET}"\n`, AWS_SECRET],
    ['a password assignment', 'DB_PASSWORD=hunter2-Secret\n', 'hunter2-Secret'],
    ['a quoted password', 'password: "correct horse"\n', 'correct horse'],
    [
      'a password in a database URL',
      'DATABASE_URL=postgres://admin:s3cr3tPass@db.example.com/app\n',
      's3cr3tPass',
    ],
    ['a JWT', `Authorization: Bearer ${JWT}\n`, JWT],
  ])('finds %s and never prints it', async (_, text, secret) => {
    for (const hits of [scanSecrets(text), await scanSecretsWithPreset(text)]) {
      expect(hits.length).toBeGreaterThanOrEqual(1)
      expect(
        hits.some((h) => text.slice(h.offset, h.offset + h.secret.length).includes(secret.slice(0, 8))),
      ).toBe(true)
      for (const h of hits) {
        expect(h.message).not.toContain(secret)
        expect(h.message).not.toContain(secret.slice(0, 6))
      }
    }
  })

  it('leaves prose about passwords and placeholders alone', () => {
    const text = [
      'Ask the user for the password: never guess it.',
      'The password field is required; passwords are hashed.',
      'password=<your password>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell placeholder, written as users write it
      'PASSWORD=${DB_PASSWORD}',
      'password: ********',
      'DATABASE_URL=postgres://user:password@localhost/db',
      'see https://example.com/docs and ssh://git@example.com/x.git',
      'AWS_SECRET_ACCESS_KEY=your-secret-key-here',
      'eyJ is how base64 JSON starts',
    ].join('\n')
    expect(scanSecrets(text)).toEqual([])
  })

  it('stays linear on long runs of anchors', () => {
    for (const anchor of ['password=', '://a:', 'eyJ', 'aws_secret_access_key=']) {
      expect(scanSecrets(anchor.repeat(20_000)).length).toBeLessThanOrEqual(20_000)
    }
  })

  it('reports only spans of the text, for any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        for (const hit of scanSecrets(text)) {
          expect(hit.offset).toBeGreaterThanOrEqual(0)
          expect(text.slice(hit.offset, hit.offset + hit.secret.length)).toBe(hit.secret)
        }
      }),
    )
  })
})

describe('Google keys and tokens, and basic credentials in a git http.extraheader', () => {
  const GOOGLE_KEY = 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'
  const ACCESS = 'ya29.a0AfH6SMBx3k9Lm2Qw8Zr7Tn5Yp1Vc4Ud6Ie0Of2Pg'
  const REFRESH = '1//0gLb3xK9mQ2wZr7Tn5Yp1Vc4Ud6Ie0Of2PgHjKl'
  // base64 of `x-access-token:ghs_…`, as actions/checkout writes it.
  const BASIC = btoa('x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a')

  it.each([
    ['a Google API key', `const key = "${GOOGLE_KEY}"`, GOOGLE_KEY, 'Google API key AIza… (39 characters)'],
    [
      'a Google OAuth access token',
      `Authorization: Bearer ${ACCESS}\n`,
      ACCESS,
      'Google OAuth access token ya29.…',
    ],
    ['a Google refresh token', `"refresh_token": "${REFRESH}"`, REFRESH, 'Google OAuth refresh token 1//…'],
    [
      'basic credentials in git http.extraheader',
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${BASIC}\n`,
      BASIC,
      'basic credentials in an Authorization header',
    ],
    [
      'basic credentials in a git -c flag',
      `git -c http.extraheader="Authorization: Basic ${btoa('user:hunter2-Secret')}" fetch`,
      btoa('user:hunter2-Secret'),
      'basic credentials in an Authorization header',
    ],
  ])('finds %s and prints only its kind, prefix and length', (_, text, secret, shown) => {
    const hits = scanSecrets(text)
    expect(hits).toHaveLength(1)
    expect(hits[0]!.secret).toBe(secret)
    expect(text.slice(hits[0]!.offset, hits[0]!.offset + secret.length)).toBe(secret)
    expect(hits[0]!.message).toContain(shown)
    expect(hits[0]!.message).not.toContain(secret.slice(5, 15))
  })

  it('leaves prose and look-alikes alone', () => {
    const text = [
      'Google access tokens start with ya29. and expire after an hour.',
      'A token like ya29.example is a placeholder.',
      'see https://example.com/v1//path and http://host:8081//abcdefghijklmnopqrstuvwxyz0123456789',
      '// 1// short comment; 1//0gShort',
      'CHAIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q is a word, not a key',
      'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Qx is one character too long',
      'AIzaSy is how a Google API key starts',
      'extraheader = AUTHORIZATION: basic <base64>',
      'Authorization: Basic auth is used for the registry.',
      `Authorization: Basic ${btoa('no colon in here at all')}`,
    ].join('\n')
    expect(scanSecrets(text)).toEqual([])
  })

  it('stays linear on long runs of the new anchors', () => {
    for (const anchor of ['AIza', 'ya29.', '1//', 'authorization: basic ']) {
      expect(scanSecrets(anchor.repeat(20_000)).length).toBeLessThanOrEqual(20_000)
    }
  })

  it('still reports each once beside secretlint', async () => {
    const text = `${GOOGLE_KEY}\n${ACCESS}\n${REFRESH}\nAUTHORIZATION: basic ${BASIC}\n`
    expect(await scanSecretsWithPreset(text)).toHaveLength(4)
  })
})

describe('secretlint beside our own patterns', () => {
  it('adds what only the maintained preset knows, reporting each secret once', async () => {
    const text = 'curl https://deploy:Zq81tP0xLm@ci.example.com/hook\n'
    const hits = await scanSecretsWithPreset(text)
    expect(hits).toHaveLength(1)
    expect(hits[0]!.message).not.toContain('Zq81tP0xLm')
  })
})

/** Every instruction file the false-positive check reads: the fixtures and the README's sample project. */
async function realInstructionFiles(): Promise<{ path: string; text: string }[]> {
  const fixtures = join(import.meta.dirname, 'fixtures')
  const sample = join(import.meta.dirname, '..', '..', '..', 'examples', 'sample-project')
  const paths = (await readdir(fixtures)).filter((n) => n.endsWith('.md')).map((n) => join(fixtures, n))
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (entry.name.endsWith('.md')) paths.push(path)
    }
  }
  await walk(sample)
  return Promise.all(paths.map(async (path) => ({ path, text: await readFile(path, 'utf8') })))
}

describe('no false positives on real instruction files', () => {
  it('finds no secret in public AGENTS.md and CLAUDE.md excerpts, nor in the sample project', async () => {
    const files = await realInstructionFiles()
    expect(files.length).toBeGreaterThanOrEqual(5)
    for (const file of files) {
      const hits = await scanSecretsWithPreset(file.text)
      expect([file.path, hits.map((h) => h.message)]).toEqual([file.path, []])
    }
  })
})
