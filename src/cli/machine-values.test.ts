import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { holdsMachineValue } from './machine-values.js'

const PROSE_WORDS = [
  'the',
  'package',
  'root',
  'admin',
  'dev',
  'user',
  'test',
  'runner',
  'node',
  'ubuntu',
  'home',
  'build',
  'server',
  'vscode',
  'of',
  'a',
  'is',
  'in',
  'tree',
  'panel',
  'Root',
  'docs',
  'main',
  'deploy',
  'data',
]

describe('machine values: a name counts where it names this machine, not where prose uses the word', () => {
  it('does not take the word "root" in prose for the user root (the false warning of `check --update` as root)', () => {
    for (const text of [
      'Run it from the package root.',
      'the root directory',
      'root-level files',
      'Root cause:',
    ])
      expect(holdsMachineValue(text, 'user name', 'root'), text).toBe(false)
    for (const name of ['admin', 'dev', 'user', 'test', 'runner', 'ubuntu'])
      expect(
        holdsMachineValue(`The ${name} panel, a ${name}-only test, ${name}s and ${name}.`, 'user name', name),
        name,
      ).toBe(false)
  })

  it('still finds a common or short user name in a home directory, a login or a key', () => {
    for (const text of [
      'cd /home/root/src',
      'files in /Users/root',
      'C:\\Users\\root\\repo',
      'see ~root/notes',
      'ssh root@build-box',
      'USER=root',
      'user: root',
      '"username": "root"',
    ])
      expect(holdsMachineValue(text, 'user name', 'root'), text).toBe(true)
  })

  it('finds a user name that is no common word as a whole word, and in paths and logins', () => {
    for (const text of ['/home/alice/src', 'alice@host', 'ask alice first', 'by alice.'])
      expect(holdsMachineValue(text, 'user name', 'alice'), text).toBe(true)
    for (const text of ['malice', 'alice_b', 'Alice wrote it', 'alice.txt', '/home/alicex'])
      expect(holdsMachineValue(text, 'user name', 'alice'), text).toBe(false)
  })

  it('finds the host name as a whole word, and a common one only after @, // or a key', () => {
    for (const text of ['built on ws-4821', 'ssh ws-4821.', 'https://ws-4821:8080/'])
      expect(holdsMachineValue(text, 'host name', 'ws-4821'), text).toBe(true)
    expect(holdsMachineValue('ws-48210 and xws-4821', 'host name', 'ws-4821')).toBe(false)
    for (const text of ['the build server', 'a dev box']) {
      expect(holdsMachineValue(text, 'host name', 'server'), text).toBe(false)
      expect(holdsMachineValue(text, 'host name', 'dev'), text).toBe(false)
    }
    for (const text of ['ssh me@server', 'http://server/x', 'HOSTNAME=server', 'host: server'])
      expect(holdsMachineValue(text, 'host name', 'server'), text).toBe(true)
  })

  it('finds a home directory or project root only at the start of a path', () => {
    for (const text of ['cd /root/x', '"/root"', 'in /root.', 'file:///root/a'])
      expect(holdsMachineValue(text, 'home directory', '/root'), text).toBe(true)
    for (const text of ['/srv/root/x', '/rootfs', 'lib/root/x', 'the package root', '/root.bak'])
      expect(holdsMachineValue(text, 'home directory', '/root'), text).toBe(false)
    expect(holdsMachineValue('open /srv/app/src', 'project root', '/srv/app')).toBe(true)
    expect(holdsMachineValue('open /srv/application', 'project root', '/srv/app')).toBe(false)
  })

  it('never finds a common user or host name, or a home, in prose without those shapes (property)', () => {
    const separator = fc.constantFrom(' ', ', ', '. ', '; ', ' (', ') ', '\n', ' - ', '! ', '? ', ' "', '" ')
    const prose = fc
      .array(fc.tuple(fc.constantFrom(...PROSE_WORDS), separator), { minLength: 1, maxLength: 40 })
      .map((parts) => parts.map(([w, s]) => w + s).join(''))
    const name = fc.constantFrom('root', 'admin', 'dev', 'user', 'test', 'runner', 'node', 'ubuntu', 'vscode')
    fc.assert(
      fc.property(prose, name, (text, value) => {
        expect(holdsMachineValue(text, 'user name', value)).toBe(false)
        expect(holdsMachineValue(text, 'host name', value)).toBe(false)
        expect(holdsMachineValue(text, 'home directory', `/${value}`)).toBe(false)
      }),
    )
  })
})
