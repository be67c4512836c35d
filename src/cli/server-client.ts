import { join } from "node:path"
import { liveLockOwner, LOCK_FILE } from "../lib/lockfile"

/** The running server that owns a data directory, reachable on loopback with its local token. */
export interface RunningServer {
  pid: number
  baseUrl: string
  token: string
}

/**
 * Finds the server that owns `dataDir`, if one runs. Commands that change live state (pairing,
 * removing a connected phone) go through it, because only it holds the WhatsApp sockets.
 */
export function runningServer(dataDir: string): RunningServer | null {
  const owner = liveLockOwner(join(dataDir, LOCK_FILE))
  if (!owner?.port || !owner.localToken) return null
  // A server on every interface is reached on loopback; one bound to an address, on that address.
  const host = !owner.host || owner.host === "0.0.0.0" ? "127.0.0.1" : owner.host === "::" ? "[::1]" : owner.host.includes(":") ? `[${owner.host}]` : owner.host
  return { pid: owner.pid, baseUrl: `http://${host}:${owner.port}`, token: owner.localToken }
}

/** Calls the server's admin API; returns the status and the parsed envelope. */
export async function adminCall(
  server: RunningServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: { success: boolean; data?: any; message?: string[] } }> {
  const res = await fetch(`${server.baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as { success: boolean; data?: unknown; message?: string[] } }
}
