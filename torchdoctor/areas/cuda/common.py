"""What the CUDA hooks share: the GPUs named in facts or text, the install command for a
variant, a note for errors that came from another environment.
"""

from typing import Any, Dict, List, Optional, Tuple

from ...advice import install_advice
from ...facts import Facts
from ...facts import derived as F


def release_tuple(v: Optional[str]) -> Tuple[int, ...]:
    try:
        return tuple(int(x) for x in str(v).split("."))
    except ValueError:
        return ()


def install_commands(facts: Facts, version: Optional[str], variant: Optional[str]) -> List[str]:
    """Install commands for torch `version`+`variant`, run by the target interpreter."""
    if not version or not variant:
        return []
    return install_advice(facts, version=version, variant=variant).commands


def gpus_of(facts: Facts) -> List[Dict[str, Any]]:
    return F.all_gpus(facts)


def other_env_note(facts: Facts) -> Optional[str]:
    if F.is_cuda_build(facts) is False:
        return ("The torch installed here (%s) is CPU-only, so this message came from another environment or machine; the "
                "advice is computed for this machine." % F.torch_version_str(facts))
    return None
