"""Redaction: take identifying and secret values out of a finished Report.

A pure function on the Report (facts + findings), applied before any renderer
sees it, so the Markdown, JSON and text outputs can never disagree about what
was hidden. Nothing here reads the machine: the caller passes the local user
names and host names it wants hidden as well (``extra_users``, ``extra_hosts``).

What goes, and what it becomes:

* secrets -> ``<secret>``, and only the secret: the rest of the value stays,
  list separators (``:`` ``;`` ``,`` spaces) included.
  - by the *name* of an env var or fact key (TOKEN, SECRET, PASSWORD, API_KEY,
    CREDENTIALS...): the whole value;
  - by *shape* anywhere: the token formats of kb/data/secrets.json (prefix,
    character set and length of GitHub, GitLab, Slack, Stripe, AWS, GCP, Azure,
    OpenAI, Anthropic, Hugging Face, Replicate, W&B, npm, PyPI... tokens, JWTs,
    private-key blocks; facts copied from gitleaks and kingfisher), glued to a word
    too where the prefix is one no word ends in (``tokenghp_...``); a private key up
    to its END line, or, cut short, over the lines of its body only;
  - by *structure*: URL userinfo (``scheme://user:pass@host``, up to the last
    ``@`` of the authority, and a password holding a raw ``#``, ``?`` or space)
    -> ``scheme://<secret>@host``; the value of a
    ``key=value`` / ``key: value`` / JSON ``"key": "value"`` pair, a query
    parameter or a ``key=value;`` connection-string field whose key says secret
    (``X-Amz-Signature``, ``sig``, ``AccountKey``, ``SharedAccessSignature``,
    ``hf_auth``, ``pwd``...; secret_key_name), the key kept; ``/tok=value/`` in a
    path; ``--password VALUE``, in a text or as two words of a list (a command
    line); ``Bearer``/``Basic`` credentials; ``-pPASSWORD`` of a mysql-style client;
* user names - from home-directory paths (``/home/u/``, ``/Users/u/``,
  ``C:\\Users\\u\\``) and from the caller -> ``<user>``, wherever the name
  appears as a word;
* host names - ``os.hostname`` and the caller's -> ``<host>``;
* IPv4/IPv6 addresses (not loopback, not version numbers) -> ``<ip>``;
* GPU UUIDs, other UUIDs, serial numbers, MAC addresses, e-mail addresses.

The report records that redaction ran and how many values of each kind went
(counts only), under ``facts.redaction``.

Where each part lives: ``placeholders`` (what each kind becomes), ``tokens`` (secrets by
shape), ``keyblocks`` (where a private key ends), ``pairs`` (secrets by name and by
structure), ``identifiers`` (home paths, user and host names, addresses, UUIDs),
``redactor`` (the Redactor that applies them to a string or a JSON value), ``reports`` (a whole Report: redacted, marked unredacted, summarised; and
``redact_output``, whatever a surface hands out, such as the MCP server's results).
"""

from .redactor import Redactor
from .reports import local_names, mark_unredacted, redact_output, redact_report, redaction_summary

__all__ = ["Redactor", "local_names", "mark_unredacted", "redact_output", "redact_report", "redaction_summary"]
