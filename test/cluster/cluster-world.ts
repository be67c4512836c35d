import { SQL } from "bun"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { adminTokenIn, LISTENING, Proc } from "../helpers/wagate-process"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { freshMigratedDatabase } from "../store/contract/stores"
import { startWaSim, type SimContact, type WaSim } from "../wa-sim"

/*
 * The world of the cluster tests (docs/operations.md § "Running several nodes"): one PostgreSQL
 * database, the WhatsApp simulator, a webhook receiver and three `bun src/main.ts serve`
 * processes (n1, n2, n3) on it, each with a data directory of its own, with 30 simulated phones
 * paired by QR through the admin API. A test can SIGKILL, SIGSTOP, SIGCONT, SIGTERM and restart
 * a node. Everything listens on 127.0.0.1 and kernel-chosen ports; every wait polls a condition
 * with a deadline and never sleeps to make an assertion true.
 */

export const NODE_IDS = ["n1", "n2", "n3"] as const
export type NodeId = (typeof NODE_IDS)[number]
/** The phone count issue 21 asks the cluster test to run with. */
export const CLUSTER_PHONES = 30
/**
 * The timeout of one cluster test: building its world (three processes, 30 pairings by QR) takes
 * a minute or more on a busy 2-core machine, and the scenario waits out leases on top.
 */
export const CLUSTER_TEST_TIMEOUT_MS = 420_000
/** Phones paired at once (people scan one after the other; the simulator and nodes share two cores). */
const PAIR_PARALLEL = 5
/** A request to a node that takes longer failed (the machine is busy, but not that busy). */
const REQUEST_TIMEOUT_MS = 30_000
/** Scans per phone before the world gives up. */
const PAIR_ATTEMPTS = 3
/** How much of each node's log a failure shows. */
const LOG_TAIL_CHARS = Number(process.env.CLUSTER_LOG_TAIL_CHARS ?? 20_000)

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs` with `what`. */
export async function poll<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs: number, gapMs = 100): Promise<T> {
  const deadline = performance.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (err) {
      last = err
    }
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`)
    await Bun.sleep(gapMs)
  }
}

/** One node: its id, data directory and current process (a restart replaces the process). */
export class ClusterNode {
  proc!: Proc
  base = ""
  /** Every process this node ran, oldest first, so a test can read what an earlier one printed. */
  readonly processes: Proc[] = []
  stopped = false

  constructor(
    readonly nodeId: NodeId,
    readonly dataDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts a process for this node and waits for its LISTENING line. */
  async spawn(): Promise<void> {
    const proc = new Proc(["serve", "--data", this.dataDir, "--port", "0"], { ...this.env, WAGATE_NODE_ID: this.nodeId })
    this.processes.push(proc)
    this.proc = proc
    this.stopped = false
    const m = await proc.waitFor(LISTENING, 60_000)
    this.base = `http://127.0.0.1:${m[3]}`
  }

  get running(): boolean {
    return this.proc.running && !this.stopped
  }

  /** Everything every process of this node logged (JSON lines on stderr). */
  get logs(): string {
    return this.processes.map((p) => p.err).join("")
  }

  kill(): Promise<unknown> {
    this.proc.kill("SIGKILL")
    return this.proc.proc.exited
  }

  /** SIGSTOP: the process freezes with its sockets open, as a paused VM does. */
  pause(): void {
    this.proc.kill("SIGSTOP")
    this.stopped = true
  }

  resume(): void {
    this.proc.kill("SIGCONT")
    this.stopped = false
  }

  /** SIGTERM and the exit code (null when it did not exit in time). */
  async terminate(): Promise<number | null> {
    this.proc.kill("SIGTERM")
    return this.proc.exited(20_000)
  }

  async dispose(): Promise<void> {
    if (!this.proc) return rmSync(this.dataDir, { recursive: true, force: true })
    if (this.stopped) this.resume()
    this.proc.kill("SIGKILL")
    await this.proc.proc.exited
    rmSync(this.dataDir, { recursive: true, force: true })
  }
}

export interface ClusterPhone {
  id: string
  phoneNumber: string
}

/** A phone's lease holder and status as GET /admin/v1/nodes?phones=true shows them. */
export interface PhoneHolding {
  nodeId: string
  connectionStatus: string | null
}

export interface AcceptedSend {
  /** wagate's message id. */
  id: string
  /** The WhatsApp id of its one part. */
  waId: string
  phoneId: string
  content: string
}

export class ClusterWorld {
  readonly hooks = new WebhookReceiver()
  /** The live phones, paired by QR: the ones that need a connection. */
  readonly phones: ClusterPhone[] = []
  /** Phones added but never paired, which only the test key sends from (the sandbox needs no pairing). */
  readonly testOnlyPhones: ClusterPhone[] = []
  readonly nodes: ClusterNode[] = []
  adminToken = ""
  accountId = ""
  liveKey = ""
  /** A test key, with a test webhook to the same receiver, when the world has test-only phones. */
  testKey = ""
  /** Pairings that did not complete and were scanned again, with why. */
  readonly pairingRetries: string[] = []
  private sendCounter = 0

