import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { CLUSTER_TEST_TIMEOUT_MS, ClusterWorld, type AcceptedSend } from "./cluster-world"

/*
 * Issue 21's failover on real processes (docs/operations.md § "Running several nodes",
 * "Failover"): three nodes on one PostgreSQL database with 30 simulated phones, and one node
 * killed with SIGKILL while sends flow through every node.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/** Issue 21: a dead node's phones are connected on the others within 30 s. */
const FAILOVER_BOUND_MS = 30_000

let world: ClusterWorld | undefined
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  await world?.dispose()
  world = undefined
}, SLOW_HOOK_TIMEOUT_MS)

test(
  "SIGKILL of a node: its phones are connected on the others within 30 s, every send accepted before or during the kill reaches the contact exactly once, every event reaches the receiver",
  async () => {
    world = await ClusterWorld.start()
    const w = world
    const victim = w.node("n1")
    const victimPhones = await w.phonesHeldBy("n1")
    expect(victimPhones.length).toBeGreaterThan(0)
    const victimPhoneIds = new Set(victimPhones.map((p) => p.id))

    // Before the kill: one send from every phone, taken by each node in turn (n1 included).
    const accepted: AcceptedSend[] = []
    for (const [i, phone] of w.phones.entries()) {
      const sent = await w.send(w.nodes[i % 3]!, phone)
      if (!sent) throw new Error(`a node refused a send before the kill`)
      accepted.push(sent)
    }
    // During the kill: a send from each of the victim's phones through the survivors, racing it.
    const during = Promise.all(victimPhones.map((phone, i) => w.send(w.nodes[1 + (i % 2)]!, phone)))
    const killedAtMs = performance.now()
    await victim.kill()
    for (const sent of await during) if (sent) accepted.push(sent)

    await w.waitAllConnected({ timeoutMs: FAILOVER_BOUND_MS + 30_000, notOn: ["n1"] })
    const failoverMs = performance.now() - killedAtMs
    expect(failoverMs).toBeLessThanOrEqual(FAILOVER_BOUND_MS)

    await w.waitArrived(accepted, 60_000)
    const idsPerText = w.idsPerText()
    let repeated = 0
    for (const send of accepted) {
      // The contact got each send under its one WhatsApp id, never as a second message.
      expect([...(idsPerText.get(send.content) ?? [])]).toEqual([send.waId])
      const times = w.sim.timesReached(send.waId)
      // A message the dead node handed to WhatsApp without recording its acknowledgement goes
      // again from the new holder with the same id, which the contact's app shows once. Phones
      // of the live nodes never send twice.
      if (!victimPhoneIds.has(send.phoneId)) expect(times).toBe(1)
      else expect(times).toBeGreaterThanOrEqual(1)
      if (times > 1) repeated++
    }
    // The sender hands one message at a time per phone: at most one was in flight per phone.
    expect(repeated).toBeLessThanOrEqual(victimPhones.length)

    // Every event the nodes recorded (the sends' and the phones' own) reaches the receiver.
    await w.waitEventsDelivered(60_000)
    for (const send of accepted) expect(w.receivedEvents().has(`message.sent:${send.id}`)).toBe(true)
  },
  CLUSTER_TEST_TIMEOUT_MS,
)
