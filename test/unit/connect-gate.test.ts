import { describe, expect, test } from "bun:test"
import { CONNECT_MAX_LAG_MS, CONNECT_MAX_WAIT_MS, createConnectGate, type SlotHolder } from "../../src/domain/connect-gate"
import type { LagSource } from "../../src/lib/event-loop-lag"
import { TestClock } from "../helpers/test-clock"

/*
 * docs/live-whatsapp.md § "How connects are paced": the gate admits the next connect only on a
 * fresh, calm lag reading, keeps the concurrency limit, and never starves a waiter.
 */

/** A lag source the test sets by hand; `read()` is one new reading. */
class FakeLag implements LagSource {
  current = 0
  count = 0
  /** Whether the gate wants readings now, as it last said. */
  watching = false
  lagMs = () => this.current
  readings = () => this.count
  watch = (wanted: boolean) => void (this.watching = wanted)
  read(lagMs: number): void {
    this.current = lagMs
    this.count++
  }
}

function setup(concurrency = 3) {
  const clock = new TestClock()
  const lag = new FakeLag()
  const gate = createConnectGate({ concurrency, lag, clock })
  const opened: string[] = []
  const holders = new Map<string, SlotHolder>()
  const connect = (name: string, wanted = () => true) => {
    const holder: SlotHolder = { releaseSlot: null }
    holders.set(name, holder)
    gate.whenFree(holder, wanted, () => opened.push(name))
    return holder
  }
  /** Widens the window to `finished` + 1: that many connects open and finish on a calm loop. */
  const warm = (finished: number) => {
    for (let index = 0; index < finished; index++) {
      const holder: SlotHolder = { releaseSlot: null }
      gate.whenFree(holder, () => true, () => {})
      gate.release(holder)
    }
  }
  return { clock, lag, gate, opened, connect, holders, warm }
}

describe("admission by lag", () => {
  const cases: Array<{ name: string; lagMs: number; admitted: string[] }> = [
    { name: "a calm loop admits the second connect on the next reading", lagMs: 0, admitted: ["a", "b"] },
    { name: "a loop just under the threshold still admits", lagMs: CONNECT_MAX_LAG_MS - 1, admitted: ["a", "b"] },
    { name: "a lagging loop holds the second connect", lagMs: CONNECT_MAX_LAG_MS, admitted: ["a"] },
    { name: "a badly lagging loop holds it too", lagMs: 200, admitted: ["a"] },
  ]
  for (const { name, lagMs, admitted } of cases) {
    test(name, () => {
      const { clock, lag, opened, connect, warm } = setup()
      warm(2)
      connect("a")
      connect("b")
      lag.read(lagMs)
      clock.advance(5)
      expect(opened).toEqual(admitted)
    })
  }

  test("the first connect opens at once whatever the lag, because nothing is in flight", () => {
    const { lag, opened, connect } = setup()
    lag.read(500)
    connect("a")
    expect(opened).toEqual(["a"])
  })

  test("connects admitted on one reading are one: a second waits for a fresh reading", () => {
    const { clock, lag, opened, connect, warm } = setup()
    warm(2)
    connect("a")
    connect("b")
    connect("c")
    lag.read(0)
    clock.advance(5)
    expect(opened).toEqual(["a", "b"])
    lag.read(0)
    clock.advance(5)
    expect(opened).toEqual(["a", "b", "c"])
  })

  test("a connect held by lag opens once the lag falls", () => {
    const { clock, lag, opened, connect, warm } = setup(8)
    warm(7)
    connect("a")
    connect("b")
    lag.read(60)
    clock.advance(5)
    expect(opened).toEqual(["a"])
    lag.read(10)
    clock.advance(5)
    expect(opened).toEqual(["a", "b"])
  })
})

describe("the window of connects in flight", () => {
  test("a fresh gate lets one connect open at a time; each one finishing on a calm loop lets one more overlap", () => {
    const { clock, lag, gate, opened, connect, holders } = setup(3)
    for (const name of ["a", "b", "c", "d"]) connect(name)
    lag.read(0)
    clock.advance(5)
    expect(opened).toEqual(["a"])
    gate.release(holders.get("a")!)
    expect(opened).toEqual(["a", "b"])
    lag.read(0)
    clock.advance(5)
    expect(opened).toEqual(["a", "b", "c"])
    lag.read(0)
    clock.advance(5)
    expect(opened).toEqual(["a", "b", "c"])
  })

  test("a lagging reading halves the window: a calm loop afterwards admits half as many at once", () => {
    const { clock, lag, opened, connect, warm } = setup(8)
    warm(7)
    lag.read(30)
    for (const name of ["a", "b", "c", "d", "e", "f"]) connect(name)
    for (let reading = 0; reading < 6; reading++) {
      lag.read(0)
      clock.advance(5)
    }
    expect(opened).toEqual(["a", "b", "c", "d"])
  })

  test("a connect finishing while the loop lags does not widen the window", () => {
    const { clock, lag, gate, opened, connect, holders } = setup(3)
    connect("a")
    lag.read(30)
    gate.release(holders.get("a")!)
    connect("b")
    connect("c")
    lag.read(0)
    clock.advance(5)
    expect(opened).toEqual(["a", "b"])
  })
})

