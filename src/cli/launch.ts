#!/usr/bin/env node
/**
 * The `sysprompt` bin (bundled into `dist/bin/sysprompt.cjs`). The root
 * texts (`--help`, `--version`, no arguments) it prints by itself, from
 * text commander rendered at build time (`root-answers.ts`): they load
 * neither the command line code nor commander, and answer about as fast as
 * Node starts. Everything else goes to `launch-cli.ts`, which compiles the
 * command line code through V8's code cache and runs it; that half, and
 * the `node:*` modules it needs, load only then.
 */
import { nodeVersionProblem } from './node-version.js'
import { type RootAnswers, rootAnswer } from './root-answers.js'

/** The root texts, rendered by commander when the build wrote this file (scripts/build-cli.ts). */
declare const ROOT_ANSWERS: RootAnswers
/** `package.json`'s `engines.node`, put here by the build. */
declare const NODE_MINIMUM: string

// `sysprompt show | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

const argv = process.argv.slice(2)
const tooOld = nodeVersionProblem(process.version, NODE_MINIMUM)
const answer = tooOld === undefined ? rootAnswer(argv, process, ROOT_ANSWERS) : undefined
if (tooOld !== undefined) {
  process.stderr.write(tooOld)
  process.exitCode = 1
} else if (answer !== undefined) {
  process[answer.stream].write(answer.text)
  process.exitCode = answer.code
} else {
  // No top-level await: the launcher is CommonJS, which Node starts sooner than an ES module.
  void import('./launch-cli.js').then(({ launchCli }) => launchCli(argv))
}
