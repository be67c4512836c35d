/*
 * The few AMQP 0-9-1 exchanges the broker harness needs, spoken directly over a TCP socket: the
 * handshake (readiness), declaring a queue, publishing with a publisher confirm, and fetching one
 * message with Basic.Get. It checks the throwaway broker itself, independently of the client
 * library wagate publishes with. Frame layout and method ids: the AMQP 0-9-1 specification
 * (sections 4.2.3 and 4.2.6 on frames and content, and its class/method tables).
 */

const FRAME_METHOD = 1
const FRAME_HEADER = 2
const FRAME_BODY = 3
const FRAME_END = 0xce

interface Frame {
  type: number
  channel: number
  payload: Buffer
}

/** A connection or channel closed by the broker: its reply code (e.g. 530 NOT_ALLOWED) and text. */
export class AmqpRefused extends Error {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {
    super(`AMQP ${code} ${text}`)
  }
}

const shortstr = (s: string) => {
  const b = Buffer.from(s)
  return Buffer.concat([Buffer.from([b.length]), b])
}
const longstr = (s: string) => {
  const b = Buffer.from(s)
  const len = Buffer.alloc(4)
  len.writeUInt32BE(b.length)
  return Buffer.concat([len, b])
}
const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff])
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n)
  return b
}
const u64 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(BigInt(n))
  return b
}
const EMPTY_TABLE = u32(0)

function frame(type: number, channel: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type]), u16(channel), u32(payload.length), payload, Buffer.from([FRAME_END])])
}

function method(channel: number, classId: number, methodId: number, ...args: Buffer[]): Buffer {
  return frame(FRAME_METHOD, channel, Buffer.concat([u16(classId), u16(methodId), ...args]))
}

export interface AmqpWireConnection {
  declareQueue(name: string): Promise<void>
  /** Publishes to the default exchange, persistent, and resolves on the broker's confirm. */
  publish(queue: string, body: string): Promise<void>
  /**
   * Publishes `count` persistent messages to `queue`, at most `window` unconfirmed at a time, and
   * resolves once the broker has confirmed all of them (the confirm mode the publisher uses).
   */
  publishMany(queue: string, count: number, body: (i: number) => string, window: number): Promise<void>
  /** One message from the queue (acknowledged on delivery), or null when it is empty. */
  get(queue: string): Promise<string | null>
  close(): void
}