  private constructor(
    readonly sim: WaSim,
    readonly contact: SimContact,
    readonly databaseUrl: string,
    /** The simulator's recent log lines (logins, closes, client stanzas), to explain a failure. */
    readonly simLog: string[],
  ) {}

  /**
   * A fresh database, the simulator, the receiver and three nodes with `phones` paired phones
   * (CLUSTER_PHONES by default), each connected on the node that holds its lease. With
   * `testOnlyPhones`, that many phones are added first (so their ids come before the live ones')
   * and never paired, and a test key and test webhook are set up for them.
   */
  static async start(options: { phones?: number; testOnlyPhones?: number; env?: Record<string, string> } = {}): Promise<ClusterWorld> {
    const simLog: string[] = []
    const log = (line: string) => {
      simLog.push(line)
      if (simLog.length > 20_000) simLog.splice(0, 10_000)
    }
    const [sim, databaseUrl] = await Promise.all([startWaSim({ log }), freshMigratedDatabase()])
    const contact = sim.contact({ phoneNumber: "+15550090000", name: "Customer" })
    const world = new ClusterWorld(sim, contact, databaseUrl, simLog)
    try {
      await world.startNodes(options.env ?? {})
      await world.setUpAccount()
      if (options.testOnlyPhones) await world.addTestOnlyPhones(options.testOnlyPhones)
      await world.pairPhones(options.phones ?? CLUSTER_PHONES)
      return world
    } catch (err) {
      const logs = world.logTails()
      await world.dispose()
      throw new Error(`${String(err)}\n${logs}`)
    }
  }

  private async startNodes(extraEnv: Record<string, string>): Promise<void> {
    const env = {
      WAGATE_DATABASE_URL: this.databaseUrl,
      WAGATE_WA_WS_URL: this.sim.wsUrl,
      WAGATE_WA_VERSION: "2.3000.1027934701",
      WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
      WAGATE_SEND_INTERVAL_MS: "50",
      WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
      // warn: the fencing's refusal and failed connections are logged there.
      WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "warn",
      ...extraEnv,
    }
    for (const nodeId of NODE_IDS) this.nodes.push(new ClusterNode(nodeId, mkdtempSync(join(tmpdir(), `wagate-cluster-${nodeId}-`)), env))
    // The first node on the empty database sets it up and prints the admin token; the others
    // start once that is done, so they find it set up.
    await this.nodes[0]!.spawn()
    await this.nodes[0]!.proc.waitFor(/Admin token: /)
    const out = this.nodes[0]!.proc.out
    this.adminToken = adminTokenIn(out) ?? ""
    this.accountId = /^ {2}Account: +(acc_\S+)/m.exec(out)?.[1] ?? ""
    if (!this.adminToken || !this.accountId) throw new Error(`n1's first run did not print the account and admin token:\n${out}`)
    await Promise.all(this.nodes.slice(1).map((node) => node.spawn()))
  }

  private async setUpAccount(): Promise<void> {
    const key = await this.admin(this.nodes[0]!, "POST", `/accounts/${this.accountId}/keys`, { environment: "live", name: "cluster", scopes: ["messages:send", "messages:read"] })
    this.liveKey = key.key
    await this.admin(this.nodes[0]!, "POST", `/accounts/${this.accountId}/webhooks`, { url: this.hooks.url("/wagate"), environment: "live", events: ["*"] })
  }

