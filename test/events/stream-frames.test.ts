import { describe, expect, test } from "bun:test"
import { sseBody } from "../../src/domain/event-stream-sse"
import { wsSink, type StreamSocket } from "../../src/domain/event-stream-ws"
import type { StreamSink } from "../../src/domain/event-stream"
import type { LoggedEvent } from "../../src/store/event-streams"

/* How the two transports frame what the streams of a node share (docs/webhooks.md § "Streams"). */

function loggedEvent(id: string, type = "message.received"): LoggedEvent {
  const body = JSON.stringify({ event: type, timestamp: "2026-11-28T12:00:00.000Z", data: { id } })
  return { id, accountId: "acc_1", env: "test", type, body, occurredAtMs: 0, position: id }
}

/** An SSE body and its sink, as the route makes them. */
function sseStream(): { sink: StreamSink; reader: ReadableStreamDefaultReader<Uint8Array> } {
  let sink!: StreamSink
  const body = sseBody(64 * 1024, (s) => {
    sink = s
    return () => {}
  })
  return { sink, reader: body.getReader() }
}

function recordingSocket(): StreamSocket & { texts: string[] } {
  const texts: string[] = []
  return { texts, send: (text) => (texts.push(text), text.length), ping: () => 0, getBufferedAmount: () => 0, close: () => {} }
}

describe("stream frames", () => {
  test("SSE: an event reaching many streams is encoded once, the same bytes for each, and reads as the event's id, name and envelope", async () => {
    const event = loggedEvent("evt_a")
    const streams = [sseStream(), sseStream(), sseStream()]
    for (const s of streams) expect(s.sink.send({ kind: "event", event })).toBe(true)
    const chunks = await Promise.all(streams.map(async (s) => (await s.reader.read()).value!))
    expect(chunks[1]).toBe(chunks[0]!)
    expect(chunks[2]).toBe(chunks[0]!)
    expect(new TextDecoder().decode(chunks[0])).toBe(`id: evt_a\nevent: message.received\ndata: ${event.body}\n\n`)
  })

  test("SSE: two events are framed apart, each with its own id and body", async () => {
    const s = sseStream()
    s.sink.send({ kind: "event", event: loggedEvent("evt_a") })
    s.sink.send({ kind: "event", event: loggedEvent("evt_b", "group.updated") })
    const first = new TextDecoder().decode((await s.reader.read()).value)
    const second = new TextDecoder().decode((await s.reader.read()).value)
    expect(first).toStartWith("id: evt_a\nevent: message.received\n")
    expect(second).toStartWith("id: evt_b\nevent: group.updated\n")
    expect(second).toContain('"data":{"id":"evt_b"}')
  })

  test("WebSocket: each socket gets the event as {id, event, timestamp, data}, the same text for every socket", () => {
    const event = loggedEvent("evt_a")
    const sockets = [recordingSocket(), recordingSocket()]
    for (const socket of sockets) wsSink(socket).send({ kind: "event", event })
    expect(sockets[1]!.texts).toEqual(sockets[0]!.texts)
    expect(JSON.parse(sockets[0]!.texts[0]!)).toEqual({ id: "evt_a", event: "message.received", timestamp: "2026-11-28T12:00:00.000Z", data: { id: "evt_a" } })
    wsSink(sockets[0]!).send({ kind: "event", event: loggedEvent("evt_b", "group.updated") })
    expect(JSON.parse(sockets[0]!.texts[1]!)).toMatchObject({ id: "evt_b", event: "group.updated" })
  })
})
