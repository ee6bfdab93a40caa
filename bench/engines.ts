/**
 * Every engine the template benchmark compares, behind one shape: compile
 * once and render many times, or parse and render a source never seen
 * before. Configured for raw text output (no HTML escaping, no whitespace
 * trimming) and with template caches off where an engine has one.
 */
import { Eta } from 'eta'
import Handlebars from 'handlebars'
import { Liquid } from 'liquidjs'
import Mustache from 'mustache'
import nunjucks from 'nunjucks'
import { compileTemplate } from '../src/template/index.js'
import type { SyntaxName } from './fixtures/index.js'

export type Values = Readonly<Record<string, string | null>>

export interface Engine {
  readonly name: string
  readonly syntax: SyntaxName
  /** Compiles `source` and returns a function rendering it with `values` (the compiled form is reused). */
  compile(source: string, values: Values): () => string
  /** Parses and renders `source` from scratch. */
  parseAndRender(source: string, values: Values): string
}

function sysprompt(dialect: 'mustache' | 'bracket', strict: boolean): Engine {
  return {
    name: `sysprompt ${dialect} ${strict ? 'strict' : 'lenient'}`,
    syntax: dialect === 'mustache' ? 'sysprompt-mustache' : 'sysprompt-bracket',
    compile(source, values) {
      const template = compileTemplate(source, { dialect, strict })
      return () => template.render(values)
    },
    parseAndRender: (source, values) => compileTemplate(source, { dialect, strict }).render(values),
  }
}

function handlebars(): Engine {
  const hb = Handlebars.create()
  const options = { noEscape: true }
  return {
    name: 'handlebars',
    syntax: 'handlebars',
    compile(source, values) {
      const fn = hb.compile(source, options)
      fn(values) // Handlebars compiles lazily, on the first call.
      return () => fn(values)
    },
    parseAndRender: (source, values) => hb.compile(source, options)(values),
  }
}

function mustache(): Engine {
  const config = { escape: (s: string): string => s }
  // A private writer with its template cache off; compiled tokens are kept by the caller instead.
  const writer = new Mustache.Writer()
  ;(writer as unknown as { templateCache: undefined }).templateCache = undefined
  return {
    name: 'mustache',
    syntax: 'mustache',
    compile(source, values) {
      const tokens = writer.parse(source)
      return () => writer.renderTokens(tokens, new Mustache.Context(values), undefined, source, config)
    },
    parseAndRender: (source, values) => writer.render(source, values, undefined, config),
  }
}

function liquid(): Engine {
  const engine = new Liquid({ cache: false })
  return {
    name: 'liquidjs',
    syntax: 'liquid',
    compile(source, values) {
      const template = engine.parse(source)
      return () => engine.renderSync(template, values) as string
    },
    parseAndRender: (source, values) => engine.parseAndRenderSync(source, values) as string,
  }
}

function eta(): Engine {
  const engine = new Eta({ autoTrim: false, autoEscape: false, cache: false })
  return {
    name: 'eta',
    syntax: 'eta',
    compile(source, values) {
      const fn = engine.compile(source)
      return () => engine.render(fn, values)
    },
    parseAndRender: (source, values) => engine.renderString(source, values),
  }
}

function nunjucksEngine(): Engine {
  const env = new nunjucks.Environment([], { autoescape: false })
  return {
    name: 'nunjucks',
    syntax: 'nunjucks',
    compile(source, values) {
      const template = new nunjucks.Template(source, env, undefined, true)
      return () => template.render(values)
    },
    parseAndRender: (source, values) => new nunjucks.Template(source, env, undefined, true).render(values),
  }
}

/** sysprompt first (the reference every other output must equal), then the engines compared with it. */
export function engines(): { reference: Engine; bracket: Engine; others: Engine[] } {
  return {
    reference: sysprompt('mustache', true),
    bracket: sysprompt('bracket', false),
    others: [handlebars(), mustache(), liquid(), eta(), nunjucksEngine()],
  }
}
