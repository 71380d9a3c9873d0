"""One module per subcommand. Each has `register(subparsers)`, which adds its parser and sets
`handler` to a function taking the parsed arguments and returning an ExitCode."""
