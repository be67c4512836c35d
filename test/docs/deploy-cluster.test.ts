import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { errorResponse } from "../../src/http/errors"
import { MAX_BODY_BYTES } from "../../src/http/plugins/body"
import { AppError } from "../../src/lib/errors"
import { postgresBinDir, separatePostgres } from "../helpers/postgres"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * The cluster kit (deploy/docker-compose.cluster.yml, deploy/Caddyfile.cluster) as an operator
 * runs it: a rolling restart that drops no request, a first start that does not stop at
 * `migrate`, ports that can move, no volume left behind, and an answer when no node is ready.
 * No Docker or Caddy runs here: the files are parsed, interpolated as Compose does, and their
 * commands run against real processes where this machine has the program (pg_isready).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const REPO = join(import.meta.dir, "..", "..")
const read = (path: string) => readFileSync(join(REPO, path), "utf8")
const COMPOSE_TEXT = read("deploy/docker-compose.cluster.yml")
const caddyfile = read("deploy/Caddyfile.cluster")

/** Compose's interpolation of `${VAR:-default}`, `${VAR:?message}` and `$$` (compose-spec "Interpolation"). */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\{(\w+)(?::([-?])([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
    if (whole === "$$") return "$"
    const value = env[name!]
    if (value !== undefined && value !== "") return value
    if (op === "-") return arg!
    if (op === "?") throw new Error(`${name}: ${arg}`)
    return ""
  })
}

type Service = { image: string; ports?: string[]; volumes?: string[]; tmpfs?: string[]; healthcheck?: { test: string[] } }
type Compose = { services: Record<string, Service>; volumes: Record<string, unknown> }
const SECRETS = { PG_PASSWORD: "pw", WAGATE_ADMIN_TOKEN: "a".repeat(64) }
const composeWith = (env: Record<string, string>) => parseYaml(interpolate(COMPOSE_TEXT, { ...SECRETS, ...env }), { merge: true }) as Compose
const compose = composeWith({})

/** The lines of the Caddyfile block that opens with `opening` (a line ending in `{`), tab-indented as written. */
function block(opening: RegExp): string {
  const lines = caddyfile.split("\n")
  const start = lines.findIndex((l) => opening.test(l))
  if (start === -1) throw new Error(`no block ${opening} in deploy/Caddyfile.cluster`)
  const indent = /^\t*/.exec(lines[start]!)![0]
  const end = lines.findIndex((l, i) => i > start && l === `${indent}}`)
  return lines.slice(start + 1, end).join("\n")
}

/** A byte size as Caddy reads it (humanize.ParseBytes): KB is 1000, KiB 1024. */
function caddyBytes(text: string): number {
  const m = /^(\d+)\s*(?:([kmg])(i?)b?)?$/i.exec(text)
  if (!m) throw new Error(`not a size: ${text}`)
  const power = m[2] ? "kmg".indexOf(m[2].toLowerCase()) + 1 : 0
  return Number(m[1]) * (m[3] ? 1024 : 1000) ** power
}

describe("a rolling restart drops no request", () => {
  test("Caddy is pinned at 2.11.4 or later, which resends a retried request's body (caddyserver/caddy#7546, #7713)", () => {
    const m = /^caddy:(\d+)\.(\d+)\.(\d+)$/.exec(compose.services.caddy!.image)
    expect(m).not.toBeNull()
    const [major, minor, patch] = m!.slice(1).map(Number)
    expect(major! * 1e6 + minor! * 1e3 + patch!).toBeGreaterThanOrEqual(2_011_004)
  })

  test("Caddy buffers every body wagate accepts whole, so a try on another node sends it again, and says why", () => {
    const proxy = block(/^\treverse_proxy /)
    const size = /^\t\trequest_buffers (\S+)$/m.exec(proxy)
    expect(size).not.toBeNull()
    // Caddy replays a body only when it fit the buffer with room to spare: one that fills it exactly counts as cut off.
    expect(caddyBytes(size![1]!)).toBeGreaterThan(MAX_BODY_BYTES)
    expect(proxy).toContain("caddyserver/caddy#7546")
    expect(proxy).toContain("caddyserver/caddy#7713")
  })
})

describe("the first start does not stop at migrate", () => {
  const pgIsReady = postgresBinDir() && Bun.which("pg_isready", { PATH: `${postgresBinDir()}:${process.env.PATH}` })

  test.if(Boolean(pgIsReady))(
    `PostgreSQL counts as healthy once it answers over TCP, not while its first start listens on the socket only${pgIsReady ? "" : " (not run: pg_isready is not installed)"}`,
    async () => {
      const [form, command] = compose.services.postgres!.healthcheck!.test
      expect(form).toBe("CMD-SHELL")
      const pg = await separatePostgres()
      // In the container the socket is in the default directory and the port is 5432; here PGHOST and PGPORT say where.
      const check = async (cmd: string) =>
        Bun.spawn(["sh", "-c", cmd], {
          env: { ...process.env, PATH: `${postgresBinDir()}:${process.env.PATH}`, PGHOST: pg.socketDir, PGPORT: String(pg.port) },
          stdout: "ignore",
          stderr: "ignore",
        }).exited
      try {
        await pg.start({ tcp: false })
        // The trap: a check on the socket passes already.
        expect(await check("pg_isready -U wagate -d wagate")).toBe(0)
        expect(await check(command!)).not.toBe(0)
        await pg.stop()
        await pg.start()
        expect(await check(command!)).toBe(0)
      } finally {
        await pg.stop()
      }
    },
    60_000,
  )

  test("migrate waits for the database longer than the default, in case it is still starting", () => {
    const env = (compose.services.migrate as unknown as { environment: Record<string, string> }).environment
    expect(Number(env.WAGATE_DATABASE_WAIT_MS)).toBeGreaterThanOrEqual(30_000)
  })
})

describe("ports and volumes", () => {
  test("Caddy is published on HTTP_PORT and HTTPS_PORT (80 and 443 unless set; HTTP/3 on UDP), each a port or ADDRESS:PORT", () => {
    expect(compose.services.caddy!.ports).toEqual(["80:80", "443:443", "443:443/udp"])
    const moved = composeWith({ HTTP_PORT: "127.0.0.1:8080", HTTPS_PORT: "203.0.113.5:8443" })
    expect(moved.services.caddy!.ports).toEqual(["127.0.0.1:8080:80", "203.0.113.5:8443:443", "203.0.113.5:8443:443/udp"])
    for (const port of moved.services.caddy!.ports!) expect(port).toMatch(/^(?:[\d.]+:)?\d+:\d+(?:\/udp)?$/)
  })

  test("no service leaves an anonymous volume behind: each VOLUME its image declares is a named volume or a tmpfs", () => {
    const wagateVolumes = [...read("Dockerfile").matchAll(/^VOLUME (.+)$/gm)].flatMap((m) => m[1]!.split(/\s+/))
    expect(wagateVolumes).toEqual(["/data"])
    // What the images declare (their Dockerfiles): Caddy keeps certificates in /data and its last config in /config.
    const declared = (image: string): string[] =>
      image.startsWith("wagate:") ? wagateVolumes : image.startsWith("caddy:") ? ["/config", "/data"] : image.startsWith("postgres:") ? ["/var/lib/postgresql/data"] : []
    const uncovered = Object.entries(compose.services).flatMap(([name, s]) => {
      const named = (s.volumes ?? []).filter((v) => v.split(":")[0]! in compose.volumes).map((v) => v.split(":")[1])
      const tmpfs = (s.tmpfs ?? []).map((t) => t.split(":")[0])
      return declared(s.image)
        .filter((path) => !named.includes(path) && !tmpfs.includes(path))
        .map((path) => `${name}: ${path}`)
    })
    expect(uncovered).toEqual([])
    expect(Object.keys(compose.services).filter((name) => declared(compose.services[name]!.image).length === 0)).toEqual([])
  })
})

describe("when no node can answer", () => {
  const errors = () => block(/^\thandle_errors /)

  test("Caddy answers its 502, 503 and 504 itself, as JSON with Retry-After", () => {
    expect(caddyfile).toMatch(/^\thandle_errors 502 503 504 \{$/m)
    expect(errors()).toMatch(/^\t\theader Content-Type application\/json$/m)
    expect(errors()).toMatch(/^\t\theader Retry-After \d+$/m)
    // The templates handler fills the time and the path in: it must take the JSON body on.
    expect(block(/^\t\ttemplates \{$/)).toMatch(/^\t\t\tmime application\/json$/m)
  })

  /** The body Caddy sends for `status`, its placeholders and template actions filled in as Caddy would. */
  function rendered(status: number, statusText: string, path: string, nowIso: string): unknown {
    const body = /^\t\trespond `(.+)`$/m.exec(errors())![1]!
    const filled = body
      .replaceAll("{err.status_code}", String(status))
      .replaceAll("{err.status_text}", statusText)
      // Go's reference time in this layout is ISO 8601 in UTC with milliseconds, the API's format.
      .replace('{{ dateInZone "2006-01-02T15:04:05.000Z" (now) "UTC" }}', nowIso)
      .replace("{{ .OriginalReq.URL.EscapedPath | toJson }}", JSON.stringify(path))
    expect(filled).not.toMatch(/\{\{|\{[a-z_.]+\}/)
    return JSON.parse(filled)
  }

  test("the body is the API's error envelope, with the title wagate gives the status and retryAfter as in the header", async () => {
    const retryAfter = Number(/^\t\theader Retry-After (\d+)$/m.exec(errors())![1])
    const now = Date.UTC(2026, 10, 28, 4, 30)
    const ours = (kind: "unavailable" | "bad_gateway") =>
      errorResponse(new AppError(kind, ["a node's own sentence"], { retryAfterSeconds: retryAfter }), "/v1/messages/send", now).json() as Promise<Record<string, unknown>>
    for (const [status, text, kind] of [
      [503, "Service Unavailable", "unavailable"],
      [502, "Bad Gateway", "bad_gateway"],
    ] as const) {
      const body = rendered(status, text, "/v1/messages/send", new Date(now).toISOString()) as Record<string, unknown>
      const expected = { ...(await ours(kind)), message: body.message }
      expect(body).toEqual(expected)
      expect(body.retryAfter).toBe(retryAfter)
      expect((body.message as string[]).join(" ")).toMatch(/retry/)
    }
  })
})
