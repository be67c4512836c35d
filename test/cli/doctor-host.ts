import type { DoctorNet, DoctorWaVersion } from "../../src/lib/net-probes"
import type { TlsCertificate } from "../wa-sim/media-cert"

/** The name the doctor checks by default; tests resolve it to 127.0.0.1. */
export const WA_HOST = "web.whatsapp.com"

/** What the stand-in host answers for `/sw.js`, where WhatsApp Web publishes its `client_revision`. */
export type SwJsAnswer = { kind: "revision"; revision: number } | { kind: "status"; status: number }

/**
 * WhatsApp's web host, played on 127.0.0.1 over TLS: it answers `GET /` (Bun adds the `Date`
 * header, from this machine's clock) and `/sw.js` as the test sets it.
 */
export class StandInWaHost {
  swJs: SwJsAnswer = { kind: "revision", revision: 1_029_384_756 }
  readonly requests: string[] = []
  private readonly server: ReturnType<typeof Bun.serve>

  constructor(certificate: TlsCertificate) {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: certificate.certPem, key: certificate.keyPem },
      fetch: (req) => {
        const path = new URL(req.url).pathname
        this.requests.push(`${req.method} ${path}`)
        if (path !== "/sw.js") return new Response(null, { status: 200 })
        if (this.swJs.kind === "status") return new Response("unavailable", { status: this.swJs.status })
        return new Response(`self.__swData=JSON.parse(/*BTDS*/"{\\"client_revision\\":${this.swJs.revision}}");`)
      },
    })
  }

  get port(): number {
    return this.server.port!
  }

  stop(): Promise<void> {
    return this.server.stop(true)
  }
}

/** An error as the system resolver rejects with for a name that does not exist. */
export function notFound(host: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" })
}

/**
 * The doctor's network, pointed at a stand-in host: `WA_HOST` resolves to 127.0.0.1 (any other
 * name does not), the test CA is trusted, and the version lookup reads `/sw.js` from the stand-in
 * the way Baileys' `fetchLatestWaWebVersion` reads it from web.whatsapp.com (a `client_revision`
 * in a 200 answer; anything else fails).
 */
export function standInNet(host: StandInWaHost, caPem: string, overrides: Partial<DoctorNet> = {}): DoctorNet {
  const url = `https://127.0.0.1:${host.port}/sw.js`
  return {
    resolveHost: async (name) => {
      if (name === WA_HOST) return ["127.0.0.1"]
      throw notFound(name)
    },
    ca: caPem,
    versionLookup: async (signal): Promise<DoctorWaVersion> => {
      const res = await fetch(url, { signal, tls: { ca: caPem } })
      if (!res.ok) throw new Error(`Failed to fetch sw.js: HTTP ${res.status}`)
      const revision = /\\?"client_revision\\?":\s*(\d+)/.exec(await res.text())?.[1]
      if (!revision) throw new Error("Could not find client revision in the fetched content")
      return [2, 3000, Number(revision)]
    },
    versionLookupTimeoutMs: 3_000,
    versionLookupUrl: url,
    builtInVersion: async () => [2, 3000, 1_000_000_001],
    ...overrides,
  }
}
