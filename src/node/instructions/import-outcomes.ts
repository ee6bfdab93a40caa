import { groupDigits } from './budget.js'
import type { DiscoveryContext } from './context.js'
import type { InstructionFile } from './discovery-results.js'
import type { ImportFate } from './import-spans.js'
import { capWords, type ModePlan, type PlannedEntry } from './plan.js'

const RANK: Readonly<Record<ImportFate, number>> = { gone: 0, cut: 1, whole: 2 }

/**
 * What reached the prompt of each inlined import, over every file that
 * inlines it: a file inlined whole anywhere counts as included, so only
 * imports that were cut everywhere get a decision of their own.
 */
export class ImportOutcomes {
  private readonly best = new Map<string, { fate: ImportFate; top: string }>()

  /** Notes the fates of the imports inlined into `entry` after its cut. */
  add(entry: PlannedEntry, fates: ReadonlyMap<InstructionFile, ImportFate>): void {
    for (const [file, fate] of fates) {
      const seen = this.best.get(file.path)
      if (seen === undefined || RANK[fate] > RANK[seen.fate])
        this.best.set(file.path, { fate, top: entry.path })
    }
  }

  /** Records the cut imports (not those also loaded as files of their own); returns those cut entirely. */
  record(context: DiscoveryContext, plan: ModePlan, loaded: ReadonlySet<string>): string[] {
    const gone: string[] = []
    const { rule } = capWords(plan.cap)
    const bytes = groupDigits(plan.cap.maxBytes)
    for (const [path, { fate, top }] of this.best) {
      if (fate === 'whole' || loaded.has(path)) continue
      const into = `inlined into ${context.display(top)}, whose text the ${bytes}-byte cap cut (${rule})`
      if (fate === 'cut') {
        context.decide(path, {
          status: 'truncated',
          code: 'truncated',
          reason: `${into} where this file's text lies, so not all of it reached the prompt`,
        })
      } else {
        gone.push(path)
        context.skip(path, 'over-budget', `${into} before this file's text, so none of it reached the prompt`)
      }
    }
    return gone
  }
}
