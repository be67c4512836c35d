import { afterAll, beforeAll } from "bun:test"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import type { WaSim, WaSimOptions } from "../wa-sim/sim"
import { FileHost, Hooks, type ApiClient, type WagateProcess } from "./live-world"
import { pairedPhone, startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * The set-up every live scenario over the TLS front repeats: start the world with wagate from
 * source or as the executable, make the simulator's contacts and the phone's state, subscribe a
 * webhook receiver, pair the phone, and stop it all afterwards. A scenario states what is its
 * own (key scopes, events, the phone, `setUp`); the hooks' timeouts stay explicit here.
 */

/** How a *-source or *-binary test runs a scenario: what wagate command to start, and how long getting it may take. */
export interface ScenarioRun {
  prepare: () => Promise<string[] | undefined>
  prepareTimeoutMs: number
}

export interface LiveScenarioOptions {
  keyName: string
  scopes: string[]
  env?: Record<string, string> | ((sim: WaSim) => Record<string, string>)
  sim?: WaSimOptions
  logLevel?: "warn" | "error"
  /** Runs once the world is up, before any webhook or pairing: contacts, groups, state made on the phone before linking. */
  setUp?: (world: TlsWorld) => void | Promise<void>
  /** Live webhook events the receiver `hooks` is subscribed to; none: no receiver. */
  events?: string[]
  /** The phone to add and pair by QR last; its id is `phoneId`. */
  pair?: string
  /** Serve files over HTTPS with the media host's certificate (`files`), for media URLs wagate fetches. */
  files?: boolean
}

/** The running scenario's world; each field throws when read before the `beforeAll` made it. */
export interface LiveScenarioWorld {
  readonly world: TlsWorld
  readonly sim: WaSim
  readonly wagate: WagateProcess
  readonly api: ApiClient
  readonly hooks: Hooks
  readonly phoneId: string
  readonly files: FileHost
}

function made<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not there: the scenario's beforeAll did not make it`)
  return value
}

/** Registers the `beforeAll` that builds a live scenario's world and the `afterAll` that stops it. */
export function liveScenarioWorld(run: ScenarioRun, options: LiveScenarioOptions): LiveScenarioWorld {
  let world: TlsWorld | undefined
  let hooks: Hooks | undefined
  let phoneId: string | undefined
  let files: FileHost | undefined

  beforeAll(async () => {
    world = await startTlsWorld({ command: await run.prepare(), keyName: options.keyName, scopes: options.scopes, env: options.env, sim: options.sim, logLevel: options.logLevel })
    if (options.files) files = new FileHost(world.cert)
    await options.setUp?.(world)
    if (options.events) {
      hooks = new Hooks()
      const { wagate } = world
      const endpoint = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: options.events })
      hooks.secret = endpoint.secret
    }
    if (options.pair) phoneId = await pairedPhone(world, options.pair)
  }, run.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await hooks?.stop()
    await files?.stop()
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  return {
    get world() {
      return made(world, "the world")
    },
    get sim() {
      return made(world, "the world").sim
    },
    get wagate() {
      return made(world, "the world").wagate
    },
    get api() {
      return made(world, "the world").api
    },
    get hooks() {
      return made(hooks, "the webhook receiver (no events asked for)")
    },
    get phoneId() {
      return made(phoneId, "the paired phone (no `pair` asked for)")
    },
    get files() {
      return made(files, "the file host (no `files` asked for)")
    },
  }
}
