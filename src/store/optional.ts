import { createRequire } from 'node:module'
import { StoreError } from '../compile/store-errors.js'

const requireCjs = createRequire(import.meta.url)

/** The one-line message of a missing optional driver: what to install. */
export function missingDriver(driver: string, install: string, cause: unknown): StoreError {
  return new StoreError({
    code: 'failed',
    operation: 'open',
    detail: `${driver} needs the optional package ${install.split('@')[0]}, which is not installed: run \`npm install ${install}\` in your project`,
    cause,
  })
}

function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: string } | null)?.code
  return (
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    String((error as Error).message).includes(name)
  )
}

/**
 * Loads an optional peer dependency when a driver is first opened, never at
 * import time, so a plain install of sysprompt neither builds nor loads it.
 */
export function loadOptional<T>(name: string, driver: string, install: string): T {
  try {
    return requireCjs(name) as T
  } catch (error) {
    if (isMissing(error, name)) throw missingDriver(driver, install, error)
    throw error
  }
}
