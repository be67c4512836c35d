import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import type { Socket, TCPSocketListener } from "bun"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createHttp1Client, type Http1Client } from "../../src/webhooks/http1-client"
import { IDLE_CLOSE_MS } from "../../src/webhooks/http1-connection"
import { HttpFailure } from "../../src/webhooks/http1-response"
import { TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { generateLoopbackCertificate, type TlsCertificate } from "../wa-sim/media-cert"

/*
 * wagate's HTTP/1.1 client for webhook attempts, against real servers on 127.0.0.1: Bun.serve
 * (plain and HTTPS with a self-signed certificate) and raw TCP servers that answer exactly the
 * bytes a test gives them (chunked, close-delimited, interim, malformed, cut short).
 */

// Generating the certificate spawns openssl.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const TIMEOUT_MS = 15_000
const READ_LIMIT = 64 * 1024
const KEEP = 1024

const clients: Http1Client[] = []
const stoppers: (() => void)[] = []
afterEach(() => {
  for (const c of clients.splice(0)) c.close()
  for (const stop of stoppers.splice(0)) stop()
})

function client(clock = new TestClock(), ca?: string): Http1Client {
  const c = createHttp1Client({ clock, timeoutMs: TIMEOUT_MS, readLimitBytes: READ_LIMIT, keepBytes: KEEP, ca })
  clients.push(c)
  return c
}

function serve(fetch: (req: Request) => Response | Promise<Response>, tls?: TlsCertificate): string {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch, ...(tls ? { tls: { cert: tls.certPem, key: tls.keyPem } } : {}) })
  stoppers.push(() => server.stop(true))
  return `${tls ? "https" : "http"}://127.0.0.1:${server.port}/hook`
}

/** A raw TCP server: `answer` gets each connection's request bytes so far and may write, end or ignore. */
function rawServer(answer: (socket: Socket<{ received: string; requests: number }>, request: string, connectionNumber: number) => void): { url: string; connections: () => number } {
  let connections = 0
  const listener: TCPSocketListener<{ received: string; requests: number }> = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        connections++
        socket.data = { received: "", requests: connections }
      },
      data(socket, chunk) {
        socket.data.received += chunk.toString("latin1")
        // One complete request (head and its Content-Length of body) at a time.
        const end = socket.data.received.indexOf("\r\n\r\n")
        if (end < 0) return
        const length = Number(/content-length: (\d+)/i.exec(socket.data.received.slice(0, end))?.[1] ?? 0)
        if (socket.data.received.length < end + 4 + length) return
        const request = socket.data.received.slice(0, end + 4 + length)
        socket.data.received = socket.data.received.slice(end + 4 + length)
        answer(socket, request, socket.data.requests)
      },
    },
  })
  stoppers.push(() => listener.stop(true))
  return { url: `http://127.0.0.1:${listener.port}/hook`, connections: () => connections }
}

const headers = { "Content-Type": "application/json", "X-Service-Event": "message.sent" }

async function failure(promise: Promise<unknown>): Promise<HttpFailure> {
  try {
    await promise
  } catch (err) {
    if (err instanceof HttpFailure) return err
    throw err
  }
  throw new Error("the request succeeded")
}

