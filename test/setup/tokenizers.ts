// Unit tests count with o200k and cl100k, and read front matter, as a Node
// user of the library does: through the lazy loaders `sysprompt/node`
// registers (the pure layer's own tests of the registry start from a fresh
// module without them).
import '../../src/node/front-matter-yaml.js'
import { registerNodeTokenizers } from '../../src/node/tokenizer-loaders.js'

registerNodeTokenizers()
