"""The verbs, each with its logic: the CLI (cli/) and the surfaces call these."""
