/*
 * Webhook receivers that try to hurt the sender, on raw TCP at 127.0.0.1 (kernel-chosen ports).
 * Run as its own process (`bun test/helpers/hostile-receivers.ts KIND…`), so their writing costs
 * the gateway's thread nothing: it prints one JSON line, `{ "urls": [...] }`, in argument order,
 * and on SIGTERM a second one, `{ "stats": [...] }`, with what each sent and how its connections ended.
 *
 * Kinds: `interim` answers 1xx without end; `trailers` starts a chunked 200 and sends trailer
 * lines without end; `huge` declares and streams a 1 GiB body; `drip` declares a 100-byte body and
 * sends it a byte every 100 ms; `drip-head` sends its status line a byte every 100 ms.
 */
import type { Socket } from "bun"

export type HostileKind = "interim" | "trailers" | "huge" | "drip" | "drip-head"
export const HOSTILE_KINDS: readonly HostileKind[] = ["interim", "trailers", "huge", "drip", "drip-head"]
export const HUGE_BODY_BYTES = 1024 ** 3

export interface HostileStats {
  kind: HostileKind
  connections: number
  requests: number
  /** Bytes written to the sender, all connections together. */
  sentBytes: number
  /** Connections the sender closed (or reset) while the flood was going on. */
  closedBySender: number
}

const CHUNK_BYTES = 16 * 1024
const DRIP_INTERVAL_MS = 100

function repeatTo(unit: string, bytes: number): Buffer {
  return Buffer.from(unit.repeat(Math.max(1, Math.floor(bytes / unit.length))))
}

const FLOOD: Record<"interim" | "trailers" | "huge", { head: string; chunk: Buffer }> = {
  interim: { head: "", chunk: repeatTo("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n", CHUNK_BYTES) },
  trailers: { head: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Flood\r\n\r\n0\r\n", chunk: repeatTo("X-Flood: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", CHUNK_BYTES) },
  huge: { head: `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${HUGE_BODY_BYTES}\r\n\r\n`, chunk: Buffer.alloc(CHUNK_BYTES, 0x61) },
}

interface ConnState {
  started: boolean
  ended: boolean
  sentBytes: number
  timer: ReturnType<typeof setInterval> | null
}

function startReceiver(kind: HostileKind): Promise<{ url: string; stats: HostileStats }> {
  const stats: HostileStats = { kind, connections: 0, requests: 0, sentBytes: 0, closedBySender: 0 }
  const write = (socket: Socket<ConnState>, data: string | Buffer): number => {
    const n = socket.write(data)
    if (n > 0) {
      stats.sentBytes += n
      socket.data.sentBytes += n
    }
    return n
  }
  // Writes flood chunks until the kernel's buffer is full; `drain` calls it again.
  const pump = (socket: Socket<ConnState>) => {
    if (socket.data.ended) return
    const { chunk } = FLOOD[kind as keyof typeof FLOOD]
    for (;;) {
      if (kind === "huge" && socket.data.sentBytes >= HUGE_BODY_BYTES) return
      if (write(socket, chunk) < chunk.length) return
    }
  }
  const drip = (socket: Socket<ConnState>, text: string) => {
    let i = 0
    socket.data.timer = setInterval(() => {
      if (socket.data.ended || i >= text.length) {
        clearInterval(socket.data.timer!)
        return
      }
      write(socket, text[i++]!)
    }, DRIP_INTERVAL_MS)
  }
  return new Promise((resolve) => {
    const listener = Bun.listen<ConnState>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(socket) {
          stats.connections++
          socket.data = { started: false, ended: false, sentBytes: 0, timer: null }
        },
        data(socket) {
          // The request's bytes are not looked at: the answer starts with the first of them.
          if (socket.data.started) return
          socket.data.started = true
          stats.requests++
          if (kind === "drip") {
            write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            drip(socket, "x".repeat(100))
          } else if (kind === "drip-head") drip(socket, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
          else {
            const { head } = FLOOD[kind]
            if (head) write(socket, head)
            pump(socket)
          }
        },
        drain(socket) {
          if (kind !== "drip" && kind !== "drip-head") pump(socket)
        },
        close(socket) {
          if (!socket.data.ended) stats.closedBySender++
          socket.data.ended = true
          if (socket.data.timer) clearInterval(socket.data.timer)
        },
        error(socket) {
          socket.data.ended = true
        },
      },
    })
    resolve({ url: `http://127.0.0.1:${listener.port}/hook`, stats })
  })
}

if (import.meta.main) {
  const kinds = process.argv.slice(2) as HostileKind[]
  const started = await Promise.all(kinds.map(startReceiver))
  console.log(JSON.stringify({ urls: started.map((s) => s.url) }))
  process.on("SIGTERM", () => {
    console.log(JSON.stringify({ stats: started.map((s) => s.stats) }))
    process.exit(0)
  })
}
