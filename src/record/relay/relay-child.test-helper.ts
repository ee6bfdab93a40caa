/*
 * A relay in its own process, for the test that NODE_EXTRA_CA_CERTS (read
 * by Node at start) reaches TLS upstreams: `node --import tsx
 * relay-child.test-helper.ts <upstream>`. Prints its URL as one JSON line;
 * closes when its stdin ends.
 */
import { startRelay } from './relay.js'

const upstream = process.argv[2] ?? ''
const relay = await startRelay({ upstreams: { anthropic: upstream, openai: upstream, gemini: upstream } })
process.stdout.write(`${JSON.stringify({ url: relay.url })}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  void relay.close().then(() => process.exit(0))
})
