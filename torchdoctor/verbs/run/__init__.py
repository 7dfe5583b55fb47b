"""`torchdoctor run`: run a command unchanged (runner, command, terminal), and after it
fails, what its output and its death say (postmortem, signals, evidence); verb.py goes
from the options to the exit status."""
