// A stand-in for a harness binary (claude, codex, gemini, opencode) in the tests of
// `sysprompt record --`: it writes down the arguments and environment it received
// (STUB_OUT), finds the base URL it was pointed at the way the real harness would,
// sends the request a real harness sent (STUB_FIXTURE, a traffic fixture) there, and
// ends with STUB_EXIT, or dies of STUB_SIGNAL.
import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'

// Run as `node record-stub.test-helper.mjs <the stub's own path> <its arguments…>` by a shell stub named after the harness.
const name = basename(process.argv[2])
const args = process.argv.slice(3)
const env = process.env
const fixture = JSON.parse(readFileSync(env.STUB_FIXTURE, 'utf8'))

function baseUrl() {
  if (name === 'claude') return env.ANTHROPIC_BASE_URL
  if (name === 'gemini') return env.GOOGLE_GEMINI_BASE_URL
  if (name === 'codex') {
    const setting = args.find((a) => /^model_providers\.[\w-]+\.base_url=/.test(a))
    return setting?.split('=')[1].replace(/"/g, '')
  }
  if (name === 'opencode') {
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? '{}')
    return config.provider?.openai?.options?.baseURL
  }
  return undefined
}

const base = baseUrl()
let status = 0
if (base !== undefined) {
  const headers = {}
  for (const [key, value] of fixture.request.headers) {
    if (['host', 'content-length', 'connection', 'accept-encoding'].includes(key.toLowerCase())) continue
    headers[key] = value.replace('REDACTED', 'sk-stub-CREDENTIALxCREDENTIAL000111')
  }
  const response = await fetch(`${new URL(base).origin}${fixture.request.path}`, {
    method: 'POST',
    headers,
    // The capture's placeholders as the tree the test built (STUB_ROOT, STUB_HOME), when it built one.
    body: fixture.request.body
      .split('<ROOT>')
      .join(env.STUB_ROOT ?? '<ROOT>')
      .split('<HOME>')
      .join(env.STUB_HOME ?? '<HOME>'),
  })
  await response.arrayBuffer()
  status = response.status
}
writeFileSync(
  env.STUB_OUT,
  JSON.stringify({
    name,
    args,
    base,
    status,
    env: Object.fromEntries(
      Object.entries(env).filter(([k]) =>
        /BASE_URL|OPENCODE_CONFIG_CONTENT|NO_PROXY|no_proxy|API_KEY/.test(k),
      ),
    ),
  }),
)
if (env.STUB_SIGNAL) process.kill(process.pid, env.STUB_SIGNAL)
else process.exit(Number(env.STUB_EXIT ?? 0))
