import type { Clock, TimerHandle } from "../../lib/clock"
import { SECURITY_HEADERS } from "./respond"

/** A comment line keeps idle proxies from closing the stream. */
const KEEPALIVE_MS = 15_000

/** One SSE message carrying an HTML fragment (each line of it as a `data:` line). */
export function sseMessage(html: string): string {
  return `${html
    .split(/\r?\n/)
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`
}

/**
 * A server-sent-events response of HTML fragments, for an element with `data-live` (see
 * assets/dashboard.js). `subscribe` receives the function that sends a fragment and returns the
 * unsubscribe, called when the browser goes away.
 */
export function liveHtmlResponse(
  clock: Clock,
  request: Request,
  subscribe: (push: (html: string) => void) => () => void,
  /** Asked before each push: a stream whose session ended (sign-out, token reset) closes. */
  stillSignedIn: () => Promise<boolean>,
): Response {
  const encoder = new TextEncoder()
  let unsubscribe = () => {}
  let keepalive: TimerHandle | null = null
  let closed = false
  const stop = () => {
    closed = true
    unsubscribe()
    keepalive?.cancel()
  }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const end = () => {
        stop()
        try {
          controller.close()
        } catch {
          // Already closed by the client.
        }
      }
      // Pushes go out in the order they were made, each after its session check.
      let chain = Promise.resolve()
      const push = (html: string) => {
        chain = chain
          .then(async () => {
            if (closed) return
            if (!(await stillSignedIn())) return end()
            if (!closed) controller.enqueue(encoder.encode(sseMessage(html)))
          })
          .catch(() => end())
      }
      const ping = () => {
        if (closed) return
        controller.enqueue(encoder.encode(": keepalive\n\n"))
        keepalive = clock.setTimer(KEEPALIVE_MS, ping)
      }
      unsubscribe = subscribe(push)
      keepalive = clock.setTimer(KEEPALIVE_MS, ping)
      request.signal.addEventListener("abort", end)
    },
    cancel: stop,
  })
  return new Response(stream, {
    headers: { ...SECURITY_HEADERS, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive" },
  })
}