describe("the concurrency limit", () => {
  test("a calm loop never opens more than the limit at once; a release lets the next in", () => {
    const { clock, lag, gate, opened, connect, holders } = setup(2)
    for (const name of ["a", "b", "c", "d"]) connect(name)
    for (let reading = 0; reading < 10; reading++) {
      lag.read(0)
      clock.advance(CONNECT_MAX_WAIT_MS)
    }
    expect(opened).toEqual(["a", "b"])
    expect(gate.opening).toBe(2)
    expect(gate.waiting).toBe(2)
    gate.release(holders.get("a")!)
    expect(opened).toEqual(["a", "b", "c"])
  })

  test("a gate without a lag source is a plain limit: every free slot opens at once", () => {
    const gate = createConnectGate({ concurrency: 2 })
    const opened: number[] = []
    for (let index = 0; index < 3; index++) gate.whenFree({ releaseSlot: null }, () => true, () => opened.push(index))
    expect(opened).toEqual([0, 1])
  })
})

describe("no starvation", () => {
  test(`under lag that never falls a waiter opens ${CONNECT_MAX_WAIT_MS} ms after the connect before it`, () => {
    const { clock, lag, opened, connect } = setup(8)
    for (const name of ["a", "b", "c"]) connect(name)
    lag.read(500)
    clock.advance(CONNECT_MAX_WAIT_MS - 1)
    expect(opened).toEqual(["a"])
    clock.advance(1)
    expect(opened).toEqual(["a", "b"])
    clock.advance(CONNECT_MAX_WAIT_MS)
    expect(opened).toEqual(["a", "b", "c"])
  })

  test("under lag, a waiter opens as soon as nothing is in flight", () => {
    const { lag, gate, opened, connect, holders } = setup()
    connect("a")
    connect("b")
    lag.read(500)
    gate.release(holders.get("a")!)
    expect(opened).toEqual(["a", "b"])
  })

  test("a waiter no longer wanted is skipped and never opened", () => {
    const { gate, opened, connect, holders } = setup(1)
    connect("a")
    connect("b", () => false)
    connect("c")
    gate.release(holders.get("a")!)
    expect(opened).toEqual(["a", "c"])
    expect(holders.get("b")!.releaseSlot).toBeNull()
  })
})

describe("slots go back", () => {
  const endings = ["failure", "close", "logout"]
  for (const ending of endings) {
    test(`a phone's ${ending} gives its slot back and the next waiter opens`, () => {
      const { gate, opened, connect, holders } = setup(1)
      connect("a")
      connect("b")
      // The lifecycle releases on every ending (disconnected, detach): the gate sees one release.
      gate.release(holders.get("a")!)
      expect(gate.opening).toBe(1)
      expect(opened).toEqual(["a", "b"])
    })
  }

  test("releasing twice gives back one slot", () => {
    const { gate, connect, holders } = setup(3)
    const a = connect("a")
    const release = a.releaseSlot!
    gate.release(a)
    release()
    gate.release(a)
    expect(gate.opening).toBe(0)
    expect(holders.get("a")!.releaseSlot).toBeNull()
  })
})

describe("the phase after a scan", () => {
  test("a scan takes a free slot whatever the lag, and its fresh socket opens on it without waiting", () => {
    const { lag, gate, opened, connect } = setup(2)
    connect("a")
    const scanned: SlotHolder = { releaseSlot: null }
    lag.read(500)
    gate.hold(scanned)
    expect(gate.opening).toBe(2)
    connect("b")
    gate.whenFree(scanned, () => true, () => opened.push("scanned"))
    expect(opened).toEqual(["a", "scanned"])
    expect(gate.opening).toBe(2)
    expect(gate.waiting).toBe(1)
  })

  test("a scan while every slot is busy takes none and does not exceed the limit", () => {
    const { gate, connect } = setup(1)
    connect("a")
    const scanned: SlotHolder = { releaseSlot: null }
    gate.hold(scanned)
    expect(scanned.releaseSlot).toBeNull()
    expect(gate.opening).toBe(1)
  })

  test("the slot a scan took goes back on release and admits a waiter", () => {
    const { gate, opened, connect } = setup(1)
    const scanned: SlotHolder = { releaseSlot: null }
    gate.hold(scanned)
    connect("a")
    expect(opened).toEqual([])
    gate.release(scanned)
    expect(opened).toEqual(["a"])
  })
})

describe("connect gate: when the lag is measured", () => {
  test("readings are wanted only while a connect is opening or waiting", () => {
    const { lag, gate, connect, holders } = setup(1)
    expect(lag.watching).toBe(false)
    connect("a")
    expect(lag.watching).toBe(true)
    connect("b")
    gate.release(holders.get("a")!)
    expect(lag.watching).toBe(true)
    gate.release(holders.get("b")!)
    expect(lag.watching).toBe(false)
  })

  test("a waiter no longer wanted does not keep the lag measured", () => {
    const { lag, gate, connect, holders } = setup(1)
    let wanted = true
    connect("a")
    connect("b", () => wanted)
    wanted = false
    gate.release(holders.get("a")!)
    expect(lag.watching).toBe(false)
  })
})
