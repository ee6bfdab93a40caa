import { INSTRUCTION_MODES, type InstructionMode } from '../node/instructions/discovery-options.js'
import { UsageError } from './errors.js'

/** `--modes a,b,…` checked against the mode names; a usage error names the bad one and the choices. */
export function parseModes(value: string, option = '--modes'): InstructionMode[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0)
  if (names.length === 0)
    throw new UsageError(`${option} is empty`, `name modes, e.g. ${option} claude,codex`)
  for (const name of names) {
    if (!(INSTRUCTION_MODES as readonly string[]).includes(name))
      throw new UsageError(
        `${option} ${name}: not a mode`,
        `use a comma-separated list of ${INSTRUCTION_MODES.join(', ')}`,
      )
  }
  return [...new Set(names)] as InstructionMode[]
}
