"""The `memora` command line. Each module here that defines `register(subparsers)` adds one subcommand."""
