/*
 * A forward proxy on loopback that only tunnels (HTTP CONNECT), as a
 * company's HTTPS_PROXY does, recording each target it was asked for.
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'

export interface ConnectProxy {
  url: string
  /** `host:port` of each tunnel asked for, in order. */
  targets: string[]
  close(): Promise<void>
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const targets: string[] = []
  const server = createServer((_req, res) => {
    res.writeHead(405)
    res.end()
  })
  server.on('connect', (req, socket, head) => {
    const target = req.url ?? ''
    targets.push(target)
    const colon = target.lastIndexOf(':')
    const host = target.slice(0, colon)
    const upstream = connect(
      Number(target.slice(colon + 1)),
      host === 'localhost' ? '127.0.0.1' : host,
      () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        upstream.write(head)
        upstream.pipe(socket)
        socket.pipe(upstream)
      },
    )
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
