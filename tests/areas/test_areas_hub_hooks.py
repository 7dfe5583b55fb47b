"""torch.hub and GitHub's API rate limit: a token set here or not decides the answer."""

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

TEXT = ("  File \"/usr/local/lib/python3.10/dist-packages/torch/hub.py\", line 181, in _validate_not_a_forked_repo\n"
        "urllib.error.HTTPError: HTTP Error 403: rate limit exceeded")


def facts(env):
    return Facts({"python": {"version": "3.10.12", "executable": "/usr/bin/python3"}, "os": {"system": "Linux"},
                  "packages": {"installed": {}}, "env": env})


def test_no_token_gets_one():
    e = explain_match(match_text(TEXT)[0], facts({}))
    assert e.match.id == "torch-hub-github-unreachable" and "GITHUB_TOKEN is not set" in e.fix.summary
    assert e.fix.commands == ["export GITHUB_TOKEN=YOUR_GITHUB_TOKEN"]


def test_a_token_here_means_the_failing_process_lacked_it():
    e = explain_match(match_text(TEXT)[0], facts({"GITHUB_TOKEN": "ghp_x"}))
    assert "did not see it" in e.fix.summary


def test_another_programs_rate_limit_is_not_torch_hubs():
    assert match_text("requests.exceptions.HTTPError: HTTP Error 403: rate limit exceeded") == []
