"""`torchdoctor run`: run a command unchanged (runner, command, terminal), and after it
fails, what its output and its death say (postmortem, signals)."""
