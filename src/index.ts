/**
 * sysprompt: assemble, inspect and lock the system prompt of AI agents.
 *
 * This entry point holds the pure, isomorphic layers (SPEC §1): it imports
 * nothing from `node:*`, so it also runs in a browser.
 */

export * from './compile/index.js'
export * from './presets/index.js'
export * from './registry/index.js'
export * from './template/index.js'
