import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TlsCertificate } from "./media-cert"

/** Runs `openssl` with `args` in `cwd`; throws with its stderr when it fails. */
async function openssl(cwd: string, args: string[], what: string): Promise<void> {
  const child = Bun.spawn(["openssl", ...args], { cwd, stdout: "ignore", stderr: "pipe" })
  const [exitCode, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
  if (exitCode !== 0) throw new Error(`openssl could not ${what} (exit ${exitCode}): ${stderr.trim()}`)
}

/** Key options of every key this CA makes: P-256 is fast to generate on a busy machine. */
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

/**
 * A certificate authority that exists for one test run: its key is generated with `openssl` when
 * the test starts and lives in a temporary directory removed by `dispose()`, so no private key is
 * ever committed. Servers get certificates issued by it (`issue()`); a client trusts them the way
 * a real deployment trusts a public CA, by the CA certificate alone: in a child process through
 * `NODE_EXTRA_CA_CERTS=<trustFile()>` at start, in this process through a `ca` TLS option.
 */
export class TestCa {
  private nextSerial = 1

  private constructor(
    private readonly dir: string,
    /** The CA certificate (PEM). */
    readonly caPem: string,
  ) {}

  /** Generates a fresh CA valid for one day. Needs `openssl` on the PATH. */
  static async create(): Promise<TestCa> {
    const dir = await mkdtemp(join(tmpdir(), "wa-sim-test-ca-"))
    try {
      await openssl(
        dir,
        [
          "req", "-x509", ...EC_KEY, "-subj", "/CN=wagate test CA (throwaway)", "-days", "1",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
          "-keyout", "ca.key", "-out", "ca.pem",
        ],
        "generate the test CA",
      )
      return new TestCa(dir, await readFile(join(dir, "ca.pem"), "utf8"))
    } catch (error) {
      await rm(dir, { recursive: true, force: true })
      throw error
    }
  }

  /** A PEM file holding the CA certificate. */
  get caPath(): string {
    return join(this.dir, "ca.pem")
  }

  /**
   * Issues a server certificate for `127.0.0.1` (the only address tests use), and for `dnsNames`
   * when given (a test that substitutes the resolver maps them to 127.0.0.1), signed by this CA
   * and valid for one day. The returned PEM is the leaf followed by the CA, as servers send it.
   */
  async issue(dnsNames: readonly string[] = []): Promise<TlsCertificate> {
    const serial = this.nextSerial++
    const name = `leaf-${serial}`
    await openssl(this.dir, ["req", ...EC_KEY, "-subj", "/CN=127.0.0.1", "-keyout", `${name}.key`, "-out", `${name}.csr`], "make a certificate request")
    await writeFile(join(this.dir, `${name}.ext`), `subjectAltName=${["IP:127.0.0.1", ...dnsNames.map((n) => `DNS:${n}`)].join(",")}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`)
    await openssl(
      this.dir,
      [
        "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", String(serial),
        "-days", "1", "-extfile", `${name}.ext`, "-out", `${name}.pem`,
      ],
      "sign a server certificate",
    )
    const leafPem = await readFile(join(this.dir, `${name}.pem`), "utf8")
    return { certPem: leafPem + this.caPem, keyPem: await readFile(join(this.dir, `${name}.key`), "utf8") }
  }

  /**
   * Writes a PEM bundle of this CA plus `extraPems` (e.g. the simulator's self-signed media host
   * certificate) and returns its path, for `NODE_EXTRA_CA_CERTS`: Bun reads one file, once, at start.
   */
  async trustFile(...extraPems: string[]): Promise<string> {
    const path = join(this.dir, `trust-${this.nextSerial++}.pem`)
    await writeFile(path, [this.caPem, ...extraPems].map((pem) => pem.trimEnd() + "\n").join(""))
    return path
  }

  /** Removes the CA's key and every file it wrote. */
  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true })
  }
}
