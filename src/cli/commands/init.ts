import { lstat, mkdir } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import type { Command } from 'commander'
import { SafeWriteError, writeFileSafely } from '../../node/index.js'
import { shown } from '../../node/project/paths.js'
import { projectRoot } from '../../node/project/root.js'
import { builtinPresetFragments, PROJECT_TEMPLATE } from '../../presets/index.js'
import { type CommandContext, examples, printer } from '../command.js'
import { CliError, EXIT } from '../errors.js'
import { type RawOptions, readCommonOptions } from '../options.js'
import { json } from '../output.js'

/** The preset fragment the starter overrides, to show how overrides work. */
const OVERRIDDEN_ID = 'layered.identity'

/** The starter files, relative to the project root, and their text. */
export function starterFiles(): [path: string, text: string][] {
  const identity =
    builtinPresetFragments()
      .find((f) => f.id === OVERRIDDEN_ID)
      ?.body.trim() ?? ''
  return [
    [
      '.sysprompt/template.md',
      [
        '---',
        '# The system prompt of this project: `sysprompt show` renders this file.',
        '# Bracket dialect: [namespace:key] inserts a value, [if key]…[else]…[endif] tests one,',
        '# other text in brackets stays as written. `sysprompt vars` lists the keys.',
        'description: The system prompt of this project',
        'dialect: bracket',
        'stability: session',
        '---',
        PROJECT_TEMPLATE.trim(),
        '',
      ].join('\n'),
    ],
    [
      '.sysprompt/rules/example.md',
      [
        '---',
        '# A rule joins the prompt (as section rule:<id>) while the agent works on a file matching `paths:`;',
        '# try `sysprompt show --path src/example.test.ts`. A rule without `paths:` always applies.',
        'description: How to work on tests',
        'paths: ["**/*.test.ts"]',
        '---',
        'When you change a test, run it and say whether it passed. Do not weaken an assertion to make a test pass.',
        '',
      ].join('\n'),
    ],
    [
      '.sysprompt/fragments/layered-identity.md',
      [
        '---',
        `# Replaces the built-in preset fragment with this id: \`sysprompt show --preset layered\` uses it.`,
        `id: ${OVERRIDDEN_ID}`,
        'description: Who the agent is, in this project',
        '---',
        identity,
        '',
      ].join('\n'),
    ],
  ]
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined
}

/** A write error's message with its path as people see it. */
function shownError(error: SafeWriteError, cwd: string): string {
  return error.message.startsWith(error.path)
    ? shown(error.path, cwd) + error.message.slice(error.path.length)
    : error.message
}

/**
 * Creates the directories below `root` down to `dir`, one at a time and
 * never through a link: a `.sysprompt` that is a link to elsewhere (or a
 * file) is refused before anything is created beyond it.
 */
async function makeDirs(root: string, dir: string, cwd: string): Promise<void> {
  const parts = relative(root, dir)
    .split(sep)
    .filter((p) => p !== '')
  let at = root
  for (const part of parts) {
    at = join(at, part)
    const found = await lstat(at).catch(() => undefined)
    if (found === undefined) {
      await mkdir(at).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error
      })
      continue
    }
    if (found.isSymbolicLink() || !found.isDirectory()) {
      throw new CliError(
        found.isSymbolicLink() ? 'init-parent-is-link' : 'init-parent-not-a-directory',
        `${shown(at, cwd)} is ${found.isSymbolicLink() ? 'a symbolic link; init never writes through one' : 'not a directory'}`,
        'replace it with a directory (or remove it) and run `sysprompt init` again',
      )
    }
  }
}

/** `sysprompt init`: a starter `.sysprompt/` (template, a rule, a preset override) that `show` then uses. */
export function registerInit(program: Command, ctx: CommandContext): void {
  program
    .command('init')
    .description('write a starter .sysprompt/ (template, an example rule, a preset fragment override)')
    .option('--json', 'print JSON instead of text')
    .option('--cwd <dir>', 'where to start looking for the project root (default: the current directory)')
    .option(
      '--root <dir>',
      'the project root to write into (default: the nearest .sysprompt/ or .git, else --cwd)',
    )
    .option('--no-color', 'no colours even on a terminal')
    .addHelpText(
      'after',
      examples([
        ['sysprompt init', 'write .sysprompt/ in the project root'],
        ['sysprompt init && sysprompt show', 'then see the prompt it gives'],
      ]),
    )
    .action(async (raw: RawOptions) => {
      const options = await readCommonOptions(raw, ctx.io.cwd)
      const print = printer(ctx, options.color)
      const root = await projectRoot(options.cwd, options.root)
      const files = starterFiles().map(([rel, text]) => ({ path: join(root, rel), text }))
      for (const file of files) {
        if (await exists(file.path)) {
          throw new CliError(
            'exists',
            `${shown(file.path, ctx.io.cwd)} already exists and init never overwrites`,
            'edit it, or move it away and run `sysprompt init` again',
          )
        }
      }
      for (const file of files) {
        await makeDirs(root, dirname(file.path), ctx.io.cwd)
        await writeFileSafely(file.path, file.text, { root, exclusive: true }).catch((error: unknown) => {
          if (!(error instanceof SafeWriteError)) throw error
          if (error.code === 'exists') {
            throw new CliError(
              'exists',
              `${shown(file.path, ctx.io.cwd)} appeared while init ran`,
              'check it and run `sysprompt init` again',
            )
          }
          throw new CliError(
            `init-${error.code}`,
            `${shown(file.path, ctx.io.cwd)} was not written: ${shownError(error, ctx.io.cwd)}`,
            'fix that path (a link or special file where .sysprompt/ should be?) and run `sysprompt init` again',
            { cause: error },
          )
        })
      }
      if (options.json) print.out(json({ root, written: files.map((f) => f.path) }))
      else {
        print.out(
          [
            ...files.map((f) => `${print.paint('green', 'wrote')} ${shown(f.path, ctx.io.cwd)}`),
            '',
            'Next: `sysprompt show` to see the prompt, `sysprompt inspect` for its tokens,',
            '`sysprompt check --update` to lock it.',
            '',
          ].join('\n'),
        )
      }
      ctx.exit(EXIT.ok)
    })
}
