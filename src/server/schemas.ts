import { z } from '@hono/zod-openapi'

/**
 * The schemas of the HTTP API (SPEC §10): the same objects validate the
 * requests and generate `GET /api/openapi.json`, so the document cannot
 * drift from what the server accepts.
 */

/** Session ids: no path-like values, bounded length. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

const dialect = z.enum(['mustache', 'bracket'])
const stability = z.enum(['static', 'session', 'turn'])
const hash = z.string().regex(/^sha256:[0-9a-f]{64}$/)

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('Error')

export const Diagnostic = z
  .object({ code: z.string(), message: z.string(), line: z.number().int(), column: z.number().int() })
  .openapi('Diagnostic')

/** Seed 000's SystemPromptTemplateResponse. */
export const TemplateResponse = z
  .object({
    template: z.string(),
    dialect,
    isDefault: z.boolean(),
    hash,
    updatedAt: z.string().nullable(),
    /** Lenient diagnostics of the template, lines and columns of its file. */
    diagnostics: z.array(Diagnostic),
  })
  .openapi('SystemPromptTemplateResponse')

/** Seed 000's SetSystemPromptTemplateRequest. */
export const SetTemplateRequest = z
  .object({
    template: z.string(),
    dialect,
    expectedHash: hash.nullable().optional(),
  })
  .strict()
  .openapi('SetSystemPromptTemplateRequest')

/** Seed 000's SystemPromptVariable. */
export const Variable = z
  .object({
    key: z.string(),
    description: z.string(),
    example: z.string().optional(),
    stability,
    pattern: z.boolean().optional(),
    value: z.string().nullable().optional(),
  })
  .openapi('SystemPromptVariable')

/** Seed 000's SystemPromptVariablesResponse. */
export const VariablesResponse = z
  .object({ variables: z.array(Variable) })
  .openapi('SystemPromptVariablesResponse')

const text = z.string().max(4096)
/** What a prompt is built for: the `sysprompt show` options a request may set. */
export const PromptContext = z
  .object({
    /** The agent's working directory, relative to the served root (or absolute inside it). */
    cwd: text.optional(),
    /** Working paths relative to `cwd`; select rules with `paths:`. */
    paths: z.array(text).max(256).optional(),
    model: z.string().max(256).optional(),
    mode: z.string().max(64).optional(),
    preset: z.enum(['default', 'layered', 'session']).optional(),
    tokenizer: z.enum(['o200k', 'cl100k', 'estimate']).optional(),
    provider: z.enum(['anthropic', 'openai', 'gemini']).optional(),
    autonomy: z.string().max(64).optional(),
    /** Pinned variable values (`--set`). */
    set: z.record(z.string().max(256), z.string().max(65_536)).optional(),
  })
  .strict()
  .openapi('PromptContext')

export const PreviewRequest = z
  .object({
    /** Template text in fragment format (as `.sysprompt/template.md` holds); the served template when absent. */
    template: z.string().optional(),
    dialect: dialect.optional(),
    context: PromptContext.default({}),
  })
  .strict()
  .openapi('PreviewRequest')

const span = z.object({ end: z.number().int(), tokens: z.number().int() })
const warning = z.object({ code: z.string(), message: z.string(), section: z.string().optional() })

export const CompiledPrompt = z
  .object({
    text: z.string(),
    hash: z.string(),
    bytes: z.number().int(),
    tokens: z.number().int(),
    exactTokens: z.number().int().optional(),
    tokenizer: z.string(),
    sections: z.array(
      z.object({
        name: z.string(),
        order: z.number(),
        stability,
        start: z.number().int(),
        end: z.number().int(),
        tokens: z.number().int(),
        hash: z.string(),
      }),
    ),
    tools: z.array(
      z.object({
        name: z.string(),
        hash: z.string(),
        schema: z.object({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()),
        }),
      }),
    ),
    toolsHash: z.string(),
    manifest: z.array(
      z.object({ id: z.string(), source: z.string(), contentHash: z.string(), dynamic: z.boolean() }),
    ),
    stablePrefix: z.object({ static: span, session: span }),
    warnings: z.array(warning),
    cuts: z.array(z.object({ section: z.string(), removedChars: z.number().int(), dropped: z.boolean() })),
  })
  .openapi('CompiledPrompt')

