// Every test runs in UTC so that day, week and month boundaries are the ones wagate uses.
process.env.TZ = "UTC"
