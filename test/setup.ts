import { afterAll } from "bun:test"
import { stopTestPostgres } from "./helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS } from "./helpers/timeouts"

// Every test runs in UTC so that day, week and month boundaries are the ones wagate uses.
process.env.TZ = "UTC"

// A hook in the preload runs once, after the last test file: the run's throwaway PostgreSQL
// (test/helpers/postgres.ts) stops with the run instead of outliving it. Removing its data
// directory (a database per test) takes seconds on a busy disk.
afterAll(stopTestPostgres, SLOW_HOOK_TIMEOUT_MS)
