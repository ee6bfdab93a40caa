import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

// Issue 30, finding 2: a repository's own settings never choose files in the
// user's home directory, and no name from any setting reads a denied file.
// Gemini CLI would read `~/.gemini/oauth_creds.json` for a committed
// `.gemini/settings.json` naming it; sysprompt withholds it and says so.

afterAll(removeFixtures)

const SECRET = 'ya29.home-token-never-print'
const PROJECT_SECRET = 'project-env-never-print'

/** A fake home: Gemini CLI's credentials and an .env beside the user's own GEMINI.md. */
async function home(extra: Record<string, string> = {}): Promise<string> {
  return fixtureTree({
    '.gemini/GEMINI.md': 'Global gemini.\n',
    '.gemini/oauth_creds.json': `{"access_token": "${SECRET}"}\n`,
    '.gemini/.env': `GEMINI_API_KEY=${SECRET}\n`,
    '.gemini/NOTES.md': 'My own notes.\n',
    ...extra,
  })
}

/** A repository (real git) whose committed .gemini/settings.json names `names` (none: no settings file). */
async function repository(names?: readonly string[]): Promise<string> {
  const repo = await fixtureTree({
    'GEMINI.md': 'Project gemini.\n',
    'TEAM.md': 'Team notes.\n',
    '.env': `TOKEN=${PROJECT_SECRET}\n`,
    ...(names === undefined
      ? {}
      : { '.gemini/settings.json': JSON.stringify({ context: { fileName: names } }) }),
  })
  execFileSync('git', ['init', '-q', repo])
  execFileSync('git', ['-C', repo, 'add', '.'])
  return repo
}

