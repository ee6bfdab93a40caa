/**
 * The names of the `sysprompt` commands, in the order the root help lists
 * them. A test keeps this list equal to the `COMMANDS` table in `run.ts`;
 * the launcher (`launch.ts`) names a command's code cache after it, and
 * needs the names before the command line code is loaded.
 */
export const COMMAND_NAMES: readonly string[] = [
  'show',
  'inspect',
  'diff',
  'vars',
  'lint',
  'check',
  'explain',
  'matrix',
  'init',
  'sessions',
  'record',
  'serve',
]

/**
 * The command the arguments name (`sysprompt help show` names `show`), or
 * undefined. The root has no option that takes a value, so the first word
 * that is not an option is the command.
 */
export function namedCommand(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'))
  const name = words[0] === 'help' ? words[1] : words[0]
  return name !== undefined && COMMAND_NAMES.includes(name) ? name : undefined
}
