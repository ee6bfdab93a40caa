export {
  clearTemplateCache,
  compileTemplate,
  type Dialect,
  renderWithInsertions,
  type Template,
  type TemplateOptions,
} from './compile-template.js'
export { type Diagnostic, TemplateError, type TemplateErrorCode } from './errors.js'
export { isValidKey, keyNamespace } from './keys.js'
export type { Insertion, TemplateValues } from './render.js'
