import type { Socket, TCPSocketListener } from "bun"

/*
 * A TCP proxy on 127.0.0.1 that a test can cut and restore: the way to take a database away
 * from a running node (and give it back) without stopping the database the rest of the run uses.
 */

export interface TcpProxy {
  port: number
  /** Closes every connection through the proxy and refuses new ones until `restore()`. */
  cut(): void
  restore(): void
  stop(): void
}

interface Pair {
  upstream: Socket<Pair> | null
  client: Socket<Pair>
  /** Bytes the client sent before the upstream connection was open. */
  early: Uint8Array[]
  /** Bytes a socket did not take yet (backpressure), per direction, written on its drain. */
  toClient: Uint8Array[]
  toUpstream: Uint8Array[]
}

/** Writes what is queued, then `chunk`, keeping whatever the socket does not take for its drain. */
function pipe(socket: Socket<Pair>, queue: Uint8Array[], chunk?: Uint8Array): void {
  if (chunk) queue.push(new Uint8Array(chunk))
  while (queue.length > 0) {
    const head = queue[0]!
    const written = socket.write(head)
    if (written === head.length) queue.shift()
    else {
      queue[0] = head.subarray(Math.max(0, written))
      return
    }
  }
}

export function startTcpProxy(targetPort: number): TcpProxy {
  let cut = false
  const pairs = new Set<Pair>()
  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        if (cut) return void client.end()
        const pair: Pair = { upstream: null, client, early: [], toClient: [], toUpstream: [] }
        client.data = pair
        pairs.add(pair)
        Bun.connect<Pair>({
          hostname: "127.0.0.1",
          port: targetPort,
          data: pair,
          socket: {
            open(upstream) {
              if (cut || !pairs.has(pair)) return void upstream.end()
              pair.upstream = upstream
              for (const chunk of pair.early.splice(0)) pipe(upstream, pair.toUpstream, chunk)
            },
            data: (_upstream, chunk) => pipe(pair.client, pair.toClient, chunk),
            drain: (upstream) => pipe(upstream, pair.toUpstream),
            close: () => close(pair),
            error: () => close(pair),
          },
        }).catch(() => close(pair))
      },
      data(client, chunk) {
        const pair = client.data
        if (pair.upstream) pipe(pair.upstream, pair.toUpstream, chunk)
        else pair.early.push(new Uint8Array(chunk))
      },
      drain: (client) => pipe(client, client.data.toClient),
      close: (client) => close(client.data),
      error: (client) => close(client.data),
    },
  })

  function close(pair: Pair | undefined): void {
    if (!pair || !pairs.delete(pair)) return
    pair.client.end()
    pair.upstream?.end()
  }

  return {
    port: listener.port,
    cut() {
      cut = true
      for (const pair of [...pairs]) close(pair)
    },
    restore() {
      cut = false
    },
    stop() {
      cut = true
      for (const pair of [...pairs]) close(pair)
      listener.stop(true)
    },
  }
}
