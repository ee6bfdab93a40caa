/**
 * The overview: one line for the prompt, then a bar per section, the
 * instruction files, what was cut, the rules, and the cache verdict for the
 * chosen provider and model (none when neither is chosen, as the CLI does).
 */
import { api } from '../api.js'
import type { InspectedFile, InspectResponse } from '../api-types.js'
import { count, grouped, h, head, onSubmit, percent, replace, shortHash } from '../dom.js'
import { errorBox, loading } from './status.js'

const PROVIDERS = ['', 'anthropic', 'openai', 'gemini'] as const
/** The harness modes of instruction-file discovery (SPEC §6): "this repository as Codex would load it". */
const MODES = ['sysprompt', 'codex', 'claude', 'gemini', 'pi', 'opencode'] as const

/** Renders the overview into `root`, keeping the chosen provider and model in the form. */
export function overviewView(root: HTMLElement): void {
  const provider = h(
    'select',
    { id: 'ov-provider', name: 'provider' },
    PROVIDERS.map((p) => h('option', { value: p }, p === '' ? '(none: no cache verdict)' : p)),
  )
  const mode = h(
    'select',
    { id: 'ov-mode', name: 'mode' },
    MODES.map((m) => h('option', { value: m }, m)),
  )
  const model = h('input', {
    id: 'ov-model',
    name: 'model',
    type: 'text',
    placeholder: 'e.g. claude-sonnet-4-5',
    autocomplete: 'off',
  })
  const body = h('div', { id: 'overview-body', 'aria-live': 'polite' })
  const load = async () => {
    replace(body, loading('Inspecting the prompt…'))
    try {
      const chosen = { provider: provider.value || undefined, model: model.value.trim() || undefined }
      const data = await api.inspect({ ...chosen, mode: mode.value === 'sysprompt' ? undefined : mode.value })
      const verdict = chosen.provider !== undefined || chosen.model !== undefined
      replace(body, ...renderInspect(verdict ? data : withoutVerdict(data)))
    } catch (error) {
      replace(body, errorBox(error))
    }
  }
  const form = h(
    'form',
    {
      class: 'toolbar',
      'aria-label': 'Inspect for',
      onsubmit: onSubmit(load),
    },
    h('span', { class: 'field' }, h('label', { for: 'ov-provider' }, 'Provider'), provider),
    h('span', { class: 'field' }, h('label', { for: 'ov-model' }, 'Model'), model),
    h('span', { class: 'field' }, h('label', { for: 'ov-mode' }, 'Discovery as'), mode),
    h('button', { type: 'submit' }, 'Inspect'),
  )
  replace(root, h('h1', {}, 'What the agent receives'), form, body)

  void load()
}

/**
 * The report without its cache verdict: with neither a provider nor a model
 * chosen, the server plans for its default provider, but a minimum of a
 * provider nobody chose would be noise (the decision of the page's issue).
 */
export function withoutVerdict(data: InspectResponse): InspectResponse {
  return {
    ...data,
    cache: {
      // What the block describes stays: its total and prefix are counts, not verdicts.
      view: data.cache.view,
      tokens: data.cache.tokens,
      provider: null,
      model: null,
      minTokens: null,
      breakpoints: [],
      cacheableTokens: null,
      warnings: [],
    },
  }
}

function summaryLine(data: InspectResponse): HTMLElement {
  const what =
    data.prompt.kind === 'template'
      ? `${data.prompt.file ?? 'template'}${data.prompt.builtin ? ' (built in)' : ''}, ${data.prompt.dialect} dialect`
      : `preset ${data.prompt.preset}`
  const cache = data.cache
  const verdict =
    cache.provider === null || cache.provider === undefined || (cache.providerFrom === 'none' && !cache.model)
      ? 'choose a provider or a model for a cache verdict'
      : cache.cacheableTokens === null
        ? `${cache.provider}: no cacheable prefix`
        : `${grouped(cache.cacheableTokens)} tokens cacheable for ${cache.provider}${cache.model ? ` ${cache.model}` : ''}` +
          (cache.minTokens === null ? '' : ` (minimum ${grouped(cache.minTokens)})`)
  return h(
    'p',
    { class: 'summary', 'data-testid': 'summary' },
    h('strong', {}, `${grouped(data.totals.tokens)} tokens`),
    ` (${data.tokenizer}) · ${grouped(data.totals.bytes)} bytes · ${count(data.totals.sections, 'section')} · ${count(data.totals.tools, 'tool')} · `,
    h('span', { class: 'verdict' }, verdict),
    h('br'),
    h('span', { class: 'muted' }, `${what} · hash ${shortHash(data.hash)}`),
  )
}