  /** Adds `count` phones that are never paired, with the test key and webhook that use them. */
  private async addTestOnlyPhones(count: number): Promise<void> {
    const key = await this.admin(this.nodes[0]!, "POST", `/accounts/${this.accountId}/keys`, { environment: "test", name: "cluster-test", scopes: ["messages:send", "messages:read"] })
    this.testKey = key.key
    await this.admin(this.nodes[0]!, "POST", `/accounts/${this.accountId}/webhooks`, { url: this.hooks.url("/wagate-test"), environment: "test", events: ["*"] })
    for (let i = 0; i < count; i++) {
      const phoneNumber = `+1555302${String(i).padStart(4, "0")}`
      const added = await this.admin(this.nodes[0]!, "POST", `/accounts/${this.accountId}/phones`, { phoneNumber })
      this.testOnlyPhones.push({ id: added.id, phoneNumber })
    }
  }

  /** Adds and pairs the phones, spread over the nodes' APIs; resolves once every one is connected. */
  private async pairPhones(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const phoneNumber = `+1555301${String(i).padStart(4, "0")}`
      const added = await this.admin(this.nodes[i % this.nodes.length]!, "POST", `/accounts/${this.accountId}/phones`, { phoneNumber })
      this.phones.push({ id: added.id, phoneNumber })
    }
    let next = 0
    const worker = async () => {
      while (next < this.phones.length) {
        const index = next++
        await this.pairOne(this.phones[index]!, this.nodes[index % this.nodes.length]!)
      }
    }
    await Promise.all(Array.from({ length: PAIR_PARALLEL }, worker))
    await this.waitAllConnected({ timeoutMs: 60_000 })
  }

