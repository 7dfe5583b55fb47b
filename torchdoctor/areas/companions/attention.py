"""SageAttention's "SM89 kernel is not available": which compiled module to import to see the
error its start-up swallowed."""

from typing import Optional

from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups


def kernel_import_commands(sm: str):
    """The import that SageAttention's start-up tried inside a bare except, for the family the
    message named (releases name the module _qattn_smNN, newer ones also wrap it in smNN_compile);
    run plainly it shows the hidden error (an undefined symbol, a missing DLL)."""
    return ["python -c \"import sageattention.core as c; print({k: v for k, v in vars(c).items() if k.endswith('_ENABLED')})\"",
            "python -c \"import importlib; importlib.import_module('sageattention._qattn_sm%s')\"" % sm]


@hook("sageattention-kernel")
def tailor_sageattention_kernel(match, facts: Facts) -> Optional[Tailored]:
    sm = match_groups(match).get("sm") or "89"
    if not sm.isdigit():
        return None
    return Tailored(commands=[
        'python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_capability())"',
    ] + kernel_import_commands(sm))