function sectionTable(data: InspectResponse): HTMLElement {
  if (data.sections.length === 0) return h('p', {}, 'The prompt is empty.')
  const breaks = new Set(data.cache.breakpoints.map((b) => b.section))
  return h(
    'table',
    { class: 'sections', 'aria-label': 'Sections in prompt order' },
    head(['#', 'section', 'order*', 'stability', 'tokens', 'share', '']),
    h(
      'tbody',
      {},
      data.sections.map((s) =>
        h(
          'tr',
          {},
          h('td', { class: 'num' }, s.index),
          h(
            'td',
            {},
            h('code', {}, s.name),
            breaks.has(s.name) ? h('span', { class: 'tag' }, 'cache breakpoint') : null,
          ),
          h('td', { class: 'num opt' }, s.order),
          h('td', {}, h('span', { class: `stab stab-${s.stability}` }, s.stability)),
          h('td', { class: 'num' }, grouped(s.tokens)),
          h('td', { class: 'num' }, percent(s.share)),
          h(
            'td',
            { class: 'barcell' },
            h('span', {
              class: `bar stab-${s.stability}`,
              style: `width:${Math.max(0.5, s.share * 100).toFixed(1)}%`,
              role: 'img',
              'aria-label': `${percent(s.share)} of the prompt`,
            }),
          ),
        ),
      ),
    ),
  )
}

function fileItems(files: readonly InspectedFile[]): HTMLElement[] {
  return files.map((f) =>
    h(
      'li',
      {},
      h('code', {}, f.shown),
      ` · ${grouped(f.bytes)} bytes`,
      f.tokens === null ? '' : ` · ${grouped(f.tokens)} tokens`,
      ' · ',
      f.truncated ? h('span', { class: 'warn' }, 'truncated by the byte cap') : 'in, whole',
      f.imports.length > 0 ? h('ul', {}, fileItems(f.imports)) : null,
    ),
  )
}

function instructions(data: InspectResponse): HTMLElement[] {
  const i = data.instructions
  const out: HTMLElement[] = [
    h('h2', {}, 'Instruction files'),
    h('p', { class: 'muted' }, `Discovery mode ${i.mode}, preload ${i.preload}.`),
    i.files.length === 0
      ? h('p', {}, 'No instruction file was found.')
      : h('ul', { class: 'files' }, fileItems(i.files)),
  ]
  if (i.onDemand && i.onDemand.length > 0) {
    out.push(
      h('h3', {}, 'Loaded on demand (never in the cached prefix)'),
      h(
        'ul',
        {},
        i.onDemand.map((f) =>
          h('li', {}, h('code', {}, f.path), ` · ${f.when} · ${grouped(f.tokens)} tokens`),
        ),
      ),
    )
  }
  if (i.diagnostics.length > 0) {
    out.push(
      h('h3', {}, 'Discovery notes'),
      h(
        'ul',
        {},
        i.diagnostics.map((d) => h('li', {}, describe(d))),
      ),
    )
  }
  return out
}

/** A diagnostic of unknown shape as one line: its message when it has one. */
function describe(d: unknown): string {
  if (typeof d === 'string') return d
  const o = d as { message?: unknown; path?: unknown }
  return typeof o?.message === 'string'
    ? `${typeof o.path === 'string' ? `${o.path}: ` : ''}${o.message}`
    : JSON.stringify(d)
}

function cutsAndWarnings(data: InspectResponse): HTMLElement[] {
  const cuts = data.cuts ?? []
  const warnings = [...data.warnings, ...data.cache.warnings]
  const out: HTMLElement[] = [h('h2', {}, 'Cuts and warnings')]
  if (cuts.length === 0 && warnings.length === 0) out.push(h('p', {}, 'Nothing was cut; no warnings.'))
  if (cuts.length > 0) {
    out.push(
      h(
        'ul',
        { 'aria-label': 'Budget cuts' },
        cuts.map((c) =>
          h(
            'li',
            {},
            h('code', {}, c.section),
            c.dropped ? ' dropped to its marker' : ` lost ${grouped(c.removedChars)} characters`,
          ),
        ),
      ),
    )
  }
  if (warnings.length > 0) {
    out.push(
      h(
        'ul',
        { 'aria-label': 'Warnings' },
        warnings.map((w) =>
          h(
            'li',
            {},
            h('span', { class: 'warn' }, w.code),
            w.section ? ` (${w.section})` : '',
            `: ${w.message}`,
          ),
        ),
      ),
    )
  }
  return out
}