  /**
   * Pairs one phone by QR on `preferred`, or on the node that already holds its lease (a tick may
   * claim a new phone before the pairing request comes: the other nodes refuse with its name).
   */
  private async pairOne(phone: ClusterPhone, preferred: ClusterNode): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pairOnce(phone, preferred)
      } catch (err) {
        if (attempt >= PAIR_ATTEMPTS) throw err
        // A person whose link did not complete scans again; the test reports how often it happened.
        this.pairingRetries.push(`${phone.phoneNumber}: ${String(err).slice(0, 300)}`)
      }
    }
  }

  private async pairOnce(phone: ClusterPhone, preferred: ClusterNode): Promise<void> {
    let node = preferred
    for (let attempt = 0; ; attempt++) {
      const res = await this.adminRaw(node, "POST", `/phones/${phone.id}/connect`, { method: "qr" })
      if (res.status < 300) break
      const holder = /held by node "([^"]+)"/.exec(String(res.body?.message?.[0] ?? ""))?.[1]
      if (res.status !== 409 || !holder || attempt > 3) throw new Error(`connecting ${phone.phoneNumber} on ${node.nodeId}: ${res.status} ${JSON.stringify(res.body)}`)
      node = this.node(holder as NodeId)
    }
    const pairingNode = node
    await this.sim.primary(phone.phoneNumber).scanShownQr(async () => (await this.admin(pairingNode, "GET", `/phones/${phone.id}/pairing`)).qr ?? undefined, 60_000)
    const settled = await poll(async () => {
      const state = await this.admin(pairingNode, "GET", `/phones/${phone.id}/pairing`)
      return state.connectionStatus === "connected" || state.lastError ? state : undefined
    }, `${phone.phoneNumber} to connect after its scan`, 60_000, 200)
    if (settled.connectionStatus !== "connected") throw new Error(`the link of ${phone.phoneNumber} did not complete: ${JSON.stringify(settled)}`)
  }

  node(nodeId: NodeId): ClusterNode {
    const node = this.nodes.find((n) => n.nodeId === nodeId)
    if (!node) throw new Error(`no node ${nodeId}`)
    return node
  }

  /** A node that runs (not killed, not paused), to ask. */
  anyRunning(except: readonly NodeId[] = []): ClusterNode {
    const node = this.nodes.find((n) => n.running && !except.includes(n.nodeId))
    if (!node) throw new Error("no node is running")
    return node
  }

  async adminRaw(node: ClusterNode, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${node.base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
    return { status: res.status, body: await res.json().catch(() => null) }
  }

  /** An admin call that must succeed; returns `data`. */
  async admin(node: ClusterNode, method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.adminRaw(node, method, path, body)
    if (res.status >= 300) throw new Error(`${method} /admin/v1${path} on ${node.nodeId}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data
  }

  /** Each phone's lease holder and stored status, read from a running node. */
  async holdings(from: ClusterNode = this.anyRunning()): Promise<Map<string, PhoneHolding>> {
    const overview = await this.admin(from, "GET", "/nodes?phones=true")
    const byPhone = new Map<string, PhoneHolding>()
    for (const node of overview.nodes) {
      for (const lease of node.leases ?? []) byPhone.set(lease.phoneId, { nodeId: node.nodeId, connectionStatus: lease.connectionStatus })
    }
    return byPhone
  }

  /** The running node holding the most live phones now (the first by id on a tie). */
  async mostLivePhonesHolder(): Promise<ClusterNode> {
    const holdings = await this.holdings()
    const counts = this.nodes.filter((n) => n.running).map((n) => ({ node: n, live: this.phones.filter((p) => holdings.get(p.id)?.nodeId === n.nodeId).length }))
    return counts.reduce((best, c) => (c.live > best.live ? c : best)).node
  }

  /** The phones a node holds now. */
  async phonesHeldBy(nodeId: NodeId): Promise<ClusterPhone[]> {
    const holdings = await this.holdings(this.anyRunning([nodeId]))
    return this.phones.filter((p) => holdings.get(p.id)?.nodeId === nodeId)
  }

  /**
   * The phones not yet connected on a running node outside `notOn`: the lease is held by such a
   * node, the phone's status is connected, and the simulator has a logged-in connection for it.
   */
  async unconnected(notOn: readonly NodeId[] = []): Promise<ClusterPhone[]> {
    const holdings = await this.holdings(this.anyRunning(notOn))
    const runningIds = new Set(this.nodes.filter((n) => n.running && !notOn.includes(n.nodeId)).map((n) => n.nodeId as string))
    return this.phones.filter((phone) => {
      const holding = holdings.get(phone.id)
      return !(holding && runningIds.has(holding.nodeId) && holding.connectionStatus === "connected" && this.sim.loggedInConnections(phone.phoneNumber).length === 1)
    })
  }

  /** Waits until every phone is connected on a running node outside `notOn`. */
  async waitAllConnected(options: { timeoutMs: number; notOn?: readonly NodeId[] }): Promise<void> {
    let missing: ClusterPhone[] = []
    try {
      await poll(async () => {
        missing = await this.unconnected(options.notOn)
        return missing.length === 0 ? true : undefined
      }, "every phone to be connected", options.timeoutMs, 200)
    } catch (err) {
      const holdings = await this.holdings().catch(() => new Map<string, PhoneHolding>())
      const described = await Promise.all(
        missing.map(async (p) => {
          const holding = holdings.get(p.id)
          const holder = this.nodes.find((n) => n.nodeId === holding?.nodeId && n.running)
          const pairing = holder ? await this.adminRaw(holder, "GET", `/phones/${p.id}/pairing`).catch((e) => String(e)) : null
          return `${p.phoneNumber} ${JSON.stringify(holding ?? null)} sim logins ${this.sim.loggedInConnections(p.phoneNumber).length} pairing ${JSON.stringify(pairing)}`
        }),
      )
      throw new Error(`${(err as Error).message}: ${missing.length} not connected (${described.join(", ")})`)
    }
  }

  /**
   * POST /v1/messages/send of a fresh text from `phone` to the contact through `via`; returns
   * the accepted send, or null when the node did not accept it (it was killed mid-request).
   */
  async send(via: ClusterNode, phone: ClusterPhone, key: string = this.liveKey): Promise<AcceptedSend | null> {
    const content = `cluster message ${++this.sendCounter} from ${phone.phoneNumber}`
    let res: Response
    try {
      res = await fetch(`${via.base}/v1/messages/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ fromPhoneId: phone.phoneNumber, to: `+${this.contact.phoneNumber}`, content }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      })
    } catch {
      return null
    }
    if (res.status !== 201) {
      if (!via.proc.running) return null
      const text = await res.text()
      // Refused, so not accepted: a phone between two holders is briefly not connected.
      if (res.status === 400 && text.includes("is not connected")) return null
      throw new Error(`POST /v1/messages/send on ${via.nodeId}: ${res.status} ${text}`)
    }
    const id = ((await res.json()) as { data: { id: string } }).data.id
    return { id, waId: waMessageIdFor(id, 0), phoneId: phone.id, content }
  }

  /** Waits until every send reached the contact at least once, by its WhatsApp id. */
  async waitArrived(sends: readonly AcceptedSend[], timeoutMs: number): Promise<void> {
    let missing: AcceptedSend[] = []
    try {
      await poll(() => {
        missing = sends.filter((s) => this.sim.timesReached(s.waId) === 0)
        return missing.length === 0 ? true : undefined
      }, `${sends.length} sends to reach the contact`, timeoutMs, 200)
    } catch (err) {
      const described = missing.map((s) => {
        const seen = this.sim.outbox.byId(s.waId)
        const lines = this.simLog.filter((line) => line.includes(s.waId)).slice(-5)
        return `${s.content} (${s.waId}): ${seen ? `reached the simulator, unreadable: ${seen.errors.join("; ")}` : "never reached the simulator"} ${lines.join(" | ")}`
      })
      throw new Error(`${(err as Error).message}: ${missing.length} missing:\n${described.join("\n")}\npairings scanned again: ${this.pairingRetries.join("; ") || "none"}\n${this.logTails()}`)
    }
  }

  /**
   * What breaks "each accepted live send reached the contact exactly once": a send carried by
   * more than one WhatsApp id, or reached more than once although its phone was never on a node
   * that died or slept (`moved`). A message the stopped node handed to WhatsApp without recording
   * its acknowledgement goes again from the new holder with the same id, which the contact's app
   * shows once; the sender hands one message at a time per phone, so at most one per moved phone.
   */
  deliveryFaults(sends: readonly AcceptedSend[], moved: ReadonlySet<string>): string[] {
    const idsPerText = this.idsPerText()
    const faults: string[] = []
    const repeatedPerPhone = new Map<string, number>()
    for (const send of sends) {
      const ids = [...(idsPerText.get(send.content) ?? [])]
      if (ids.length !== 1 || ids[0] !== send.waId) faults.push(`${send.content} arrived under ${JSON.stringify(ids)}, not ${send.waId}`)
      const times = this.sim.timesReached(send.waId)
      if (times > 1) repeatedPerPhone.set(send.phoneId, (repeatedPerPhone.get(send.phoneId) ?? 0) + 1)
      if (times > 1 && !moved.has(send.phoneId)) faults.push(`${send.content} reached the contact ${times} times from a phone that never moved`)
    }
    for (const [phoneId, n] of repeatedPerPhone) if (n > 1) faults.push(`${n} sends of ${phoneId} went twice`)
    return faults
  }

  /** The texts the contact read, each with how many distinct WhatsApp ids carried it. */
  idsPerText(): Map<string, Set<string>> {
    const ids = new Map<string, Set<string>>()
    for (const message of this.sim.outbox.all) {
      if (message.contact !== this.contact || !message.text) continue
      const set = ids.get(message.text) ?? new Set<string>()
      set.add(message.id)
      ids.set(message.text, set)
    }
    return ids
  }

  /** Ids of every event the nodes recorded, read from the database. */
  async recordedEventIds(): Promise<string[]> {
    const sql = new SQL(this.databaseUrl, { max: 1 })
    try {
      return ((await sql`SELECT id FROM events ORDER BY id`) as { id: string }[]).map((r) => r.id)
    } finally {
      await sql.close()
    }
  }

  /** Waits until every event the nodes recorded reached the receiver at least once. */
  async waitEventsDelivered(timeoutMs: number): Promise<void> {
    let missing: string[] = []
    try {
      await poll(async () => {
        const received = new Set(this.hooks.received.map((hook) => hook.headers["x-service-event-id"]))
        missing = (await this.recordedEventIds()).filter((id) => !received.has(id))
        return missing.length === 0 ? true : undefined
      }, "every recorded event to reach the receiver", timeoutMs, 250)
    } catch (err) {
      throw new Error(`${(err as Error).message}: ${missing.length} missing (${missing.slice(0, 10).join(", ")})`)
    }
  }

  /** Event ids the receiver got, by event type and message id (`message.sent:<id>`). */
  receivedEvents(): Set<string> {
    const seen = new Set<string>()
    for (const hook of this.hooks.received) seen.add(`${hook.json?.event}:${hook.json?.data?.messageId ?? ""}`)
    return seen
  }

  /** The end of every node's log, to explain a failure. */
  logTails(): string {
    return this.nodes.map((n) => `${n.nodeId} logged:\n${n.logs.slice(-LOG_TAIL_CHARS)}`).join("\n")
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.dispose()))
    await this.hooks.stop()
    await this.sim.stop()
  }
}
