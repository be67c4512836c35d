import { describe, expect, test } from "bun:test"
import { Readable } from "node:stream"
import { deflateSync } from "node:zlib"
import * as baileys from "@whiskeysockets/baileys"
import { HistoryChunkTooLargeError, inflateBounded, readHistoryChunk } from "../../src/whatsapp/baileys/history-download"

/* Reading one history chunk (src/whatsapp/baileys/history-download.ts): inline or streamed, never past its bound. */

const { proto } = baileys
const chunk = proto.HistorySync.encode({ syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP, conversations: [{ id: "15557000001@s.whatsapp.net", displayName: "x".repeat(10_000) }] }).finish()
const noHost = async (): Promise<string> => {
  throw new Error("an inline chunk needs no media host")
}

describe("success", () => {
  test("an inline bootstrap is inflated and decoded without a download, and its size is told", async () => {
    const read = await readHistoryChunk({ baileys, mediaHost: noHost }, { initialHistBootstrapInlinePayload: deflateSync(chunk) })
    expect(read.sync.conversations[0]?.displayName?.length).toBe(10_000)
    expect(read.bytes).toBe(chunk.length)
  })

  test("a streamed chunk inflates whole when it stays within the bound", async () => {
    const bytes = await inflateBounded(Readable.from([deflateSync(chunk)]), chunk.length)
    expect(Buffer.compare(bytes, Buffer.from(chunk))).toBe(0)
  })
})

describe("limits", () => {
  test("an inline chunk inflating past the bound is refused, not held", async () => {
    await expect(readHistoryChunk({ baileys, mediaHost: noHost, maxBytes: 4_096 }, { initialHistBootstrapInlinePayload: deflateSync(chunk) })).rejects.toBeInstanceOf(HistoryChunkTooLargeError)
  })

  test("a streamed chunk inflating past the bound is refused, not held", async () => {
    await expect(inflateBounded(Readable.from([deflateSync(chunk)]), 4_096)).rejects.toBeInstanceOf(HistoryChunkTooLargeError)
  })

  test("a notification naming neither an inline chunk nor a blob is refused", async () => {
    await expect(readHistoryChunk({ baileys, mediaHost: noHost }, { syncType: proto.HistorySync.HistorySyncType.RECENT })).rejects.toThrow("names no blob")
  })

  test("a stream that is not zlib is an error, not a chunk", async () => {
    await expect(inflateBounded(Readable.from([Buffer.from("not deflated at all")]), 4_096)).rejects.toThrow()
  })
})
