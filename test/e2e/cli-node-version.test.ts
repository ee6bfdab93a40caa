import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import packageJson from '../../package.json' with { type: 'json' }
import { versionParts } from '../../src/cli/node-version.js'
import { cli, useSandbox } from './cli.test-helper.js'

useSandbox()

// The machine's own Node is older than the package needs (20 on CI's
// machines; scripts/node.sh puts a newer one first on PATH for the suite).
// The built command, started with it, must say so in one line and stop.
const OLD_NODE = process.env.SYSPROMPT_TEST_OLD_NODE ?? '/usr/bin/node'

function versionOf(node: string): string | undefined {
  if (!existsSync(node)) return undefined
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

const oldVersion = versionOf(OLD_NODE)
const minimum = versionParts(packageJson.engines.node)!
const isOlder = (v: string | undefined): boolean => {
  const parts = v === undefined ? undefined : versionParts(v)
  if (parts === undefined) return false
  for (let i = 0; i < 3; i++) if (parts[i] !== minimum[i]) return parts[i]! < minimum[i]!
  return false
}
// Under CI the older Node is part of the machine; elsewhere a machine may have none.
const reason = `no Node older than ${packageJson.engines.node.replace(/^>=/, '')} at ${OLD_NODE} (set SYSPROMPT_TEST_OLD_NODE)`
const haveOld = isOlder(oldVersion) || process.env.CI === 'true'

describe.skipIf(!haveOld)(`the command on an older Node (skipped when there is ${reason})`, () => {
  it('exits 1 with one line naming the version it needs, for a command and for --help', async () => {
    expect(isOlder(oldVersion), reason).toBe(true)
    for (const args of [['inspect'], ['--help'], ['--version']]) {
      const result = await cli(args, { node: OLD_NODE })
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toBe(
        `sysprompt needs Node.js 22.19 or later; this is Node.js ${oldVersion!.replace(/^v/, '')}.\n`,
      )
    }
  })
})
