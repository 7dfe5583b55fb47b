"""The file the tune child runs: `python -c LAUNCHER script.py OUT.jsonl CONFIG-JSON`.

The target interpreter may not have torchdoctor installed, so this folder is loaded as a
package of its own, under a private name, straight from its files: nothing goes on
sys.path (a module of the user's named like one of the worker's would otherwise shadow
it, or be shadowed). Python 3.8 syntax, standard library only until torch is imported.
"""

import importlib.util
import os
import sys

PACKAGE = "_torchdoctor_tune_worker"


def load():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(PACKAGE, os.path.join(here, "__init__.py"),
                                                  submodule_search_locations=[here])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = pkg
    spec.loader.exec_module(pkg)
    return importlib.import_module(PACKAGE + ".tuner")


if __name__ == "__main__":
    tuner = load()
    tuner.exit_now(tuner.main(sys.argv[1:] if sys.argv and sys.argv[0] == "-c" else sys.argv))
