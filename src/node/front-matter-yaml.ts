import { registerFrontMatterYaml } from '../shared/fragment.js'
import { requireYaml } from './require-yaml.js'

// Registered on import, as the tokenizer loaders are: every node module that
// parses fragments imports this, and `yaml` loads the first time a file
// with front matter is read; a project with none never loads it.

/** Registers the synchronous `yaml` loader for front matter (done on import; again after a test removed it). */
export function registerNodeFrontMatterYaml(): () => void {
  return registerFrontMatterYaml(requireYaml)
}

registerNodeFrontMatterYaml()

/** The `yaml` package for node modules that read YAML besides fragments (a harness's rule front matter), loaded on first use. */
export { requireYaml as nodeYaml } from './require-yaml.js'
