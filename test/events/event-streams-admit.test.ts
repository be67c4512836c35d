import { afterEach, describe, expect, test } from "bun:test"
import { authenticateApiKey } from "../../src/domain/api-keys"
import { STREAMS_PER_KEY, type AdmittedStream } from "../../src/domain/event-streams"
import { createHarness, type Harness } from "../helpers/harness"

/* A stream admitted before its transport (a WebSocket before its upgrade): its place is held, and given back when no transport came. */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

describe("admitting a stream before its transport", () => {
  test("an admitted stream holds a place of the key until abandoned, and abandoning twice or after attaching gives back nothing more", async () => {
    h = await createHarness()
    const { account } = await h.seedTenant()
    const principal = (await authenticateApiKey(h.services.ctx, await h.seedKey(account.id, { scopes: ["events:read"] })))!
    const streams = h.services.eventStreams
    const request = { types: null, after: null }
    const admitted: AdmittedStream[] = []
    for (let i = 0; i < STREAMS_PER_KEY; i++) admitted.push(await streams.admit(principal, request))
    await expect(streams.admit(principal, request)).rejects.toMatchObject({ kind: "rate_limited" })
    admitted[0]!.abandon()
    admitted[0]!.abandon()
    expect(streams.openCount(principal.keyId)).toBe(STREAMS_PER_KEY - 1)
    expect(() => admitted[0]!.attach({ transport: "websocket", send: () => true, pendingBytes: () => 0, end: () => {} })).toThrow()
    const sent: string[] = []
    const left = admitted[1]!.attach({ transport: "websocket", send: (f) => (sent.push(f.kind), true), pendingBytes: () => 0, end: () => {} })
    expect(streams.openStreams().map((s) => [s.keyId, s.transport])).toEqual([[principal.keyId, "websocket"]])
    admitted[1]!.abandon()
    expect(streams.openCount(principal.keyId)).toBe(STREAMS_PER_KEY - 1)
    expect(sent).toEqual(["connected"])
    left()
    expect(streams.openCount(principal.keyId)).toBe(STREAMS_PER_KEY - 2)
  })
})
