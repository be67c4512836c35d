import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { CLUSTER_TEST_TIMEOUT_MS, ClusterWorld, type AcceptedSend, type ClusterNode, type NodeId } from "./cluster-world"

/*
 * Issue 28's failover as an operator ran it (docs/operations.md § "Running several nodes"):
 * three nodes capped at WAGATE_NODE_MAX_PHONES=3, six live phones paired through them, and
 * three phones added before them that only the test key uses (never paired). The node holding
 * the most live phones is frozen past a lease (SIGSTOP, then SIGCONT), and then the node holding
 * the most live phones is killed (SIGKILL), while sends flow. Two nodes have room for exactly
 * the six live phones, so a test-only phone that takes a node's capacity strands a live one.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/** The bound: every live phone of the stopped node is connected elsewhere within 30 s. */
const FAILOVER_BOUND_MS = 30_000
const MAX_PHONES = 3
const LIVE_PHONES = 6
const TEST_ONLY_PHONES = 3

let world: ClusterWorld | undefined
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  await world?.dispose()
  world = undefined
}, SLOW_HOOK_TIMEOUT_MS)

function startCappedWorld(): Promise<ClusterWorld> {
  return ClusterWorld.start({ phones: LIVE_PHONES, testOnlyPhones: TEST_ONLY_PHONES, env: { WAGATE_NODE_MAX_PHONES: String(MAX_PHONES) } })
}

/** One send from every phone, live and test-only, through the running nodes in turn. */
async function sendFromEveryPhone(w: ClusterWorld, via: readonly ClusterNode[]): Promise<{ live: AcceptedSend[]; sandbox: AcceptedSend[] }> {
  const live: AcceptedSend[] = []
  const sandbox: AcceptedSend[] = []
  for (const [i, phone] of w.phones.entries()) {
    const sent = await w.send(via[i % via.length]!, phone)
    if (!sent) throw new Error(`a running node refused a live send from ${phone.phoneNumber}`)
    live.push(sent)
  }
  for (const [i, phone] of w.testOnlyPhones.entries()) {
    const sent = await w.send(via[i % via.length]!, phone, w.testKey)
    if (!sent) throw new Error(`a running node refused a test send from ${phone.phoneNumber}`)
    sandbox.push(sent)
  }
  return { live, sandbox }
}

/**
 * One stop: `stop` stops the node holding the most live phones while sends
 * from its phones race it; every live phone must be connected elsewhere within the bound, and
 * after `afterFailover` every accepted send reaches the contact exactly once and every recorded
 * event reaches the receiver.
 */
async function failoverOfTheFullestNode(w: ClusterWorld, stop: (victim: ClusterNode) => Promise<unknown>, afterFailover: (victim: ClusterNode) => Promise<void>): Promise<void> {
  // Every live phone is connected although test-only phones were added first and caps are tight.
  const victim = await w.mostLivePhonesHolder()
  const victimPhones = await w.phonesHeldBy(victim.nodeId)
  expect(victimPhones.length).toBeGreaterThan(1)
  const survivors = w.nodes.filter((n) => n !== victim)
  const notOn: NodeId[] = [victim.nodeId]

  const before = await sendFromEveryPhone(w, w.nodes)
  const accepted = [...before.live]
  const sandbox = [...before.sandbox]
  const during = Promise.all(victimPhones.map((phone, i) => w.send(survivors[i % 2]!, phone)))
  const stoppedAtMs = performance.now()
  await stop(victim)
  for (const sent of await during) if (sent) accepted.push(sent)

  await w.waitAllConnected({ timeoutMs: FAILOVER_BOUND_MS + 30_000, notOn })
  expect(performance.now() - stoppedAtMs).toBeLessThanOrEqual(FAILOVER_BOUND_MS)
  await afterFailover(victim)

  const after = await sendFromEveryPhone(w, w.nodes.filter((n) => n.running))
  accepted.push(...after.live)
  sandbox.push(...after.sandbox)
  await w.waitArrived(accepted, 60_000)
  expect(w.deliveryFaults(accepted, new Set(victimPhones.map((p) => p.id)))).toEqual([])
  await w.waitEventsDelivered(60_000)
  const received = w.receivedEvents()
  for (const send of [...accepted, ...sandbox]) expect(received.has(`message.sent:${send.id}`)).toBe(true)
}

test(
  "caps of 3 with never-paired test-only phones mixed in: after SIGSTOP past a lease (then SIGCONT) and then SIGKILL of the node holding the most live phones, every live phone is connected on the others within 30 s each time, every accepted send reaches the contact exactly once and every event reaches the receiver",
  async () => {
    // One world for both stops: building it is most of the time, and after the SIGCONT the
    // cluster is whole again (the woken node holds nothing, with room for three).
    world = await startCappedWorld()
    const w = world
    await failoverOfTheFullestNode(
      w,
      async (victim) => victim.pause(),
      async (victim) => {
        victim.resume()
        // The woken node takes nothing back: the phones stay where the failover put them.
        await w.waitAllConnected({ timeoutMs: 30_000, notOn: [victim.nodeId] })
      },
    )
    await failoverOfTheFullestNode(
      w,
      (victim) => victim.kill(),
      async () => {},
    )
  },
  CLUSTER_TEST_TIMEOUT_MS,
)