describe("the webhook HTTP/1.1 client", () => {
  test("posts the body with the given headers, Host and Content-Length, and reads a Content-Length answer", async () => {
    let seen: { method: string; path: string; headers: Record<string, string>; body: string } | null = null
    const url = serve(async (req) => {
      seen = { method: req.method, path: new URL(req.url).pathname + new URL(req.url).search, headers: Object.fromEntries(req.headers), body: await req.text() }
      return new Response("thanks", { status: 201 })
    })
    const body = JSON.stringify({ event: "message.sent", note: "héllo ✓" })
    const answer = await client().post(`${url}?a=1`, headers, body)
    expect(answer).toEqual({ status: 201, location: null, body: "thanks" })
    expect(seen!).toMatchObject({ method: "POST", path: "/hook?a=1", body })
    expect(seen!.headers).toMatchObject({
      "content-type": "application/json",
      "x-service-event": "message.sent",
      "content-length": String(Buffer.byteLength(body)),
      host: new URL(url).host,
    })
  })

  test("one kept-alive connection carries request after request", async () => {
    const raw = rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
    const c = client()
    for (let i = 0; i < 5; i++) expect((await c.post(raw.url, headers, `{"n":${i}}`)).status).toBe(200)
    expect(raw.connections()).toBe(1)
    expect(c.openConnections).toBe(1)
  })

  test("a connection left unused for IDLE_CLOSE_MS is closed; one used meanwhile stays", async () => {
    const clock = new TestClock()
    const raw = rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
    const c = client(clock)
    await c.post(raw.url, headers, "{}")
    clock.advance(IDLE_CLOSE_MS - 1)
    await c.post(raw.url, headers, "{}")
    clock.advance(1)
    expect(c.openConnections).toBe(1)
    clock.advance(IDLE_CLOSE_MS)
    expect(c.openConnections).toBe(0)
    await c.post(raw.url, headers, "{}")
    expect(raw.connections()).toBe(2)
  })

  test("concurrent requests open one connection each, then reuse them", async () => {
    const url = serve(() => new Response("ok"))
    const c = client()
    await Promise.all(Array.from({ length: 8 }, (_, i) => c.post(url, headers, `{"n":${i}}`)))
    expect(c.openConnections).toBe(8)
    await Promise.all(Array.from({ length: 8 }, (_, i) => c.post(url, headers, `{"n":${i}}`)))
    expect(c.openConnections).toBe(8)
  })

  test("a chunked answer (with extensions and trailers) is decoded and the connection stays usable", async () => {
    const raw = rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
      socket.write("5;ext=1\r\nhello\r\n")
      socket.write("7\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n")
    })
    const c = client()
    expect(await c.post(raw.url, headers, "{}")).toEqual({ status: 200, location: null, body: "hello, world" })
    expect(await c.post(raw.url, headers, "{}")).toEqual({ status: 200, location: null, body: "hello, world" })
    expect(raw.connections()).toBe(1)
  })

  test("a chunked answer split at every byte is still decoded", async () => {
    const answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    const raw = rawServer(async (socket) => {
      for (const ch of answer) {
        socket.write(ch)
        socket.flush()
        await Bun.sleep(0)
      }
    })
    expect(await client().post(raw.url, headers, "{}")).toEqual({ status: 200, location: null, body: "abcde" })
  })

  test("an answer without length is read until the receiver closes, and that connection is not reused", async () => {
    const raw = rawServer((socket) => {
      socket.write("HTTP/1.1 202 Accepted\r\n\r\nuntil the end")
      socket.end()
    })
    const c = client()
    expect(await c.post(raw.url, headers, "{}")).toEqual({ status: 202, location: null, body: "until the end" })
    expect(await c.post(raw.url, headers, "{}")).toMatchObject({ status: 202 })
    expect(raw.connections()).toBe(2)
  })

  test("Connection: close and HTTP/1.0 answers close their connection after the answer", async () => {
    const raw = rawServer((socket, _req, n) =>
      socket.write(n === 1 ? "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok" : "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    )
    const c = client()
    await c.post(raw.url, headers, "{}")
    await c.post(raw.url, headers, "{}")
    await c.post(raw.url, headers, "{}")
    expect(raw.connections()).toBe(3)
  })

  test("interim 1xx answers are skipped", async () => {
    const raw = rawServer((socket) => socket.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"))
    expect(await client().post(raw.url, headers, "{}")).toEqual({ status: 204, location: null, body: null })
  })

  test("a redirect is answered as it is, with its location, and not followed", async () => {
    let followed = false
    const target = serve(() => {
      followed = true
      return new Response("ok")
    })
    const url = serve(() => new Response(null, { status: 307, headers: { location: target } }))
    expect(await client().post(url, headers, "{}")).toEqual({ status: 307, location: target, body: null })
    expect(followed).toBe(false)
  })

  test("of a huge answer at most the read limit is read and the first KEEP bytes kept; the connection is closed", async () => {
    let written = 0
    const raw = rawServer(async (socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`)
      const block = "é".repeat(8 * 1024)
      while (written < 100 * 1024 * 1024 && socket.readyState === 1) {
        written += socket.write(block)
        await Bun.sleep(1)
      }
    })
    const c = client()
    const answer = await c.post(raw.url, headers, "{}")
    expect(answer.status).toBe(200)
    // "é" is two bytes: the kept 1,024 bytes decode to 512 characters.
    expect(answer.body).toBe("é".repeat(KEEP / 2))
    expect(written).toBeLessThan(10 * 1024 * 1024)
    expect(c.openConnections).toBe(0)
  })

  test("a large request body is written in full, across partial writes", async () => {
    let size = 0
    const url = serve(async (req) => {
      size = (await req.arrayBuffer()).byteLength
      return new Response("ok")
    })
    const body = JSON.stringify({ blob: "x".repeat(4 * 1024 * 1024) })
    expect((await client().post(url, headers, body)).status).toBe(200)
    expect(size).toBe(Buffer.byteLength(body))
  })

  test("a connection closed in the middle of the answer fails the request as closed", async () => {
    const raw = rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
      socket.end()
    })
    const err = await failure(client().post(raw.url, headers, "{}"))
    expect(err).toMatchObject({ kind: "closed", message: "connection closed by the receiver" })
  })

  test("a connection closed before any answer (not a reused one) fails the request, without a second try", async () => {
    const raw = rawServer((socket) => socket.end())
    const err = await failure(client().post(raw.url, headers, "{}"))
    expect(err.kind).toBe("closed")
    expect(raw.connections()).toBe(1)
  })

  test("a kept-alive connection the receiver dropped meanwhile is replaced, and the request goes through once", async () => {
    let answered = 0
    const raw = rawServer((socket, _req, n) => {
      // The first connection answers once, then drops the next request unanswered (as a
      // receiver closing an idle connection at the moment a request arrives does).
      if (n === 1 && answered > 0) {
        socket.terminate()
        return
      }
      answered++
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    })
    const c = client()
    await c.post(raw.url, headers, "{}")
    expect((await c.post(raw.url, headers, "{}")).status).toBe(200)
    expect(raw.connections()).toBe(2)
    expect(answered).toBe(2)
  })

  test.each([
    ["a status line that is not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", /status line/],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nnonsense\r\n\r\n", /header line/],
    ["a Content-Length that is not a number", "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", /Content-Length/],
    ["a chunk size that is not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", /chunk size/],
    ["a chunk not followed by CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n", /CRLF/],
  ])("a malformed answer fails the request: %s", async (_name, bytes, message) => {
    const raw = rawServer((socket) => socket.write(bytes))
    const c = client()
    const err = await failure(c.post(raw.url, headers, "{}"))
    expect(err.kind).toBe("malformed")
    expect(err.message).toMatch(message)
    expect(c.openConnections).toBe(0)
  })

  test("a head that never ends fails as malformed once past its limit", async () => {
    const raw = rawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nX-Long: ${"a".repeat(70 * 1024)}`))
    expect((await failure(client().post(raw.url, headers, "{}"))).message).toMatch(/head too long/)
  })

  test("a refused connection fails as refused", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
    const port = listener.port
    listener.stop(true)
    const err = await failure(client().post(`http://127.0.0.1:${port}/hook`, headers, "{}"))
    expect(err).toMatchObject({ kind: "refused", message: "connection refused" })
  })

  test("the deadline (one timer for all requests in flight) cuts a hanging receiver at exactly the timeout", async () => {
    const clock = new TestClock()
    const raw = rawServer(() => {})
    const c = client(clock)
    const first = failure(c.post(raw.url, headers, "{}"))
    clock.advance(1_000)
    const second = failure(c.post(raw.url, headers, "{}"))
    await Bun.sleep(20)
    expect(clock.pendingTimers).toBe(1)
    clock.advance(TIMEOUT_MS - 1_001)
    await Bun.sleep(5)
    clock.advance(1)
    expect(await first).toMatchObject({ kind: "timeout", message: `timed out after ${TIMEOUT_MS} ms` })
    let secondDone = false
    void second.then(() => (secondDone = true))
    await Bun.sleep(5)
    expect(secondDone).toBe(false)
    clock.advance(1_000)
    expect(await second).toMatchObject({ kind: "timeout" })
    expect(c.openConnections).toBe(0)
  })

  test("close() fails requests in flight as aborted and closes every connection", async () => {
    const raw = rawServer(() => {})
    const c = client()
    const pending = failure(c.post(raw.url, headers, "{}"))
    await Bun.sleep(20)
    c.close()
    expect((await pending).kind).toBe("aborted")
    expect(c.openConnections).toBe(0)
  })

  test("an unsupported scheme is refused without connecting", async () => {
    expect((await failure(client().post("ftp://127.0.0.1/x", headers, "{}"))).message).toMatch(/unsupported URL scheme/)
  })
})

