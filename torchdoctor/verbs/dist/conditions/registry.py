"""The table of dist conditions: CONDITIONS (condition id -> function, in run order), the
@condition decorator that fills it, and `finding`, the Finding every condition returns.

Apart from the families so that all of them register into one table; the package's
__init__ imports the families in the order `diagnose` runs them.
"""

from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional

from ....model.findings import Finding, Fix

CONDITIONS: "OrderedDict[str, Callable[[Dict[str, Any]], List[Finding]]]" = OrderedDict()


def condition(cid: str):
    def deco(fn):
        CONDITIONS[cid] = fn
        fn.condition_id = cid
        return fn
    return deco


def finding(cid: str, severity: str, category: str, title: str, detail: str = "", fix: str = "",
            commands: Optional[List[str]] = None, links: Optional[List[str]] = None) -> Finding:
    return Finding(id=cid, category=category, severity=severity, title=title, detail=detail,
                   fix=Fix(summary=fix, commands=list(commands or [])), links=list(links or []), check=cid)
