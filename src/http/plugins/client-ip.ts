/** What Elysia passes as `server`: enough to ask for a request's address (null when handled in-process). */
export type RequestServer = { requestIP(r: Request): { address: string } | null } | null

/** The client address as the socket reports it ("unknown" when handled in-process). */
export function clientIp(server: RequestServer, request: Request): string {
  return server?.requestIP(request)?.address ?? "unknown"
}

/** Reads `Authorization: Bearer <token>`; null when absent or not a bearer credential. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")
  return match ? match[1]! : null
}
