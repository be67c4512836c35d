import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A PEM certificate and its private key. */
export interface TlsCertificate {
  certPem: string
  keyPem: string
}

/**
 * Generates a throwaway self-signed P-256 certificate for `127.0.0.1`, valid for one day. Baileys
 * always uploads media over `https://`, so the simulated media host needs TLS; generating the key
 * at test start keeps private keys out of the repository. Needs `openssl` on the PATH.
 */
export async function generateLoopbackCertificate(): Promise<TlsCertificate> {
  const dir = await mkdtemp(join(tmpdir(), "wa-sim-cert-"))
  try {
    const keyPath = join(dir, "key.pem")
    const certPath = join(dir, "cert.pem")
    const openssl = Bun.spawn(
      [
        "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1",
        "-keyout", keyPath, "-out", certPath,
      ],
      { stdout: "ignore", stderr: "pipe" },
    )
    const [exitCode, stderr] = await Promise.all([openssl.exited, new Response(openssl.stderr).text()])
    if (exitCode !== 0) throw new Error(`openssl could not generate the media host certificate (exit ${exitCode}): ${stderr.trim()}`)
    return { certPem: await readFile(certPath, "utf8"), keyPem: await readFile(keyPath, "utf8") }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
