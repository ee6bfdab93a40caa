import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../../test/property-runs.test-helper.js'
import { discoverInstructions } from '../discover.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// pi 1.x's skills: any SKILL.md text gives a view, and what it lists stays inside its XML elements.
describe('pi 1.x skills, any SKILL.md', () => {
  it('never throws, and lists a skill only with a description, escaped', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const home = await fixtureTree({ '.pi/agent/skills/s/SKILL.md': '' })
    const file = join(home, '.pi/agent/skills/s/SKILL.md')
    const front = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc
        .tuple(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }))
        .map(([name, description]) => `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`),
    )
    await fc.assert(
      fc.asyncProperty(front, async (text) => {
        await writeFile(file, text)
        const found = await discoverInstructions({ cwd: repo, home, fsRoot: repo, mode: 'pi' })
        const part = found.harness.parts[0]!
        const listed = /<available_skills>\n([\s\S]*)\n<\/available_skills>/.exec(part.text)?.[1]
        if (listed === undefined) return
        expect(listed).toMatch(
          /^ {2}<skill>\n {4}<name>[^<>]*<\/name>\n {4}<description>[^<>]+<\/description>\n/,
        )
        expect(listed.endsWith(`<location>${file}</location>\n  </skill>`)).toBe(true)
      }),
      { numRuns: propertyRuns(60) },
    )
  })
})