describe("the webhook HTTP/1.1 client over HTTPS", () => {
  let cert: TlsCertificate
  beforeAll(async () => {
    cert = await generateLoopbackCertificate()
  }, 20_000)

  test("posts over TLS to a receiver whose certificate is trusted, and reuses the connection", async () => {
    let bodies = 0
    const url = serve(async (req) => {
      bodies += (await req.text()) === '{"tls":true}' ? 1 : 0
      return new Response("secure")
    }, cert)
    const c = client(new TestClock(), cert.certPem)
    expect(await c.post(url, headers, '{"tls":true}')).toEqual({ status: 200, location: null, body: "secure" })
    expect(await c.post(url, headers, '{"tls":true}')).toMatchObject({ status: 200 })
    expect(bodies).toBe(2)
    expect(c.openConnections).toBe(1)
  })

  test("refuses a receiver whose certificate is not trusted", async () => {
    let reached = false
    const url = serve(() => {
      reached = true
      return new Response("should not be reached")
    }, cert)
    const err = await failure(client().post(url, headers, "{}"))
    expect(err).toMatchObject({ kind: "connect", message: "TLS handshake failed: self signed certificate" })
    expect(reached).toBe(false)
  })

  test("trusts the authorities in NODE_EXTRA_CA_CERTS (a private CA needs no fetch)", async () => {
    const url = serve(() => new Response("private ca"), cert)
    const dir = mkdtempSync(join(tmpdir(), "wagate-ca-"))
    stoppers.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, "ca.pem"), cert.certPem)
    const script = `
      import { createHttp1Client } from ${JSON.stringify(join(import.meta.dir, "..", "..", "src", "webhooks", "http1-client.ts"))}
      const clock = { nowMs: () => 0, setTimer: () => ({ cancel() {} }) }
      const c = createHttp1Client({ clock, timeoutMs: 5000, readLimitBytes: 1024, keepBytes: 64 })
      try { console.log(JSON.stringify(await c.post(${JSON.stringify(url)}, {}, "{}"))) } catch (e) { console.log(String(e.message)) }
      c.close()`
    // Asynchronously: the receiver answers from this process.
    const run = async (env: Record<string, string | undefined>) => {
      const child = Bun.spawn(["bun", "-e", script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: undefined, ...env }, stdout: "pipe", stderr: "pipe" })
      const [out] = await Promise.all([new Response(child.stdout).text(), child.exited])
      return out.trim()
    }
    expect(await run({ NODE_EXTRA_CA_CERTS: join(dir, "ca.pem") })).toBe(JSON.stringify({ status: 200, location: null, body: "private ca" }))
    expect(await run({})).toBe("TLS handshake failed: self signed certificate")
  })

  test("refuses a trusted certificate issued for another name", async () => {
    const url = serve(() => new Response("should not be reached"), cert).replace("127.0.0.1", "localhost")
    const err = await failure(client(new TestClock(), cert.certPem).post(url, headers, "{}"))
    expect(err.kind).toBe("connect")
    expect(err.message).toMatch(/does not match/)
  })
})
