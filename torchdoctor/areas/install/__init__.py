"""The install area (kb/errors/install.json): the probe and `import torch`, which torch installs here, whether the installed one is whole."""
