import { nodeOverview, type NodeOverview } from "../domain/node-overview"
import { formatAge } from "../lib/age"
import { parseArgs, UsageError } from "./args"
import { commandUsage } from "./commands"
import { printJson, table, withServices, type CliIo } from "./io"

/**
 * `wagate nodes`: the nodes sharing the database, read from it directly (as `accounts list` is),
 * so it works from any machine that can reach the database, with or without a server running.
 * `--json` prints what `GET /admin/v1/nodes` answers.
 */
export async function nodesCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(["json", "phones"]))
  if (args.positionals.length > 0) throw new UsageError(`nodes takes no argument, got "${args.positionals[0]}"\n${commandUsage("nodes")}`)
  return withServices(io, args.flags, async (services, config) => {
    const { store, clock } = services.ctx
    const overview = await nodeOverview(store, { nowMs: clock.nowMs(), leaseMs: config.nodeLeaseMs, withPhones: args.switches.has("phones") })
    if (args.switches.has("json")) printJson(io, overview)
    else io.stdout(nodesText(overview))
    return 0
  })
}

/** The table of nodes (and, when listed, of the phones each holds), or SQLite's sentence. */
export function nodesText(overview: NodeOverview): string {
  if (overview.explanation !== null && overview.nodes.length === 0) return `${overview.explanation}\n`
  const age = (ms: number | null) => (ms === null ? null : formatAge(ms))
  let text = table(
    ["NODE", "STATE", "PHONES", "HEARTBEAT", "UP FOR", "OLDEST LEASE", "NEWEST LEASE", "URL"],
    overview.nodes.map((n) => [n.nodeId, n.state, `${n.phones}/${n.maxPhones}`, `${formatAge(n.heartbeatAgeMs)} ago`, formatAge(n.upForMs), age(n.oldestLeaseAgeMs), age(n.newestLeaseAgeMs), n.url]),
  )
  if (overview.nodes.length === 0) text += "No node has registered with this database yet.\n"
  if (overview.unownedPhones) text += `${overview.unownedPhones} ${overview.unownedPhones === 1 ? "phone is" : "phones are"} held by no node.\n`
  const leases = overview.nodes.flatMap((n) => (n.leases ?? []).map((l) => [n.nodeId, l.phoneId, l.phoneNumber, l.connectionStatus, l.token, formatAge(l.ageMs)]))
  if (overview.nodes.some((n) => n.leases)) text += `\n${table(["NODE", "PHONE", "NUMBER", "STATUS", "TOKEN", "LEASE AGE"], leases)}`
  return text
}
