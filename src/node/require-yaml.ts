import { createRequire } from 'node:module'
import type { FrontMatterYaml } from '../shared/fragment.js'

const requireCjs = createRequire(import.meta.url)

/**
 * The `yaml` package, required synchronously when first asked for. The
 * command's bundle (scripts/build-cli.ts) swaps this body for a plain
 * `require('yaml')`, which esbuild bundles as a module that runs on that
 * first call, compiled through the bundle's code cache.
 */
export function requireYaml(): FrontMatterYaml {
  return requireCjs('yaml') as FrontMatterYaml
}
