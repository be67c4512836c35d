import { expect } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { verifySignature } from "../helpers/verify-signature"
import { adminTokenIn, childEnv, LISTENING, Proc, sandboxKeyIn } from "../helpers/wagate-process"
import { WebhookReceiver, type ReceivedHook } from "../helpers/webhook-receiver"
import type { TlsCertificate } from "../wa-sim/media-cert"

/*
 * The world of the live end-to-end tests: wagate as a real child process pointed at the WhatsApp
 * simulator, driven only through its HTTP APIs, its webhooks read by a real receiver, and an HTTPS
 * file host for media URLs. Every wait polls a condition with a deadline; nothing sleeps to make
 * an assertion true.
 */

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs` with `what`. */
export async function poll<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 8_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (err) {
      last = err
    }
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`)
    await Bun.sleep(10)
  }
}

export interface ApiResponse {
  status: number
  body: any
}

/** A wagate `serve` process on a data directory that outlives restarts of the process. */
export class WagateProcess {
  proc!: Proc
  base = ""
  readonly adminToken: string
  readonly sandboxKey: string
  readonly accountId: string

  private constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string>,
    private readonly command: string[] | undefined,
    first: { proc: Proc; base: string },
  ) {
    this.proc = first.proc
    this.base = first.base
    const out = first.proc.out
    const admin = adminTokenIn(out)
    const sandbox = sandboxKeyIn(out)
    const account = /^ {2}Account: +(acc_\S+)/m.exec(out)?.[1]
    if (!admin || !sandbox || !account) throw new Error(`the first run did not print the account, sandbox key and admin token:\n${out}`)
    this.adminToken = admin
    this.sandboxKey = sandbox
    this.accountId = account
  }

  /**
   * Starts wagate on a fresh data directory and reads what its first run printed: `bun src/main.ts`
   * by default, or `options.command` (the compiled executable), either way with `env` on top of
   * ours without any WAGATE_* setting.
   */
  static async start(env: Record<string, string>, options: { command?: string[] } = {}): Promise<WagateProcess> {
    const dataDir = mkdtempSync(join(tmpdir(), "wagate-e2e-live-"))
    const first = await WagateProcess.spawn(dataDir, env, options.command)
    // The first-run lines follow the "listening" line; wait until the admin token is there too.
    await first.proc.waitFor(/Admin token: /)
    return new WagateProcess(dataDir, env, options.command, first)
  }

  private static async spawn(dataDir: string, env: Record<string, string>, command: string[] | undefined): Promise<{ proc: Proc; base: string }> {
    const args = ["serve", "--data", dataDir, "--port", "0"]
    const proc = command ? new Proc(args, childEnv(env), { command }) : new Proc(args, env)
    const m = await proc.waitFor(LISTENING)
    return { proc, base: `http://127.0.0.1:${m[3]}` }
  }

  /** SIGTERM, then a new process on the same data directory (a real restart). */
  async restart(): Promise<void> {
    const code = await this.terminate()
    if (code !== 0) throw new Error(`wagate exited with ${code} on SIGTERM\n${this.proc.err}`)
    const next = await WagateProcess.spawn(this.dataDir, this.env, this.command)
    this.proc = next.proc
    this.base = next.base
  }

  /** After `terminate()`: a new process on the same data directory (the phone was away meanwhile). */
  async resume(): Promise<void> {
    const next = await WagateProcess.spawn(this.dataDir, this.env, this.command)
    this.proc = next.proc
    this.base = next.base
  }

  /** SIGTERM and the exit code (null when it did not exit in time). */
  async terminate(): Promise<number | null> {
    this.proc.kill("SIGTERM")
    return this.proc.exited(12_000)
  }

  /** Runs `wagate <args>` once on this data directory with the server's settings: its exit code and output. */
  async cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const proc = this.command ? new Proc([...args, "--data", this.dataDir], childEnv(this.env), { command: this.command }) : new Proc([...args, "--data", this.dataDir], this.env)
    const code = await proc.exited(30_000)
    proc.kill()
    return { code, out: proc.out, err: proc.err }
  }

  async dispose(): Promise<void> {
    if (!this.proc.running) {
      // It died on its own: whatever it said is the only clue.
      console.error(`wagate exited by itself (code ${this.proc.proc.exitCode}, signal ${this.proc.proc.signalCode})\nstdout:\n${this.proc.out}\nstderr:\n${this.proc.err}`)
    }
    this.proc.kill("SIGKILL")
    await this.proc.proc.exited
    rmSync(this.dataDir, { recursive: true, force: true })
  }

  async request(bearer: string, method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    let json: unknown = null
    try {
      json = JSON.parse(text)
    } catch {
      json = text
    }
    return { status: res.status, body: json }
  }

  admin(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    return this.request(this.adminToken, method, `/admin/v1${path}`, body)
  }

  /** An admin call that must succeed; returns `data`. */
  async adminOk(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.admin(method, path, body)
    if (res.status >= 300) throw new Error(`${method} /admin/v1${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data
  }
}

/** A /v1 client with one API key. */
export class ApiClient {
  constructor(
    private readonly wagate: WagateProcess,
    readonly key: string,
  ) {}

  call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    return this.wagate.request(this.key, method, `/v1${path}`, body)
  }

  /** POST /v1/messages/send, expecting 201; returns the message. */
  async send(body: Record<string, unknown>): Promise<any> {
    const res = await this.call("POST", "/messages/send", body)
    if (res.status !== 201) throw new Error(`POST /v1/messages/send: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data
  }

  async message(id: string): Promise<any> {
    const res = await this.call("GET", `/messages/${id}`)
    if (res.status !== 200) throw new Error(`GET /v1/messages/${id}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data
  }

  /** Waits until the message has `status`, and returns it. */
  async messageWithStatus(id: string, status: string, timeoutMs?: number): Promise<any> {
    let last = ""
    try {
      return await poll(async () => {
        const m = await this.message(id)
        last = m.status
        return m.status === status ? m : undefined
      }, `message ${id} to become ${status}`, timeoutMs)
    } catch (err) {
      throw new Error(`${(err as Error).message}; it is ${last}`)
    }
  }

  async phone(id: string): Promise<any> {
    const res = await this.call("GET", `/phone-numbers/${id}`)
    if (res.status !== 200) throw new Error(`GET /v1/phone-numbers/${id}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data
  }

  async phoneWithStatus(id: string, status: string, timeoutMs?: number): Promise<any> {
    return poll(async () => {
      const p = await this.phone(id)
      return p.connectionStatus === status ? p : undefined
    }, `phone ${id} to become ${status}`, timeoutMs)
  }
}

/**
 * The webhook receiver of the live environment: every request is checked against the
 * endpoint's secret, and tests wait for events by type and content.
 */
export class Hooks {
  readonly receiver = new WebhookReceiver()
  secret = ""

  get url(): string {
    return this.receiver.url("/wagate")
  }

  /** Every event received so far, each verified. */
  events(): ReceivedHook[] {
    const nowSeconds = Math.floor(Date.now() / 1000)
    for (const hook of this.receiver.received) {
      expect(verifySignature(hook.headers["x-service-signature"] ?? "", hook.body, this.secret, nowSeconds)).toBe(true)
      expect(hook.headers["x-service-event"]).toBe(hook.json.event)
    }
    return this.receiver.received
  }

  /** The envelopes of one event type whose data matches, in arrival order. */
  matching(event: string, where: (data: any) => boolean = () => true): any[] {
    return this.events()
      .map((hook) => hook.json)
      .filter((json) => json.event === event && where(json.data))
  }

  /** Waits for the first event of a type whose data matches, and returns its `data`. */
  async next(event: string, where: (data: any) => boolean = () => true, timeoutMs?: number): Promise<any> {
    const envelope = await poll(() => this.matching(event, where)[0], `a ${event} webhook`, timeoutMs)
    return envelope.data
  }

  /** The events about one outbound message, in arrival order (`message.sent`, …). */
  ofMessage(messageId: string): string[] {
    return this.events()
      .map((hook) => hook.json)
      .filter((json) => json.data?.messageId === messageId && json.event !== "message.received")
      .map((json) => json.event)
  }

  /**
   * Waits until every one of `events` arrived for the message, then returns all its events in
   * arrival order (deliveries run concurrently, so events close in time may arrive crossed).
   */
  async forMessage(messageId: string, events: string[]): Promise<string[]> {
    for (const event of events) await this.next(event, (d) => d.messageId === messageId)
    return this.ofMessage(messageId)
  }

  stop(): Promise<void> {
    return this.receiver.stop()
  }
}

/**
 * An HTTPS file host on 127.0.0.1 with the certificate the simulator's media host uses (so the
 * one CA file in NODE_EXTRA_CA_CERTS trusts both). A path can be held: its request waits until
 * the test releases it, which keeps wagate's serial sender busy on a download.
 */
export class FileHost {
  readonly requests: string[] = []
  private readonly files = new Map<string, { bytes: Uint8Array; type: string }>()
  private readonly holds = new Map<string, { release: () => void; released: Promise<void> }>()
  private readonly server: ReturnType<typeof Bun.serve>

  constructor(certificate: TlsCertificate) {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      tls: { cert: certificate.certPem, key: certificate.keyPem },
      fetch: async (request) => {
        const path = new URL(request.url).pathname
        this.requests.push(path)
        await this.holds.get(path)?.released
        const file = this.files.get(path)
        return file ? new Response(new Uint8Array(file.bytes), { headers: { "content-type": file.type } }) : new Response("not found", { status: 404 })
      },
    })
  }

  /** Serves `bytes` at `path` and returns its URL. */
  put(path: string, bytes: Uint8Array, type: string): string {
    this.files.set(path, { bytes, type })
    return `https://127.0.0.1:${this.server.port}${path}`
  }

  /** Makes requests for `path` wait until the returned function is called. */
  hold(path: string): () => void {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    this.holds.set(path, { release, released })
    return () => {
      this.holds.delete(path)
      release()
    }
  }

  /** Resolves once a request for `path` has arrived. */
  requested(path: string): Promise<true> {
    return poll(() => (this.requests.includes(path) ? true : undefined), `a request for ${path}`)
  }

  async stop(): Promise<void> {
    for (const { release } of this.holds.values()) release()
    await this.server.stop(true)
  }
}

/** A valid 1×1 PNG. */
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")

/** A small PDF with random filler, so a byte-exact comparison means something. */
export function pdfBytes(filler: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n% "), Buffer.from(Buffer.from(filler).toString("hex")), Buffer.from("\n%%EOF\n")])
}
