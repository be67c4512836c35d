import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { adminTokenIn, cleanupProcesses, dataDir, sandboxKeyIn, start } from "../helpers/wagate-process"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * A body far over the 64 KiB cap, sent to a real `wagate serve` over a socket, is answered with
 * the error envelope: Bun's own transport cap would answer a bare 413 before wagate sees it.
 */

afterEach(cleanupProcesses)

const FIFTY_MB = 50 * 1024 * 1024
const ENVELOPE_413 = { success: false, error: "Payload Too Large", message: ["Request body must not exceed 65536 bytes"], statusCode: 413 }

/** A 50 MB body of unknown length: Transfer-Encoding: chunked, one MiB per chunk. */
function chunkedBody(totalBytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20)
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) return controller.close()
      controller.enqueue(chunk)
      sent += chunk.length
    },
  })
}

async function post(url: string, bearer: string, body: Uint8Array | ReadableStream<Uint8Array>) {
  const res = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, body, duplex: "half" } as RequestInit)
  const text = await res.text()
  return { status: res.status, contentType: res.headers.get("content-type"), text }
}

describe("a body far over the cap, over a real socket", () => {
  test("50 MB with Content-Length, and 50 MB chunked, get the 413 envelope on /v1 and /admin/v1; the server keeps serving", async () => {
    const server = await start(dataDir())
    await server.p.waitFor(/^API reference: .*\n/m)
    const key = sandboxKeyIn(server.p.out)!
    const admin = adminTokenIn(server.p.out)!
    const declared = new Uint8Array(FIFTY_MB).fill(0x20)
    for (const [path, bearer] of [
      ["/v1/messages/send", key],
      ["/admin/v1/accounts", admin],
    ] as const) {
      for (const [kind, body] of [
        ["declared", () => declared],
        ["chunked", () => chunkedBody(FIFTY_MB)],
      ] as const) {
        const res = await post(`${server.base}${path}`, bearer, body())
        expect({ path, kind, status: res.status, contentType: res.contentType }).toEqual({ path, kind, status: 413, contentType: "application/json" })
        expect(JSON.parse(res.text)).toMatchObject({ ...ENVELOPE_413, path })
      }
    }
    // A route that reads no body answers as it would without one (here: the wrong method).
    const healthz = await post(`${server.base}/healthz`, key, declared)
    expect(healthz.status).toBe(405)
    expect(JSON.parse(healthz.text)).toMatchObject({ success: false, error: "Method Not Allowed", path: "/healthz" })
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200)
  }, 60_000)
})
