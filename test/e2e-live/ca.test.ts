import { test } from "bun:test"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { writeFileSync } from "node:fs"
test("ca", async () => {
  const cert = await generateLoopbackCertificate()
  writeFileSync("/tmp/ca.pem", cert.certPem)
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: cert.certPem, key: cert.keyPem }, fetch: () => new Response("hi") })
  for (const env of [{}, { NODE_EXTRA_CA_CERTS: "/tmp/ca.pem" }]) {
    const p = Bun.spawn([process.execPath, "/tmp/ca-test.ts", `https://127.0.0.1:${s.port}/x`], { env: { ...process.env, ...env }, stdout: "pipe" })
    console.log(JSON.stringify(env), await new Response(p.stdout).text())
  }
  s.stop(true)
})
