import type { Clock, TimerHandle } from "../lib/clock"
import { Connection, IDLE_CLOSE_MS, type Pending, type Target } from "./http1-connection"
import { HttpFailure, type HttpAnswer } from "./http1-response"

/*
 * A minimal HTTP/1.1 client for webhook POSTs, on `Bun.connect` sockets kept alive per origin.
 * Bun's `fetch` costs about 1.6 times its CPU per request, measured in
 * docs/performance.md § "Webhooks, 2026-11-23 (second pass)", and a webhook needs little of what `fetch` does: one POST with a
 * small body, no redirects, no compression, no cookies, a status and the start of the response
 * body. What it must still get right, and the tests check against real servers: HTTPS with the
 * system's trusted certificates, responses framed by Content-Length, chunked encoding or the
 * connection's close, 1xx interim answers, connection reuse (and a kept-alive connection the
 * receiver closed meanwhile), a deadline per request, and malformed answers.
 */

export interface Http1Client {
  /** POSTs `body` with `headers` to `url` (http or https); rejects with an HttpFailure. */
  post(url: string, headers: Record<string, string>, body: string): Promise<HttpAnswer>
  /** Fails every request in flight with `aborted` and closes every connection. */
  close(): void
  /** Connections open now, idle or busy (for tests). */
  readonly openConnections: number
}

export interface Http1ClientOptions {
  clock: Clock
  /** Every request must be answered within this, connecting included. */
  timeoutMs: number
  /** At most this many body bytes are read; past it the connection is closed. */
  readLimitBytes: number
  /** This many body bytes are kept as the answer's `body`. */
  keepBytes: number
  /** Certificate authorities trusted for HTTPS instead of the system's (tests). */
  ca?: string
}

const TARGET_CACHE_LIMIT = 1_000

export function createHttp1Client(options: Http1ClientOptions): Http1Client {
  const targets = new Map<string, Target>()
  const connections = new Set<Connection>()
  // Requests in flight in deadline order: every request has the same timeout, so the order
  // they started in is the order they expire in, and one timer (for the oldest) serves them all.
  const inFlight = new Set<Pending>()
  let deadlineTimer: TimerHandle | null = null
  let closed = false

  function targetFor(url: string): Target {
    let target = targets.get(url)
    if (target) return target
    const parsed = new URL(url)
    const tls = parsed.protocol === "https:"
    if (!tls && parsed.protocol !== "http:") throw new HttpFailure("connect", `unsupported URL scheme ${parsed.protocol}`)
    const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
    const port = parsed.port ? Number(parsed.port) : tls ? 443 : 80
    const key = `${parsed.protocol}//${parsed.host}`
    // Connections are shared per origin; targets (one per URL) point at their origin's pool.
    const sameOrigin = [...targets.values()].find((t) => t.key === key)
    if (targets.size >= TARGET_CACHE_LIMIT) targets.clear()
    target = {
      key,
      tls,
      hostname,
      port,
      requestLine: `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\nHost: ${parsed.host}\r\n`,
      idle: sameOrigin?.idle ?? [],
    }
    targets.set(url, target)
    return target
  }

  // One timer, armed while connections may be idle, closes those unused for IDLE_CLOSE_MS
  // (a per-socket inactivity timer, set and cleared around every request, cost more).
  let idleSweep: TimerHandle | null = null
  function armIdleSweep(): void {
    if (idleSweep || closed) return
    idleSweep = options.clock.setTimer(IDLE_CLOSE_MS, sweepIdle)
  }

  function sweepIdle(): void {
    idleSweep = null
    const nowMs = options.clock.nowMs()
    let idleLeft = false
    for (const connection of [...connections]) {
      if (connection.isIdle && nowMs - connection.idleSinceMs >= IDLE_CLOSE_MS) connection.destroy()
      else if (connection.isIdle) idleLeft = true
    }
    if (idleLeft) armIdleSweep()
  }

  function armDeadline(): void {
    if (deadlineTimer || inFlight.size === 0) return
    const oldest = inFlight.values().next().value!
    deadlineTimer = options.clock.setTimer(Math.max(0, oldest.deadlineMs - options.clock.nowMs()), expire)
  }

  function expire(): void {
    deadlineTimer = null
    const nowMs = options.clock.nowMs()
    for (const pending of inFlight) {
      if (pending.deadlineMs > nowMs) break
      // Settled before its connection is closed, so the close cannot count as a reason to retry.
      const connection = pending.connection
      settle(pending, new HttpFailure("timeout", `timed out after ${options.timeoutMs} ms`))
      connection?.destroy()
    }
    armDeadline()
  }

  function settle(pending: Pending, outcome: HttpAnswer | HttpFailure): void {
    if (pending.settled) return
    pending.settled = true
    pending.connection = null
    inFlight.delete(pending)
    if (outcome instanceof HttpFailure) pending.reject(outcome)
    else pending.resolve(outcome)
  }

  function dispatch(pending: Pending): void {
    const { target } = pending
    let connection: Connection | undefined
    while ((connection = target.idle.pop())) {
      if (connection.usable(options.clock.nowMs())) break
      connection.destroy()
    }
    if (connection) {
      pending.retryable = true
      connection.send(pending)
      return
    }
    pending.retryable = false
    const fresh = new Connection(target, options, {
      onAnswer: (c, p, answer, reusable) => {
        settle(p, answer)
        if (reusable && !closed) {
          c.idleSinceMs = options.clock.nowMs()
          target.idle.push(c)
          armIdleSweep()
        } else c.destroy()
      },
      onFailure: (c, p, failure, nothingReceived) => {
        c.destroy()
        // A kept-alive connection the receiver closed before our request reached it: try once
        // more on a new connection, as browsers and fetch do.
        if (p.retryable && nothingReceived && failure.kind === "closed" && !p.settled && !closed) {
          dispatch(p)
          return
        }
        settle(p, failure)
      },
      onClosed: (c) => {
        connections.delete(c)
        const i = target.idle.indexOf(c)
        if (i >= 0) target.idle.splice(i, 1)
      },
    })
    connections.add(fresh)
    fresh.open(pending)
  }

  return {
    post(url, headers, body) {
      if (closed) return Promise.reject(new HttpFailure("aborted", "client closed"))
      let target: Target
      try {
        target = targetFor(url)
      } catch (err) {
        return Promise.reject(err instanceof HttpFailure ? err : new HttpFailure("connect", `invalid URL: ${url}`))
      }
      let head = target.requestLine
      for (const name in headers) head += `${name}: ${headers[name]}\r\n`
      const bodyBytes = Buffer.byteLength(body)
      head += `Accept: */*\r\nConnection: keep-alive\r\nContent-Length: ${bodyBytes}\r\n\r\n`
      const request = head + body
      const requestBytes = Buffer.byteLength(head) + bodyBytes
      return new Promise<HttpAnswer>((resolve, reject) => {
        const deadlineMs = options.clock.nowMs() + options.timeoutMs
        const pending: Pending = { target, request, requestBytes, resolve, reject, deadlineMs, retryable: false, connection: null, settled: false }
        inFlight.add(pending)
        armDeadline()
        dispatch(pending)
      })
    },
    close() {
      closed = true
      deadlineTimer?.cancel()
      deadlineTimer = null
      idleSweep?.cancel()
      idleSweep = null
      for (const pending of [...inFlight]) settle(pending, new HttpFailure("aborted", "client closed"))
      for (const connection of [...connections]) connection.destroy()
      targets.clear()
    },
    get openConnections() {
      return connections.size
    },
  }
}
