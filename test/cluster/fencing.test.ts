import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { CLUSTER_TEST_TIMEOUT_MS, ClusterWorld, poll, type AcceptedSend } from "./cluster-world"

/*
 * Issue 21's fencing on real processes (docs/operations.md § "Running several nodes",
 * "Fencing"): a node frozen with SIGSTOP past its lease, whose phones the others took over,
 * wakes up with SIGCONT. Its sockets still hold what WhatsApp sent them while it slept; the
 * key writes that reading causes are refused, and its sockets close.
 *
 * The woken node also reads the `replaced` stream error waiting in each old socket; the status
 * write that close causes is fenced too, so the phones the others connected stay connected and
 * keep sending (a bug this test found: the status write was not fenced).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const REFUSED = "a write for a phone (its WhatsApp keys or its status) was refused"

let world: ClusterWorld | undefined
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  await world?.dispose()
  world = undefined
}, SLOW_HOOK_TIMEOUT_MS)

test(
  "SIGSTOP past the lease, then SIGCONT: the woken node's key writes are refused, its sockets close, and the new holders keep sending",
  async () => {
    world = await ClusterWorld.start()
    const w = world
    const sleeper = w.node("n1")
    const phones = await w.phonesHeldBy("n1")
    expect(phones.length).toBeGreaterThan(0)
    const oldConnections = phones.map((p) => w.sim.loggedInConnections(p.phoneNumber)[0]!)

    sleeper.pause()
    // While it sleeps, the contact writes to each of its phones: the stanzas wait in its sockets,
    // and decrypting them on waking writes Signal session keys.
    for (const phone of phones) await w.sim.sendInbound(w.contact, { text: `while n1 sleeps, to ${phone.phoneNumber}` }, { to: phone.phoneNumber })
    await w.waitAllConnected({ timeoutMs: 60_000, notOn: ["n1"] })
    sleeper.resume()

    await poll(() => (sleeper.logs.includes(REFUSED) ? true : undefined), "the woken node to log a refused key write", 30_000)
    await poll(() => (oldConnections.every((c) => !c.isOpen) ? true : undefined), "the woken node's sockets to close", 30_000)
    // The woken node learns at its next renewal that it holds nothing; it takes nothing back.
    await poll(async () => {
      const overview = await w.admin(w.node("n2"), "GET", "/nodes")
      const n1 = overview.nodes.find((n: { nodeId: string }) => n.nodeId === "n1")
      return n1?.state === "live" && n1.heartbeatAgeMs < 5_000 ? n1 : undefined
    }, "the woken node to renew again", 30_000)
    expect(await w.phonesHeldBy("n1")).toEqual([])
    await w.waitAllConnected({ timeoutMs: 30_000, notOn: ["n1"] })

    // The new holders keep working: a send from each taken-over phone, through the woken node too.
    const sends: AcceptedSend[] = []
    for (const [i, phone] of phones.entries()) {
      const sent = await w.send(w.nodes[i % 3]!, phone)
      if (!sent) throw new Error("a running node refused a send")
      sends.push(sent)
    }
    await w.waitArrived(sends, 60_000)
    for (const send of sends) expect(w.sim.timesReached(send.waId)).toBe(1)
    // One connection per phone, the new holder's: the woken node never logged in again.
    for (const phone of phones) expect(w.sim.loggedInConnections(phone.phoneNumber)).toHaveLength(1)
  },
  CLUSTER_TEST_TIMEOUT_MS,
)
