import type { Server } from "bun"

/** One request as the receiver saw it. */
export interface ReceivedHook {
  headers: Record<string, string>
  body: string
  json: any
}

/** What the receiver does with the next request. */
export type ReceiverBehaviour =
  | { status: number; body?: string; headers?: Record<string, string> }
  | { hang: true }
  | { delayMs: number; status: number }

/**
 * A real HTTP receiver on 127.0.0.1 and an ephemeral port (the Svix TestReceiver pattern): it
 * records raw bodies and headers, answers from a queue of behaviours, then with `fallback`.
 */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = []
  private queue: ReceiverBehaviour[] = []
  private hanging: (() => void)[] = []
  fallback: ReceiverBehaviour = { status: 200 }
  private server: Server<undefined>

  constructor() {
    this.server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      idleTimeout: 0,
      fetch: async (req) => {
        const body = await req.text()
        const headers: Record<string, string> = {}
        req.headers.forEach((v, k) => (headers[k] = v))
        this.received.push({ headers, body, json: safeJson(body) })
        const behaviour = this.queue.shift() ?? this.fallback
        if ("hang" in behaviour) {
          await new Promise<void>((resolve) => this.hanging.push(resolve))
          return new Response("too late", { status: 200 })
        }
        if ("delayMs" in behaviour) await Bun.sleep(behaviour.delayMs)
        return new Response("body" in behaviour ? (behaviour.body ?? "ok") : "ok", {
          status: behaviour.status,
          headers: "headers" in behaviour ? behaviour.headers : undefined,
        })
      },
    })
  }

  /** The URL of a path on this receiver. */
  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.server.port}${path}`
  }

  /** Answers the next requests with these behaviours, in order. */
  respondWith(...behaviours: ReceiverBehaviour[]): void {
    this.queue.push(...behaviours)
  }

  /** Waits (polling, bounded) until `count` requests have arrived. */
  async waitFor(count: number, timeoutMs = 5_000): Promise<ReceivedHook[]> {
    await waitUntil(() => this.received.length >= count, timeoutMs, `${count} webhook requests (got ${this.received.length})`)
    return this.received.slice(0, count)
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release()
    await this.server.stop(true)
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** Polls `condition` every few milliseconds until it holds, failing after `timeoutMs`. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(5)
  }
}
