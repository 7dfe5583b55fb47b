"""A folder to put on PYTHONPATH: its sitecustomize.py installs the exception hook at
interpreter start-up (see torchdoctor/auto.py). Importing this package does nothing."""
