import { beforeAll, describe, expect, it } from 'vitest'
import { type RootAnswers, rootAnswer, type WidthStream } from './root-answers.js'
import { renderRootAnswers, run } from './run.js'

// The launcher prints the root texts from what the build rendered; here
// they are held against what commander itself prints, for every width a
// terminal can have, so a changed command, description or commander
// version cannot leave the launcher printing stale text.

/** What `run` (commander) prints for `argv`, with stdout and stderr as `stream` says. */
async function commander(argv: string[], stream: WidthStream) {
  let stdout = ''
  let stderr = ''
  const code = await run(argv, {
    stdout: { write: (t: string) => (stdout += t), ...stream },
    stderr: { write: (t: string) => (stderr += t), ...stream },
    env: {},
    cwd: '/',
  })
  return { stdout, stderr, code }
}

/** What the launcher answers, in the same shape, or undefined when it leaves `argv` to commander. */
function launcher(argv: string[], stream: WidthStream, answers: RootAnswers) {
  const answer = rootAnswer(argv, { stdout: stream, stderr: stream }, answers)
  if (answer === undefined) return undefined
  return {
    stdout: answer.stream === 'stdout' ? answer.text : '',
    stderr: answer.stream === 'stderr' ? answer.text : '',
    code: answer.code,
  }
}

let answers: RootAnswers
beforeAll(async () => {
  answers = await renderRootAnswers()
})

describe('root texts the launcher prints without loading commander', () => {
  it('equal what commander prints, off a terminal and at every terminal width from 0 to 300 columns', async () => {
    const streams: WidthStream[] = [{}, { isTTY: false, columns: 120 }, { isTTY: true }]
    for (let columns = 0; columns <= 300; columns++) streams.push({ isTTY: true, columns })
    let answered = 0
    for (const stream of streams) {
      for (const argv of [['--help'], ['-h'], ['help'], ['--version'], ['-V'], []]) {
        const fast = launcher(argv, stream, answers)
        if (fast === undefined) continue
        answered++
        expect(fast, `${argv.join(' ')} at ${JSON.stringify(stream)}`).toEqual(await commander(argv, stream))
      }
    }
    // Every width from the wide one up, and 80, is answered without commander (not only a few).
    expect(answers.wideFrom).toBeLessThan(200)
    expect(answered).toBeGreaterThan(6 * (300 - answers.wideFrom))
  })

  it('answers off a terminal, on an 80-column one and on a wide one; other widths go to commander', () => {
    for (const stream of [{}, { isTTY: true, columns: 80 }, { isTTY: true, columns: 250 }]) {
      expect(launcher(['--help'], stream, answers)?.stdout).toContain('Usage: sysprompt [options] [command]')
    }
    expect(answers.help).not.toBe(answers.wideHelp)
    expect(launcher(['--help'], { isTTY: true, columns: answers.wideFrom - 1 }, answers)).toBeUndefined()
    expect(launcher(['--help'], { isTTY: true, columns: 60 }, answers)).toBeUndefined()
  })

  it('leaves every other command line to commander', () => {
    for (const argv of [
      ['inspect'],
      ['--help', 'inspect'],
      ['help', 'inspect'],
      ['inspect', '--help'],
      ['--version', '--help'],
      ['--no-cache'],
      ['--HELP'],
      ['-hV'],
      ['--'],
    ]) {
      expect(launcher(argv, {}, answers), argv.join(' ')).toBeUndefined()
    }
  })

  it('--version prints the package version; no arguments print the help and the usage error (exit 2)', async () => {
    expect(answers.version).toMatch(/^\d+\.\d+\.\d+\S*\n$/)
    const none = launcher([], {}, answers)!
    expect(none.code).toBe(2)
    expect(none.stderr).toBe(
      `${answers.help}sysprompt: no command given; run one of the commands above, e.g. \`sysprompt inspect\`\n`,
    )
  })
})
