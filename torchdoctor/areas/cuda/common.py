"""What the CUDA hooks share: the install command for a variant, and a note for errors that
came from another environment than the one diagnosed.
"""

from typing import List, Optional

from ...advice import install_advice
from ...kb.errors import get_entry
from ...model.facts import Facts
from ...model import derived as F
from ..registry import Tailored


def install_commands(facts: Facts, version: Optional[str], variant: Optional[str]) -> List[str]:
    """Install commands for torch `version`+`variant`, run by the target interpreter."""
    if not version or not variant:
        return []
    return install_advice(facts, version=version, variant=variant).commands


def other_env_note(facts: Facts) -> Optional[str]:
    if F.is_cuda_build(facts) is False:
        return ("The torch installed here (%s) is CPU-only, so this message came from another environment or machine; the "
                "advice is computed for this machine." % F.torch_version_str(facts))
    return None


def hip_reading(facts: Facts, hip_entry: str, meaning: str, notes: List[str]) -> Tailored:
    """A ROCm build prints CUDA's words for HIP's errors: the CUDA entry's message, read on such a
    build, is answered with the HIP entry's fix (one place for that fix), `meaning` saying what the
    words mean there."""
    hip = get_entry(hip_entry)
    return Tailored(cause="This torch is a ROCm build (%s): ROCm prints CUDA's words for HIP's errors, %s"
                          % (F.torch_version_str(facts) or "torch.version.hip is set", meaning),
                    summary=hip.fix["summary"], commands=list(hip.fix["commands"]), notes=notes)
