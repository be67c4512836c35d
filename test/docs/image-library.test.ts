import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"

/*
 * The Docker image's build stage installs production dependencies only and then compiles; the
 * picture conversion (src/lib/profile-picture.ts) and image thumbnails need the JPEG, PNG and WebP
 * codecs there, so they must be production dependencies, pinned exactly, and the build stage must
 * install before it compiles.
 */

const REPO = join(import.meta.dir, "..", "..")
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> }

test("the image libraries are exactly pinned production dependencies, so the Docker build stage installs them", () => {
  for (const name of ["@jsquash/jpeg", "@jsquash/png", "@jsquash/webp"]) {
    expect({ name, version: pkg.dependencies[name] }).toEqual({ name, version: expect.stringMatching(/^\d+\.\d+\.\d+$/) })
    expect(pkg.devDependencies[name]).toBeUndefined()
  }
})

test("the Dockerfile's build stage installs production dependencies before it compiles the executable", () => {
  const lines = readFileSync(join(REPO, "Dockerfile"), "utf8").split("\n")
  const install = lines.findIndex((l) => /^RUN bun install --frozen-lockfile --production\b/.test(l))
  const build = lines.findIndex((l) => /^RUN bun run build\b/.test(l))
  const runStage = lines.findIndex((l, i) => i > 0 && /^FROM /.test(l) && !/AS build/.test(l))
  expect({ install: install >= 0, build: build > install, inBuildStage: build < runStage }).toEqual({ install: true, build: true, inBuildStage: true })
})
