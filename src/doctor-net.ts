import type { DoctorNet } from "./lib/net-probes"
import type { Config } from "./config"
import { systemResolveHost } from "./lib/net-probes"
import { waVersionProbe } from "./whatsapp/baileys/version-probe"

/**
 * What `wagate doctor` reaches the network with in production: the system resolver, the trust
 * store wagate's connections use (Bun's roots and NODE_EXTRA_CA_CERTS), and the WhatsApp Web
 * version lookup exactly as the gateway's connects make it. Tests pass their own (CliIo.doctorNet).
 */
export function productionDoctorNet(config: Config): DoctorNet {
  const version = waVersionProbe(config.waWsUrl, config.waVersionUrl)
  return {
    resolveHost: systemResolveHost,
    versionLookup: version.lookup,
    versionLookupTimeoutMs: version.lookupTimeoutMs,
    versionLookupUrl: version.lookupUrl,
    builtInVersion: version.builtIn,
  }
}
