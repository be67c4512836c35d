import { prng } from "../helpers/prng"
import { expiryClaimAtMs, planClaims, STRANDED_PATIENCE_TICKS } from "../../src/domain/lease-planner"
import { isLiveNode } from "../../src/domain/node-list"

/*
 * A simulated cluster for the planner's property test (lease-planner-property.test.ts): nodes
 * that run the lease keeper's steps (src/domain/lease-keeper.ts: renew, census, the real planner,
 * claim; the claim between ticks at a silent peer's expiry) against a model of the lease rows and
 * of the store's claim query (src/store/leases-sqlite.ts, postgres/leases.ts), while nodes die,
 * pause, stop, join and phones get paired and logged out. Time is in steps; a node renews every
 * RENEW steps and a lease runs LEASE steps, as the defaults do (a third).
 *
 * The claim model is either "needed" (only phones that need a connection are leased, issue 28)
 * or "every" (the claim query before it: any free phone in id order, paired or not, and nothing
 * let go at logout), so the test shows what the property catches.
 */

export type ClaimModel = "needed" | "every"

export const RENEW = 4
export const LEASE = 12
const MARGIN = 1
/**
 * Steps a live phone may stay unowned while some running node has room for it: the claimer's next
 * tick, the ticks of patience past its fair share, and one tick more for a census read just
 * before the phone fell free.
 */
export const STRANDED_BOUND = (STRANDED_PATIENCE_TICKS + 2) * RENEW + MARGIN

interface SimNode {
  id: string
  cap: number
  state: "running" | "dead" | "stopped"
  pausedUntil: number
  /** The keeper's own view: phone → lease expiry. */
  held: Map<string, number>
  strandedTicks: number
  nextTickAt: number
  expiryClaimAt: number | null
}

interface Row {
  heartbeatAt: number
  cap: number
  stopping: boolean
}

