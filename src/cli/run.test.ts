import { describe, expect, it } from 'vitest'
import { COMMAND_NAMES } from './command-names.js'
import { COMMANDS, createProgram, namedCommand } from './run.js'

const ctx = () => {
  const sink = { write: () => true }
  return {
    io: { stdout: sink, stderr: sink, env: {}, cwd: '/' } as never,
    exit: () => {},
  }
}

describe('lazy commands', () => {
  it('the root help without loading any command equals the one with every command loaded', async () => {
    const lazy = await createProgram(ctx(), undefined)
    const full = await createProgram(ctx(), 'all')
    expect(lazy.helpInformation()).toBe(full.helpInformation())
    expect(lazy.commands.map((c) => c.name())).toEqual(COMMANDS.map((c) => c.name))
  })

  it('a named command is registered in full, the others by name', async () => {
    const program = await createProgram(ctx(), 'inspect')
    const inspect = program.commands.find((c) => c.name() === 'inspect')!
    expect(inspect.options.map((o) => o.long)).toContain('--tokenizer')
    expect(program.commands.find((c) => c.name() === 'show')!.options).toHaveLength(0)
  })

  it('finds the command the arguments name', () => {
    expect(namedCommand(['inspect', '--json'])).toBe('inspect')
    expect(namedCommand(['--help'])).toBeUndefined()
    expect(namedCommand(['help', 'show'])).toBe('show')
    expect(namedCommand(['nonsense'])).toBeUndefined()
  })

  it('the launcher knows every command by name (add a new command to COMMAND_NAMES as well)', () => {
    expect(COMMAND_NAMES).toEqual(COMMANDS.map((c) => c.name))
  })
})