/** Opens a connection (PLAIN login, vhost `/`) and channel 1 in confirm mode. */
export async function amqpConnect(url: string, timeoutMs: number): Promise<AmqpWireConnection> {
  const { hostname, port, username, password } = new URL(url)
  const frames: Frame[] = []
  let waiter: (() => void) | null = null
  let failure: Error | null = null
  let pending = Buffer.alloc(0)
  const wake = () => {
    const w = waiter
    waiter = null
    w?.()
  }
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_s, chunk) {
        pending = Buffer.concat([pending, chunk])
        while (pending.length >= 7 && pending.length >= 8 + pending.readUInt32BE(3)) {
          const size = pending.readUInt32BE(3)
          frames.push({ type: pending[0]!, channel: pending.readUInt16BE(1), payload: pending.subarray(7, 7 + size) })
          pending = pending.subarray(8 + size)
        }
        wake()
      },
      close() {
        failure ??= new Error("the broker closed the connection")
        wake()
      },
      error(_s, err) {
        failure = err
        wake()
      },
    },
  })
  const deadline = Date.now() + timeoutMs
  const next = async (): Promise<Frame> => {
    for (;;) {
      const f = frames.shift()
      if (f) {
        // Connection.Close (10,50) and Channel.Close (20,40) carry the broker's refusal.
        const id = f.type === FRAME_METHOD ? f.payload.readUInt32BE(0) : 0
        if (id === 0x000a0032 || id === 0x00140028) throw new AmqpRefused(f.payload.readUInt16BE(4), f.payload.subarray(7, 7 + f.payload[6]!).toString())
        if (f.type === 8) continue // heartbeat
        return f
      }
      if (failure) throw failure
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no AMQP answer from ${hostname}:${port} within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        waiter = resolve
        setTimeout(resolve, left)
      })
    }
  }
  const expect = async (classId: number, methodId: number): Promise<Buffer> => {
    const f = await next()
    const got = f.type === FRAME_METHOD ? `${f.payload.readUInt16BE(0)},${f.payload.readUInt16BE(2)}` : `frame type ${f.type}`
    if (got !== `${classId},${methodId}`) throw new Error(`expected AMQP method ${classId},${methodId}, got ${got}`)
    return f.payload.subarray(4)
  }
  try {
    socket.write(Buffer.from("AMQP\x00\x00\x09\x01", "latin1"))
    await expect(10, 10) // Connection.Start
    const plain = `\0${decodeURIComponent(username)}\0${decodeURIComponent(password)}`
    socket.write(method(0, 10, 11, EMPTY_TABLE, shortstr("PLAIN"), longstr(plain), shortstr("en_US")))
    await expect(10, 30) // Connection.Tune
    socket.write(method(0, 10, 31, u16(16), u32(131072), u16(0)))
    socket.write(method(0, 10, 40, shortstr("/"), shortstr(""), Buffer.from([0])))
    await expect(10, 41)
    socket.write(method(1, 20, 10, shortstr("")))
    await expect(20, 11)
    socket.write(method(1, 85, 10, Buffer.from([0]))) // Confirm.Select
    await expect(85, 11)
  } catch (err) {
    socket.end()
    throw err
  }
  // Confirm mode numbers every publish on the channel from 1; acks name those numbers.
  let published = 0
  return {
    async declareQueue(name) {
      // Flags octet: passive 1, durable 2, exclusive 4, auto-delete 8, no-wait 16.
      socket.write(method(1, 50, 10, u16(0), shortstr(name), Buffer.from([2]), EMPTY_TABLE))
      await expect(50, 11)
    },
    async publish(queue, body) {
      const content = Buffer.from(body)
      socket.write(method(1, 60, 40, u16(0), shortstr(""), shortstr(queue), Buffer.from([0])))
      // Content header: class 60, weight 0, body size, property flags with delivery-mode only (bit 12), 2 = persistent.
      socket.write(frame(FRAME_HEADER, 1, Buffer.concat([u16(60), u16(0), u64(content.length), u16(0x1000), Buffer.from([2])])))
      socket.write(frame(FRAME_BODY, 1, content))
      published++
      const ack = await next()
      if (ack.type !== FRAME_METHOD || ack.payload.readUInt32BE(0) !== 0x003c0050) throw new Error("expected Basic.Ack for the publish")
    },
    async publishMany(queue, count, body, window) {
      const base = published
      let sent = 0
      let confirmed = 0
      const seen = new Set<number>()
      while (confirmed < count) {
        while (sent < count && sent - confirmed < window) {
          const content = Buffer.from(body(sent))
          socket.write(Buffer.concat([method(1, 60, 40, u16(0), shortstr(""), shortstr(queue), Buffer.from([0])), frame(FRAME_HEADER, 1, Buffer.concat([u16(60), u16(0), u64(content.length), u16(0x1000), Buffer.from([2])])), frame(FRAME_BODY, 1, content)]))
          sent++
          published++
        }
        const ack = await next()
        const id = ack.type === FRAME_METHOD ? ack.payload.readUInt32BE(0) : 0
        if (id !== 0x003c0050) throw new Error(`expected Basic.Ack, got ${id.toString(16)}`)
        const tag = Number(ack.payload.readBigUInt64BE(4)) - base
        // With the multiple bit the ack covers every tag up to this one (tags start at 1).
        if (ack.payload[12]! & 1) {
          for (let t = confirmed + 1; t <= tag; t++) seen.add(t)
        } else seen.add(tag)
        while (seen.has(confirmed + 1)) seen.delete(++confirmed)
      }
    },
    async get(queue) {
      socket.write(method(1, 60, 70, u16(0), shortstr(queue), Buffer.from([1])))
      const f = await next()
      const id = f.payload.readUInt32BE(0)
      if (id === 0x003c0048) return null // Basic.Get-Empty
      if (id !== 0x003c0047) throw new Error(`expected Basic.Get-Ok, got ${id.toString(16)}`)
      const header = await next()
      const size = Number(header.payload.readBigUInt64BE(4))
      const parts: Buffer[] = []
      let received = 0
      while (received < size) {
        const body = await next()
        parts.push(body.payload)
        received += body.payload.length
      }
      return Buffer.concat(parts).toString()
    },
    close() {
      socket.end()
    },
  }
}

/** Resolves once the broker has completed a handshake through Connection.Open and a channel. */
export async function amqpHandshake(url: string, timeoutMs: number): Promise<void> {
  const connection = await amqpConnect(url, timeoutMs)
  connection.close()
}
