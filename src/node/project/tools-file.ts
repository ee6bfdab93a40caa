import type { ToolSchema } from '../../registry/index.js'
import { ProjectError } from './errors.js'
import { jsonErrorWithoutExcerpt, readCliFileOrThrow } from './read-file.js'

/**
 * Reads `--tools FILE`: a JSON array of tool schemas (`{ name, description?,
 * parameters }`), or an object with such an array under `tools`, the shape
 * many harness configs use. Each entry is checked; a wrong one is an error
 * naming its index and field.
 */
export async function readToolsFile(path: string, maxBytes: number): Promise<ToolSchema[]> {
  // Named on the command line: it may live anywhere, with the type, size and binary checks.
  const text = await readCliFileOrThrow(
    { path, root: null, maxBytes },
    `--tools ${path}`,
    'pass a JSON file of tool schemas (raise --max-file-bytes for a larger one)',
  )
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new ProjectError(
      'tools-file',
      `${path} is not valid JSON (${jsonErrorWithoutExcerpt(cause)})`,
      'fix the file',
      {
        cause,
      },
    )
  }
  const list =
    value !== null && typeof value === 'object' && !Array.isArray(value) && 'tools' in value
      ? (value as { tools: unknown }).tools
      : value
  if (!Array.isArray(list)) {
    throw new ProjectError(
      'tools-file',
      `${path} must hold an array of tool schemas`,
      'write [{ "name": …, "parameters": {…} }]',
    )
  }
  return list.map((entry, i): ToolSchema => {
    const where = `${path}: tools[${i}]`
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new ProjectError(
        'tools-file',
        `${where} is not an object`,
        'give each tool a name and parameters',
      )
    }
    const { name, description, parameters } = entry as Record<string, unknown>
    if (typeof name !== 'string' || name.length === 0) {
      throw new ProjectError('tools-file', `${where}.name must be a non-empty string`, 'name the tool')
    }
    if (description !== undefined && typeof description !== 'string') {
      throw new ProjectError('tools-file', `${where}.description must be a string`, 'fix or remove it')
    }
    const params = parameters ?? { type: 'object', properties: {} }
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      throw new ProjectError(
        'tools-file',
        `${where}.parameters must be a JSON Schema object`,
        'fix or remove it',
      )
    }
    return {
      name,
      ...(description === undefined ? {} : { description }),
      parameters: params as Record<string, unknown>,
    }
  })
}
