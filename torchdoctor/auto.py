"""`import torchdoctor.auto`: install the exception hook (surfaces/hook.py) and nothing else.

For programs you cannot edit, put SITE_DIR first on PYTHONPATH: its sitecustomize.py does
this import at interpreter start-up, then runs the sitecustomize it shadows:

    PYTHONPATH="$(python -m torchdoctor.auto)${PYTHONPATH:+:$PYTHONPATH}" python train.py

(`python -m torchdoctor.auto` prints SITE_DIR.) Nothing activates itself: no .pth file.
"""

import os

from .surfaces.hook import install, installed, uninstall  # noqa: F401

SITE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "surfaces", "autoload")

install()

if __name__ == "__main__":
    print(SITE_DIR)
