import type { CompiledPrompt } from '../compile/index.js'
import type { BuildFailure } from '../node/project/failure.js'
import { CliError } from './errors.js'

/** The compiled prompt, or a `CliError` saying why there is none. */
export function requireCompiled(project: {
  compiled?: CompiledPrompt
  failure?: BuildFailure
}): CompiledPrompt {
  if (project.compiled !== undefined) return project.compiled
  const failure = project.failure ?? { code: 'build', message: 'the prompt could not be built' }
  throw new CliError(failure.code, failure.message, 'run `sysprompt lint` to see every problem')
}