export const PreviewResponse = z
  .object({ compiled: CompiledPrompt, diagnostics: z.array(Diagnostic) })
  .openapi('PreviewResponse')

export const SessionParams = z.object({
  id: z
    .string()
    .regex(SESSION_ID)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'agent-1' }),
})

export const SessionVersion = z
  .object({
    version: z.number().int(),
    hash: z.string(),
    tokens: z.number().int(),
    reason: z.string(),
    at: z.string(),
    compiled: CompiledPrompt,
  })
  .openapi('SessionVersion')

export const PutSessionRequest = z
  .object({ context: PromptContext.default({}) })
  .strict()
  .openapi('PutSessionRequest')

export const RecompileRequest = z
  .object({ context: PromptContext.default({}), reason: z.string().min(1).max(128) })
  .strict()
  .openapi('RecompileRequest')

export const PromptDiff = z
  .object({
    identical: z.boolean(),
    firstDifference: z.number().int().nullable(),
    section: z.string().nullable(),
    commonPrefixTokens: z.number().int(),
    added: z.array(z.string()),
    removed: z.array(z.string()),
    changed: z.array(z.string()),
  })
  .openapi('PromptDiff')

export const SessionResponse = z
  .object({ id: z.string(), version: z.number().int(), compiled: CompiledPrompt })
  .openapi('SessionResponse')

export const RecompileResponse = z
  .object({
    id: z.string(),
    version: z.number().int(),
    changed: z.boolean(),
    compiled: CompiledPrompt,
    diff: PromptDiff.optional(),
  })
  .openapi('RecompileResponse')

export const HistoryResponse = z.object({ versions: z.array(SessionVersion) }).openapi('HistoryResponse')

const versionNumber = z.coerce.number().int().min(1).max(1_000_000_000)
export const DiffQuery = z.object({ from: versionNumber, to: versionNumber }).strict()

export const DiffResponse = z
  .object({ from: z.number().int(), to: z.number().int(), diff: PromptDiff, file: z.string().nullable() })
  .openapi('DiffResponse')

export const SessionSummary = z
  .object({
    id: z.string(),
    versions: z.number().int(),
    current: z.object({
      version: z.number().int(),
      hash: z.string(),
      tokens: z.number().int(),
      reason: z.string(),
      at: z.string(),
    }),
    createdAt: z.string(),
  })
  .openapi('SessionSummary')

export const SessionsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }).strict()
export const SessionsResponse = z.object({ sessions: z.array(SessionSummary) }).openapi('SessionsResponse')

const provider = z.enum(['anthropic', 'openai', 'gemini'])
export const UsageOutcome = z
  .object({
    version: z.number().int(),
    at: z.string(),
    provider,
    model: z.string(),
    inputTokens: z.number().int(),
    cachedTokens: z.number().int(),
    cacheWriteTokens: z.number().int(),
    outcome: z.enum(['hot', 'partial', 'cold', 'small']),
    why: z.string().optional(),
  })
  .openapi('UsageOutcome')

export const UsageResponse = z
  .object({
    outcomes: z.array(UsageOutcome),
    /** Cached input tokens over all input tokens of the recorded calls; `null` before any call. */
    hitRate: z.number().nullable(),
  })
  .openapi('UsageResponse')

/** A provider's usage report as its SDK returned it, with what the call sent (SPEC §8 `recordUsage`). */
export const UsageReportRequest = z
  .object({
    provider,
    model: z.string().min(1).max(256),
    /** The hash of the prompt the call sent; the session's current version when absent. */
    hash: hash.optional(),
    /** `extended` when the call asked for the long cache lifetime. */
    ttl: z.enum(['default', 'extended']).optional(),
    /** The provider's usage object (Anthropic `usage`, OpenAI `usage`, Gemini `usageMetadata`). */
    usage: z.record(z.string(), z.unknown()),
  })
  .strict()
  .openapi('UsageReportRequest')

export const InspectQuery = PromptContext.pick({
  provider: true,
  model: true,
  cwd: true,
  mode: true,
}).strict()

/** What `sysprompt inspect --json` reports; its fields are the command's. */
export const InspectResponse = z.record(z.string(), z.unknown()).openapi('InspectReport')

export const HealthResponse = z.object({ ok: z.literal(true) }).openapi('Health')
