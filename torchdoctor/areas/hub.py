"""torch.hub downloads from GitHub: the API rate limit and offline use.
"""

from typing import Optional

from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook


@hook("torch-hub-github")
def torch_hub_github(match, facts: Facts) -> Optional[Tailored]:
    if "rate limit" not in getattr(match, "text", ""):
        return None
    if F.env(facts, "GITHUB_TOKEN"):
        return Tailored(summary="GITHUB_TOKEN is set here, so this process's torch.hub calls are authenticated: the "
                                "failing run did not see it (another shell, a service, a notebook kernel started "
                                "without it), or the token is invalid or exhausted.",
                        notes=["GITHUB_TOKEN is set"])
    return Tailored(summary="GITHUB_TOKEN is not set here: set it to a GitHub token (5,000 API calls an hour instead of "
                            "60 per IP), or pass skip_validation=True / trust_repo=True for a repo you trust.",
                    commands=[F.set_env_cmd(facts, "GITHUB_TOKEN", "YOUR_GITHUB_TOKEN")],
                    notes=["GITHUB_TOKEN is not set"])
