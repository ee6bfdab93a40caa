import type { Command } from 'commander'
import { explainInstructions, isInside } from '../../node/index.js'
import { shown } from '../../node/project/paths.js'
import { projectRoot } from '../../node/project/root.js'
import { describeDecision, judgeRules, loadRules, rulesDir } from '../../node/project/rules.js'
import { type CommandContext, examples, printer } from '../command.js'
import { EXIT } from '../errors.js'
import { addCommonOptions, existingFile, type RawOptions, readCommonOptions } from '../options.js'
import { json } from '../output.js'

/** `sysprompt explain FILE`: why an instruction file or a rule is in the prompt or not. */
export function registerExplain(program: Command, ctx: CommandContext): void {
  addCommonOptions(
    program
      .command('explain')
      .description('say why an instruction file or a rule is in the prompt or not')
      .argument(
        '<file>',
        'an existing instruction file (AGENTS.md, …) or a rule in .sysprompt/rules/, relative to the current directory',
      ),
  )
    .addHelpText(
      'after',
      examples([
        ['sysprompt explain AGENTS.md', 'included, truncated or skipped, and why'],
        ['sysprompt explain docs/CLAUDE.md --mode claude', 'as Claude Code would decide'],
        [
          'sysprompt explain .sysprompt/rules/testing.md --path src/a.test.ts',
          'whether a rule applies to that file',
        ],
      ]),
    )
    .action(async (file: string, raw: RawOptions) => {
      const options = await readCommonOptions(raw, ctx.io.cwd)
      const print = printer(ctx, options.color)
      const root = await projectRoot(options.cwd, options.root)
      // A file named on the command line that does not exist is a usage error, as everywhere in the CLI;
      // an existing file that discovery skips is an answer (exit 0).
      const path = await existingFile(ctx.io.cwd, file, 'explain:')
      if (isInside(rulesDir(root), path) && path.endsWith('.md')) {
        const rules = await loadRules(root)
        const rule = rules.list.find((r) => r.source === path)
        const error = rules.errors.find((e) => e.file === path)
        const judged =
          rule === undefined ? undefined : judgeRules([rule], options.paths, root, options.model)[0]
        const result =
          judged === undefined
            ? {
                kind: 'rule' as const,
                file: path,
                status: 'skipped' as const,
                code: error === undefined ? 'missing' : error.code,
                reason:
                  error === undefined
                    ? `there is no rule file ${shown(path, root)}`
                    : `it does not load: ${error.message}`,
              }
            : {
                kind: 'rule' as const,
                file: path,
                id: judged.rule.id,
                status: judged.decision.applies ? ('included' as const) : ('skipped' as const),
                code: judged.decision.reason,
                reason: describeDecision(judged.decision, options.paths, root),
              }
        print.out(
          options.json
            ? json(result)
            : `${shown(path, root)}: ${print.paint(result.status === 'included' ? 'green' : 'yellow', result.status)}: ${result.reason}\n`,
        )
        ctx.exit(EXIT.ok)
        return
      }
      const explained = await explainInstructions({
        cwd: options.cwd,
        root,
        rootIsBoundary: options.root !== undefined,
        mode: options.mode,
        paths: options.paths,
        harnessConfig: options.harnessConfig ?? [],
        ...(options.harnessVersion === undefined ? {} : { harnessVersion: options.harnessVersion }),
        env: ctx.io.env,
        file: path,
        // explain reports reasons, not counts: an estimate keeps it from loading an encoding.
        tokenizer: 'estimate',
      })
      const tone =
        explained.status === 'included' || explained.status === 'late-bound'
          ? 'green'
          : explained.status === 'on-demand'
            ? 'cyan'
            : 'yellow'
      // The status in words, once: a reason that starts with it (`on demand, when …`) is not repeated after it.
      const label = explained.status.replace('-', ' ')
      const reason = explained.reason.startsWith(label)
        ? explained.reason.slice(label.length).replace(/^[,:]\s*/, '')
        : explained.reason
      const lines = [
        `${shown(explained.file, root)}: ${print.paint(tone, explained.status)}: ${reason}${explained.activation === undefined ? '' : ` (activation: ${explained.activation})`}`,
        ...(explained.paths ?? []).map((p) => `  --path ${p.how}`),
        ...(explained.profile === undefined ? [] : [`  profile: ${explained.profile}`]),
      ]
      print.out(options.json ? json({ kind: 'instructions', ...explained }) : `${lines.join('\n')}\n`)
      ctx.exit(EXIT.ok)
    })
}
