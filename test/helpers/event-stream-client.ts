/** One Server-Sent Events frame as a client reads it: fields by name, comment lines apart. */
export interface SseFrame {
  id?: string
  event?: string
  data?: string
  comment?: string
}

/** An open `GET /v1/events` over a real socket, read frame by frame. */
export interface StreamClient {
  status: number
  headers: Headers
  /** The JSON body of a refused request (empty object for a stream). */
  error: any
  /** The next `n` frames that are not comments (heartbeats and the opening line are skipped). */
  events(n: number): Promise<SseFrame[]>
  /** The next frame, comments included. */
  next(): Promise<SseFrame | null>
  close(): Promise<void>
}

/** How long a test waits for frames that should arrive at once: generous, for a loaded machine. */
const FRAME_WAIT_MS = 10_000

function parse(block: string): SseFrame {
  const frame: SseFrame = {}
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim()
    const colon = line.indexOf(": ")
    if (colon > 0) (frame as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 2)
  }
  return frame
}

export async function openStream(base: string, path: string, headers: Record<string, string> = {}): Promise<StreamClient> {
  const controller = new AbortController()
  const res = await fetch(`${base}${path}`, { headers: { accept: "text/event-stream", ...headers }, signal: controller.signal })
  if (res.status !== 200) {
    const error = await res.json()
    return { status: res.status, headers: res.headers, error, events: async () => [], next: async () => null, close: async () => {} }
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ""
  async function next(): Promise<SseFrame | null> {
    for (;;) {
      const end = buffered.indexOf("\n\n")
      if (end >= 0) {
        const block = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        return parse(block)
      }
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no frame within ${FRAME_WAIT_MS} ms; buffered: ${buffered}`)), FRAME_WAIT_MS)))
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer))
      if (chunk.done) return null
      buffered += chunk.value
    }
  }
  return {
    status: res.status,
    headers: res.headers,
    error: {},
    next,
    async events(n) {
      const frames: SseFrame[] = []
      while (frames.length < n) {
        const frame = await next()
        if (frame === null) throw new Error(`the stream ended after ${frames.length} of ${n} frames`)
        if (frame.comment === undefined) frames.push(frame)
      }
      return frames
    },
    async close() {
      controller.abort()
      await reader.cancel().catch(() => {})
    },
  }
}
