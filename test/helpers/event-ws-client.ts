import { createConnection, type Socket } from "node:net"

/** One JSON text frame of `GET /v1/events/ws` as a client reads it. */
export interface WsFrame {
  id?: string
  event: string
  timestamp?: string
  data: any
}

/** How long a test waits for frames that should arrive at once: generous, for a loaded machine. */
const FRAME_WAIT_MS = 10_000

/** An open `GET /v1/events/ws` through Bun's WebSocket client, read frame by frame. */
export interface WsClient {
  /** The next `n` frames. */
  frames(n: number): Promise<WsFrame[]>
  /** Pings received so far. */
  pings(): number
  /** Resolves with the close code once the server closed the socket. */
  closed: Promise<number>
  close(): void
}

/** Opens the socket and waits until it is open (the stream is positioned by then). */
export async function openSocket(base: string, path: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}${path}`, { headers } as any)
  const queue: WsFrame[] = []
  let waiting: (() => void) | null = null
  let pings = 0
  ws.addEventListener("message", (m) => {
    queue.push(JSON.parse(String(m.data)))
    waiting?.()
  })
  ws.addEventListener("ping" as any, () => {
    pings += 1
    waiting?.()
  })
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)))
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve())
    ws.addEventListener("error", () => reject(new Error(`the upgrade of ${path} was refused`)))
  })
  return {
    async frames(n) {
      const deadline = Date.now() + FRAME_WAIT_MS
      while (queue.length < n) {
        if (Date.now() > deadline) throw new Error(`${queue.length} of ${n} frames within ${FRAME_WAIT_MS} ms: ${JSON.stringify(queue)}`)
        await new Promise<void>((resolve) => {
          waiting = resolve
          setTimeout(resolve, 100)
        })
      }
      return queue.splice(0, n)
    },
    pings: () => pings,
    closed,
    close: () => ws.close(),
  }
}

/** A WebSocket upgrade written by hand: the answer's status and body when refused, the socket when not. */
export async function rawUpgrade(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; socket: Socket; text: () => string }> {
  const url = new URL(base)
  const socket = createConnection({ host: url.hostname, port: Number(url.port) })
  let raw = Buffer.alloc(0)
  socket.on("data", (chunk: Buffer) => (raw = Buffer.concat([raw, chunk])))
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${url.host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Version: 13",
    `Sec-WebSocket-Key: ${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64")}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ]
  socket.write(`${lines.join("\r\n")}\r\n\r\n`)
  const deadline = Date.now() + FRAME_WAIT_MS
  while (!raw.includes("\r\n\r\n")) {
    if (Date.now() > deadline) throw new Error("no answer to the upgrade")
    await Bun.sleep(5)
  }
  const head = raw.subarray(0, raw.indexOf("\r\n\r\n")).toString()
  const status = Number(head.split(" ")[1])
  let body: any = null
  if (status !== 101) {
    for (let i = 0; i < 200 && body === null; i++) {
      try {
        body = JSON.parse(raw.subarray(raw.indexOf("\r\n\r\n") + 4).toString())
      } catch {
        await Bun.sleep(5)
      }
    }
    socket.destroy()
  }
  return { status, body, socket, text: () => raw.toString("latin1") }
}
