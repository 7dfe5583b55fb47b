"""A folder to put on PYTHONPATH: its sitecustomize.py installs the exception hook at
interpreter start-up (see torchdoctor/auto.py). Importing this package does nothing."""

# The sitecustomize files (their identities) run in this process: each runs once, however
# many times, or under how many names, the folders holding them are on sys.path.
RAN = set()
