import { mkdir, symlink } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { descriptionOf, globList, listRules, readRule } from './convention.js'

afterAll(removeFixtures)

// What the convention modes read of a rule file: its front matter as the
// tools read it (strict YAML when it parses, else line by line), its globs
// and description, and which files of a rules directory are rules.
describe('readRule', () => {
  it('gives only the fields a strict front matter names, each with its value', () => {
    const rule = readRule('---\ndescription: Database work\nalwaysApply: false\n---\nBody.\n', 'r.mdc')
    expect(rule.yaml).toBe(true)
    expect(Object.keys(rule.data)).toEqual(['alwaysApply', 'description'])
    expect(rule.data).toEqual({ description: 'Database work', alwaysApply: false })
  })

  it('reads each `key: value` line as text when YAML refuses the front matter, as the tools do', () => {
    const text = [
      '---',
      'globs: *.ts',
      '  nested: not a field',
      '# a comment line',
      'spaced : before the colon',
      'tight:value',
      'quoted: "two words"',
      "single: 'one'",
      'inner: x"y"',
      'partly: "a" b',
      'on: true',
      'off: false',
      '---',
      'Body.',
    ].join('\n')
    const rule = readRule(text, 'r.mdc')
    expect(rule.yaml).toBe(false)
    expect(rule.body).toBe('Body.')
    expect(Object.keys(rule.data)).toEqual([
      'globs',
      'spaced',
      'tight',
      'quoted',
      'single',
      'inner',
      'partly',
      'on',
      'off',
    ])
    expect(rule.data).toEqual({
      globs: '*.ts',
      spaced: 'before the colon',
      tight: 'value',
      quoted: 'two words',
      single: 'one',
      inner: 'x"y"',
      partly: '"a" b',
      on: true,
      off: false,
    })
  })

  it('gives front matter read line by line as plain data a caller may change', () => {
    const rule = readRule('---\nglobs: *.ts\ndescription: Tests\n---\nBody.\n', 'r.mdc')
    rule.data.globs = 'src/**'
    delete rule.data.description
    expect(rule.data).toEqual({ globs: 'src/**' })
  })

  it('sends the body with every line ending as a line feed, a lone carriage return too', () => {
    const rule = readRule('---\r\nglobs: *.ts\r\n---\r\none\r\ntwo\rthree\n', 'r.mdc')
    expect(rule.data).toEqual({ globs: '*.ts' })
    expect(rule.body).toBe('one\ntwo\nthree\n')
  })

  it('keeps a file whose front matter is never closed whole, with no fields', () => {
    const text = '---\nglobs: *.ts\nBody without a closing line.\n'
    expect(readRule(text, 'r.mdc')).toEqual({ data: {}, body: text, yaml: false })
  })
})

describe('globList', () => {
  it('trims each glob of a comma-separated text and drops the empty ones', () => {
    expect(globList(' src/**/*.ts , ,lib/** ')).toEqual(['src/**/*.ts', 'lib/**'])
  })

  it('keeps only the texts of a list', () => {
    expect(globList([' a/** ', 1, null, { glob: 'b' }, 'c/**'])).toEqual(['a/**', 'c/**'])
  })
})

describe('descriptionOf', () => {
  it('gives the trimmed description, and none for a blank one or one that is not text', () => {
    expect(descriptionOf({ description: '  Database work \n' })).toBe('Database work')
    expect(descriptionOf({ description: ' \t ' })).toBeUndefined()
    expect(descriptionOf({ description: '' })).toBeUndefined()
    expect(descriptionOf({ description: 3 })).toBeUndefined()
    expect(descriptionOf({})).toBeUndefined()
  })
})

describe('listRules', () => {
  const names = ['m.mdc', 'b.mdc', 'z.mdc', 'a.mdc', 'k.mdc', 'c.mdc', 'y.mdc', 'e.mdc']
  const notes = ['n.md', 'd.txt', 'x.md', 'f.txt', 'q.md', 'g.txt']

  async function rulesDir(): Promise<string> {
    const tree: Record<string, string> = {}
    for (const name of [...names, ...notes]) tree[`rules/${name}`] = `${name}\n`
    for (const name of ['b.mdc', 'a.mdc', 'c.md']) tree[`rules/sub/${name}`] = `${name}\n`
    tree['rules/sub/deeper/d.mdc'] = 'd\n'
    // A directory named as a file's stem: its files sort after that file (`.` before `/`).
    tree['rules/k/inner.mdc'] = 'inner\n'
    tree['rules/n/inner.md'] = 'inner\n'
    return join(await fixtureTree(tree), 'rules')
  }

  it('lists the wanted files sorted by path, and the other regular files apart, sorted too', async () => {
    const dir = await rulesDir()
    const listed = await listRules(dir, (name) => name.endsWith('.mdc'), false)
    expect(listed.files).toEqual([...names].sort().map((name) => join(dir, name)))
    expect(listed.others).toEqual([...notes].sort().map((name) => join(dir, name)))
  })

  it('lists subdirectories, at every depth, only when asked to', async () => {
    const dir = await rulesDir()
    const listed = await listRules(dir, (name) => name.endsWith('.mdc'), true)
    expect(listed.files).toEqual(
      [...names, 'k/inner.mdc', 'sub/a.mdc', 'sub/b.mdc', 'sub/deeper/d.mdc']
        .sort()
        .map((name) => join(dir, name)),
    )
    expect(listed.others).toEqual([...notes, 'n/inner.md', 'sub/c.md'].sort().map((name) => join(dir, name)))
  })

  it('lists links to files but never a socket or another special file', async () => {
    const base = await fixtureTree({ 'target.md': 't\n' })
    const dir = join(base, 'rules')
    await mkdir(dir)
    await symlink(join(base, 'target.md'), join(dir, 'link.md'))
    const server: Server = createServer()
    await new Promise<void>((done) => server.listen(join(dir, 'socket.md'), done))
    try {
      const listed = await listRules(dir, (name) => name.endsWith('.md'), true)
      expect(listed).toEqual({ files: [join(dir, 'link.md')], others: [] })
    } finally {
      await new Promise<void>((done) => server.close(() => done()))
    }
  })

  it('lists nothing for a directory that does not exist', async () => {
    const base = await fixtureTree({})
    expect(await listRules(join(base, 'none'), () => true, true)).toEqual({ files: [], others: [] })
  })
})