/** One random cluster run for `steps` steps; returns the first broken rule, or null. */
export function simulate(seed: number, model: ClaimModel, steps = 240): string | null {
  const random = prng(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)]
  let now = 0
  const nodes: SimNode[] = []
  const rows = new Map<string, Row>()
  const leases = new Map<string, { node: string | null; expiresAt: number }>()
  const live = new Map<string, boolean>()
  const unownedFor = new Map<string, number>()

  // Phone ids in a random mix of live (paired) and unpaired ones: id order decides the old claim.
  const phoneCount = int(1, 24)
  for (let i = 0; i < phoneCount; i++) {
    const id = `p${String(i).padStart(3, "0")}`
    live.set(id, random() < 0.55)
    leases.set(id, { node: null, expiresAt: 0 })
  }
  const phones = [...live.keys()]
  const leased = (p: string) => model === "every" || live.get(p)!
  const heldBy = (p: string) => {
    const l = leases.get(p)!
    return l.node !== null && l.expiresAt > now ? l.node : null
  }
  const running = () => nodes.filter((n) => n.state === "running" && n.pausedUntil <= now)

  /** Leases held now by node, and the phones to claim: what the store's census reads. */
  function census() {
    const counts = new Map<string, number>()
    let unowned = 0
    for (const p of phones) {
      const holder = heldBy(p)
      if (holder !== null) counts.set(holder, (counts.get(holder) ?? 0) + 1)
      else if (leased(p)) unowned++
    }
    const summaries = [...rows].map(([id, r]) => ({ id, heartbeatAtMs: r.heartbeatAt, stopping: r.stopping, maxPhones: r.cap, phones: counts.get(id) ?? 0 }))
    return { nodes: summaries, unowned }
  }

  function claimRows(node: SimNode, limit: number): string[] {
    const free = phones.filter((p) => leased(p) && heldBy(p) === null).slice(0, limit)
    for (const p of free) leases.set(p, { node: node.id, expiresAt: now + LEASE })
    return free
  }

  function claim(node: SimNode, atTick: boolean): void {
    const c = census()
    const peers = c.nodes.filter((n) => n.id !== node.id)
    const at = expiryClaimAtMs(peers, LEASE, MARGIN, { nowMs: now, nextTickAtMs: node.nextTickAt })
    if (at !== null && (node.expiryClaimAt === null || at < node.expiryClaimAt)) node.expiryClaimAt = at
    if (c.unowned === 0) {
      if (atTick) node.strandedTicks = 0
      return
    }
    const others = peers.filter((n) => isLiveNode(n, now, LEASE)).map((n) => ({ phones: n.phones, maxPhones: n.maxPhones }))
    const plan = planClaims({ held: node.held.size, maxPhones: node.cap, others, unowned: c.unowned, strandedTicks: node.strandedTicks })
    if (atTick) node.strandedTicks = plan.stranded ? node.strandedTicks + 1 : 0
    for (const p of claimRows(node, plan.claim)) node.held.set(p, now + LEASE)
  }

  function tick(node: SimNode): void {
    node.nextTickAt = now + RENEW
    rows.get(node.id)!.heartbeatAt = now
    node.held.clear()
    for (const p of phones) {
      if (heldBy(p) !== node.id) continue
      leases.get(p)!.expiresAt = now + LEASE
      node.held.set(p, now + LEASE)
    }
    claim(node, true)
  }

  function join(): void {
    const node: SimNode = { id: `n${nodes.length}`, cap: int(1, 8), state: "running", pausedUntil: 0, held: new Map(), strandedTicks: 0, nextTickAt: now, expiryClaimAt: null }
    nodes.push(node)
    rows.set(node.id, { heartbeatAt: now, cap: node.cap, stopping: false })
  }

  /** Pairing on the node the request reached (claimOne), then the phone is paired and held there. */
  function pair(): void {
    const node = pick(running())
    const phone = pick(phones.filter((p) => !live.get(p)))
    if (!node || !phone) return
    const holder = heldBy(phone)
    if (holder === null && node.held.size < node.cap) {
      leases.set(phone, { node: node.id, expiresAt: now + LEASE })
      node.held.set(phone, now + LEASE)
    }
    if (heldBy(phone) === node.id) live.set(phone, true)
  }

  /** A logout runs on the phone's holder, or anywhere when nobody holds it; the holder then lets it go (not before issue 28). */
  function logout(): void {
    const phone = pick(phones.filter((p) => live.get(p)))
    if (!phone) return
    const holder = nodes.find((n) => n.id === heldBy(phone))
    if (holder && !running().includes(holder)) return
    live.set(phone, false)
    if (holder && model === "needed") {
      leases.set(phone, { node: null, expiresAt: now })
      holder.held.delete(phone)
    }
  }

  function event(): string {
    const kind = int(0, 5)
    const victim = pick(running())
    if (kind === 0 && victim && running().length > 1) victim.state = "dead"
    else if (kind === 1 && victim) victim.pausedUntil = now + int(1, 3 * LEASE)
    else if (kind === 2 && nodes.length < 8) join()
    else if (kind === 3 && victim) {
      victim.state = "stopped"
      rows.get(victim.id)!.stopping = true
      for (const p of phones) if (heldBy(p) === victim.id) leases.set(p, { node: null, expiresAt: now })
      victim.held.clear()
    } else if (kind === 4) pair()
    else logout()
    return ["kill", "pause", "join", "stop", "pair", "logout"][kind]!
  }

  function broken(): string | null {
    const awake = running()
    const seen = new Map<string, string>()
    for (const node of awake) {
      if (node.held.size > node.cap) return `${node.id} holds ${node.held.size} phones over its cap ${node.cap}`
      for (const p of node.held.keys()) {
        if (seen.has(p)) return `${p} is held by both ${seen.get(p)} and ${node.id}`
        if (heldBy(p) !== node.id) return `${node.id} believes it holds ${p}, whose lease is ${heldBy(p) ?? "free"}`
        seen.set(p, node.id)
      }
    }
    const liveHeld = new Map<string, number>()
    for (const p of phones) if (live.get(p) && heldBy(p) !== null) liveHeld.set(heldBy(p)!, (liveHeld.get(heldBy(p)!) ?? 0) + 1)
    const room = awake.some((n) => (liveHeld.get(n.id) ?? 0) < n.cap)
    for (const p of phones) {
      const waiting = live.get(p) && heldBy(p) === null && room ? (unownedFor.get(p) ?? 0) + 1 : 0
      unownedFor.set(p, waiting)
      if (waiting > STRANDED_BOUND) return `live phone ${p} unowned for ${waiting} steps while a running node has room`
    }
    return null
  }

  for (let i = int(1, 4); i > 0; i--) join()
  for (const node of nodes) node.nextTickAt = int(0, RENEW - 1)
  const log: string[] = []
  for (; now < steps; now++) {
    if (random() < 0.04) log.push(`${now}:${event()}`)
    for (const node of [...running()].sort(() => random() - 0.5)) {
      while (node.state === "running") {
        const due = Math.min(node.nextTickAt, node.expiryClaimAt ?? Infinity)
        if (due > now) break
        if (node.expiryClaimAt !== null && node.expiryClaimAt <= node.nextTickAt) {
          node.expiryClaimAt = null
          claim(node, false)
        } else tick(node)
      }
    }
    const problem = broken()
    if (problem) return `${problem} at step ${now} (events ${log.slice(-6).join(", ")})`
  }
  return null
}
