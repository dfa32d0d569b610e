"""The `knap` command line: one module per command or group of commands."""