function rules(data: InspectResponse): HTMLElement[] {
  if (data.rules.length === 0) return [h('h2', {}, 'Rules'), h('p', {}, 'No project rules.')]
  return [
    h('h2', {}, 'Rules'),
    h(
      'ul',
      { class: 'rules' },
      data.rules.map((r) =>
        h(
          'li',
          {},
          h('span', { class: r.applies ? 'in' : 'out' }, r.applies ? 'applies' : 'out'),
          ' ',
          h('code', {}, r.id),
          ` (${r.file}): ${r.why}`,
        ),
      ),
    ),
  ]
}

function prefixes(data: InspectResponse): HTMLElement {
  const p = data.stablePrefix
  const through = (t: string | null) => (t === null ? 'no section' : `through ${t}`)
  // In a harness mode the prefix is that of what the harness sends (its view), not of the sections below.
  if (data.cache.view === 'harness')
    return h(
      'p',
      { class: 'muted' },
      `${data.instructions.mode} sends ${grouped(data.cache.tokens ?? 0)} tokens of instructions; ` +
        `at the start ${grouped(p.session.tokens)} (${p.session.through === null ? 'nothing' : `through ${p.session.through}`}), the rest with tool results.`,
    )
  return h(
    'p',
    { class: 'muted' },
    `Stable prefix: static ${grouped(p.static.tokens)} tokens (${through(p.static.through)}), ` +
      `static + session ${grouped(p.session.tokens)} tokens (${through(p.session.through)}).`,
  )
}

/** A range `a–b`, or `a` when both are the same. */
const range = (a: number, b: number) => (a === b ? grouped(a) : `${grouped(a)}–${grouped(b)}`)

/** The first screen, as the CLI opens plain inspect: every agent here, its skills, and what no harness reads. */
function agents(data: InspectResponse): HTMLElement[] {
  if (data.harnesses === undefined || data.harnesses === null) return []
  const out: HTMLElement[] = [h('h2', {}, 'Agents in this repository')]
  if (data.harnesses.length === 0) out.push(h('p', {}, 'No agent reads instruction files here.'))
  else
    out.push(
      h(
        'ul',
        { class: 'agents' },
        data.harnesses.map((a) =>
          h(
            'li',
            {},
            h('strong', {}, a.label),
            a.label === 'AGENTS.md' ? ` read by ${a.modes.join(', ')}` : '',
            ` · ${range(a.start.files, a.start.filesMax)} files at start, ${range(a.start.tokens, a.start.tokensMax)} tokens`,
            a.cut.length === 0
              ? ' · nothing cut'
              : h('span', { class: 'warn' }, ` · cuts ${a.cut.map((c) => c.file).join(', ')}`),
            a.onDemand.files > 0
              ? ` · ${grouped(a.onDemand.files)} on demand (${grouped(a.onDemand.tokens)} tokens)`
              : '',
            a.skills.count > 0 ? ` · ${grouped(a.skills.count)} skills` : '',
            ' · ',
            h('span', { class: 'muted' }, a.because.join(', ')),
          ),
        ),
      ),
    )
  if (data.skills && data.skills.length > 0)
    out.push(
      h('h3', {}, 'Skills (name and description at start, the body when used)'),
      h(
        'ul',
        {},
        data.skills.map((s) =>
          h(
            'li',
            {},
            h('code', {}, s.shown),
            ` · ${grouped(s.startTokens)} tokens at start, ${grouped(s.bodyTokens)} when used · ${s.readers.join(', ')}`,
          ),
        ),
      ),
    )
  if (data.neverLoaded && data.neverLoaded.length > 0)
    out.push(
      h('h3', {}, 'Never loaded'),
      h(
        'ul',
        { 'aria-label': 'Never loaded' },
        data.neverLoaded.map((f) => h('li', {}, f.message)),
      ),
    )
  return out
}

/** The overview's content for one inspect answer. */
export function renderInspect(data: InspectResponse): HTMLElement[] {
  return [
    summaryLine(data),
    ...agents(data),
    h('h2', {}, 'Sections'),
    prefixes(data),
    sectionTable(data),
    ...instructions(data),
    ...cutsAndWarnings(data),
    ...rules(data),
    data.tools.length === 0
      ? h('p', { class: 'muted' }, 'No tools.')
      : h(
          'details',
          {},
          h('summary', {}, `Tools (${grouped(data.totals.toolTokens)} tokens)`),
          h(
            'ul',
            {},
            data.tools.map((t) => h('li', {}, h('code', {}, t.name), ` · ${grouped(t.tokens)} tokens`)),
          ),
        ),
  ]
}