describe("names a repository's Gemini settings add", () => {
  it('are read inside the project only: ~/.gemini/oauth_creds.json and ~/.gemini/.env are withheld, the project .env is denied', async () => {
    const repo = await repository(['oauth_creds.json', '.env', 'TEAM.md'])
    const userHome = await home()
    const options = { cwd: repo, home: userHome, mode: 'gemini' as const }
    const found = await discoverInstructions(options)
    const all = JSON.stringify(found)
    expect(all).not.toContain(SECRET)
    expect(all).not.toContain(PROJECT_SECRET)
    expect(found.files.map((f) => f.path)).toEqual([
      join(userHome, '.gemini', 'GEMINI.md'),
      join(repo, 'GEMINI.md'),
      join(repo, 'TEAM.md'),
    ])
    expect(found.withheld.map((w) => [w.path, w.code])).toEqual([
      [join(userHome, '.gemini', 'oauth_creds.json'), 'repository-name'],
      [join(userHome, '.gemini', '.env'), 'repository-name'],
      [join(repo, '.env'), 'denied'],
    ])
    expect(found.diagnostics.filter((d) => d.code === 'repository-name').map((d) => d.message)).toEqual([
      "~/.gemini/oauth_creds.json: a name only the repository's settings add (context.fileName in .gemini/settings.json), and a repository never chooses what is read in your home directory; it was not read (Gemini CLI would send it). Remove the name from the repository's settings, or add it to context.fileName in your own ~/.gemini/settings.json if you mean Gemini CLI to read it.",
      "~/.gemini/.env: a name only the repository's settings add (context.fileName in .gemini/settings.json), and a repository never chooses what is read in your home directory; it was not read (Gemini CLI would send it). Remove the name from the repository's settings, or add it to context.fileName in your own ~/.gemini/settings.json if you mean Gemini CLI to read it.",
    ])
    // The view keeps Gemini CLI's blocks for them, each with a mark for its text.
    const [system, user] = found.harness.parts
    expect(system!.text).toContain(
      `--- Context from: ${join(userHome, '.gemini', 'oauth_creds.json')} ---\n[withheld: a name only the repository's settings add`,
    )
    expect(system!.withheld.map((w) => w.path)).toEqual([
      join(userHome, '.gemini', 'oauth_creds.json'),
      join(userHome, '.gemini', '.env'),
    ])
    expect(user!.withheld.map((w) => w.path)).toEqual([join(repo, '.env')])
    const why = await explainInstructions({ ...options, file: join(userHome, '.gemini', 'oauth_creds.json') })
    expect(why).toMatchObject({ status: 'skipped', code: 'repository-name' })
    expect(why.reason).toMatch(
      /^withheld: a name only the repository's settings add .*; Gemini CLI would send it$/,
    )
    const env = await explainInstructions({ ...options, file: '.env' })
    expect(env).toMatchObject({ status: 'skipped', code: 'denied' })
    expect(env.reason).toBe(
      'withheld: a denied file (`.env` is on the deny-list of secret-bearing files); Gemini CLI would send it',
    )
  })

  it("the user's own settings, flags and options still choose home names, and never a denied one", async () => {
    const repo = await repository()
    const ownSettings = JSON.stringify({ context: { fileName: ['NOTES.md', 'oauth_creds.json'] } })
    const userHome = await home({ '.gemini/settings.json': ownSettings })
    const own = await discoverInstructions({ cwd: repo, home: userHome, mode: 'gemini' })
    expect(own.files.map((f) => f.path)).toContain(join(userHome, '.gemini', 'NOTES.md'))
    expect(JSON.stringify(own)).not.toContain(SECRET)
    expect(own.withheld.map((w) => [w.path, w.code])).toEqual([
      [join(userHome, '.gemini', 'oauth_creds.json'), 'denied'],
    ])
    for (const chosen of [
      { harnessConfig: ['context.fileName=NOTES.md'] },
      { names: ['NOTES.md'] as readonly string[] },
    ]) {
      const found = await discoverInstructions({ cwd: repo, home: await home(), mode: 'gemini', ...chosen })
      expect(found.files.map((f) => f.path.endsWith('NOTES.md'))).toContain(true)
      expect(found.withheld).toEqual([])
    }
  })

  it("a repository's name replaces the user's, as in Gemini CLI: the user's name is not read, the repository's is withheld", async () => {
    const repo = await repository(['oauth_creds.json'])
    const userHome = await home({ '.gemini/settings.json': '{"context": {"fileName": ["NOTES.md"]}}' })
    const found = await discoverInstructions({ cwd: repo, home: userHome, mode: 'gemini' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(userHome, '.gemini', 'GEMINI.md'),
      join(repo, 'GEMINI.md'),
    ])
    expect(found.withheld.map((w) => w.path)).toEqual([join(userHome, '.gemini', 'oauth_creds.json')])
  })
})

describe('names from other harness settings', () => {
  it("Codex fallback names of a trusted project's config read no denied file", async () => {
    const repo = await fixtureTree({
      '.env': `TOKEN=${PROJECT_SECRET}\n`,
      '.codex/config.toml': 'project_doc_fallback_filenames = [".env"]\n',
    })
    execFileSync('git', ['init', '-q', repo])
    const userHome = await fixtureTree({
      '.codex/config.toml': `[projects."${repo}"]\ntrust_level = "trusted"\n`,
    })
    const found = await discoverInstructions({ cwd: repo, home: userHome, mode: 'codex' })
    expect(JSON.stringify(found)).not.toContain(PROJECT_SECRET)
    expect(found.withheld.map((w) => [w.path, w.code])).toEqual([[join(repo, '.env'), 'denied']])
  })

  it("opencode instructions of a project file read neither the user's home nor a denied file", async () => {
    const userHome = await home()
    const repo = await fixtureTree({
      'AGENTS.md': 'Agents.\n',
      '.env': `TOKEN=${PROJECT_SECRET}\n`,
      'opencode.json': JSON.stringify({
        instructions: ['.env', '~/.gemini/oauth_creds.json', join(userHome, '.gemini', '.env')],
      }),
    })
    execFileSync('git', ['init', '-q', repo])
    const found = await discoverInstructions({ cwd: repo, home: userHome, mode: 'opencode' })
    const all = JSON.stringify(found)
    expect(all).not.toContain(SECRET)
    expect(all).not.toContain(PROJECT_SECRET)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
  })
})
